/**
 * Every shipped scenario (read from scenarios/ at test time, plus `auto`)
 * through the official `openai` SDK — `responses.create()` and
 * `responses.stream(...).finalResponse()` — in both dialects, chosen per
 * request with `x-mock-dialect`. Each answer the SDK parsed is also checked
 * byte for byte: the spec dialect against the spec schemas
 * (test/compliance/schemas.ts) and the conformance checks, the openai
 * dialect against the strict schemas of what api.openai.com sends
 * (test/compliance/openai-schemas.ts).
 *
 * The table EXPECTED states what each scenario must end in. An SDK call may
 * fail only where the table says so: an HTTP error scenario (APIError with
 * its status), a stream that fails (APIError with the scenario's message),
 * or an event openai-node's stream() does not know (the spec's
 * `response.reasoning.*` names, scripted vendor events).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import * as spec from "../compliance/schemas.js";
import {
  formatViolation,
  parseOpenAISse,
  REQUEST_ID,
  validateOpenAIErrorBody,
  validateOpenAIHeaders,
  validateOpenAIResponse,
  validateOpenAIStream,
  withoutVendor,
  withoutVendorItems,
  type Violation,
} from "../compliance/openai-schemas.js";
import { expectConformantStream, expectValidResponse } from "../support/conformance.js";
import { recordingFetch, type Exchange } from "../support/recording-fetch.js";
import { useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

type Dialect = "open-responses" | "openai";
const DIALECTS: Dialect[] = ["open-responses", "openai"];

// ---- the scenarios, as shipped ------------------------------------------------

const DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));
type ScenarioFile = {
  name: string;
  turns?: Array<{ end?: { type: string; status?: number; error?: { message?: string } } }>;
};
const SHIPPED: ScenarioFile[] = await Promise.all(
  (await readdir(DIR))
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map(async (f) => JSON.parse(await readFile(join(DIR, f), "utf8")) as ScenarioFile),
);
const NAMES = [...SHIPPED.map((s) => s.name), "auto"];
const scenarioEnd = (name: string) => SHIPPED.find((s) => s.name === name)?.turns?.[0].end;
/** The error message a scenario scripts (HTTP errors and mid-stream failures). */
const scriptedMessage = (name: string) => {
  const m = scenarioEnd(name)?.error?.message;
  if (!m) throw new Error(`scenario ${name} scripts no error message`);
  return m;
};

// ---- what each one must end in -------------------------------------------------

type Outcome =
  /** The output item types, in order (a RegExp over them joined by commas where the count may vary). */
  | { kind: "completed"; output: string[] | RegExp }
  | { kind: "incomplete"; reason: "max_output_tokens" | "content_filter" }
  | { kind: "failed" }
  | { kind: "http"; status: number }
  /** Seeded-random: each seed's outcome is read from its own stream; over the seeds, `mustSee` statuses occur. */
  | { kind: "seeded"; seeds: number[]; mustSee: string[] };

interface Expectation {
  outcome: Outcome;
  /** Where openai-node's stream() rightly throws on an event it does not know, per dialect. */
  streamThrows?: Partial<Record<Dialect, RegExp>>;
  /** More about a finished response (create's, and stream()'s final one). */
  check?: (r: OpenAI.Responses.Response) => void;
}

const completed = (...output: string[]): Expectation => ({ outcome: { kind: "completed", output } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const UNHANDLED = (type: string) =>
  new RegExp(`Unhandled response stream event: .*"type":"${type.replace(/\./g, "\\.")}"`);

const EXPECTED: Record<string, Expectation> = {
  annotations: completed("message"),
  "content-filter": { outcome: { kind: "incomplete", reason: "content_filter" } },
  ...Object.fromEntries(
    [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503].map((status) => [
      `error-${status}`,
      { outcome: { kind: "http", status } },
    ]),
  ),
  "failure-mid-stream": { outcome: { kind: "failed" } },
  incomplete: { outcome: { kind: "incomplete", reason: "max_output_tokens" } },
  "long-text": completed("message"),
  "parallel-tool-calls": completed("function_call", "function_call"),
  random: { outcome: { kind: "seeded", seeds: range(1, 8), mustSee: ["completed"] } },
  "random-chaos": { outcome: { kind: "seeded", seeds: range(1, 12), mustSee: ["completed", "failed"] } },
  // openai-node knows raw reasoning text only under OpenAI's names (response.reasoning_text.*).
  reasoning: {
    ...completed("reasoning", "message"),
    streamThrows: { "open-responses": UNHANDLED("response.reasoning.delta") },
  },
  refusal: {
    ...completed("message"),
    check: (r) =>
      expect((r.output[0] as OpenAI.Responses.ResponseOutputMessage).content.map((c) => c.type)).toEqual(["refusal"]),
  },
  "streamed-arguments": completed("function_call"),
  text: completed("message"),
  "tool-call": completed("function_call"),
  // Scripted vendor events play in both dialects; OpenAI itself could not produce them, and stream() throws on them.
  vendor: {
    ...completed("acme:search_call", "message"),
    streamThrows: { "open-responses": UNHANDLED("acme:progress"), openai: UNHANDLED("acme:progress") },
  },
  // Reasoning is asked and a weather tool offered: a summary, then the call a model would make.
  auto: {
    outcome: { kind: "completed", output: /^reasoning(,function_call)+$/ },
    check: (r) => {
      const calls = r.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call");
      const weather = calls.find((c) => c.name === "get_weather");
      expect(weather, "the weather question gets a get_weather call").toBeDefined();
      expect(JSON.parse(weather!.arguments).city).toMatch(/Paris/);
      expect((r.output[0] as OpenAI.Responses.ResponseReasoningItem).summary.length).toBeGreaterThan(0);
    },
  },
};

// ---- requests -------------------------------------------------------------------

const TOOLS: OpenAI.Responses.FunctionTool[] = LIBRARY_TOOLS_NOT_STRICT;

function bodyFor(name: string): Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream"> {
  const body: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream"> = {
    model: "mock-model-1",
    input: "What's the weather in Paris today?",
    tools: TOOLS,
  };
  if (name === "reasoning" || name === "auto")
    return { ...body, reasoning: { effort: "low", summary: "auto" }, include: ["reasoning.encrypted_content"] };
  return body;
}

const server = useServer({ seed: 3 });

function clientFor(dialect: Dialect, scenario: string, seed: number, log: Exchange[]) {
  return new OpenAI({
    baseURL: server().baseURL,
    apiKey: "test-key",
    maxRetries: 0,
    fetch: recordingFetch(log),
    defaultHeaders: { "x-mock-dialect": dialect, "x-mock-scenario": scenario, "x-mock-seed": String(seed) },
  });
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: any };
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error) => ({ ok: false as const, error }),
  );

function expectOutputTypes(r: OpenAI.Responses.Response, want: string[] | RegExp) {
  const types = r.output.map((o) => o.type as string);
  if (want instanceof RegExp) expect(types.join(",")).toMatch(want);
  else expect(types).toEqual(want);
}

const show = (vs: Violation[]) => vs.map(formatViolation).join("\n");
const isObject = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null;
const isVendorType = (t: unknown) => typeof t === "string" && t.includes(":");
type Ev = { type: string; [k: string]: any };

// ---- checks of the raw answer, per dialect ------------------------------------------

/** An HTTP error scenario, as the SDK reports it: the answer checked, then an APIError with the status, the scripted message and, in the openai dialect, the request id. */
function expectSdkHttpError(
  dialect: Dialect,
  name: string,
  ex: Exchange,
  res: Awaited<ReturnType<typeof settle>>,
  status: number,
) {
  checkErrorAnswer(dialect, name, ex);
  expect(res.ok).toBe(false);
  const err = (res as { error: any }).error;
  expect(err).toBeInstanceOf(OpenAI.APIError);
  expect(err.status).toBe(status);
  expect(err.error?.message).toBe(scriptedMessage(name));
  if (dialect === "openai") expect(err.requestID).toMatch(REQUEST_ID);
}

function checkErrorAnswer(dialect: Dialect, name: string, ex: Exchange) {
  const status = (EXPECTED[name].outcome as { status: number }).status;
  expect(ex.status).toBe(status);
  const body = JSON.parse(ex.text);
  expect(body.error.message).toBe(scriptedMessage(name));
  if (dialect === "openai") {
    expect(show(validateOpenAIHeaders(ex.headers, "json"))).toBe("");
    expect(show(validateOpenAIErrorBody(body))).toBe("");
  } else {
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(["invalid_request", "not_found", "too_many_requests", "server_error", "model_error"]).toContain(
      body.error.type,
    );
  }
}

/** Validates a JSON body; returns it parsed. */
function checkJsonAnswer(dialect: Dialect, name: string, ex: Exchange): Record<string, any> {
  expect(ex.status, ex.text.slice(0, 300)).toBe(200);
  const body = JSON.parse(ex.text);
  if (dialect === "openai") {
    expect(show(validateOpenAIHeaders(ex.headers, "json"))).toBe("");
    if (EXPECTED[name].streamThrows?.openai) {
      // Vendor items: flagged, and the rest is OpenAI's.
      const vs = validateOpenAIResponse(ex.text);
      expect(vs.length).toBeGreaterThan(0);
      for (const v of vs) expect(v.path).toMatch(/^\$\.output\[\d+\]/);
      expect(show(validateOpenAIResponse(withoutVendorItems(body)))).toBe("");
    } else expect(show(validateOpenAIResponse(ex.text))).toBe("");
  } else {
    // The spec allows vendor items (slug:name); the compliance union lists the spec's own.
    const r = spec.ResponseResource.safeParse(withoutVendorItems(body));
    expect(r.success, r.success ? "" : spec.formatIssues(r.error).join("\n")).toBe(true);
    expectValidResponse(body);
  }
  return body;
}

/** Validates an SSE body; returns its events. */
function checkSseAnswer(dialect: Dialect, name: string, ex: Exchange): Ev[] {
  expect(ex.status, ex.text.slice(0, 300)).toBe(200);
  if (dialect === "openai") {
    expect(show(validateOpenAIHeaders(ex.headers, "sse"))).toBe("");
    const { events, violations } = parseOpenAISse(ex.text);
    expect(show(violations)).toBe("");
    if (name === "vendor" || events.some((e) => isVendorType((e as Ev).type))) {
      // Only scripted vendor extras may be off; without them the stream is OpenAI's.
      expect(name).toBe("vendor");
      const vs = validateOpenAIStream(events);
      expect(vs.length).toBeGreaterThan(0);
      expect(show(validateOpenAIStream(withoutVendor(events)))).toBe("");
    } else expect(show(validateOpenAIStream(ex.text))).toBe("");
    return events as Ev[];
  }
  expect(ex.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const { events: parsed, done } = parseSseStrict(ex.text);
  expect(done).toBe(true);
  const events = parsed as Ev[];
  for (const [i, ev] of events.entries()) {
    if (isVendorType(ev.type) || isVendorType(ev.item?.type)) continue;
    const r = spec.StreamingEvent.safeParse(
      isObject(ev.response) ? { ...ev, response: withoutVendorItems(ev.response) } : ev,
    );
    expect(r.success, r.success ? "" : `event #${i} ${ev.type}: ${spec.formatIssues(r.error).join("; ")}`).toBe(true);
  }
  expectConformantStream(parsed);
  return events;
}

/** The outcome stream() must report for these events: it stops at the first `error` or unknown event. */
function streamOutcome(
  dialect: Dialect,
  events: readonly Ev[],
):
  { throws: "api-error"; message: string } | { throws: "unhandled"; type: string } | { status: string; response: any } {
  const unknown = (t: string) =>
    isVendorType(t) || (dialect === "open-responses" && t.startsWith("response.reasoning."));
  for (const ev of events) {
    if (ev.type === "error") return { throws: "api-error", message: ev.error.message };
    if (unknown(ev.type)) return { throws: "unhandled", type: ev.type };
  }
  const terminal = events.at(-1)!;
  return { status: terminal.response.status, response: terminal.response };
}

// ---- the tests ------------------------------------------------------------------------

describe("the expectation table", () => {
  it("covers exactly the shipped scenarios and auto", () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...NAMES].sort());
  });
});

describe("choosing a dialect", () => {
  it("an unknown x-mock-dialect is a 400 that lists the known ones", async () => {
    const log: Exchange[] = [];
    const res = await settle(clientFor("klingon" as Dialect, "text", 1, log).responses.create(bodyFor("text")));
    expect(res.ok).toBe(false);
    const err = (res as { error: any }).error;
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.message).toMatch(/klingon/);
    expect(err.message).toMatch(/open-responses/);
    expect(err.message).toMatch(/openai/);
  });
});

describe.each(DIALECTS)("openai SDK, %s dialect", (dialect) => {
  const cases = NAMES.flatMap((name) => {
    const o = EXPECTED[name]?.outcome;
    return o?.kind === "seeded" ? o.seeds.map((seed) => [name, seed] as const) : [[name, 1] as const];
  });

  it.each(cases)("%s (seed %i): responses.create()", async (name, seed) => {
    const { outcome } = EXPECTED[name];
    const log: Exchange[] = [];
    const res = await settle(clientFor(dialect, name, seed, log).responses.create(bodyFor(name)));
    expect(log).toHaveLength(1);
    const ex = log[0];

    if (outcome.kind === "http") return expectSdkHttpError(dialect, name, ex, res, outcome.status);

    const body = checkJsonAnswer(dialect, name, ex);
    if (!res.ok) throw res.error;
    const r = res.value;
    if (dialect === "openai") {
      expect(r._request_id).toBe(ex.headers.get("x-request-id"));
      expect(r.output.map((o) => o.type).filter(isVendorType)).toEqual(name === "vendor" ? ["acme:search_call"] : []);
    }
    expect(r.id).toBe(body.id);
    switch (outcome.kind) {
      case "completed":
        expect(r.status).toBe("completed");
        expectOutputTypes(r, outcome.output);
        EXPECTED[name].check?.(r);
        break;
      case "incomplete":
        expect(r.status).toBe("incomplete");
        expect(r.incomplete_details).toEqual({ reason: outcome.reason });
        break;
      case "failed":
        expect(r.status).toBe("failed");
        expect(r.error?.message).toBe(scriptedMessage(name));
        break;
      case "seeded":
        expect(["completed", "incomplete", "failed"]).toContain(r.status);
        break;
    }
  });

  it.each(cases)("%s (seed %i): responses.stream().finalResponse()", async (name, seed) => {
    const expectation = EXPECTED[name];
    const { outcome } = expectation;
    const log: Exchange[] = [];
    const res = await settle(clientFor(dialect, name, seed, log).responses.stream(bodyFor(name)).finalResponse());
    expect(log).toHaveLength(1);
    const ex = log[0];

    if (outcome.kind === "http") return expectSdkHttpError(dialect, name, ex, res, outcome.status);

    const events = checkSseAnswer(dialect, name, ex);
    const derived = streamOutcome(dialect, events);

    // The scripted scenarios: the table and the stream agree.
    const thrown = expectation.streamThrows?.[dialect];
    if (thrown) expect(derived).toMatchObject({ throws: "unhandled" });
    else if (outcome.kind === "failed")
      expect(derived).toMatchObject({ throws: "api-error", message: scriptedMessage(name) });
    else if (outcome.kind === "completed") expect(derived).toMatchObject({ status: "completed" });
    else if (outcome.kind === "incomplete")
      expect(derived).toMatchObject({
        status: "incomplete",
        response: { incomplete_details: { reason: outcome.reason } },
      });

    // What the SDK reported.
    if ("throws" in derived) {
      expect(res.ok, res.ok ? `stream() should have failed (${JSON.stringify(derived)})` : "").toBe(false);
      const err = (res as { error: any }).error;
      if (derived.throws === "api-error") {
        expect(err).toBeInstanceOf(OpenAI.APIError);
        expect(err.status).toBeUndefined();
        expect(err.message).toBe(derived.message);
      } else {
        expect(err).toBeInstanceOf(OpenAI.OpenAIError);
        expect(err.message).toMatch(thrown ?? UNHANDLED(derived.type));
      }
      return;
    }
    if (!res.ok) throw res.error;
    const final = res.value;
    expect(final.id).toBe(derived.response.id);
    expect(final.status).toBe(derived.status);
    expect(JSON.parse(JSON.stringify(final.output))).toMatchObject(derived.response.output);
    if (outcome.kind === "completed") {
      expectOutputTypes(final, outcome.output);
      expectation.check?.(final);
    }
    if (dialect === "openai") expect(final.output.map((o) => o.type).filter(isVendorType)).toEqual([]);
  });

  const seeded = NAMES.filter((n) => EXPECTED[n]?.outcome.kind === "seeded");
  it.each(seeded)(
    "%s: over its seeds, the outcomes vary as the table says, and create agrees with stream",
    async (name) => {
      const outcome = EXPECTED[name].outcome as Extract<Outcome, { kind: "seeded" }>;
      const statuses = new Set<string>();
      for (const seed of outcome.seeds) {
        const plainLog: Exchange[] = [];
        const plain = await clientFor(dialect, name, seed, plainLog).responses.create(bodyFor(name));
        statuses.add(plain.status!);
        if (dialect === "openai")
          expect(
            plain.output.map((o) => o.type).filter(isVendorType),
            `seed ${seed}: OpenAI draws no vendor items`,
          ).toEqual([]);
        const streamLog: Exchange[] = [];
        await settle(clientFor(dialect, name, seed, streamLog).responses.stream(bodyFor(name)).finalResponse());
        const events =
          dialect === "openai"
            ? (parseOpenAISse(streamLog[0].text).events as Ev[])
            : parseSseStrict(streamLog[0].text).events;
        const terminal = events.at(-1)!;
        expect(terminal.response.status, `seed ${seed}`).toBe(plain.status);
        expect(
          terminal.response.output.map((o: { type: string }) => o.type),
          `seed ${seed}`,
        ).toEqual(plain.output.map((o) => o.type));
      }
      for (const status of outcome.mustSee)
        expect([...statuses], `statuses over seeds ${outcome.seeds.join(",")}`).toContain(status);
    },
  );
});
