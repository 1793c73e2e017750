/**
 * `auto` playing OpenAI's hosted tools in the `openai` dialect, end to end on
 * a real server: the request offers a hosted tool and the user's words point
 * at it (or `tool_choice` forces it). Every stream is checked every way — the
 * strict schemas written from recorded traffic, the conformance checker, the
 * fold equal to the terminal snapshot, openai-node's
 * `responses.stream().finalResponse()` — and then driven by the clients that
 * offer these tools: the Agents SDK (`webSearchTool()`, `hostedMcpTool()`
 * with its approval flow) and the AI SDK (`openai.tools.webSearch`).
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import {
  Agent,
  hostedMcpTool,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  webSearchTool,
  type OpenAIClient,
} from "@openai/agents";
import { generateText } from "ai";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { checkStream } from "../../src/check/index.js";
import { foldEvents } from "../../src/emit/fold.js";
import type { StreamEvent } from "../../src/spec/index.js";
import { formatViolation, parseOpenAISse, validateOpenAIStream } from "../compliance/openai-schemas.js";
import { postResponses, useServer } from "../support/server.js";

type Obj = Record<string, any>;

const server = useServer({ seed: 5 });
const OPENAI = { "x-mock-dialect": "openai" };

const WEB = { type: "web_search" };
const weatherFn = {
  type: "function",
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const mcp = (extra: Obj = {}) => ({
  type: "mcp",
  server_label: "games",
  server_url: "https://mcp.example.com/sse",
  allowed_tools: ["roll_dice"],
  ...extra,
});

/** Streams one request in the openai dialect, checks it every way, and returns the events and terminal response. */
async function stream(body: Obj): Promise<{ events: Obj[]; response: Obj }> {
  const request = { model: "gpt-5-mini", stream: true, ...body };
  const res = await postResponses(server(), request, OPENAI);
  expect(res.status, res.text).toBe(200);
  expect(validateOpenAIStream(res.text).map(formatViolation)).toEqual([]);
  const verdict = checkStream(res.text, {
    dialect: "openai",
    request,
    status: 200,
    contentType: res.headers.get("content-type"),
  });
  expect(verdict.violations).toEqual([]);
  const { events } = parseOpenAISse(res.text) as { events: Obj[] };
  const terminal = events.at(-1)!;
  expect(terminal.type).toBe("response.completed");
  expect(foldEvents(events as unknown as StreamEvent[])).toEqual(terminal.response);
  // openai-node's accumulator reads the same stream to the same response.
  const client = new OpenAI({ baseURL: server().baseURL, apiKey: "test", maxRetries: 0, defaultHeaders: OPENAI });
  const final = await client.responses.stream({ model: "gpt-5-mini", ...body } as never).finalResponse();
  expect(final.output.map((o) => o.type)).toEqual(terminal.response.output.map((o: Obj) => o.type));
  return { events, response: terminal.response };
}

const outputTypes = (r: Obj) => r.output.map((o: Obj) => o.type);

describe("auto plays hosted tools in the openai dialect", () => {
  it("web_search: a search for the user's words, seeded sources when included, and an answer citing them inline", async () => {
    const body = {
      input: "Search the latest news about Berlin",
      tools: [WEB],
      include: ["web_search_call.action.sources"],
    };
    const { events, response } = await stream(body);
    expect(outputTypes(response)).toEqual(["web_search_call", "message"]);
    const search = response.output[0];
    expect(search.action.type).toBe("search");
    expect(search.action.query).toBe("latest news Berlin");
    expect(search.action.sources.length).toBeGreaterThanOrEqual(2);
    for (const s of search.action.sources) expect(s.url).toMatch(/^https:\/\/([a-z]+\.)?example\.(com|org|net)\//);
    expect(response.tool_usage).toEqual({ web_search: { num_requests: 1 } });

    // Each citation covers `([domain](url))` in the text and names a source of the search.
    const part = response.output[1].content[0];
    expect(part.annotations.length).toBeGreaterThanOrEqual(2);
    expect(part.text.startsWith('Here is what I found about "latest news Berlin":')).toBe(true);
    const urls = search.action.sources.map((s: Obj) => s.url);
    for (const a of part.annotations) {
      expect(a.type).toBe("url_citation");
      expect(urls).toContain(a.url);
      expect(part.text.slice(a.start_index, a.end_index)).toBe(`([${new URL(a.url).hostname}](${a.url}))`);
    }
    // As OpenAI places them: each annotation.added right after the delta that completes its span.
    let text = "";
    let pendingFrom = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (e.type === "response.output_text.delta") {
        text += e.delta;
        const due = part.annotations.slice(pendingFrom).filter((a: Obj) => a.end_index <= text.length).length;
        for (let k = 0; k < due; k++) {
          expect(events[i + 1 + k].type).toBe("response.output_text.annotation.added");
          expect(events[i + 1 + k].annotation).toEqual(part.annotations[pendingFrom + k]);
        }
        pendingFrom += due;
      }
    }
    expect(pendingFrom).toBe(part.annotations.length);

    // The same request answers the same words and sources (from the seed).
    const same = await stream(body);
    expect(same.response.output[0].action).toEqual(search.action);
    expect(same.response.output[1].content[0]).toEqual(part);
    // Without include, the action has no sources.
    const again = await stream({ ...body, include: [] });
    expect(again.response.output[0].action).toEqual({ type: "search", query: "latest news Berlin" });
  });

  it("web_search: one search per place the user names, counted in tool_usage", async () => {
    const { response } = await stream({ input: "What's the news in Paris and Tokyo?", tools: [WEB] });
    expect(outputTypes(response)).toEqual(["web_search_call", "web_search_call", "message"]);
    expect(response.output.slice(0, 2).map((o: Obj) => o.action.query)).toEqual(["news Paris", "news Tokyo"]);
    expect(response.tool_usage).toEqual({ web_search: { num_requests: 2 } });
    // A reasoning model reasons before each search.
    const reasoned = await stream({
      input: "What's the news in Paris and Tokyo?",
      tools: [WEB],
      reasoning: { effort: "low", summary: "auto" },
    });
    expect(outputTypes(reasoned.response)).toEqual([
      "reasoning",
      "web_search_call",
      "reasoning",
      "web_search_call",
      "message",
    ]);
    expect(reasoned.response.tools[0]).toEqual({
      type: "web_search",
      filters: null,
      search_context_size: "medium",
      user_location: { type: "approximate", city: null, country: "US", region: null, timezone: null },
    });
  });

  it("code_interpreter: code from the user's words as deltas, logs when included, and the result in the answer", async () => {
    const { events, response } = await stream({
      input: "Compute the sum of 3, 4 and 5",
      tools: [{ type: "code_interpreter", container: { type: "auto" } }],
      include: ["code_interpreter_call.outputs"],
    });
    expect(outputTypes(response)).toEqual(["code_interpreter_call", "message"]);
    expect(response.output[0].code).toBe("values = [3, 4, 5]\ntotal = sum(values)\nprint(total)");
    expect(response.output[0].outputs).toEqual([{ type: "logs", logs: "12\n" }]);
    expect(
      events
        .filter((e) => e.type === "response.code_interpreter_call_code.delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe(response.output[0].code);
    expect(response.output[1].content[0].text).toContain("12");
  });

  it("code_interpreter: a code block in the message is the code run", async () => {
    const code = "print('hi')";
    const { response } = await stream({
      input: `Run this:\n\`\`\`python\n${code}\n\`\`\``,
      tools: [{ type: "code_interpreter", container: "cntr_mine" }],
    });
    expect(response.output[0]).toMatchObject({
      type: "code_interpreter_call",
      code,
      container_id: "cntr_mine",
      outputs: null,
    });
  });

  it("image_generation: partial_images honoured, a PNG result, a message about it", async () => {
    const { events, response } = await stream({
      input: "Draw a picture of a lighthouse",
      tools: [{ type: "image_generation", partial_images: 2 }],
    });
    expect(outputTypes(response)).toEqual(["image_generation_call", "message"]);
    expect(
      events.filter((e) => e.type === "response.image_generation_call.partial_image").map((e) => e.partial_image_index),
    ).toEqual([0, 1]);
    expect(
      [...Buffer.from(response.output[0].result, "base64").subarray(1, 4)].map((c) => String.fromCharCode(c)).join(""),
    ).toBe("PNG");
  });

  it("file_search: queries from the user's words, results from the tool's vector store when included", async () => {
    const { response } = await stream({
      input: "What does the handbook.pdf document say about refunds?",
      tools: [{ type: "file_search", vector_store_ids: ["vs_42"] }],
      include: ["file_search_call.results"],
    });
    expect(outputTypes(response)).toEqual(["file_search_call", "message"]);
    const call = response.output[0];
    expect(call.queries).toEqual(["handbook pdf document say refunds"]);
    expect(call.results[0]).toMatchObject({ filename: "handbook.pdf", attributes: { vector_store_id: "vs_42" } });
    expect(call.results[0].file_id).toMatch(/^file-/);
    expect(response.output[1].content[0].text).toContain("handbook.pdf");
  });

  it("file_search: the answer cites the top file with a file_citation at the end of the sentence drawn from it; sent back as input it is accepted", async () => {
    const body = {
      input: "What does the handbook.pdf document say about refunds?",
      tools: [{ type: "file_search", vector_store_ids: ["vs_42"] }],
      include: ["file_search_call.results"],
    };
    const { events, response } = await stream(body);
    const top = response.output[0].results[0];
    const part = response.output[1].content[0];
    const index = part.text.indexOf(top.text) + top.text.length;
    expect(part.text.indexOf(top.text)).toBeGreaterThan(0);
    expect(part.annotations).toEqual([
      { type: "file_citation", file_id: top.file_id, filename: "handbook.pdf", index },
    ]);
    // Inline, as OpenAI sends it: right after the delta that reaches `index`.
    const at = events.findIndex((e) => e.type === "response.output_text.annotation.added");
    expect(Object.keys(events[at].annotation)).toEqual(["type", "file_id", "filename", "index"]);
    const sent = events
      .slice(0, at)
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => e.delta as string);
    expect(events[at - 1].type).toBe("response.output_text.delta");
    expect(sent.join("").length).toBeGreaterThanOrEqual(index);
    expect(sent.join("").length - sent.at(-1)!.length).toBeLessThan(index);

    // The whole output back as input (store: false): the cited message is accepted and the turn answers.
    const client = new OpenAI({ baseURL: server().baseURL, apiKey: "test", maxRetries: 0, defaultHeaders: OPENAI });
    const again = await client.responses.create({
      model: "gpt-5-mini",
      store: false,
      tools: body.tools as never,
      input: [
        { role: "user", content: body.input },
        ...response.output,
        { role: "user", content: "Thanks, anything else?" },
      ],
    });
    expect(again.status).toBe("completed");
  });

  it("mcp without approval: the server's tools listed the first time, a call that fits the listed tool; not listed again", async () => {
    const first = await stream({ input: "Roll the dice for me", tools: [mcp({ require_approval: "never" })] });
    expect(outputTypes(first.response)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    const [list, call] = first.response.output;
    expect(list.tools.map((t: Obj) => t.name)).toEqual(["roll_dice"]);
    expect(call).toMatchObject({ server_label: "games", name: "roll_dice", error: null, status: "completed" });
    const args = JSON.parse(call.arguments);
    expect(args.sides).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(call.output).rolls).toHaveLength(args.count ?? 1);

    const next = await stream({
      input: "Roll the dice again",
      tools: [mcp({ require_approval: "never" })],
      previous_response_id: first.response.id,
    });
    expect(outputTypes(next.response)).toEqual(["mcp_call", "message"]);
  });

  it("mcp with approval: an approval request ends turn 1; the call runs after the mcp_approval_response (previous_response_id and full input)", async () => {
    const first = await stream({ input: "Roll the dice for me", tools: [mcp({ require_approval: "always" })] });
    expect(outputTypes(first.response)).toEqual(["mcp_list_tools", "mcp_approval_request"]);
    const request = first.response.output[1];
    expect(request).toMatchObject({ server_label: "games", name: "roll_dice" });

    const approve = { type: "mcp_approval_response", approval_request_id: request.id, approve: true };
    const chained = await stream({
      input: [approve],
      tools: [mcp({ require_approval: "always" })],
      previous_response_id: first.response.id,
    });
    expect(outputTypes(chained.response)).toEqual(["mcp_call", "message"]);
    expect(chained.response.output[0]).toMatchObject({
      name: "roll_dice",
      arguments: request.arguments,
      approval_request_id: request.id,
      status: "completed",
    });

    const full = await stream({
      input: [{ role: "user", content: "Roll the dice for me" }, ...first.response.output, approve],
      tools: [mcp({ require_approval: "always" })],
      store: false,
    });
    expect(full.response.output[0]).toMatchObject({ type: "mcp_call", approval_request_id: request.id });

    const declined = await stream({
      input: [{ ...approve, approve: false }],
      tools: [mcp()],
      previous_response_id: first.response.id,
    });
    expect(outputTypes(declined.response)).toEqual(["message"]);
    expect(declined.response.output[0].content[0].text).toContain("declined roll_dice");

    const unknown = await postResponses(
      server(),
      { model: "m", input: [{ ...approve, approval_request_id: "mcpr_nope" }], tools: [mcp()] },
      OPENAI,
    );
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text).error).toMatchObject({ param: "input[0].approval_request_id" });
  });

  it("tool_choice forces a hosted tool; allowed_tools keeps hosted tools out; none calls nothing", async () => {
    const forced = await stream({ input: "Hello there", tools: [WEB, weatherFn], tool_choice: { type: "web_search" } });
    expect(outputTypes(forced.response)).toEqual(["web_search_call", "message"]);
    const allowed = await stream({
      input: "Search the news about Paris",
      tools: [WEB, weatherFn],
      tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "get_weather" }] },
    });
    expect(outputTypes(allowed.response)).not.toContain("web_search_call");
    const none = await stream({ input: "Search the news about Paris", tools: [WEB], tool_choice: "none" });
    expect(outputTypes(none.response)).toEqual(["message"]);
    const missing = await postResponses(
      server(),
      { model: "m", input: "hi", tools: [weatherFn], tool_choice: { type: "web_search" } },
      OPENAI,
    );
    expect(missing.status).toBe(400);
  });

  it("function and hosted tools mix as a model would: a search, then the function call the words name", async () => {
    const { response } = await stream({
      input: "Search the news and tell me the weather in Paris",
      tools: [WEB, weatherFn],
    });
    expect(outputTypes(response)).toEqual(["web_search_call", "function_call"]);
    expect(JSON.parse(response.output[1].arguments)).toEqual({ city: "Paris" });
    // Words that point at no tool: the function tools are called as before, no search.
    const plain = await stream({ input: "What's the weather in Oslo?", tools: [WEB, weatherFn] });
    expect(outputTypes(plain.response)).toEqual(["function_call"]);
  });

  it("the spec dialect keeps its answers: no hosted call is chosen there", async () => {
    const res = await postResponses(server(), {
      model: "m",
      input: "Search the latest news about Berlin",
      tools: [WEB],
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).output.map((o: Obj) => o.type)).toEqual(["message"]);
  });
});

// ---- the clients that offer hosted tools ----------------------------------------------------

type OpenAIConstructor = new (options: {
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  defaultHeaders?: Record<string, string>;
}) => OpenAIClient;

/** The `openai` the Agents SDK itself resolves (ESM build), not the project's. */
async function agentsOpenAI(): Promise<OpenAIConstructor> {
  const sdk = createRequire(import.meta.url).resolve("@openai/agents-openai");
  const cjs = createRequire(sdk).resolve("openai");
  const mod = await import(pathToFileURL(cjs.replace(/\.js$/, ".mjs")).href);
  return mod.default as OpenAIConstructor;
}

describe("clients with hosted tools, openai dialect", () => {
  let OpenAIv7: OpenAIConstructor;
  beforeAll(async () => {
    setTracingDisabled(true);
    OpenAIv7 = await agentsOpenAI();
  });
  const model = () =>
    new OpenAIResponsesModel(
      new OpenAIv7({ baseURL: server().baseURL, apiKey: "k", maxRetries: 0, defaultHeaders: OPENAI }),
      "gpt-5-mini",
    );

  it("Agents SDK, webSearchTool(): a search with its sources and a cited answer", async () => {
    const agent = new Agent({
      name: "Researcher",
      model: model(),
      tools: [webSearchTool()],
      modelSettings: { providerData: { include: ["web_search_call.action.sources"] } },
    });
    const result = await run(agent, "Look up the latest news about Lisbon");
    const raw = result.rawResponses[0].output as Obj[];
    expect(raw.map((o) => o.type)).toEqual(["hosted_tool_call", "message"]);
    const search = raw[0].providerData as Obj;
    expect(raw[0].name).toBe("web_search_call");
    expect(search.action.query).toBe("latest news Lisbon");
    expect(search.action.sources.length).toBeGreaterThanOrEqual(2);
    const text = raw[1].content[0];
    expect(text.providerData?.annotations ?? text.annotations).toBeDefined();
    const annotations = (text.providerData?.annotations ?? text.annotations) as Obj[];
    expect(annotations.map((a) => a.url)).toEqual(expect.arrayContaining([search.action.sources[0].url]));
    expect(result.finalOutput).toContain(`](${search.action.sources[0].url})`);
  });

  it("Agents SDK, hostedMcpTool() with approval: interrupted, approved, the call runs in the next turn", async () => {
    const tool = hostedMcpTool({
      serverLabel: "games",
      serverUrl: "https://mcp.example.com/sse",
      allowedTools: ["roll_dice"],
      requireApproval: "always",
    });
    const agent = new Agent({ name: "Dice", model: model(), tools: [tool] });
    const first = await run(agent, "Roll the dice for me");
    expect(first.interruptions).toHaveLength(1);
    expect((first.interruptions[0].rawItem as Obj).name).toBe("roll_dice");
    first.state.approve(first.interruptions[0]);
    const second = await run(agent, first.state);
    expect(second.interruptions ?? []).toHaveLength(0);
    const items = second.newItems.map((i) => i.type);
    expect(items).toContain("tool_call_item");
    expect(typeof second.finalOutput).toBe("string");
    expect(second.finalOutput).toContain("roll_dice on games returned");
  });

  it("AI SDK, openai.tools.webSearch: reports the search's sources", async () => {
    const openai = createOpenAI({ baseURL: server().baseURL, apiKey: "k", headers: OPENAI });
    const result = await generateText({
      model: openai.responses("gpt-5-mini"),
      prompt: "Search for the latest news about Porto",
      tools: { web_search: openai.tools.webSearch({}) },
      maxRetries: 0,
    });
    expect(result.finishReason).toBe("stop");
    const urls = result.sources.map((s) => (s as { url?: string }).url);
    expect(urls.length).toBeGreaterThanOrEqual(2);
    for (const url of urls) expect(url).toMatch(/^https:\/\/([a-z]+\.)?example\.(com|org|net)\//);
    expect(result.toolResults.some((r) => r.toolName === "web_search")).toBe(true);
  });
});
