/**
 * `auto`'s hosted tools, pure: what the user's words and `tool_choice`
 * decide, that the spec's default form plays none of it, and that every
 * hosted answer is a stream in order whose fold is its terminal snapshot,
 * over many seeds and request shapes (the conformance checker and OpenAI's
 * recorded shapes judge them end to end: test/e2e/hosted-auto.test.ts).
 */
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { foldEvents } from "../../src/emit/fold.js";
import { planAuto } from "../../src/generate/auto.js";
import {
  callableHosted,
  citedAnswer,
  interpreterCode,
  needsApproval,
  searchQueries,
} from "../../src/generate/hosted-pick.js";
import { createIdSource } from "../../src/generate/ids.js";
import { createRng } from "../../src/generate/rng.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { CreateResponseBody } from "../../src/spec/index.js";

const plan = (body: unknown, seed = "s", hostedItems: "native" | "vendor" = "native") => {
  const request = CreateResponseBody.parse(body);
  return planAuto({
    request,
    items: inputItems(request.input),
    rng: createRng(seed),
    ids: createIdSource("ids"),
    vendorExtensions: false,
    hostedItems,
    createdAt: 1_767_225_600,
  });
};
/** The answer's output, after checking its stream: sequence numbers in order, a terminal event, the fold equal to its snapshot. */
const output = (body: unknown, seed = "s") => {
  const events = emitEvents(plan(body, seed)) as any[];
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const terminal = events.at(-1);
  expect(["response.completed", "response.incomplete"]).toContain(terminal.type);
  expect(foldEvents(events as never)).toEqual(terminal.response);
  return terminal.response.output as any[];
};
const types = (out: any[]) => out.map((o) => o.type);

const WEB = { type: "web_search" };
const CODE = { type: "code_interpreter", container: { type: "auto" } };
const IMAGE = { type: "image_generation", partial_images: 1 };
const FILES = { type: "file_search", vector_store_ids: ["vs_1"] };
const MCP = { type: "mcp", server_label: "tools", server_url: "https://mcp.example.com", require_approval: "never" };
const ALL = [WEB, CODE, IMAGE, FILES, MCP];

describe("auto with hosted tools", () => {
  it("the words decide the tool", () => {
    expect(types(output({ model: "m", input: "Look up the latest headlines", tools: ALL }))).toContain(
      "web_search_call",
    );
    expect(types(output({ model: "m", input: "Plot a chart of squares", tools: ALL }))).toContain(
      "code_interpreter_call",
    );
    expect(types(output({ model: "m", input: "Draw a cat", tools: ALL }))).toContain("image_generation_call");
    expect(types(output({ model: "m", input: "What do my documents say about leave?", tools: ALL }))).toContain(
      "file_search_call",
    );
    const plain = types(output({ model: "m", input: "Hello, how are you?", tools: ALL }));
    // A new MCP server is listed, nothing is called, the answer is text.
    expect(plain).toEqual(["mcp_list_tools", "message"]);
  });

  it("the spec's default form plays no hosted tool: the answer is what it was", () => {
    const request = { model: "m", input: "Search the latest news", tools: ALL };
    const vendor = emitEvents(plan(request, "s", "vendor")) as any[];
    expect(types(vendor.at(-1).response.output)).toEqual(["message"]);
  });

  it("tool_choice: forced, allowed_tools, required with only hosted tools, none", () => {
    expect(
      types(output({ model: "m", input: "Hi", tools: [WEB, CODE], tool_choice: { type: "code_interpreter" } })),
    ).toEqual(["code_interpreter_call", "message"]);
    expect(
      callableHosted(CreateResponseBody.parse({ model: "m", input: "x", tools: [WEB, CODE], tool_choice: "required" }))
        .forced?.kind,
    ).toBe("web_search");
    expect(
      callableHosted(
        CreateResponseBody.parse({
          model: "m",
          input: "x",
          tools: [WEB, CODE],
          tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "code_interpreter" }] },
        }),
      ),
    ).toMatchObject({ forced: { kind: "code_interpreter" } });
    expect(
      callableHosted(CreateResponseBody.parse({ model: "m", input: "x", tools: [WEB], tool_choice: "none" })).offered,
    ).toEqual([]);
    expect(
      types(
        output({
          model: "m",
          input: "Search the news",
          tools: [WEB, CODE],
          tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "code_interpreter" }] },
        }),
      ),
    ).toEqual(["message"]);
  });

  it("approval rules: never, always, and the filter object", () => {
    expect(needsApproval({ require_approval: "never" }, "a")).toBe(false);
    expect(needsApproval({}, "a")).toBe(true);
    expect(needsApproval({ require_approval: { never: { tool_names: ["a"] } } }, "a")).toBe(false);
    expect(needsApproval({ require_approval: { never: { tool_names: ["a"] } } }, "b")).toBe(true);
  });

  it("queries, code and citations from the user's words", () => {
    expect(searchQueries("Search the weather in Rome and Madrid")).toEqual(["weather Rome", "weather Madrid"]);
    expect(interpreterCode("calculate 2 and 2.5").logs).toBe("4.5\n");
    const { text, annotations } = citedAnswer(
      "Found:",
      ["One.", "Two."],
      [{ url: "https://example.com/a", title: "A", domain: "example.com" }],
    );
    expect(annotations.map((a) => text.slice(a.start_index, a.end_index))).toEqual([
      "([example.com](https://example.com/a))",
      "([example.com](https://example.com/a))",
    ]);
  });

  it("a file search's answer cites the top file with a file_citation at the end of the sentence drawn from it", () => {
    for (const seed of ["s", "t", "u"]) {
      const events = emitEvents(
        plan(
          {
            model: "m",
            input: "What do report.pdf and notes.md say about leave?",
            tools: [FILES],
            include: ["file_search_call.results"],
          },
          seed,
        ),
      ) as any[];
      const out = events.at(-1).response.output;
      expect(types(out)).toEqual(["file_search_call", "message"]);
      const top = out[0].results[0];
      const part = out[1].content[0];
      expect(part.annotations).toEqual([
        {
          type: "file_citation",
          file_id: top.file_id,
          filename: top.filename,
          index: part.text.indexOf(top.text) + top.text.length,
        },
      ]);
      // OpenAI's key order, and the cited sentence is the top result's text ending at `index`.
      expect(Object.keys(part.annotations[0])).toEqual(["type", "file_id", "filename", "index"]);
      expect(part.text.slice(0, part.annotations[0].index).endsWith(top.text)).toBe(true);
      // Sent inline: right after the delta that reaches `index`, before any later delta.
      const at = events.findIndex((e) => e.type === "response.output_text.annotation.added");
      const sent = events
        .slice(0, at)
        .filter((e) => e.type === "response.output_text.delta")
        .map((e) => e.delta)
        .join("");
      const lastDelta = events
        .slice(0, at)
        .filter((e) => e.type === "response.output_text.delta")
        .at(-1).delta;
      expect(sent.length).toBeGreaterThanOrEqual(part.annotations[0].index);
      expect(sent.length - lastDelta.length).toBeLessThan(part.annotations[0].index);
      expect(events[at - 1].type).toBe("response.output_text.delta");
    }
  });

  it("gives streams whose fold is the snapshot, for many seeds and shapes", () => {
    const shapes: unknown[] = [
      {
        model: "m",
        input: "Search the latest news about Paris and Tokyo",
        tools: [WEB],
        include: ["web_search_call.action.sources"],
        reasoning: { effort: "low", summary: "auto" },
      },
      { model: "m", input: "Run ```python\nprint(1)\n```", tools: [CODE], include: ["code_interpreter_call.outputs"] },
      { model: "m", input: "Draw a picture", tools: [{ type: "image_generation", partial_images: 3 }] },
      { model: "m", input: "Find it in my files", tools: [FILES], include: ["file_search_call.results"] },
      {
        model: "m",
        input: "Roll the dice, search the docs, get the current time",
        tools: [MCP, { ...MCP, server_label: "other", require_approval: "always" }],
      },
      {
        model: "m",
        input: "Search the news and the weather in Oslo",
        tools: [
          WEB,
          {
            type: "function",
            name: "get_weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
          },
        ],
      },
      { model: "m", input: "Search the news", tools: [WEB], max_output_tokens: 16 },
      { model: "m", input: "Search the news", tools: [WEB], text: { format: { type: "json_object" } } },
    ];
    for (let seed = 0; seed < 60; seed++) for (const shape of shapes) output(shape, `seed-${seed}`);
  });
});
