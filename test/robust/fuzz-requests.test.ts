/**
 * Thousands of generated requests against a real server on port 0.
 *
 * - valid bodies, generated from the shape of the request schema (every item
 *   kind and content part, tools with JSON-schema parameters, tool_choice
 *   variants, json_schema output, reasoning, include, metadata, stream on and
 *   off, previous_response_id chains), with random library scenarios and seeds:
 *   exactly 200 (or the scenario's scripted status) with a valid response or a
 *   conformant stream; and the same request streamed and not agree exactly;
 * - mutated bodies (a value replaced by one of the wrong type, a key dropped,
 *   an enum or number out of range), malformed bodies (truncated JSON,
 *   duplicate keys, 1e309/NaN/-0, invalid UTF-8, BOM, comments, deep nesting,
 *   huge and odd strings, random bytes), wrong content types, bad control
 *   headers, and unknown routes and methods: never a 5xx, every error a spec
 *   error body;
 * - throughout, the server logs no internal error, no connection is reset,
 *   and /health still answers at the end.
 *
 * Known bugs are excluded from the properties (so they stay meaningful) and
 * pinned by `it.fails` tests at the end of the file; see their comments.
 *
 * ORM_FUZZ_RUNS=N runs each property N times.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base64UrlEncode } from "../../src/generate/hash.js";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { expectConformantStream } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import {
  expectSaneAnswer,
  fuzzRuns,
  health,
  longRun,
  paths,
  post,
  setAt,
  watchInternalErrors,
  type AnswerKind,
  type HttpAnswer,
  type InternalErrors,
} from "../support/robust.js";
import { ODD_PIECES, anyText, oddText, smallJson, validBody } from "./arbitraries.js";
import { withoutIds } from "../support/ids.js";

const LIBRARY = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
const NAMES = ["auto", ...LIBRARY.map((s) => s.name)];
/** The status a library scenario answers with when it is an http_error one (error-400 … error-503). */
const SCRIPTED_STATUS = new Map(
  LIBRARY.flatMap((s) => {
    const end = s.turns?.length === 1 ? s.turns[0].end : undefined;
    return end?.type === "http_error" ? [[s.name, end.status] as const] : [];
  }),
);

let mock: MockServer;
let internal: InternalErrors;
/** Ids of stored responses, for previous_response_id chains. */
const stored: string[] = [];
const counts = { requests: 0, ok: 0, streams: 0, errors: 0 } as Record<string, number>;

beforeAll(async () => {
  internal = watchInternalErrors();
  // A big store so chains never hit an evicted id; the journal stays small.
  mock = await startMockServer({
    port: 0,
    seed: 7,
    clock: fixedClock(1_767_225_600_000),
    storeLimit: 100_000,
    journalLimit: 50,
  });
});

afterAll(async () => {
  await mock?.close();
  internal?.restore();
  console.log(
    `fuzz-requests: ${counts.requests} requests, ${counts.ok} JSON 200s, ${counts.streams} streams, ${counts.errors} spec errors`,
  );
});

const TIMEOUT = longRun() ? 3_600_000 : 60_000;
const url = () => `${mock.baseURL}/responses`;

/** Sends one request and checks the universal invariant; also that the server logged no internal error for it. */
async function check(
  body: unknown,
  headers: Record<string, string>,
  options: { expectedStatus?: number; allow5xx?: readonly number[] } = {},
): Promise<HttpAnswer> {
  counts.requests++;
  internal.take(); // what an earlier failing run left behind is not this request's
  const answer = await post(url(), body, headers);
  const logged = internal.take();
  let kind: AnswerKind;
  try {
    kind = expectSaneAnswer(answer, options);
  } catch (err) {
    if (logged.length > 0 && err instanceof Error) err.message += `\nThe server logged: ${logged.join("; ")}`;
    throw err;
  }
  counts[kind === "json" ? "ok" : kind === "stream" ? "streams" : "errors"]++;
  expect(logged, "the server logged an internal error").toEqual([]);
  return answer;
}

/** The scenario a valid request is answered by: the header, else a scenario named like the model, else auto. */
const scenarioOf = (body: Record<string, unknown>, headers: Record<string, string>) =>
  headers["x-mock-scenario"] ?? (NAMES.includes(body.model as string) ? (body.model as string) : "auto");

// ---- headers ----------------------------------------------------------------------

const controlHeaders = fc.record(
  {
    "x-mock-scenario": fc.constantFrom(...NAMES),
    "x-mock-seed": fc.oneof(fc.nat(1000), fc.constant(Number.MAX_SAFE_INTEGER)).map(String),
    // Now and then a little pacing: the non-streamed path then waits on timers too.
    "x-mock-chunk-ms": fc.constantFrom("0", "0", "0", "0", "0", "0", "0", "0", "0", "1"),
    "x-mock-jitter-ms": fc.constantFrom("0", "0", "0", "0", "0", "0", "0", "0", "0", "1"),
  },
  { requiredKeys: [] },
);

/** A valid body, its headers, and whether to continue a stored response. */
const validRequest = fc.record({
  body: validBody,
  headers: controlHeaders,
  modelIsScenario: fc.option(fc.constantFrom(...NAMES), { nil: undefined, freq: 6 }),
  previous: fc.option(fc.nat(), { nil: undefined, freq: 4 }),
});

describe("valid requests", () => {
  it(
    "answer exactly 200 (or the scripted status) with a valid response or a conformant stream",
    async () => {
      await fc.assert(
        fc.asyncProperty(validRequest, async ({ body: generated, headers, modelIsScenario, previous }) => {
          const body = { ...generated };
          if (modelIsScenario) body.model = modelIsScenario;
          if (previous !== undefined && stored.length > 0) body.previous_response_id = stored[previous % stored.length];
          const status = SCRIPTED_STATUS.get(scenarioOf(body, headers)) ?? 200;
          const answer = await check(body, headers, {
            expectedStatus: status,
            allow5xx: status >= 500 ? [status] : [],
          });
          if (answer.status === 200 && body.store !== false && !answer.contentType.startsWith("text/event-stream"))
            stored.push(JSON.parse(answer.text).id);
        }),
        { numRuns: fuzzRuns(250) },
      );
    },
    TIMEOUT,
  );
});

describe("the two transports", () => {
  it(
    "agree: the JSON body equals the terminal response of the same request streamed",
    async () => {
      await fc.assert(
        fc.asyncProperty(validRequest, async ({ body: generated, headers, modelIsScenario }) => {
          const body = { ...generated };
          delete body.stream;
          if (modelIsScenario) body.model = modelIsScenario;
          const status = SCRIPTED_STATUS.get(scenarioOf(body, headers)) ?? 200;
          const options = { expectedStatus: status, allow5xx: status >= 500 ? [status] : [] };
          const json = await check(body, headers, options);
          const streamed = await check({ ...body, stream: true }, headers, options);
          if (status !== 200) {
            expect(streamed.text).toBe(json.text);
          } else {
            const { events } = parseSseStrict(streamed.text);
            expect(withoutIds(JSON.parse(json.text))).toEqual(withoutIds(events.at(-1)?.response));
          }
        }),
        { numRuns: fuzzRuns(100) },
      );
    },
    TIMEOUT,
  );
});

// ---- mutated bodies -----------------------------------------------------------------

/** Values of the wrong type or out of range, for any position. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    15,
    21,
    1.5,
    -0.0,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    "",
    "bogus",
    "minimal",
    "json_object",
    [],
    {},
    [null],
    { type: "bogus" },
    { type: "acme:x" },
    { role: "robot" },
    "x".repeat(600),
  ),
  smallJson,
  anyText,
);

const mutation = fc.record({
  request: validRequest,
  at: fc.nat(),
  kind: fc.constantFrom("replace", "replace", "replace", "delete", "add"),
  value: badValue,
  key: fc.oneof(
    fc.constantFrom("type", "role", "content", "extra", "__proto__", "constructor", "id", "status"),
    fc.string({ maxLength: 8 }),
  ),
});

describe("mutated requests", () => {
  it(
    "never get a 5xx: a 200 with a valid answer, or a spec error",
    async () => {
      await fc.assert(
        fc.asyncProperty(mutation, async ({ request, at, kind, value, key }) => {
          const { body, headers } = request;
          const all = paths(body);
          let mutated: unknown = body;
          if (kind === "add") {
            const objects = [[], ...all].filter((p) => {
              const v = p.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], body);
              return v !== null && typeof v === "object" && !Array.isArray(v);
            });
            const target = objects[at % objects.length];
            mutated = setAt(body, [...target, key], value);
          } else if (all.length > 0) {
            mutated = setAt(body, all[at % all.length], kind === "delete" ? undefined : value);
          }
          const status = SCRIPTED_STATUS.get(scenarioOf(body, headers));
          const model =
            typeof (mutated as Record<string, unknown>).model === "string"
              ? ((mutated as Record<string, unknown>).model as string)
              : "";
          const allow5xx = [status, SCRIPTED_STATUS.get(model)].filter((s): s is number => s !== undefined && s >= 500);
          await check(mutated, headers, { allow5xx });
        }),
        { numRuns: fuzzRuns(300) },
      );
    },
    TIMEOUT,
  );
});

// ---- malformed bodies -------------------------------------------------------------------

const VALID = '{"model":"mock-model-1","input":"Hello there","max_output_tokens":64}';
const enc = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};
const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0xc0, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xc0, 0xaf],
].map((b) => new Uint8Array(b));
const NUMBERS = [
  "1e309",
  "-1e309",
  "-0",
  "NaN",
  "Infinity",
  "-Infinity",
  "0x20",
  "1_000",
  "016",
  "+16",
  "16.",
  ".5",
  "1e-400",
  "9007199254740993",
  "1e21",
  "16.0",
  "1E2",
  "-16",
];
const NUMBER_KEYS = ["max_output_tokens", "temperature", "top_logprobs", "max_tool_calls", "top_p"];
const deep = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);

/** A malformed (or merely odd) body: bytes or text, sent as application/json. */
const malformed: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  // truncated JSON
  fc.tuple(validBody, fc.nat()).map(([b, n]) => {
    const text = JSON.stringify(b);
    return text.slice(0, n % text.length);
  }),
  // duplicate keys: the last one wins in JSON.parse
  fc
    .tuple(fc.constantFrom("model", "input", "stream", "tools", "max_output_tokens"), smallJson, fc.boolean())
    .map(([k, v, first]) =>
      first
        ? `{${JSON.stringify(k)}:${JSON.stringify(v)},${VALID.slice(1)}`
        : `${VALID.slice(0, -1)},${JSON.stringify(k)}:${JSON.stringify(v)}}`,
    ),
  // numbers out of range or not JSON at all
  fc
    .tuple(fc.constantFrom(...NUMBER_KEYS), fc.constantFrom(...NUMBERS))
    .map(([k, n]) => `{"model":"m","input":"hi",${JSON.stringify(k)}:${n}}`),
  // invalid UTF-8 inside a string, outside a string, or at the end
  fc
    .tuple(fc.constantFrom(...INVALID_UTF8), fc.constantFrom(0, 1, 2))
    .map(([bad, where]) =>
      where === 0
        ? concat(enc('{"model":"m","input":"he'), bad, enc('llo"}'))
        : where === 1
          ? concat(enc('{"model":"m",'), bad, enc('"input":"x"}'))
          : concat(enc(VALID), bad),
    ),
  // BOMs, comments, trailing commas, single quotes, JSON5-isms
  fc.constantFrom(
    `\ufeff${VALID}`,
    `\ufeff\ufeff${VALID}`,
    `// c\n${VALID}`,
    '{"model":"m","input":"hi",}',
    "{'model':'m','input':'hi'}",
    '{model:"m",input:"hi"}',
    `${VALID}${VALID}`,
    `${VALID} x`,
    `[${VALID}]`,
    "",
    "   \n\t ",
    "null",
    "1",
    '"x"',
    "true",
    "[]",
    "{}",
    '{"model":null,"input":null}',
    '{"model":"m","input":"\\ud800"}',
    '{"model":"m","input":"\\u0000\\u202e\\ufeff"}',
    '{"model":"m","input":"\\x41"}',
    '{"model":"m","input":"a\u0000b"}',
    '{"model":"m","input":"raw\nnewline"}',
    '{"__proto__":{"model":"m"},"input":"x"}',
    '{"model":"m","input":"hi","__proto__":{"stream":true}}',
    '{"model":"m","input":[{"__proto__":{"type":"message"},"role":"user","content":"x"}]}',
  ),
  // deep nesting where it is harmless: at the top, or under an unknown key (dropped by validation)
  fc
    .tuple(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom("[]", "{}"), fc.boolean(), fc.boolean())
    .map(([n, kind, top, closed]) => {
      const value =
        kind === "[]"
          ? closed
            ? deep(n, "[", "]")
            : "[".repeat(n)
          : closed
            ? '{"a":'.repeat(n) + "1" + "}".repeat(n)
            : '{"a":'.repeat(n);
      return top ? value : `{"model":"m","input":"hi","x_unknown":${value}}`;
    }),
  // huge and odd strings, in valid positions
  fc
    .tuple(fc.integer({ min: 1_000, max: 300_000 }), oddText, fc.constantFrom("input", "instructions", "model"))
    .map(([n, odd, key]) => {
      const text = (odd || "x").repeat(Math.ceil(n / Math.max(1, odd.length)));
      return JSON.stringify({ model: "m", input: "hi", [key]: text });
    }),
  fc
    .record({
      model: anyText,
      input: fc.array(fc.record({ role: fc.constant("user"), content: fc.constantFrom(...ODD_PIECES) }), {
        maxLength: 4,
      }),
    })
    .map((b) => JSON.stringify(b)),
  // random bytes and random text
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);

describe("malformed bodies", () => {
  it(
    "never get a 5xx or a reset: a spec error (or a 200 where the body is still valid)",
    async () => {
      await fc.assert(
        fc.asyncProperty(malformed, fc.boolean(), async (body, stream) => {
          const headers = { "content-type": "application/json", ...(stream ? { "x-mock-seed": "3" } : {}) };
          await check(body, headers);
        }),
        { numRuns: fuzzRuns(300) },
      );
    },
    TIMEOUT,
  );

  it(
    "answer the documented codes for the documented cases",
    async () => {
      const code = async (body: string | Uint8Array, headers: Record<string, string> = {}) => {
        const answer = await check(body, { "content-type": "application/json", ...headers });
        return answer.status >= 400
          ? { status: answer.status, ...JSON.parse(answer.text).error }
          : { status: answer.status };
      };
      expect(await code("")).toMatchObject({ status: 400, code: "invalid_json" });
      expect(await code('{"model":')).toMatchObject({ status: 400, code: "invalid_json" });
      expect(await code(concat(enc('{"model":"m","input":"'), new Uint8Array([0xff]), enc('"}')))).toMatchObject({
        status: 400,
        code: "invalid_json",
      });
      expect(await code(deep(10_000, "[", "]"))).toMatchObject({ status: 400, code: "nested_too_deeply" });
      // Nesting is limited everywhere, unknown fields included (it used to overflow the stack in opaque fields).
      expect(await code(`{"model":"m","input":"hi","x_unknown":${deep(10_000, "[", "]")}}`)).toMatchObject({
        status: 400,
        code: "nested_too_deeply",
      });
      expect(await code(`{"model":"m","input":"hi","x_unknown":${deep(90, "[", "]")}}`)).toMatchObject({ status: 200 });
      expect(await code('{"input":"hi"}')).toMatchObject({
        status: 400,
        code: "missing_required_parameter",
        param: "model",
      });
      expect(await code('{"model":"m","input":"hi","max_output_tokens":1e309}')).toMatchObject({
        status: 400,
        param: "max_output_tokens",
      });
      expect(await code('{"model":"m","input":"hi","max_output_tokens":-0}')).toMatchObject({
        status: 400,
        code: "value_below_minimum",
      });
      expect(await code('{"model":"m","input":"hi","top_logprobs":21}')).toMatchObject({
        status: 400,
        code: "value_above_maximum",
      });
      // Over MAX_TEXT (10,485,760 characters), under the 32 MiB body limit.
      expect(await code(JSON.stringify({ model: "m", input: "x".repeat(10_485_761) }))).toMatchObject({
        status: 400,
        code: "value_above_maximum",
        param: "input",
      });
    },
    TIMEOUT,
  );
});

// ---- content types ----------------------------------------------------------------------

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "text/plain",
  "text/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "json",
  "application/octet-stream",
  "*/*",
  ";",
  "application/json, text/plain",
];
const acceptsJson = (type: string) => {
  const t = type.split(";")[0].trim().toLowerCase();
  return t === "application/json" || t.endsWith("+json");
};

describe("content types", () => {
  it(
    "JSON types are read, anything else is a 415 spec error",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constantFrom(...CONTENT_TYPES, null),
            fc.string({ maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
          ),
          async (type) => {
            const headers: Record<string, string> = type === null ? {} : { "content-type": type };
            const answer = await check(enc(VALID), headers);
            const sent = type?.trim() ?? "";
            if (acceptsJson(sent)) expect(answer.status).toBe(200);
            else {
              expect(answer.status).toBe(415);
              expect(JSON.parse(answer.text).error.code).toBe("unsupported_media_type");
            }
          },
        ),
        { numRuns: fuzzRuns(150) },
      );
    },
    TIMEOUT,
  );
});

// ---- control headers ----------------------------------------------------------------

const BAD_NUMBERS = ["-1", "1.5.", "abc", "1e3", "0x10", "NaN", "Infinity", "1 2", "+1", "--", "99999999999999999999"];
const badHeader = fc.oneof(
  fc.tuple(fc.constantFrom("x-mock-seed"), fc.constantFrom(...BAD_NUMBERS, "1.5", "9007199254740992")),
  fc.tuple(
    fc.constantFrom(
      "x-mock-latency-ms",
      "x-mock-chunk-ms",
      "x-mock-jitter-ms",
      "x-mock-heartbeat-ms",
      "x-mock-tokens-per-second",
    ),
    fc.constantFrom(...BAD_NUMBERS, "3600001"),
  ),
  fc.tuple(fc.constant("x-mock-tokens-per-second"), fc.constant("0")),
  fc.tuple(
    fc.constant("x-mock-fault"),
    fc.constantFrom(
      "explode=1",
      "drop-after-events",
      "drop-after-events=-1",
      "drop-after-events=abc",
      "stall-ms=5",
      "stall-after-events=1",
      "hang-after-events=99999999",
      "drop-after-events=1;;bogus=2",
      "=",
      ";x",
    ),
  ),
  fc.tuple(fc.constant("x-mock-session"), fc.constantFrom("a b", "x".repeat(201), "tab\there")),
  fc.tuple(
    fc.constant("x-mock-scenario"),
    fc.oneof(
      fc.constantFrom(
        "../../etc/passwd",
        "/etc/passwd",
        "..\\..\\boot.ini",
        "text/../text",
        "TEXT",
        "%74ext",
        "__proto__",
        "constructor",
        "scenarios/text.json",
        "text.json",
      ),
      fc.stringMatching(/^[!-~]{1,300}$/).filter((s) => !NAMES.includes(s)),
    ),
  ),
);

describe("control headers", () => {
  it(
    "a bad value is a 400 naming the header; the body is never the problem",
    async () => {
      await fc.assert(
        fc.asyncProperty(badHeader, fc.boolean(), async ([name, value], stream) => {
          const answer = await check({ model: "m", input: "hi", stream }, { [name]: value });
          expect(answer.status, `${name}: ${value}`).toBe(400);
          const error = JSON.parse(answer.text).error;
          expect(error.param).toBe(name);
          expect(error.code).toBe(name === "x-mock-scenario" ? "unknown_scenario" : "invalid_header");
        }),
        { numRuns: fuzzRuns(200) },
      );
    },
    TIMEOUT,
  );
});

// ---- other routes and methods ---------------------------------------------------------------

const PATHS = [
  "/",
  "/v1",
  "/v1/",
  "/v1/responses/",
  "/v1/responses/resp_x",
  "/v1/responses/resp_x/input_items",
  "/v1/responses/resp_x/cancel",
  "/v1/responses/compact",
  "/v1/responses/input_tokens",
  "/v1/chat/completions",
  "/health",
  "/health/",
  "/__mock/requests",
  "/__mock/queue",
  "/__mock/scenarios",
  "/__mock/reset",
  "/__mock/",
  "/../../etc/passwd",
  "/v1/responses/%2e%2e%2f",
  "/v1/responses/%ZZ",
  "/v1/responses/resp_x?stream=true&starting_after=abc",
  "/v1/responses/resp_x/input_items?limit=-1&order=sideways",
  "/v1/responses?x=1&x=2",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
/** Bodies for the other routes: small, shallow (deeply nested bodies are a known bug, see below). */
const routeBody = fc.oneof(
  fc.constant(undefined),
  validBody.map((b) => JSON.stringify(b)),
  smallJson.map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '{"turns":[{"steps":[]}]}',
    '{"scenario":{"name":"x","description":"d","turns":[{}]},"times":2}',
    '{"turns":[null]}',
    '{"scenario":{"name":"x"},"times":-1}',
    "{",
    "",
  ),
);

describe("other routes and methods", () => {
  it(
    "answer a spec error or a 2xx, never a 5xx",
    async () => {
      // The journal holds the deeply nested bodies sent above, which GET /__mock/requests cannot serialize (a known bug): start clean.
      await fetch(`${mock.url}/__mock/requests`, { method: "DELETE" });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...METHODS),
          fc.oneof(
            fc.constantFrom(...PATHS),
            fc.webPath().map((p) => `/v1${p}`),
          ),
          routeBody,
          async (method, path, body) => {
            counts.requests++;
            internal.take();
            const withBody = body !== undefined && method !== "GET" && method !== "HEAD";
            const res = await fetch(`${mock.url}${path}`, {
              method,
              headers: withBody ? { "content-type": "application/json" } : {},
              body: withBody ? body : undefined,
            });
            const text = await res.text();
            const type = res.headers.get("content-type") ?? "";
            expect(res.status, `${method} ${path}: ${text.slice(0, 200)}`).toBeLessThan(500);
            if (res.status >= 400 && method !== "HEAD")
              expectSaneAnswer({ status: res.status, contentType: type, text });
            if (res.status === 200 && type.startsWith("text/event-stream")) expect(text.endsWith("\n\n")).toBe(true);
            expect(internal.take(), "the server logged an internal error").toEqual([]);
          },
        ),
        { numRuns: fuzzRuns(300) },
      );
      await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
    },
    TIMEOUT,
  );
});

// ---- afterwards -------------------------------------------------------------------------------

describe("afterwards", () => {
  it("the server still answers /health and a plain request", async () => {
    expect(await health(mock.url)).toBe(200);
    const answer = await check({ model: "mock-model-1", input: "Still there?", stream: true }, {});
    expect(answer.status).toBe(200);
    expect(counts.requests).toBeGreaterThan(100);
  });
});

// ---- known bugs --------------------------------------------------------------------------------
//
// Regression tests for bugs the fuzzing found (all fixed):
// then drop the `.fails` (and widen the generators above to cover the case).

describe("known bugs", () => {
  const deepArray = deep(20_000, "[", "]");
  const internalAfter = async (fn: () => Promise<void>) => {
    try {
      await fn();
    } finally {
      internal.take();
    }
  };

  // Regression test (fixed): a deeply nested value inside a field the schema keeps opaque (a vendor item or vendor tool, tool
  // parameters, text.format.schema) passes validation, then overflows the stack in canonicalJson
  // (src/generate/seed.ts) while the request digest is computed: 500 server_error "Maximum call stack
  // size exceeded". It should be a 400 (e.g. a nesting limit at validation) or be answered.
  it.each([
    ["a vendor item", `{"model":"m","input":[{"type":"acme:x","d":${deepArray}}]}`],
    ["a vendor tool", `{"model":"m","input":"hi","tools":[{"type":"acme:t","d":${deepArray}}]}`],
    [
      "tool parameters",
      `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","parameters":{"x":${deepArray}}}]}`,
    ],
    [
      "text.format.schema",
      `{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x","schema":{"x":${deepArray}}}}}`,
    ],
  ])("deep nesting (20,000 arrays) in %s is not a 500", async (_, body) => {
    await internalAfter(async () => {
      const answer = await post(url(), body);
      expect(answer.status).toBeLessThan(500);
    });
  });

  // Regression test (fixed): the same stack overflow on POST /v1/responses/compact.
  it("deep nesting in a vendor item is not a 500 on /v1/responses/compact", async () => {
    await internalAfter(async () => {
      const answer = await post(
        `${mock.baseURL}/responses/compact`,
        `{"model":"m","input":[{"type":"acme:x","d":${deepArray}}]}`,
      );
      expect(answer.status).toBeLessThan(500);
    });
  });

  // Regression test (fixed): the journal keeps the parsed body of every request, even a rejected one; after a request whose
  // body is deeply nested (here a bare 20,000-deep array, answered 400), GET /__mock/requests answers
  // 500 (JSON.stringify overflows the stack in src/http/admin.ts) until the journal is cleared.
  it("GET /__mock/requests still answers after a deeply nested body", async () => {
    await internalAfter(async () => {
      const session = "deep-journal";
      await post(url(), deepArray, { "x-mock-session": session });
      const res = await fetch(`${mock.url}/__mock/requests?session=${session}`);
      await res.text();
      await fetch(`${mock.url}/__mock/requests`, { method: "DELETE", headers: { "x-mock-session": session } });
      expect(res.status).toBe(200);
    });
  });

  // Regression test (fixed): a compaction item whose encrypted_content looks like this server's own ("orm.cmp.v1." +
  // base64url JSON) is decoded and spliced into the conversation without validation
  // (src/generate/compact.ts expandCompactions): `[null]` gives 500 "Cannot read properties of null
  // (reading 'type')", `[{"type":"compaction","encrypted_content":null}]` gives 500 "... (reading
  // 'startsWith')". A forged or corrupted compaction should be a 400 (or be kept opaque).
  it.each(["[null]", '[{"type":"compaction","encrypted_content":null}]'])(
    "a forged compaction item holding %s is not a 500",
    async (payload) => {
      await internalAfter(async () => {
        const answer = await post(url(), {
          model: "m",
          input: [
            { type: "compaction", encrypted_content: `orm.cmp.v1.${base64UrlEncode(payload)}` },
            { role: "user", content: "hi" },
          ],
        });
        expect(answer.status).toBeLessThan(500);
      });
    },
  );

  // Regression test (fixed): JSON-schema sampling (src/generate/json-schema-sample.ts) has no size budget: nested minItems
  // multiply (each capped at 100,000) and required self-references ($ref "#") branch until depth 14
  // (two of them: a 425 KB value from a 90-byte schema). A 269-byte request with minItems 45 at three
  // levels blocks the event loop ~1.1 s and answers 1.5 MB; streamed, 4 s and 47 MB in 183,811 SSE
  // events. minItems 1000 at three levels asks for 10^9 strings: the heap runs out and the process dies.
  // An answer should stay bounded (cap the total sampled size, or refuse the schema with a 400).
  // Fixed with both (src/generate/budgets.ts): this schema has no valid value under the 32 KiB a call
  // may take, so it is a 400 schema_too_large naming tools[0].parameters (test/robust/amplification.test.ts).
  it("a small tool schema cannot make an unbounded answer", async () => {
    const nested = {
      type: "array",
      minItems: 45,
      items: { type: "array", minItems: 45, items: { type: "array", minItems: 45, items: { type: "string" } } },
    };
    const body = {
      model: "m",
      input: "hi",
      tools: [
        { type: "function", name: "f", parameters: { type: "object", properties: { a: nested }, required: ["a"] } },
      ],
    };
    for (const stream of [false, true]) {
      const answer = await post(url(), { ...body, stream });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).error).toMatchObject({ code: "schema_too_large", param: "tools[0].parameters" });
      expect(JSON.stringify(body).length).toBeLessThan(300);
      expect(answer.text.length).toBeLessThan(1_000);
    }
  }, 60_000);

  // Regression test (fixed): placeholders are filled with String.prototype.replaceAll and a string replacement
  // (src/generate/scripted.ts fill), so `$$`, `$&`, `$'` and "$`" in the user's message are
  // interpreted as replacement patterns: the `text` scenario answers `You said: "cost: $5 and
  // {{input}} and ". … Hi there! You said: "".` for the input "cost: $$5 and $& and $' and $`".
  // The input should be quoted verbatim (use a replacer function).
  it("{{input}} quotes the user's message verbatim, `$` patterns included", async () => {
    const input = "cost: $$5 and $& and $' and $`";
    const answer = await post(url(), { model: "m", input }, { "x-mock-scenario": "text" });
    expect(JSON.parse(answer.text).output[0].content[0].text).toContain(`You said: "${input}".`);
  });

  // Regression test (fixed): copyJson (src/emit/emit-events.ts), which foldEvents (src/emit/fold.ts) clones with, copies
  // with `out[key] = …`; for the key "__proto__" that sets the copy's prototype instead of adding a
  // property, so the key vanishes. A tool whose JSON Schema has a property named "__proto__" (legal JSON)
  // is echoed with it in response.created and response.completed, but the fold of the stream lacks it:
  // the fold no longer equals the terminal response (and a fold-built JSON body would lose it too).
  // Copy with Object.defineProperty, as json-schema-sample.ts's put() does.
  it("a tool schema with a '__proto__' property streams a stream whose fold equals its terminal response", async () => {
    const body =
      '{"model":"m","input":"hi","stream":true,"tool_choice":"none","tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"__proto__":{"type":"string"}}}}]}';
    const answer = await post(url(), body);
    expect(answer.status).toBe(200);
    expectConformantStream(parseSseStrict(answer.text).events);
  });
});
