/**
 * Generated scenario documents through `parseScenarioText`: valid ones (from
 * the shape of src/scenario/schema.ts) and mutated ones (wrong types, unknown
 * keys, bad enums, deep nesting, huge values, odd unicode, broken JSON text).
 * The parser either returns a scenario or throws a ScenarioError whose every
 * issue names the file, a well-formed JSON path starting with `$` whose parent
 * exists in the document, and a non-empty message — never anything else.
 *
 * Every valid one is played with the pure core (createRng, planScenario,
 * emitEvents) for several request shapes and seeds: a conformant stream, or
 * the ApiError of an http_error turn. A smaller property plays them over HTTP
 * (installed with `session.use`), timing and faults left out.
 *
 * ORM_FUZZ_RUNS=N runs each property N times.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/index.js";
import { createIdSource, createRng, planScenario, turnFor } from "../../src/generate/index.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { ScenarioError, parseScenarioText, type ScenarioIssue } from "../../src/scenario/parse.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ApiError, CreateResponseBody } from "../../src/spec/index.js";
import { fixedClock } from "../../src/timing/clock.js";
import { expectConformantStream } from "../support/conformance.js";
import {
  expectSaneAnswer,
  fuzzRuns,
  longRun,
  paths,
  post,
  setAt,
  watchInternalErrors,
  type InternalErrors,
} from "../support/robust.js";
import { ODD_PIECES, anyText, oddText, smallJson, validScenarioDoc } from "./arbitraries.js";

const TIMEOUT = longRun() ? 3_600_000 : 60_000;
const FILE = "fuzz/scenario.json";

// ---- the parser's contract ------------------------------------------------------------

/** `$`, then `.name`, `[0]` or `["any key"]` segments (the key JSON-escaped). */
const PATH = /^\$(?:\.[A-Za-z_$][A-Za-z0-9_$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*$/;

function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\.([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.slice(1).matchAll(re))
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
  return out;
}

/** Whether every segment but the last exists in `doc`. */
function parentExists(doc: unknown, path: (string | number)[]): boolean {
  let node = doc;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string | number, unknown>)[key];
  }
  return true;
}

const stats = { valid: 0, invalid: 0, played: 0, httpErrors: 0, refused: 0, overHttp: 0 };

/** Parses a text; checks the ScenarioError contract when it is refused. */
function parseChecked(text: string): Scenario | undefined {
  let doc: unknown;
  let json = true;
  try {
    doc = JSON.parse(text);
  } catch {
    json = false;
  }
  try {
    const scenario = parseScenarioText(text, FILE);
    stats.valid++;
    return scenario;
  } catch (err) {
    if (!(err instanceof ScenarioError))
      throw new Error(
        `parseScenarioText threw ${(err as Error)?.name}: ${(err as Error)?.message} (not a ScenarioError)`,
      );
    stats.invalid++;
    expect(err.issues.length).toBeGreaterThan(0);
    expect(err.message.length).toBeGreaterThan(0);
    for (const issue of err.issues as ScenarioIssue[]) {
      expect(issue.file).toBe(FILE);
      expect(issue.path, JSON.stringify(issue)).toMatch(PATH);
      expect(typeof issue.message).toBe("string");
      expect(issue.message.trim().length, JSON.stringify(issue)).toBeGreaterThan(0);
      if (!json) expect(issue.path).toBe("$");
      else
        expect(
          parentExists(doc, segments(issue.path)),
          `${issue.path} points outside the document: ${issue.message}`,
        ).toBe(true);
    }
    return undefined;
  }
}

// ---- playing a scenario with the pure core ---------------------------------------------------

const TOOLS = [
  {
    type: "function",
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  { type: "function", name: "get_time", parameters: { type: "object", properties: { city: { type: "string" } } } },
];
const SHAPES = [
  { model: "mock-model-1", input: "Hello there, {{input}} $& 😀" },
  { model: "mock-model-1", input: "What's the weather in Paris?", tools: TOOLS },
  {
    model: "mock-model-1",
    tools: TOOLS,
    input: [
      { role: "user", content: "Weather?" },
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "c1", output: "sunny" },
    ],
  },
  {
    model: "mock-model-1",
    input: "Tell me a long story.",
    max_output_tokens: 16,
    include: ["message.output_text.logprobs"],
    top_logprobs: 2,
    reasoning: { effort: "low" },
  },
  {
    model: "mock-model-1",
    tool_choice: "none",
    stream_options: { include_obfuscation: false },
    input: [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: "d" },
      { role: "user", content: [{ type: "input_text", text: "e" }] },
    ],
  },
].map((b) => CreateResponseBody.parse(b));

/** Plays one scenario for one request shape: a conformant stream, or the ApiError of an http_error turn. */
function play(scenario: Scenario, shape: number, seed: number) {
  const request = SHAPES[shape];
  const ctx = {
    request,
    items: inputItems(request.input),
    rng: createRng(`fuzz|${seed}`),
    ids: createIdSource("ids"),
    vendorExtensions: true,
    createdAt: 1_767_225_600,
  };
  const turn = scenario.turns ? turnFor(scenario.turns, ctx).turn : undefined;
  const httpTurn = turn?.end?.type === "http_error";
  // A nameless function_call step calls the request's first function tool; a request with none is refused (400).
  const noTool =
    !(request.tools ?? []).some((t) => t.type === "function") &&
    (turn?.steps ?? []).some((step) => step.type === "function_call" && step.name === undefined);
  try {
    const events = emitEvents(planScenario(scenario, ctx));
    expect(httpTurn, "an http_error turn must not stream").toBe(false);
    expect(noTool, "a nameless function_call with no function tool offered must be refused").toBe(false);
    expectConformantStream(events as never);
    stats.played++;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (noTool && err.code === "no_function_tool") {
      expect(err.status).toBe(400);
      expect(err.param).toBe("tools");
      stats.refused++;
      return;
    }
    if (!httpTurn) throw err;
    stats.httpErrors++;
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.toBody().error.message.length).toBeGreaterThan(0);
  }
}

/** Nesting depth of a JSON value, without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    max = Math.max(max, d);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** A vendor_item step whose status is not "completed" (a known bug, see below). */
const oddVendorStatus = (scenario: Scenario) =>
  (scenario.turns ?? []).some((t) =>
    t.steps.some(
      (step) => step.type === "vendor_item" && step.item.status !== undefined && step.item.status !== "completed",
    ),
  );

// ---- mutations ---------------------------------------------------------------------------

const nestedArrays = (n: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < n; i++) v = [v];
  return v;
};

/** Replacement values: wrong types, bad enums, out-of-range numbers, huge and odd values, deep nesting. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      null,
      true,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      3_600_001,
      10_001,
      "",
      "message",
      "http_error",
      "random",
      "bogus",
      "a:b",
      "acme:",
      [],
      {},
      [1, 2],
      [2, 1],
      { type: "bogus" },
      { tokens: 1, chars: 1 },
      "(",
      "\u0000",
    ),
  },
  { weight: 2, arbitrary: smallJson },
  { weight: 2, arbitrary: anyText },
  { weight: 1, arbitrary: oddText.map((s) => (s || "x").repeat(2_000)) },
  // (deeper values are in the explicit test below: fast-check's own printer overflows past ~3,000)
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 1_500 }).map(nestedArrays) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...ODD_PIECES), { minLength: 200, maxLength: 1_000 }) },
);
const keyArb = fc.oneof(
  fc.constantFrom(
    "type",
    "text",
    "steps",
    "end",
    "turns",
    "generate",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "mesage",
    "Type",
    "",
  ),
  anyText,
);

const mutatedDoc = fc
  .record({
    doc: validScenarioDoc,
    at: fc.nat(),
    kind: fc.constantFrom("replace", "replace", "replace", "delete", "add", "wrap"),
    value: badValue,
    key: keyArb,
  })
  .map(({ doc, at, kind, value, key }) => {
    const all = paths(doc);
    if (kind === "add") {
      const objects = [[], ...all].filter((p) => {
        const v = p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], doc);
        return v !== null && typeof v === "object" && !Array.isArray(v);
      });
      return setAt(doc, [...objects[at % objects.length], key], value);
    }
    if (all.length === 0) return doc;
    const path = all[at % all.length];
    if (kind === "delete") return setAt(doc, path, undefined);
    if (kind === "wrap")
      return setAt(doc, path, [path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], doc)]);
    return setAt(doc, path, value);
  });

/** Text-level damage: truncation, a byte-ish character inserted, a BOM, garbage, odd whitespace. */
const mutatedText = fc
  .record({
    doc: validScenarioDoc,
    at: fc.nat(),
    kind: fc.constantFrom("truncate", "insert", "delete", "bom", "append", "pretty"),
    piece: fc.oneof(
      fc.constantFrom(...ODD_PIECES, "{", "}", "[", "]", ",", ":", '"', "\\u12", "//"),
      fc.string({ unit: "binary", maxLength: 3 }),
    ),
  })
  .map(({ doc, at, kind, piece }) => {
    const text = JSON.stringify(doc);
    const i = at % (text.length + 1);
    switch (kind) {
      case "truncate":
        return text.slice(0, i);
      case "insert":
        return text.slice(0, i) + piece + text.slice(i);
      case "delete":
        return text.slice(0, i) + text.slice(i + 1);
      case "bom":
        return `\ufeff${text}`;
      case "append":
        return text + piece;
      default:
        return JSON.stringify(doc, null, "\t").replace(/\n/g, piece.includes("\n") ? "\r\n" : "\n");
    }
  });

// ---- the properties ------------------------------------------------------------------------

describe("parseScenarioText under fuzz", () => {
  it(
    "accepts every generated valid document, and each plays conformantly for every request shape",
    () => {
      fc.assert(
        fc.property(validScenarioDoc, fc.nat(1000), (doc, seed) => {
          const scenario = parseChecked(JSON.stringify(doc));
          expect(scenario, "a document built from the schema's shape was refused").toBeDefined();
          for (let shape = 0; shape < SHAPES.length; shape++) play(scenario!, shape, seed + shape);
        }),
        { numRuns: fuzzRuns(200) },
      );
    },
    TIMEOUT,
  );

  it(
    "mutated documents give a scenario or a ScenarioError with file, $-path and message — nothing else",
    () => {
      fc.assert(
        fc.property(mutatedDoc, fc.nat(1000), (doc, seed) => {
          const scenario = parseChecked(JSON.stringify(doc));
          // Deeply nested values and odd vendor item statuses are known bugs when played (see below): parse only.
          if (scenario && depthOf(doc) < 64 && !oddVendorStatus(scenario)) play(scenario, seed % SHAPES.length, seed);
        }),
        { numRuns: fuzzRuns(1000) },
      );
    },
    TIMEOUT,
  );

  it(
    "damaged text gives a scenario or a ScenarioError (invalid JSON at $), nothing else",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            mutatedText,
            fc.string({ unit: "binary", maxLength: 100 }),
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          ),
          (text) => {
            parseChecked(text);
          },
        ),
        { numRuns: fuzzRuns(1000) },
      );
    },
    TIMEOUT,
  );

  it(
    "huge and deep documents are handled without throwing anything else",
    () => {
      const deepText = (n: number) => "[".repeat(n) + "]".repeat(n);
      const doc = (steps: string) => `{"name":"x","description":"d","turns":[{"steps":${steps}}]}`;
      for (const text of [
        deepText(100_000),
        doc(deepText(100_000)),
        `{"name":"x","description":"d","turns":[${'{"steps":'.repeat(50_000)}[]${"}".repeat(50_000)}]}`,
        doc(`[${'{"type":"message","text":"hi"},'.repeat(20_000)}{"type":"message","text":"end"}]`),
        doc(`[{"type":"message","text":${JSON.stringify("😀".repeat(500_000))}}]`),
        `{"name":${JSON.stringify("a".repeat(1_000_000))},"description":"d","turns":[{}]}`,
        doc(`[{"type":"vendor_item","item":{"type":"a:b","d":${deepText(50_000)}}}]`),
        doc(`[{"type":"function_call","name":"f","arguments":{"d":${deepText(50_000)}}}]`),
        "\u0000",
        "{".repeat(100_000),
      ]) {
        parseChecked(text);
      }
    },
    TIMEOUT,
  );
});

// ---- over HTTP --------------------------------------------------------------------------------

let mock: MockServer;
let internal: InternalErrors;

beforeAll(async () => {
  internal = watchInternalErrors();
  mock = await startMockServer({ port: 0, seed: 3, clock: fixedClock(1_767_225_600_000), journalLimit: 50 });
});

afterAll(async () => {
  await mock?.close();
  internal?.restore();
  console.log(
    `fuzz-scenarios: ${stats.valid} valid and ${stats.invalid} refused documents; ${stats.played} conformant plays, ${stats.httpErrors} http_error answers, ${stats.refused} no_function_tool refusals; ${stats.overHttp} requests over HTTP`,
  );
});

/** Timing and faults are for the timing tests; here they would only make the answers slow or cut. */
function withoutTimingAndFaults(doc: Record<string, unknown>): Record<string, unknown> {
  const { timing: _t, fault: _f, ...rest } = doc;
  if (Array.isArray(rest.turns))
    rest.turns = rest.turns.map(({ timing: _tt, fault: _ff, ...turn }: Record<string, unknown>) => ({
      ...turn,
      steps: ((turn.steps as Record<string, unknown>[]) ?? []).map(({ delayMs: _d, ...step }) => step),
    }));
  return rest;
}

describe("generated scenarios over HTTP", () => {
  it(
    "answer the scripted status with a spec error, or 200 with a valid response or a conformant stream",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          validScenarioDoc,
          fc.nat(SHAPES.length - 1),
          fc.boolean(),
          fc.nat(1000),
          async (doc, shape, stream, seed) => {
            internal.take();
            const session = mock.session();
            session.use(withoutTimingAndFaults(doc) as never, { times: 1 });
            const answer = await post(
              `${mock.baseURL}/responses`,
              { ...SHAPES[shape], stream },
              { ...session.headers, "x-mock-seed": String(seed) },
            );
            stats.overHttp++;
            const scripted = httpStatusesOf((doc.turns as Record<string, unknown>[] | undefined) ?? []);
            expectSaneAnswer(answer, {
              allow5xx: scripted.filter((s) => s >= 500),
              scriptedErrors: scripted.length > 0,
            });
            if (answer.status !== 200)
              expect(scripted, `unexpected ${answer.status}: ${answer.text.slice(0, 200)}`).toContain(answer.status);
            expect(internal.take(), "the server logged an internal error").toEqual([]);
            session.reset();
          },
        ),
        { numRuns: fuzzRuns(150) },
      );
    },
    TIMEOUT,
  );
});

/** The statuses of a document's http_error turns. */
function httpStatusesOf(turns: Record<string, unknown>[]): number[] {
  return turns.flatMap((t) => {
    const end = t.end as { type?: string; status?: number } | undefined;
    return end?.type === "http_error" && typeof end.status === "number" ? [end.status] : [];
  });
}

// ---- known bugs --------------------------------------------------------------------------------
//
// Regression tests for bugs the fuzzing found (fixed), and one known limitation (`it.fails`).

describe("known bugs", () => {
  const base = (end: unknown) => ({
    name: "bad-headers",
    description: "An http_error turn with headers.",
    turns: [{ end }],
  });

  // Regression test (fixed): http_error `headers` values are any string, so a value Node cannot send (CR/LF, characters
  // above U+00FF) passes validation. At request time ctx.set() throws ERR_INVALID_CHAR inside the error
  // middleware and Koa answers a bare `500 text/plain "Internal Server Error"` — not a spec error body.
  // The schema should refuse such values (e.g. /^[\t\x20-\x7e\x80-\xff]*$/) with a ScenarioError.
  it.each([["a\r\nx-injected: 1"], ["😀"]])("an http_error header value %j is refused by the parser", (value) => {
    expect(() =>
      parseScenarioText(JSON.stringify(base({ type: "http_error", status: 429, headers: { "x-note": value } })), FILE),
    ).toThrow(ScenarioError);
  });

  it("an http_error header value with a line break is refused by use() too, never answered with a bare 500", async () => {
    const session = mock.session();
    try {
      expect(() =>
        session.use(base({ type: "http_error", status: 429, headers: { "x-note": "a\r\nx-injected: 1" } }) as never),
      ).toThrow(ScenarioError);
      const answer = await post(`${mock.baseURL}/responses`, { model: "m", input: "hi" }, session.headers);
      expectSaneAnswer(answer);
    } finally {
      session.reset();
      internal.take();
    }
  });

  // Regression test (fixed): a valid scenario whose vendor_item (or vendor_event) holds a deeply nested value is accepted,
  // then playing it overflows the stack (RangeError from structuredClone/JSON.stringify in
  // src/emit/emit-events.ts and src/http/sse.ts): 500 without streaming, a cut stream with it. The
  // parser should refuse the nesting, or the play should cope.
  it("a vendor_item with a 20,000-deep value is refused or plays", () => {
    const text = `{"name":"deep","description":"d","turns":[{"steps":[{"type":"vendor_item","item":{"type":"acme:x","d":${"[".repeat(20_000)}${"]".repeat(20_000)}}}]}]}`;
    let scenario: Scenario | undefined;
    try {
      scenario = parseScenarioText(text, FILE);
    } catch (err) {
      if (err instanceof ScenarioError) return;
      throw err;
    }
    play(scenario, 0, 1);
  });

  // Regression: a vendor_item could set any `status` (or "incomplete" on an item that is not last), which
  // made streams the conformance rules reject; the parser now refuses them.
  it.each([
    ["searching", { type: "completed" }],
    ["", { type: "completed" }],
    ["incomplete", { type: "incomplete" }],
  ])("a vendor_item with status %j, then a message, is refused by the parser (end %j)", (status, end) => {
    const steps = [
      { type: "vendor_item", item: { type: "acme:search_call", status } },
      { type: "message", text: "after" },
    ];
    expect(() =>
      parseScenarioText(JSON.stringify({ name: "vendor-status", description: "d", turns: [{ steps, end }] }), FILE),
    ).toThrow(ScenarioError);
  });

  it("a vendor_item ending incomplete as the last item plays a conformant stream", () => {
    const steps = [
      { type: "message", text: "before" },
      { type: "vendor_item", item: { type: "acme:search_call", status: "incomplete" } },
    ];
    play(
      parseScenarioText(
        JSON.stringify({ name: "vendor-status", description: "d", turns: [{ steps, end: { type: "incomplete" } }] }),
        FILE,
      ),
      0,
      1,
    );
  });

  // Regression test (fixed): the `random` strategy's ranges have no upper bound (sentences, toolCalls, chunkTokens,
  // failAfterEvents are [int >= 0, int >= 0]), while every other number in the format is capped
  // (chunk tokens <= 10,000, delays <= 1 h). `"toolCalls": [100000000, 100000000]` is accepted, and a
  // request with a tool then plans a hundred million calls: the server hangs and runs out of memory.
  it("random ranges are bounded", () => {
    const doc = {
      name: "huge",
      description: "d",
      generate: { strategy: "random", toolCalls: [100_000_000, 100_000_000], sentences: [100_000_000, 100_000_000] },
    };
    expect(() => parseScenarioText(JSON.stringify(doc), FILE)).toThrow(ScenarioError);
  });
});
