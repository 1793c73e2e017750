/**
 * The shipped scenario library (scenarios/*.json): every scenario against a
 * real server, streamed and not, over several seeds; turn 2 of the agentic
 * scenarios; selection by header, model name and match rules; golden streams
 * (UPDATE_GOLDEN=1 rewrites test/golden/*.ndjson); the `random` scenario over
 * 1,000 seeds with the pure core; and a two-turn loop with the openai SDK.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/index.js";
import {
  ANSWER_KINDS,
  createIdSource,
  createRng,
  planScenario,
  requestSeed,
  type AnswerKind,
} from "../../src/generate/index.js";
import { countTokens } from "../../src/generate/tokens.js";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import { inputItems } from "../../src/scenario/conversation.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { CreateResponseBody, ErrorBody, type ResponseResource } from "../../src/spec/index.js";
import { expectConformantStream, expectValidResponse } from "../support/conformance.js";
import { withoutIds } from "../support/ids.js";
import { postResponses, TEST_NOW_MS, useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { LIBRARY_TOOLS, LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

// ---- the library ------------------------------------------------------------

const LIBRARY = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
const byName = new Map(LIBRARY.map((s) => [s.name, s]));
const lib = (name: string): Scenario => {
  const s = byName.get(name);
  if (!s) throw new Error(`library scenario '${name}' is missing`);
  return s;
};

const HTTP_ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503];
const REQUIRED = [
  "text",
  "long-text",
  "reasoning",
  "tool-call",
  "parallel-tool-calls",
  "streamed-arguments",
  "refusal",
  "incomplete",
  "content-filter",
  "failure-mid-stream",
  "vendor",
  "annotations",
  "random",
  ...HTTP_ERROR_STATUSES.map((s) => `error-${s}`),
];

type HttpErrorEnd = Extract<NonNullable<Scenario["turns"]>[number]["end"], { type: "http_error" }>;
const httpErrorEnd = (s: Scenario): HttpErrorEnd | undefined => {
  const end = s.turns?.[0].end;
  return end?.type === "http_error" ? end : undefined;
};
const isScripted = (s: Scenario) => s.turns !== undefined;
const usesTools = (s: Scenario) =>
  s.generate !== undefined || (s.turns ?? []).some((t) => t.steps.some((step) => step.type === "function_call"));

const SCRIPTED = LIBRARY.filter((s) => isScripted(s) && !httpErrorEnd(s));
const MULTI_TURN = SCRIPTED.filter((s) => s.turns!.length > 1);

const TOOLS = LIBRARY_TOOLS;

/** The request body a scenario is played with: tools when it calls functions (or may, for random). */
function bodyFor(s: Scenario, input: unknown = "Hello there, library!"): Record<string, unknown> {
  return { model: "mock-model-1", input, ...(usesTools(s) ? { tools: TOOLS } : {}) };
}

const SEEDS = [1, 2, 3];
const headersFor = (name: string, seed: number) => ({ "x-mock-scenario": name, "x-mock-seed": String(seed) });

type Ev = ReturnType<typeof parseSseStrict>["events"][number];

/** The scripted end a response must show (turn 0, or the given turn). */
function expectOutcome(s: Scenario, response: ResponseResource, events: readonly Ev[], turn = 0) {
  if (!s.turns) {
    expect(["completed", "incomplete", "failed"]).toContain(response.status);
    return;
  }
  const end = s.turns[Math.min(turn, s.turns.length - 1)].end ?? { type: "completed" as const };
  switch (end.type) {
    case "completed":
      expect(response.status).toBe("completed");
      break;
    case "incomplete":
      expect(response.status).toBe("incomplete");
      expect(response.incomplete_details).toEqual({ reason: end.reason });
      break;
    case "failed":
      expect(response.status).toBe("failed");
      if (end.error?.message) expect(response.error?.message).toBe(end.error.message);
      if (end.afterEvents !== undefined) {
        expect(events[Math.max(2, end.afterEvents)].type).toBe("error");
        expect(events).toHaveLength(Math.max(2, end.afterEvents) + 2);
      }
      break;
    default:
      throw new Error(`unexpected end ${end.type}`);
  }
}

async function streamed(
  mock: ReturnType<ReturnType<typeof useServer>>,
  body: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const res = await postResponses(mock, { ...body, stream: true }, headers);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const { events } = parseSseStrict(res.text);
  const response = expectConformantStream(events);
  return { res, events, response };
}

async function plain(
  mock: ReturnType<ReturnType<typeof useServer>>,
  body: Record<string, unknown>,
  headers: Record<string, string>,
) {
  const res = await postResponses(mock, body, headers);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  const json = JSON.parse(res.text);
  expectValidResponse(json);
  return { res, response: json as ResponseResource };
}

function expectHttpError(s: Scenario, res: Awaited<ReturnType<typeof postResponses>>) {
  const end = httpErrorEnd(s)!;
  expect(res.status).toBe(end.status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(res.text);
  const parsed = ErrorBody.safeParse(body);
  expect(parsed.success, res.text).toBe(true);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error.message.length).toBeGreaterThan(10);
  if (end.error?.message) expect(body.error.message).toBe(end.error.message);
  if (end.error?.code !== undefined) expect(body.error.code).toBe(end.error.code);
  if (end.error?.type) expect(body.error.type).toBe(end.error.type);
  for (const [k, v] of Object.entries(end.headers ?? {})) expect(res.headers.get(k)).toBe(v);
}

const server = useServer({ seed: 1 });

describe("the shipped library files", () => {
  it("has the required scenarios", () => {
    expect(LIBRARY.map((s) => s.name)).toEqual(expect.arrayContaining(REQUIRED));
  });

  it("each file has $schema, a name equal to its file name, a one-line description and no match rules", async () => {
    const files = (await readdir(LIBRARY_DIR)).filter((f) => f.endsWith(".json") && !f.endsWith(".schema.json"));
    expect(files.length).toBe(LIBRARY.length);
    for (const file of files) {
      const raw = JSON.parse(await readFile(join(LIBRARY_DIR, file), "utf8"));
      expect(raw.$schema, file).toBe("../scenario.schema.json");
      expect(raw.name, file).toBe(basename(file, ".json"));
      expect(raw.name, file).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(typeof raw.description).toBe("string");
      expect(raw.description, file).not.toMatch(/[\r\n]/);
      expect(raw.description.length, file).toBeGreaterThan(20);
      expect(raw.match, `${file} must not have match rules`).toBeUndefined();
      expect(raw.timing, file).toBeUndefined();
    }
  });

  it("429 sends retry-after: 2", () => {
    expect(httpErrorEnd(lib("error-429"))!.headers?.["retry-after"]).toBe("2");
  });

  it("annotation indices cover the cited phrases of the text", () => {
    const step = lib("annotations").turns![0].steps.find((s) => s.type === "message")!;
    if (step.type !== "message") throw new Error("unreachable");
    const text = step.text!;
    expect(step.annotations!.length).toBeGreaterThanOrEqual(2);
    for (const a of step.annotations!) {
      if (a.type !== "url_citation") throw new Error(`the library's annotations are url_citations, got ${a.type}`);
      expect(a.start_index).toBeLessThan(a.end_index);
      expect(a.end_index).toBeLessThanOrEqual(text.length);
      const cited = text.slice(a.start_index, a.end_index);
      expect(cited.trim()).toBe(cited);
      expect(cited).toMatch(/^\w.*\w$/);
      // Whole words: no letter right outside the span.
      expect(text[a.start_index - 1] ?? " ").toMatch(/\W/);
      expect(text[a.end_index] ?? " ").toMatch(/\W/);
    }
  });
});

describe.each(LIBRARY.map((s) => [s.name, s] as const))("library scenario %s", (name, scenario) => {
  it.each(SEEDS)("answers by header with seed %i, streamed and not", async (seed) => {
    const mock = server();
    const body = bodyFor(scenario);
    const headers = headersFor(name, seed);
    if (httpErrorEnd(scenario)) {
      expectHttpError(scenario, await postResponses(mock, { ...body, stream: true }, headers));
      expectHttpError(scenario, await postResponses(mock, body, headers));
      return;
    }
    const s = await streamed(mock, body, headers);
    expect(s.res.headers.get("x-mock-scenario")).toBe(name);
    expectOutcome(scenario, s.response, s.events);
    const p = await plain(mock, body, headers);
    expect(p.res.headers.get("x-mock-scenario")).toBe(name);
    // The same answer but for its ids: no two answers of a server share one.
    expect(withoutIds(p.response)).toEqual(withoutIds(s.response));
    expect(p.response.id).not.toBe(s.response.id);
  });

  it("is chosen by a request whose model is its name", async () => {
    const mock = server();
    const body = { ...bodyFor(scenario), model: name };
    const res = await postResponses(mock, body, { "x-mock-seed": "5" });
    if (httpErrorEnd(scenario)) return expectHttpError(scenario, res);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-mock-scenario")).toBe(name);
    const json = JSON.parse(res.text);
    expectValidResponse(json);
    expect(json.model).toBe(scenario.model ?? name);
    // The same answer as by header.
    const viaHeader = await postResponses(mock, body, headersFor(name, 5));
    expect(withoutIds(JSON.parse(viaHeader.text))).toEqual(withoutIds(json));
  });
});

describe("what the library scenarios say", () => {
  const get = async (name: string, extra: Record<string, unknown> = {}) => {
    const s = lib(name);
    return streamed(server(), { ...bodyFor(s), ...extra }, headersFor(name, 1));
  };
  const ofType = (events: readonly Ev[], type: string) =>
    events.filter((e) => e.type === type) as Array<Ev & Record<string, any>>;
  const messageText = (r: ResponseResource) =>
    r.output
      .flatMap((o) => (o.type === "message" ? o.content : []))
      .map((c) => (c.type === "output_text" ? c.text : ""))
      .join("");

  it("text quotes the user's message", async () => {
    const { response } = await get("text");
    expect(response.output.map((o) => o.type)).toEqual(["message"]);
    expect(messageText(response)).toContain('"Hello there, library!"');
  });

  it("long-text is 400+ words in several paragraphs, one token per delta", async () => {
    const { response, events } = await get("long-text");
    const text = messageText(response);
    expect(text.split(/\s+/).length).toBeGreaterThanOrEqual(400);
    expect(text.split("\n\n").length).toBeGreaterThanOrEqual(4);
    const deltas = ofType(events, "response.output_text.delta");
    expect(deltas.length).toBeGreaterThan(400);
    for (const d of deltas) expect(countTokens(d.delta)).toBe(1);
    expect(deltas.map((d) => d.delta).join("")).toBe(text);
  });

  it("reasoning without reasoning.summary asked: the item has summary [] and no summary events, as OpenAI sends it", async () => {
    const { response, events } = await get("reasoning");
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    expect((response.output[0] as unknown as { summary: unknown[] }).summary).toEqual([]);
    expect(events.filter((e) => e.type.startsWith("response.reasoning_summary"))).toEqual([]);
    expect(ofType(events, "response.reasoning.delta").length).toBeGreaterThan(3);
  });

  it("reasoning has two summary parts, raw reasoning text and encrypted_content, then text", async () => {
    const { response, events } = await get("reasoning", { reasoning: { summary: "auto" } });
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    const rs = response.output[0] as unknown as {
      summary: { text: string }[];
      content?: { type: string; text: string }[];
      encrypted_content?: string;
    };
    expect(rs.summary).toHaveLength(2);
    expect(rs.summary[0].text).toContain("Hello there, library!");
    expect(rs.content).toHaveLength(1);
    expect(rs.content![0].type).toBe("reasoning_text");
    expect(rs.encrypted_content).toMatch(/^gAAAA/);
    expect(new Set(ofType(events, "response.reasoning_summary_part.added").map((e) => e.summary_index))).toEqual(
      new Set([0, 1]),
    );
    expect(ofType(events, "response.reasoning.delta").length).toBeGreaterThan(3);
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it("tool-call calls get_weather for Paris", async () => {
    const { response } = await get("tool-call");
    expect(response.output).toHaveLength(1);
    const call = response.output[0] as Extract<ResponseResource["output"][number], { type: "function_call" }>;
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
    expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
    expect(call.call_id).toMatch(/^call_/);
  });

  it("parallel-tool-calls makes two calls in one turn", async () => {
    const { response } = await get("parallel-tool-calls");
    expect(response.output.map((o) => (o as { name?: string }).name)).toEqual(["get_weather", "get_time"]);
    const ids = response.output.map((o) => (o as { call_id: string }).call_id);
    expect(new Set(ids).size).toBe(2);
  });

  it("streamed-arguments streams a sizeable JSON object 3 characters at a time", async () => {
    const { response, events } = await get("streamed-arguments");
    const call = response.output[0] as Extract<ResponseResource["output"][number], { type: "function_call" }>;
    expect(call.name).toBe("create_calendar_event");
    const deltas = ofType(events, "response.function_call_arguments.delta").map((e) => e.delta as string);
    expect(deltas.length).toBeGreaterThan(100);
    deltas.slice(0, -1).forEach((d) => expect([...d]).toHaveLength(3));
    expect(deltas.join("")).toBe(call.arguments);
    expect(JSON.parse(call.arguments).attendees).toHaveLength(3);
  });

  it("refusal answers with a refusal part only", async () => {
    const { response, events } = await get("refusal");
    const msg = response.output[0] as Extract<ResponseResource["output"][number], { type: "message" }>;
    expect(msg.content.map((c) => c.type)).toEqual(["refusal"]);
    expect(ofType(events, "response.refusal.delta").length).toBeGreaterThan(1);
  });

  it("incomplete ends mid-sentence with max_output_tokens and an incomplete message", async () => {
    const { response } = await get("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect((response.output[0] as { status: string }).status).toBe("incomplete");
    expect(messageText(response)).not.toMatch(/[.!?]$/);
    expect(response.usage).not.toBeNull();
  });

  it("content-filter ends incomplete with content_filter", async () => {
    const { response } = await get("content-filter");
    expect(response.incomplete_details).toEqual({ reason: "content_filter" });
    expect((response.output[0] as { status: string }).status).toBe("incomplete");
  });

  it("a request's own max_output_tokens cuts any scenario", async () => {
    const { response } = await get("long-text", { max_output_tokens: 20 });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.usage!.output_tokens).toBe(20);
  });

  it("failure-mid-stream sends an error event after 6 events, then response.failed with the partial text", async () => {
    const { response, events } = await get("failure-mid-stream");
    expect(events.map((e) => e.type).slice(-2)).toEqual(["error", "response.failed"]);
    expect(events).toHaveLength(8);
    expect((events[6] as any).error.code).toBe("server_error");
    expect(response.error).toEqual({
      type: "server_error",
      code: "server_error",
      message: expect.stringContaining("retry"),
    });
    expect((response.output[0] as { status: string }).status).toBe("incomplete");
    expect(messageText(response).length).toBeGreaterThan(0);
  });

  it("vendor sends acme:progress events around an acme:search_call item, then text", async () => {
    const { response, events } = await get("vendor");
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "acme:progress")).toHaveLength(2);
    expect(types.indexOf("acme:progress")).toBeLessThan(types.indexOf("response.output_item.added"));
    expect(response.output.map((o) => o.type)).toEqual(["acme:search_call", "message"]);
    const item = response.output[0] as Record<string, any>;
    expect(item).toMatchObject({ status: "completed", query: expect.any(String), engine: "acme-web" });
    expect(item.results).toHaveLength(2);
    expect(typeof item.id).toBe("string");
  });

  it("annotations arrive as annotation.added events and cite the right phrases", async () => {
    const { response, events } = await get("annotations");
    const part = (response.output[0] as Extract<ResponseResource["output"][number], { type: "message" }>).content[0];
    if (part.type !== "output_text") throw new Error("expected output_text");
    expect(ofType(events, "response.output_text.annotation.added")).toHaveLength(part.annotations.length);
    const cited = part.annotations.map((a) =>
      a.type === "url_citation" ? part.text.slice(a.start_index, a.end_index) : "",
    );
    expect(cited).toEqual(["HTML Standard", "RFC 8259", "MDN's guide to server-sent events"]);
  });
});

// ---- turns -------------------------------------------------------------------

const TOOL_OUTPUTS = [
  '{"temperature_c":18,"conditions":"partly cloudy"}',
  '{"local_time":"14:05","timezone":"Europe/Paris"}',
];

describe.each(MULTI_TURN.map((s) => [s.name, s] as const))("two-turn scenario %s", (name, scenario) => {
  it.each(SEEDS)("answers turn 2 once the input holds turn 1's calls and their outputs (seed %i)", async (seed) => {
    const mock = server();
    const headers = headersFor(name, seed);
    const user = { type: "message", role: "user", content: "Please handle this for me." };
    const first = await plain(mock, bodyFor(scenario, [user]), headers);
    expectOutcome(scenario, first.response, [], 0);
    const calls = first.response.output.filter(
      (o): o is Extract<typeof o, { type: "function_call" }> => o.type === "function_call",
    );
    expect(calls.length).toBeGreaterThanOrEqual(1);
    const outputs = calls.map((c, i) => ({
      type: "function_call_output",
      call_id: c.call_id,
      output: TOOL_OUTPUTS[i % TOOL_OUTPUTS.length],
    }));
    const input = [user, ...first.response.output, ...outputs];

    const second = await streamed(mock, bodyFor(scenario, input), headers);
    expectOutcome(scenario, second.response, second.events, 1);
    expect(second.response.output.map((o) => o.type)).toEqual(["message"]);
    const text = (second.response.output[0] as Extract<ResponseResource["output"][number], { type: "message" }>)
      .content[0];
    const template = scenario.turns![1].steps[0];
    if (template.type !== "message" || text.type !== "output_text") throw new Error("turn 2 should be a text message");
    expect(text.text).toBe(
      template
        .text!.replaceAll("{{tool_outputs}}", outputs.map((o) => o.output).join("; "))
        .replaceAll("{{tool_output}}", outputs.at(-1)!.output),
    );
    const secondPlain = await plain(mock, bodyFor(scenario, input), headers);
    expect(withoutIds(secondPlain.response)).toEqual(withoutIds(second.response));

    // The last turn repeats for longer conversations.
    const third = await plain(
      mock,
      bodyFor(scenario, [
        ...input,
        ...second.response.output,
        { type: "message", role: "user", content: "Thanks! Once more?" },
      ]),
      headers,
    );
    expect(third.response.output.map((o) => o.type)).toEqual(["message"]);
  });
});

// ---- selection ---------------------------------------------------------------

describe("selection on the library server", () => {
  it("an unknown x-mock-scenario is a 400 unknown_scenario listing the known names", async () => {
    const res = await postResponses(
      server(),
      { model: "mock-model-1", input: "hi" },
      { "x-mock-scenario": "no-such-scenario" },
    );
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text);
    expect(ErrorBody.safeParse(body).success).toBe(true);
    expect(body.error).toMatchObject({ type: "invalid_request", code: "unknown_scenario", param: "x-mock-scenario" });
    expect(body.error.message).toContain("no-such-scenario");
    for (const name of [...LIBRARY.map((s) => s.name), "auto"]) expect(body.error.message).toContain(name);
  });

  it("a request naming no scenario gets the default, auto", async () => {
    const res = await postResponses(server(), { model: "mock-model-1", input: "Hello golden" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("the header wins over the model name", async () => {
    const res = await postResponses(server(), { model: "refusal", input: "hi" }, { "x-mock-scenario": "text" });
    expect(res.headers.get("x-mock-scenario")).toBe("text");
  });
});

/** A copy of a library scenario under another name, with match rules. */
const copyWith = (name: string, from: string, match: Record<string, unknown>) => {
  const s = lib(from);
  return {
    name,
    description: `Copy of ${from} chosen by match rules.`,
    match,
    ...(s.turns ? { turns: s.turns } : { generate: s.generate }),
  };
};

const marker = (name: string) => `[[${name}]]`;
const MATCHED = [
  ...LIBRARY.map((s) => copyWith(`matched-${s.name}`, s.name, { contains: marker(s.name) })),
  copyWith("matched-regex", "refusal", { matches: "^order #\\d{4,}$" }),
  copyWith("matched-model", "reasoning", { model: "acme-large-2" }),
  copyWith("matched-tool", "streamed-arguments", { tool: "create_calendar_event" }),
  copyWith("matched-after-tool", "tool-call", { afterToolOutput: true, tool: "get_weather" }),
  copyWith("matched-metadata", "error-429", { metadata: { suite: "library", case: "rate-limit" } }),
];

describe("selection by match rules", () => {
  const matchServer = useServer({ seed: 1, scenarios: MATCHED });

  /** Plays a request on the match server (no header) and the same request by header on the library server; both must agree. */
  async function expectSameAs(expectedName: string, libraryName: string, body: Record<string, unknown>) {
    const seed = { "x-mock-seed": "9" };
    const matched = await postResponses(matchServer(), body, seed);
    const direct = await postResponses(server(), body, { ...seed, "x-mock-scenario": libraryName });
    expect(matched.status).toBe(direct.status);
    if (matched.status === 200) expect(matched.headers.get("x-mock-scenario")).toBe(expectedName);
    expect(JSON.parse(matched.text)).toEqual(JSON.parse(direct.text));
    return matched;
  }

  it.each(LIBRARY.map((s) => s.name))("contains: %s is chosen by its marker in the last user message", async (name) => {
    const body = bodyFor(lib(name), `Please run ${marker(name)} for me.`);
    const res = await expectSameAs(`matched-${name}`, name, body);
    if (httpErrorEnd(lib(name))) expectHttpError(lib(name), res);
    else expectValidResponse(JSON.parse(res.text));
  });

  it("contains is case-insensitive and looks at the last user message only", async () => {
    const upper = await postResponses(matchServer(), { model: "mock-model-1", input: "PLEASE [[TEXT]]" });
    expect(upper.headers.get("x-mock-scenario")).toBe("matched-text");
    const earlier = await postResponses(matchServer(), {
      model: "mock-model-1",
      input: [
        { role: "user", content: "[[text]]" },
        { role: "assistant", content: "Sure." },
        { role: "user", content: "Something else" },
      ],
    });
    expect(earlier.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("matches: a regular expression on the last user message", async () => {
    await expectSameAs("matched-regex", "refusal", { model: "mock-model-1", input: "order #12345" });
    const miss = await postResponses(matchServer(), { model: "mock-model-1", input: "order #123" });
    expect(miss.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("model: the request's model", async () => {
    const res = await expectSameAs("matched-model", "reasoning", {
      model: "acme-large-2",
      input: "Why is the sky blue?",
    });
    expect(JSON.parse(res.text).output.map((o: { type: string }) => o.type)).toEqual(["reasoning", "message"]);
    const miss = await postResponses(matchServer(), { model: "acme-large-3", input: "Why is the sky blue?" });
    expect(miss.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("tool: a function tool with that name is offered", async () => {
    const tools = TOOLS.filter((t) => t.name === "create_calendar_event");
    await expectSameAs("matched-tool", "streamed-arguments", {
      model: "mock-model-1",
      input: "Book the planning meeting",
      tools,
    });
    const miss = await postResponses(matchServer(), {
      model: "mock-model-1",
      input: "Book it",
      tools: TOOLS.filter((t) => t.name === "get_time"),
    });
    expect(miss.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("afterToolOutput (with tool): only when the last input item is a function_call_output", async () => {
    const tools = TOOLS.filter((t) => t.name === "get_weather");
    const input = [
      { role: "user", content: "Weather in Paris?" },
      { type: "function_call", call_id: "call_abc", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_abc", output: "18°C and sunny" },
    ];
    const res = await expectSameAs("matched-after-tool", "tool-call", { model: "mock-model-1", input, tools });
    expect(JSON.parse(res.text).output[0].content[0].text).toContain("18°C and sunny");
    const before = await postResponses(matchServer(), { model: "mock-model-1", input: input.slice(0, 1), tools });
    expect(before.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("metadata: every given key/value pair must be present", async () => {
    const body = {
      model: "mock-model-1",
      input: "hi",
      metadata: { suite: "library", case: "rate-limit", extra: "ok" },
    };
    const res = await expectSameAs("matched-metadata", "error-429", body);
    expectHttpError(lib("error-429"), res);
    const partial = await postResponses(matchServer(), {
      model: "mock-model-1",
      input: "hi",
      metadata: { suite: "library" },
    });
    expect(partial.status).toBe(200);
    expect(partial.headers.get("x-mock-scenario")).toBe("auto");
  });

  it("a scenario named like the model wins over match rules", async () => {
    const res = await postResponses(matchServer(), { model: "text", input: "order #12345" });
    expect(res.headers.get("x-mock-scenario")).toBe("text");
  });
});

// ---- golden streams ----------------------------------------------------------

const GOLDEN_DIR = fileURLToPath(new URL("../golden/", import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === "1";

describe("golden streams", () => {
  it.each(SCRIPTED.map((s) => s.name))("%s matches test/golden/%s.ndjson", async (name) => {
    const s = lib(name);
    const body = {
      model: "mock-model-1",
      input: "Hello golden",
      stream: true,
      ...(usesTools(s) ? { tools: TOOLS } : {}),
      ...(name === "reasoning" ? { reasoning: { summary: "auto" } } : {}),
    };
    // A session of its own: the first such request of its session, whatever ran before (ids count repeats).
    const res = await postResponses(server(), body, { ...headersFor(name, 1), "x-mock-session": `golden-${name}` });
    expect(res.status).toBe(200);
    const { events } = parseSseStrict(res.text);
    expectConformantStream(events);
    expect(events[0].response).toMatchObject({ created_at: TEST_NOW_MS / 1000 });
    const file = join(GOLDEN_DIR, `${name}.ndjson`);
    if (UPDATE) {
      await mkdir(GOLDEN_DIR, { recursive: true });
      await writeFile(file, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
      return;
    }
    if (!existsSync(file))
      throw new Error(`missing golden file ${file}: run UPDATE_GOLDEN=1 npx vitest run test/scenario/library.test.ts`);
    const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.length > 0);
    expect(events).toEqual(lines.map((l) => JSON.parse(l)));
  });

  it.skipIf(UPDATE)("has no golden file for a scenario that is gone", async () => {
    const files = existsSync(GOLDEN_DIR) ? (await readdir(GOLDEN_DIR)).filter((f) => f.endsWith(".ndjson")) : [];
    expect(files.map((f) => basename(f, ".ndjson")).sort()).toEqual(SCRIPTED.map((s) => s.name).sort());
  });
});

// ---- random over many seeds --------------------------------------------------

describe("a failure cut exactly where output_item.done is due", () => {
  const bugServer = useServer({
    seed: 1,
    library: false,
    scenarios: [
      {
        name: "fail-at-item-done",
        description: "A one-token message whose stream fails where its output_item.done is due.",
        turns: [
          {
            steps: [{ type: "message", text: "Hello", chunk: { tokens: 1 } }],
            end: { type: "failed", afterEvents: 7 },
          },
        ],
      },
    ],
  });

  it("response.failed reports the never-finished item as incomplete", async () => {
    const res = await postResponses(
      bugServer(),
      { model: "mock-model-1", input: "hi", stream: true },
      { "x-mock-scenario": "fail-at-item-done" },
    );
    const { events } = parseSseStrict(res.text);
    expect(events.map((e) => e.type).slice(-3)).toEqual(["response.content_part.done", "error", "response.failed"]);
    expect((events.at(-1) as any).response.output[0].status).toBe("incomplete");
  });
});

describe("the random scenario over 1,000 seeds", () => {
  const scenario = lib("random");
  const SHAPES = [
    { model: "mock-model-1", input: "Tell me something interesting." },
    { model: "mock-model-1", input: "What's the weather and the time in Paris?", tools: TOOLS.slice(0, 2) },
    {
      model: "mock-model-1",
      input: "Think it through first.",
      reasoning: { effort: "medium", summary: "auto" },
      include: ["reasoning.encrypted_content"],
    },
    {
      model: "mock-model-1",
      input: "Write me a long story about Lisbon.",
      max_output_tokens: 24,
      tools: TOOLS.slice(0, 1),
    },
  ].map((b) => CreateResponseBody.parse(b));

  const play = (seed: number, shape: number) => {
    const request = SHAPES[shape];
    const rng = createRng(requestSeed(seed, request));
    const plan = planScenario(scenario, {
      request,
      items: inputItems(request.input),
      rng,
      ids: createIdSource("ids"),
      vendorExtensions: true,
      createdAt: TEST_NOW_MS / 1000,
    });
    return emitEvents(plan) as unknown as Ev[];
  };

  /** The kind of answer a response shows (exact for requests without a token budget). */
  const kindOf = (r: ResponseResource): AnswerKind => {
    if (r.status === "failed") return "failure";
    const types = r.output.map((o) => o.type as string);
    if (types.some((t) => t.includes(":"))) return "vendor_item";
    if (types.includes("function_call")) return "tool_calls";
    if (types.includes("reasoning")) return "reasoning_text";
    if (r.output.some((o) => o.type === "message" && o.content.some((c) => c.type === "refusal"))) return "refusal";
    if (r.status === "incomplete") return "incomplete";
    return "text";
  };

  it("every answer is conformant, every kind occurs, and the budget holds", () => {
    const kinds = new Map<AnswerKind, number>();
    for (let seed = 0; seed < 1000; seed++) {
      const shape = seed % SHAPES.length;
      const events = play(seed, shape);
      const response = expectConformantStream(events);
      if (SHAPES[shape].max_output_tokens) {
        expect(response.usage?.output_tokens ?? 0).toBeLessThanOrEqual(SHAPES[shape].max_output_tokens!);
        continue;
      }
      const kind = kindOf(response);
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (kind === "tool_calls") expect(shape).toBe(1);
    }
    expect([...kinds.keys()].sort()).toEqual([...ANSWER_KINDS].sort());
  });

  it("the same seed gives identical events; different seeds do not all agree", () => {
    for (const seed of [0, 1, 17, 999])
      for (let shape = 0; shape < SHAPES.length; shape++) expect(play(seed, shape)).toEqual(play(seed, shape));
    for (let shape = 0; shape < SHAPES.length; shape++) {
      const streams = new Set(Array.from({ length: 20 }, (_, seed) => JSON.stringify(play(seed, shape))));
      expect(streams.size).toBe(20);
      const outputs = new Set(
        Array.from({ length: 20 }, (_, seed) =>
          JSON.stringify(
            (play(seed, shape).at(-1) as any).response.output.map((o: any) => ({
              ...o,
              id: undefined,
              call_id: undefined,
            })),
          ),
        ),
      );
      expect(outputs.size).toBeGreaterThan(5);
    }
  });
});

// ---- the openai SDK ------------------------------------------------------------

describe("parallel-tool-calls with the openai SDK", () => {
  it("runs the two-turn loop: two function calls, outputs sent back, then the summary", async () => {
    const client = new OpenAI({
      baseURL: server().baseURL,
      apiKey: "x",
      maxRetries: 0,
      defaultHeaders: { "x-mock-scenario": "parallel-tool-calls" },
    });
    const tools = LIBRARY_TOOLS_NOT_STRICT.slice(0, 2);
    const input: OpenAI.Responses.ResponseInput = [
      { role: "user", content: "What's the weather and the local time in Paris?" },
    ];

    const first = await client.responses.create({ model: "mock-model-1", input, tools });
    expectValidResponse(first);
    expect(first.status).toBe("completed");
    const calls = first.output.filter(
      (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call",
    );
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    expect(JSON.parse(calls[0].arguments)).toEqual({ city: "Paris", unit: "c" });

    input.push(...first.output);
    input.push({ type: "function_call_output", call_id: calls[0].call_id, output: TOOL_OUTPUTS[0] });
    input.push({ type: "function_call_output", call_id: calls[1].call_id, output: TOOL_OUTPUTS[1] });

    const stream = client.responses.stream({ model: "mock-model-1", input, tools });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const second = await stream.finalResponse();
    expectValidResponse(second);
    expect(second.status).toBe("completed");
    expect(second.output.map((o) => o.type)).toEqual(["message"]);
    expect(second.output_text).toContain(TOOL_OUTPUTS[1]);
    expect(second.output_text).toMatch(/Paris/);
    expect(deltas.join("")).toBe(second.output_text);
  });
});
