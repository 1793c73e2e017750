/**
 * Scripted hosted-tool calls, end to end on a real server. In the `openai`
 * dialect each hosted step streams as api.openai.com streams it: every event
 * validated by the strict schemas written from recorded traffic
 * (test/compliance/openai-schemas.ts), the stream judged by the conformance
 * checker (src/check), folded back into exactly the terminal snapshot, and
 * read by openai-node's `responses.stream(...).finalResponse()` and
 * `responses.create()`. In the spec dialect the same steps go out as
 * `openai:`-prefixed vendor items. The items then come back: through
 * `previous_response_id` (and `input_items` lists them) and as full input
 * with `store: false`.
 */
import { inflateSync } from "node:zlib";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { checkStream } from "../../src/check/index.js";
import { foldEvents } from "../../src/emit/fold.js";
import { DEFAULT_PNG_BASE64 } from "../../src/generate/hosted.js";
import type { StreamEvent } from "../../src/spec/index.js";
import {
  formatViolation,
  parseOpenAISse,
  validateOpenAIResponse,
  validateOpenAIStream,
  withoutVendorItems,
} from "../compliance/openai-schemas.js";
import * as spec from "../compliance/schemas.js";
import { expectConformantStream, expectValidResponse } from "../support/conformance.js";
import { postResponses, useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";

const CITED = "Berlin Art Week opens today (example.com).";

/** One scenario per hosted step, each followed by a message as a model would answer. */
const SCENARIOS = [
  {
    name: "hosted-web-search",
    turns: [
      {
        steps: [
          { type: "reasoning", summary: [] },
          {
            type: "web_search_call",
            query: "Berlin news {{input}}",
            sources: ["https://example.com/berlin-art-week", "https://news.example.org/berlin"],
          },
          {
            type: "message",
            text: CITED,
            annotations: [
              { url: "https://example.com/berlin-art-week", title: "Berlin Art Week", start_index: 0, end_index: 29 },
            ],
          },
        ],
      },
      { steps: [{ type: "message", text: "Second turn after a search." }] },
    ],
  },
  {
    name: "hosted-code",
    turns: [
      {
        steps: [
          {
            type: "code_interpreter_call",
            code: "import math\nprint(math.sqrt(2))\n",
            outputs: [{ type: "logs", logs: "1.4142135623730951\n" }],
            chunk: { chars: 5 },
          },
          { type: "message", text: "The square root of 2 is about 1.414." },
        ],
      },
    ],
  },
  {
    name: "hosted-image",
    turns: [
      {
        steps: [
          { type: "image_generation_call", partial_images: 2, revised_prompt: "A small blue square" },
          { type: "message", text: "Here is your image." },
        ],
      },
    ],
  },
  {
    name: "hosted-file-search",
    turns: [
      {
        steps: [
          {
            type: "file_search_call",
            queries: ["refund policy", "{{input}}"],
            results: [
              {
                file_id: "file-abc123",
                filename: "policy.pdf",
                score: 0.92,
                text: "Refunds within 30 days.",
                attributes: { lang: "en" },
              },
            ],
          },
          { type: "message", text: "Refunds are accepted within 30 days." },
        ],
      },
    ],
  },
  {
    name: "hosted-mcp",
    turns: [
      {
        steps: [
          {
            type: "mcp_list_tools",
            server_label: "deepwiki",
            tools: [
              {
                name: "read_wiki_structure",
                description: "List a repository's wiki pages",
                input_schema: { type: "object", properties: { repoName: { type: "string" } } },
              },
            ],
          },
          {
            type: "mcp_call",
            server_label: "deepwiki",
            name: "read_wiki_structure",
            arguments: { repoName: "acme/widgets" },
            output: "1 Overview\n2 Usage",
            chunk: { chars: 8 },
          },
          {
            type: "mcp_call",
            server_label: "deepwiki",
            name: "read_wiki_structure",
            arguments: { repoName: "acme/none" },
            error: "Repository not found",
          },
          { type: "message", text: "The wiki has two pages." },
        ],
      },
    ],
  },
  {
    name: "hosted-mcp-approval",
    turns: [
      {
        steps: [
          {
            type: "mcp_approval_request",
            server_label: "deepwiki",
            name: "read_wiki_structure",
            arguments: { repoName: "acme/widgets" },
          },
        ],
      },
      {
        steps: [
          {
            type: "mcp_call",
            server_label: "deepwiki",
            name: "read_wiki_structure",
            arguments: { repoName: "acme/widgets" },
            output: "1 Overview",
          },
          { type: "message", text: "Approved and done." },
        ],
      },
    ],
  },
];

/** A file search whose answer cites the file as OpenAI does: a file_citation at the end of the cited sentence. */
const FILE_CITED_TEXT = "Refunds are accepted within 30 days. Ask support for anything else.";
const FILE_CITED = {
  name: "hosted-file-cited",
  turns: [
    {
      steps: [
        {
          type: "file_search_call",
          queries: ["refund policy"],
          results: [{ file_id: "file-abc123", filename: "policy.pdf", score: 0.92, text: "Refunds within 30 days." }],
        },
        {
          type: "message",
          text: FILE_CITED_TEXT,
          annotations: [{ type: "file_citation", file_id: "file-abc123", filename: "policy.pdf", index: 36 }],
          chunk: { chars: 6 },
        },
      ],
    },
    { steps: [{ type: "message", text: "Second turn after a cited answer." }] },
  ],
};

const INCLUDE = [
  "web_search_call.action.sources",
  "code_interpreter_call.outputs",
  "file_search_call.results",
] as const;

const getServer = useServer({ scenarios: [...SCENARIOS, FILE_CITED], library: false });

const openaiHeaders = (scenario: string) => ({ "x-mock-dialect": "openai", "x-mock-scenario": scenario });
const client = (scenario: string, dialect = "openai") =>
  new OpenAI({
    baseURL: getServer().baseURL,
    apiKey: "test",
    maxRetries: 0,
    defaultHeaders: { "x-mock-dialect": dialect, "x-mock-scenario": scenario },
  });

type Obj = Record<string, any>;

/** Streams one request in the openai dialect; checks it every way and returns the events and terminal response. */
async function streamOpenAI(scenario: string, body: Obj): Promise<{ events: Obj[]; response: Obj }> {
  const res = await postResponses(
    getServer(),
    { model: "gpt-5-mini", input: "today", stream: true, ...body },
    openaiHeaders(scenario),
  );
  expect(res.status).toBe(200);
  const violations = validateOpenAIStream(res.text);
  expect(violations.map(formatViolation)).toEqual([]);
  const verdict = checkStream(res.text, {
    dialect: "openai",
    request: { model: "gpt-5-mini", input: "today", stream: true, ...body },
    status: 200,
    contentType: res.headers.get("content-type"),
  });
  expect(verdict.violations).toEqual([]);
  const { events } = parseOpenAISse(res.text) as { events: Obj[] };
  const terminal = events.at(-1)!;
  expect(terminal.type).toBe("response.completed");
  // The fold of the stream is the terminal snapshot (reasoning_text renamed back is not needed: none here).
  expect(foldEvents(events as unknown as StreamEvent[])).toEqual(terminal.response);
  return { events, response: terminal.response };
}

const types = (events: Obj[]) => events.map((e) => e.type);
/** The events of one output item, from its added to its done. */
const itemEvents = (events: Obj[], index: number) => events.filter((e) => e.output_index === index);

describe("hosted steps in the openai dialect, as api.openai.com streams them", () => {
  it("web_search_call: added in progress, in_progress/searching/completed, done with the action; sources only when included", async () => {
    const { events, response } = await streamOpenAI("hosted-web-search", {
      include: ["web_search_call.action.sources"],
    });
    const search = itemEvents(events, 1);
    expect(types(search)).toEqual([
      "response.output_item.added",
      "response.web_search_call.in_progress",
      "response.web_search_call.searching",
      "response.web_search_call.completed",
      "response.output_item.done",
    ]);
    expect(Object.keys(search[1])).toEqual(["type", "sequence_number", "output_index", "item_id"]);
    expect(search[0].item).toEqual({ id: search[0].item.id, type: "web_search_call", status: "in_progress" });
    expect(search[0].item.id).toMatch(/^ws_[0-9a-f]{50}$/);
    expect(search[4].item.action).toEqual({
      type: "search",
      query: "Berlin news today",
      sources: [
        { type: "url", url: "https://example.com/berlin-art-week" },
        { type: "url", url: "https://news.example.org/berlin" },
      ],
    });
    // The cited answer: its annotation right after the delta that completes the span.
    const message = response.output[2];
    expect(message.content[0].annotations).toEqual([
      {
        type: "url_citation",
        url: "https://example.com/berlin-art-week",
        title: "Berlin Art Week",
        start_index: 0,
        end_index: 29,
      },
    ]);

    // As api.openai.com reports it on the final response: one search, one request.
    expect(response.tool_usage).toEqual({ web_search: { num_requests: 1 } });
    expect(events.slice(0, -1).some((e) => e.response?.tool_usage !== undefined)).toBe(false);

    const without = await streamOpenAI("hosted-web-search", {});
    expect(without.response.output[1].action).toEqual({ type: "search", query: "Berlin news today" });
  });

  it("code_interpreter_call: the code as deltas, interpreting, completed; outputs only when included", async () => {
    const { events, response } = await streamOpenAI("hosted-code", { include: ["code_interpreter_call.outputs"] });
    const code = itemEvents(events, 0);
    const kinds = [...new Set(types(code))];
    expect(kinds).toEqual([
      "response.output_item.added",
      "response.code_interpreter_call.in_progress",
      "response.code_interpreter_call_code.delta",
      "response.code_interpreter_call_code.done",
      "response.code_interpreter_call.interpreting",
      "response.code_interpreter_call.completed",
      "response.output_item.done",
    ]);
    expect(code.filter((e) => e.type.endsWith("_code.delta")).map((e) => e.delta)).toEqual([
      "impor",
      "t mat",
      "h\npri",
      "nt(ma",
      "th.sq",
      "rt(2)",
      ")\n",
    ]);
    expect(code[0].item).toMatchObject({
      type: "code_interpreter_call",
      status: "in_progress",
      code: "",
      outputs: null,
    });
    expect(response.output[0]).toMatchObject({
      status: "completed",
      code: "import math\nprint(math.sqrt(2))\n",
      outputs: [{ type: "logs", logs: "1.4142135623730951\n" }],
    });
    expect(response.output[0].container_id).toMatch(/^cntr_/);

    expect(response.tool_usage).toBeUndefined();
    const without = await streamOpenAI("hosted-code", {});
    expect(without.response.output[0].outputs).toBeNull();
  });

  it("image_generation_call: generating, one partial_image per partial_images, a valid PNG as result", async () => {
    const { events, response } = await streamOpenAI("hosted-image", {});
    expect(types(itemEvents(events, 0))).toEqual([
      "response.output_item.added",
      "response.image_generation_call.in_progress",
      "response.image_generation_call.generating",
      "response.image_generation_call.partial_image",
      "response.image_generation_call.partial_image",
      "response.image_generation_call.completed",
      "response.output_item.done",
    ]);
    expect(
      itemEvents(events, 0)
        .filter((e) => e.type.endsWith("partial_image"))
        .map((e) => e.partial_image_index),
    ).toEqual([0, 1]);
    expect(response.output[0]).toMatchObject({
      type: "image_generation_call",
      status: "completed",
      result: DEFAULT_PNG_BASE64,
      revised_prompt: "A small blue square",
    });
  });

  it("the default image is a valid PNG: signature, chunks with good CRCs, pixels that inflate to 8×8 RGB", () => {
    const png = Buffer.from(DEFAULT_PNG_BASE64, "base64");
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const crcTable = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const crc32 = (b: Buffer) => {
      let c = 0xffffffff;
      for (const byte of b) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
      return (c ^ 0xffffffff) >>> 0;
    };
    const chunks: { type: string; data: Buffer }[] = [];
    for (let at = 8; at < png.length;) {
      const length = png.readUInt32BE(at);
      const typeAndData = png.subarray(at + 4, at + 8 + length);
      expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(typeAndData));
      chunks.push({ type: typeAndData.subarray(0, 4).toString("latin1"), data: typeAndData.subarray(4) });
      at += 12 + length;
    }
    expect(chunks.map((c) => c.type)).toEqual(["IHDR", "IDAT", "IEND"]);
    expect([
      chunks[0].data.readUInt32BE(0),
      chunks[0].data.readUInt32BE(4),
      chunks[0].data[8],
      chunks[0].data[9],
    ]).toEqual([8, 8, 8, 2]);
    expect(inflateSync(chunks[1].data).length).toBe(8 * (1 + 8 * 3));
  });

  it("file_search_call: searching; queries filled; results only when included", async () => {
    const { events, response } = await streamOpenAI("hosted-file-search", { include: ["file_search_call.results"] });
    expect(types(itemEvents(events, 0))).toEqual([
      "response.output_item.added",
      "response.file_search_call.in_progress",
      "response.file_search_call.searching",
      "response.file_search_call.completed",
      "response.output_item.done",
    ]);
    expect(response.output[0]).toMatchObject({
      status: "completed",
      queries: ["refund policy", "today"],
      results: [
        {
          file_id: "file-abc123",
          filename: "policy.pdf",
          score: 0.92,
          text: "Refunds within 30 days.",
          attributes: { lang: "en" },
        },
      ],
    });
    expect((await streamOpenAI("hosted-file-search", {})).response.output[0].results).toBeNull();
  });

  it("mcp_list_tools then mcp_call (arguments as deltas, completed) and a failing mcp_call (failed, error)", async () => {
    const { events, response } = await streamOpenAI("hosted-mcp", {});
    expect(types(itemEvents(events, 0))).toEqual([
      "response.output_item.added",
      "response.mcp_list_tools.in_progress",
      "response.mcp_list_tools.completed",
      "response.output_item.done",
    ]);
    const call = itemEvents(events, 1);
    expect([...new Set(types(call))]).toEqual([
      "response.output_item.added",
      "response.mcp_call.in_progress",
      "response.mcp_call_arguments.delta",
      "response.mcp_call_arguments.done",
      "response.mcp_call.completed",
      "response.output_item.done",
    ]);
    expect(response.output[0]).toMatchObject({
      type: "mcp_list_tools",
      server_label: "deepwiki",
      tools: [{ name: "read_wiki_structure", description: "List a repository's wiki pages" }],
    });
    expect(response.output[1]).toMatchObject({
      type: "mcp_call",
      status: "completed",
      arguments: '{"repoName":"acme/widgets"}',
      output: "1 Overview\n2 Usage",
      error: null,
    });
    expect(types(itemEvents(events, 2))).toContain("response.mcp_call.failed");
    expect(response.output[2]).toMatchObject({
      type: "mcp_call",
      status: "failed",
      output: null,
      error: "Repository not found",
    });
  });

  it("openai-node's stream() accumulator and create() read every hosted stream, equal to the terminal snapshot", async () => {
    for (const scenario of SCENARIOS.map((s) => s.name)) {
      const c = client(scenario);
      const streamed = await c.responses
        .stream({ model: "gpt-5-mini", input: "today", include: [...INCLUDE] })
        .finalResponse();
      const created = await c.responses.create({ model: "gpt-5-mini", input: "today", include: [...INCLUDE] });
      // openai-node adds `output_text` to what it parsed: not on the wire.
      // Ids differ (a stream and a body are two requests), and the SDK adds output_text, parsed and output_parsed; everything else is equal.
      const sdkKeys = new Set(["output_text", "parsed", "output_parsed"]);
      const strip = (r: Obj) =>
        JSON.parse(
          JSON.stringify(r, (k, v) => (sdkKeys.has(k) ? undefined : v)).replace(/\b([a-z]+)_[0-9a-f]{50}\b/g, "$1_ID"),
        );
      expect(
        validateOpenAIResponse({ ...(created as Obj), output_text: undefined })
          .filter((v) => v.path !== "$" || !/output_text/.test(v.message))
          .map(formatViolation),
      ).toEqual([]);
      expect(strip(streamed as Obj)).toEqual(strip(created as Obj));
      expect((created as Obj).output.length).toBeGreaterThan(0);
    }
  });
});

describe("hosted steps in the spec dialect: openai:-prefixed vendor items", () => {
  it("sends each hosted call whole as an openai:<type> item, with no OpenAI tool events; the checker and the spec schemas accept it", async () => {
    for (const scenario of SCENARIOS.map((s) => s.name)) {
      const body = { model: "m", input: "today", stream: true, include: [...INCLUDE] };
      const res = await postResponses(getServer(), body, { "x-mock-scenario": scenario });
      expect(res.status).toBe(200);
      const events = parseSseStrict(res.text).events as any[];
      const final = expectConformantStream(events);
      expect(
        checkStream(res.text, { request: body, status: 200, contentType: res.headers.get("content-type") }).violations,
      ).toEqual([]);
      expect(
        events.some((e) =>
          /^response\.(web_search_call|code_interpreter|image_generation|file_search|mcp)/.test(e.type),
        ),
      ).toBe(false);
      // The independent spec schemas (test/compliance) for everything but the custom items,
      // which follow the extension rules: a slug-prefixed type, an id and a status.
      events.forEach((ev, i) => {
        if (ev.item?.type?.startsWith("openai:")) return;
        const r = spec.StreamingEvent.safeParse(
          ev.response ? { ...ev, response: withoutVendorItems(ev.response) } : ev,
        );
        expect(r.success, r.success ? "" : `event #${i} ${ev.type}: ${spec.formatIssues(r.error).join("; ")}`).toBe(
          true,
        );
      });
      const hosted = (final.output as Obj[]).filter((o) => o.type.startsWith("openai:"));
      expect(hosted.length).toBeGreaterThan(0);
      for (const item of hosted) {
        expect(item.type).toMatch(
          /^openai:(web_search_call|code_interpreter_call|image_generation_call|file_search_call|mcp_list_tools|mcp_call|mcp_approval_request)$/,
        );
        expect(typeof item.id).toBe("string");
        expect(item.status).toBe("completed");
      }
    }
    const res = await postResponses(
      getServer(),
      { model: "m", input: "today", include: ["web_search_call.action.sources"] },
      { "x-mock-scenario": "hosted-web-search" },
    );
    const body = JSON.parse(res.text);
    expectValidResponse(body);
    expect(body.output[1]).toMatchObject({
      type: "openai:web_search_call",
      status: "completed",
      action: {
        type: "search",
        query: "Berlin news today",
        sources: [
          { type: "url", url: "https://example.com/berlin-art-week" },
          { type: "url", url: "https://news.example.org/berlin" },
        ],
      },
    });
  });
});

describe("hosted items of the spec dialect come back too", () => {
  it("an openai:mcp_approval_request answered through previous_response_id and as full input: the next turn plays", async () => {
    const spec = client("hosted-mcp-approval", "open-responses");
    const asked = await spec.responses.create({ model: "m", input: "read the wiki" });
    const request = (asked.output as Obj[])[0];
    expect(request).toMatchObject({
      type: "openai:mcp_approval_request",
      status: "completed",
      server_label: "deepwiki",
    });
    const approval = { type: "mcp_approval_response", approval_request_id: request.id, approve: true } as any;
    const next = await spec.responses.create({ model: "m", previous_response_id: asked.id, input: [approval] });
    expect((next.output as Obj[])[0]).toMatchObject({ type: "openai:mcp_call", output: "1 Overview" });
    const full = await spec.responses.create({
      model: "m",
      store: false,
      input: [{ role: "user", content: "read the wiki" }, request as any, approval],
    });
    expect((full.output as Obj[]).map((o) => o.type)).toEqual(["openai:mcp_call", "message"]);
    const listed = (await spec.responses.inputItems.list(next.id)).data as Obj[];
    expect(listed).toContainEqual(
      expect.objectContaining({ type: "mcp_approval_response", approval_request_id: request.id }),
    );
  });
});

describe("hosted items come back in the next turn", () => {
  it("through previous_response_id: the conversation holds them (the next turn is turn 2), the stored response keeps them", async () => {
    const c = client("hosted-web-search");
    const first = await c.responses.create({
      model: "gpt-5-mini",
      input: "today",
      include: ["web_search_call.action.sources"],
    });
    const second = await c.responses.create({
      model: "gpt-5-mini",
      previous_response_id: first.id,
      input: "And tomorrow?",
    });
    expect(second.output_text).toBe("Second turn after a search.");
    const stored = (await c.responses.retrieve(first.id)) as Obj;
    expect(stored.output[1]).toEqual((first.output as Obj[])[1]);
    expect(stored.output[1]).toMatchObject({ type: "web_search_call", status: "completed" });
  });

  it("sent back as input (store: true): accepted as sent, and input_items lists each hosted item whole", async () => {
    const c = client("hosted-mcp");
    const first = await c.responses.create({ model: "gpt-5-mini", input: "wiki", store: false });
    const sent = first.output as Obj[];
    const second = await c.responses.create({
      model: "gpt-5-mini",
      input: [{ role: "user", content: "wiki" }, ...(sent as any[]), { role: "user", content: "more" }],
    });
    const listed = (await c.responses.inputItems.list(second.id, { order: "asc" })).data as Obj[];
    const hosted = sent.filter((i) => i.type !== "message");
    expect(hosted.map((i) => i.type)).toEqual(["mcp_list_tools", "mcp_call", "mcp_call"]);
    for (const item of hosted) expect(listed.find((i) => i.id === item.id)).toEqual(item);
    expect(listed.filter((i) => i.type === "mcp_call")).toHaveLength(2);
  });

  it("as full input with store: false (web search, code, MCP approval round trip)", async () => {
    const c = client("hosted-web-search");
    const first = await c.responses.create({
      model: "gpt-5-mini",
      input: "today",
      store: false,
      include: ["web_search_call.action.sources"],
    });
    const second = await c.responses.create({
      model: "gpt-5-mini",
      store: false,
      input: [
        { role: "user", content: "today" },
        ...(first.output as any[]),
        { role: "user", content: "And tomorrow?" },
      ],
    });
    expect(second.output_text).toBe("Second turn after a search.");

    const code = client("hosted-code");
    const ran = await code.responses.create({
      model: "gpt-5-mini",
      input: "run it",
      store: false,
      include: ["code_interpreter_call.outputs"],
    });
    const again = await code.responses.create({
      model: "gpt-5-mini",
      store: false,
      input: [{ role: "user", content: "run it" }, ...(ran.output as any[]), { role: "user", content: "again" }],
    });
    expect(again.status).toBe("completed");

    // MCP approval: the request, then the client's mcp_approval_response, then the call.
    const mcp = client("hosted-mcp-approval");
    const asked = await mcp.responses.create({ model: "gpt-5-mini", input: "read the wiki", store: false });
    const request = (asked.output as Obj[])[0];
    expect(request).toMatchObject({
      type: "mcp_approval_request",
      server_label: "deepwiki",
      name: "read_wiki_structure",
      arguments: '{"repoName":"acme/widgets"}',
    });
    expect(request.id).toMatch(/^mcpr_[0-9a-f]{50}$/);
    const approved = await mcp.responses.create({
      model: "gpt-5-mini",
      store: false,
      input: [
        { role: "user", content: "read the wiki" },
        request as any,
        { type: "mcp_approval_response", approval_request_id: request.id, approve: true },
      ],
    });
    expect((approved.output as Obj[])[0]).toMatchObject({
      type: "mcp_call",
      status: "completed",
      output: "1 Overview",
    });
    expect(approved.output_text).toBe("Approved and done.");
  });
});

describe("file_citation: a scripted citation of a searched file", () => {
  it("openai dialect: annotation.added right after the delta that reaches `index`, in OpenAI's key order; the fold, the checker and openai-node agree", async () => {
    expect(FILE_CITED_TEXT.slice(0, 36)).toBe("Refunds are accepted within 30 days.");
    const { events, response } = await streamOpenAI("hosted-file-cited", { include: ["file_search_call.results"] });
    const annotation = { type: "file_citation", file_id: "file-abc123", filename: "policy.pdf", index: 36 };
    expect(response.output[1].content[0].annotations).toEqual([annotation]);
    const at = events.findIndex((e) => e.type === "response.output_text.annotation.added");
    expect(Object.keys(events[at].annotation)).toEqual(["type", "file_id", "filename", "index"]);
    expect(events[at]).toMatchObject({ output_index: 1, content_index: 0, annotation_index: 0, annotation });
    const deltas = events
      .slice(0, at)
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => e.delta);
    expect(events[at - 1].type).toBe("response.output_text.delta");
    // Chunks of 6 characters: 36 characters are sent in 6 deltas, then the citation, then the rest of the text.
    expect(deltas.join("")).toBe(FILE_CITED_TEXT.slice(0, 36));
    expect(events.slice(at + 1).some((e) => e.type === "response.output_text.delta")).toBe(true);

    const final = await client("hosted-file-cited")
      .responses.stream({ model: "gpt-5-mini", input: "today", include: ["file_search_call.results"] })
      .finalResponse();
    expect((final.output[1] as Obj).content[0].annotations).toEqual([annotation]);
  });

  it("spec dialect: refused with a clear 400 (the spec's only annotation is url_citation)", async () => {
    const res = await postResponses(
      getServer(),
      { model: "gpt-5-mini", input: "today" },
      { "x-mock-scenario": "hosted-file-cited" },
    );
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text);
    expect(body.error).toMatchObject({
      type: "invalid_request",
      code: "unsupported_annotation",
      param: "x-mock-dialect",
    });
    expect(body.error.message).toMatch(/file_citation/);
    expect(body.error.message).toMatch(/openai dialect/);
  });

  it("the cited message comes back as input (store: false and store: true): accepted, listed whole by input_items", async () => {
    const c = client("hosted-file-cited");
    const first = await c.responses.create({
      model: "gpt-5-mini",
      input: "refunds?",
      store: false,
      include: ["file_search_call.results"],
    });
    const cited = (first.output as Obj[])[1];
    expect(cited.content[0].annotations).toEqual([
      { type: "file_citation", file_id: "file-abc123", filename: "policy.pdf", index: 36 },
    ]);
    const input = [
      { role: "user", content: "refunds?" },
      ...(first.output as any[]),
      { role: "user", content: "And exchanges?" },
    ];
    const again = await c.responses.create({ model: "gpt-5-mini", store: false, input });
    expect(again.output_text).toBe("Second turn after a cited answer.");

    const stored = await c.responses.create({ model: "gpt-5-mini", input });
    const listed = (await c.responses.inputItems.list(stored.id, { order: "asc" })).data as Obj[];
    // Listed as sent, its file_citation whole (an input output_text part keeps type, text and annotations).
    const { logprobs: _dropped, ...sentPart } = cited.content[0];
    expect(listed.find((i) => i.id === cited.id)).toEqual({ ...cited, content: [sentPart] });

    // A malformed file_citation is refused, naming where.
    const bad = await postResponses(
      getServer(),
      {
        model: "gpt-5-mini",
        input: [
          {
            type: "message",
            role: "assistant",
            content: [
              { type: "output_text", text: "x", annotations: [{ type: "file_citation", file_id: "file-1", index: 0 }] },
            ],
          },
        ],
      },
      openaiHeaders("hosted-file-cited"),
    );
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatchObject({
      type: "invalid_request_error",
      param: "input[0].content[0].annotations[0].filename",
    });
  });
});
