/**
 * No request costs more than it should (issue 12): small requests whose
 * schemas ask for huge values get a small valid answer or a 400 naming the
 * schema, never megabytes; a request with thousands of tools is refused
 * before its tools are read; a WebSocket burst of 1,000 turns leaves the
 * server answering others while it plays them. Sizes and counts are
 * asserted, never wall-clock times (`npm run bench:amplification` measures
 * those).
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { CALL_BYTES, MAX_CALLS, MAX_DELTAS, MAX_FILLED_DELTAS } from "../../src/generate/budgets.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { MAX_TOOLS } from "../../src/spec/index.js";
import { PENDING_MESSAGES_LIMIT } from "../../src/http/websocket.js";
import { validate } from "../generate/schema-check.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { expectSaneAnswer, post, watchInternalErrors, type InternalErrors } from "../support/robust.js";

const MB = 1024 * 1024;
let mock: MockServer;
let internal: InternalErrors;
beforeAll(async () => {
  internal = watchInternalErrors();
  mock = await startMockServer({ port: 0 });
});
afterAll(async () => {
  await mock?.close();
  internal.restore();
});

type Schema = Record<string, unknown>;
const tool = (parameters: Schema, name = "make_thing") => ({
  type: "function",
  name,
  description: "Makes a thing",
  parameters,
});
const object = (props: Record<string, Schema>): Schema => ({
  type: "object",
  properties: props,
  required: Object.keys(props),
});
const ask = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post(`${mock.baseURL}/responses`, { model: "mock-model-1", input: "Make the thing please", ...body }, headers);

/** The function calls of a stream (from its terminal response) and the number of argument deltas of each. */
function callsOf(text: string) {
  const { events } = parseSseStrict(text);
  const done = events.at(-1) as unknown as { response: { output: { type: string; arguments?: string; id: string }[] } };
  const deltas = (id: string) =>
    events.filter((e) => e.type === "response.function_call_arguments.delta" && e.item_id === id).length;
  return done.response.output
    .filter((o) => o.type === "function_call")
    .map((o) => ({ args: JSON.parse(o.arguments!) as unknown, deltas: deltas(o.id), bytes: o.arguments!.length }));
}

describe("a tool schema whose smallest valid value is huge", () => {
  const huge: [string, Schema][] = [
    [
      "a pattern whose shortest match is a million characters",
      object({ code: { type: "string", pattern: "^(a{1000}){1000}$" } }),
    ],
    ["minLength: 1e9", object({ s: { type: "string", minLength: 1e9 } })],
    ["minLength over the call budget", object({ s: { type: "string", minLength: CALL_BYTES + 1 } })],
    ["minItems: 1e9", object({ a: { type: "array", minItems: 1e9, items: { type: "string", minLength: 100 } } })],
    [
      "minItems 45, three levels deep",
      object({
        a: {
          type: "array",
          minItems: 45,
          items: { type: "array", minItems: 45, items: { type: "array", minItems: 45 } },
        },
      }),
    ],
    [
      "a million required keys' worth",
      { type: "object", required: Array.from({ length: 20_000 }, (_, i) => `key_${i}`) },
    ],
  ];
  for (const [name, parameters] of huge) {
    it(`${name}: a 400 schema_too_large naming the tool's parameters, a few hundred bytes`, async () => {
      for (const stream of [true, false]) {
        const answer = await ask({
          tools: [{ type: "function", name: "other", parameters: object({}) }, tool(parameters)],
          tool_choice: { type: "function", name: "make_thing" },
          stream,
        });
        expectSaneAnswer(answer, { expectedStatus: 400 });
        expect(answer.text.length).toBeLessThan(1024);
        expect(JSON.parse(answer.text).error).toMatchObject({
          type: "invalid_request",
          code: "schema_too_large",
          param: "tools[1].parameters",
        });
        expect(JSON.parse(answer.text).error.message).toContain("make_thing");
      }
    });
  }

  it("in a json_schema text format: a 400 naming text.format.schema", async () => {
    const answer = await ask({
      text: {
        format: {
          type: "json_schema",
          name: "x",
          schema: object({ code: { type: "string", pattern: "^(a{1000}){1000}$" } }),
        },
      },
      stream: true,
    });
    expectSaneAnswer(answer, { expectedStatus: 400 });
    expect(JSON.parse(answer.text).error).toMatchObject({ code: "schema_too_large", param: "text.format.schema" });
  });

  it("with the random scenario, and a scripted call without arguments: the same 400", async () => {
    const tools = [tool(object({ s: { type: "string", minLength: 1e9 } }))];
    const random = await ask({ tools, tool_choice: "required" }, { "x-mock-scenario": "random" });
    expect(JSON.parse(random.text).error).toMatchObject({ code: "schema_too_large", param: "tools[0].parameters" });
    await using scripted = await startMockServer({
      port: 0,
      scenarios: [
        {
          name: "call",
          description: "One call, arguments from the tool's schema.",
          turns: [{ steps: [{ type: "function_call", name: "make_thing" }] }],
        },
      ],
    });
    const answer = await post(`${scripted.baseURL}/responses`, { model: "call", input: "go", tools });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: "schema_too_large", param: "tools[0].parameters" });
  });
});

describe("a tool schema with large maxima but small valid values", () => {
  const cases: [string, Schema][] = [
    [
      "50 patterns of up to 10,000 letters",
      object(
        Object.fromEntries(
          Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: "string", pattern: "^[a-z]{1,10000}$" }]),
        ),
      ),
    ],
    [
      "maxItems 100,000 of strings up to 100,000 characters",
      object({ a: { type: "array", maxItems: 100_000, items: { type: "string", maxLength: 100_000 } } }),
    ],
    ["a string of at least 20,000 characters", object({ s: { type: "string", minLength: 20_000 } })],
    [
      "nested repetitions ((ab|c){1,500}){1,500}",
      object({ code: { type: "string", pattern: "^((ab|c){1,500}){1,500}$" } }),
    ],
    ["an enum of 100,000 values", object({ e: { enum: Array.from({ length: 100_000 }, (_, i) => `value_${i}`) } })],
  ];
  for (const [name, parameters] of cases) {
    it(`${name}: arguments valid for the schema, within the call budget, in at most ${MAX_DELTAS} deltas, a stream under 1 MB beside the tools it echoes`, async () => {
      const tools = [tool(parameters)];
      const answer = await ask({ tools, tool_choice: "required", stream: true });
      expectSaneAnswer(answer, { expectedStatus: 200 });
      // The response echoes `tools` in its created, in_progress and terminal events.
      expect(answer.text.length).toBeLessThan(MB + 3 * JSON.stringify(tools).length);
      const calls = callsOf(answer.text);
      expect(calls).toHaveLength(1);
      expect(validate(parameters, calls[0].args)).toEqual([]);
      expect(calls[0].bytes).toBeLessThanOrEqual(CALL_BYTES);
      expect(calls[0].deltas).toBeLessThanOrEqual(MAX_DELTAS);
    });
  }

  it("a json_schema text format with large maxima: JSON valid for the schema, under 1 MB streamed", async () => {
    const schema = object({
      items: {
        type: "array",
        maxItems: 1_000_000,
        items: object({ name: { type: "string", pattern: "^[A-Z][a-z]{1,100000}$" } }),
      },
    });
    const answer = await ask({ text: { format: { type: "json_schema", name: "x", schema } }, stream: true });
    expectSaneAnswer(answer, { expectedStatus: 200 });
    expect(answer.text.length).toBeLessThan(MB);
    const { events } = parseSseStrict(answer.text);
    const response = (events.at(-1) as unknown as { response: { output: { content: { text: string }[] }[] } }).response;
    expect(validate(schema, JSON.parse(response.output[0].content[0].text))).toEqual([]);
  });

  it(`128 tools and 50 files named: at most ${MAX_CALLS} calls, under 1 MB`, async () => {
    const files = Array.from({ length: 50 }, (_, i) => `docs/file${i}.md`);
    const tools = Array.from({ length: 128 }, (_, i) => tool(object({ path: { type: "string" } }), `read_file_${i}`));
    const answer = await ask({ input: `Read ${files.join(", ")}`, tools, stream: true });
    expectSaneAnswer(answer, { expectedStatus: 200 });
    expect(answer.text.length).toBeLessThan(MB);
    const calls = callsOf(answer.text);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThanOrEqual(MAX_CALLS);
    for (const call of calls) expect(files).toContain((call.args as { path: string }).path);
  });

  it(`a scripted text quoting a 2 MB message streams it whole in at most ${MAX_FILLED_DELTAS} deltas`, async () => {
    const input = "word ".repeat(400_000);
    const answer = await post(`${mock.baseURL}/responses`, { model: "text", input, stream: true });
    expectSaneAnswer(answer, { expectedStatus: 200 });
    const { events } = parseSseStrict(answer.text);
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas.length).toBeLessThanOrEqual(MAX_FILLED_DELTAS);
    expect(deltas.map((e) => e.delta as string).join("")).toContain(input);
    // The text goes out in its deltas, its done events and the final response: a few times its size.
    expect(answer.text.length).toBeLessThan(6 * input.length);
  });
});

describe(`more than ${MAX_TOOLS} tools`, () => {
  const many = Array.from({ length: 10_000 }, (_, i) => tool(object({ city: { type: "string" } }), `tool_${i}`));

  it("10,000 tools: a 400 at `tools` that says the limit, in both policies and both dialects", async () => {
    for (const strict of ["0", "1"]) {
      const spec = await ask({ tools: many }, { "x-mock-strict": strict });
      expectSaneAnswer(spec, { expectedStatus: 400 });
      expect(JSON.parse(spec.text).error).toMatchObject({
        type: "invalid_request",
        code: "value_above_maximum",
        param: "tools",
      });
      expect(JSON.parse(spec.text).error.message).toMatch(/at most 128 items \(got 10000\)/);
      const openai = await ask({ tools: many }, { "x-mock-strict": strict, "x-mock-dialect": "openai" });
      expect(openai.status).toBe(400);
      expect(JSON.parse(openai.text).error).toEqual({
        type: "invalid_request_error",
        code: "array_above_max_length",
        param: "tools",
        message:
          "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 10000 instead.",
      });
    }
  });

  it("exactly 128 tools are accepted; 129 are not", async () => {
    expect((await ask({ tools: many.slice(0, 128) })).status).toBe(200);
    const over = await ask({ tools: many.slice(0, 129) });
    expect(JSON.parse(over.text).error).toMatchObject({ code: "value_above_maximum", param: "tools" });
  });

  it("a string over its maximum: the openai dialect says string_above_max_length with the length", async () => {
    const input = [{ type: "function_call_output", call_id: "c".repeat(65), output: "x" }];
    const answer = await ask({ input }, { "x-mock-dialect": "openai" });
    expect(JSON.parse(answer.text).error).toEqual({
      type: "invalid_request_error",
      code: "string_above_max_length",
      param: "input[0].call_id",
      message:
        "Invalid 'input[0].call_id': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.",
    });
  });
});

describe("a WebSocket burst of 1,000 response.create messages", () => {
  it("leaves /health answering while the turns are played (each turn yields the event loop); past the pending bound, each is refused at once", async () => {
    const url = mock.baseURL.replace(/^http/, "ws") + "/responses";
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    let played = 0;
    let refused = 0;
    const TURNS = 1_000;
    // One turn plays, PENDING_MESSAGES_LIMIT wait; a message that finds the queue full is refused with an error event.
    const PLAYED = PENDING_MESSAGES_LIMIT + 1;
    const all = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        const msg = JSON.parse(data.toString()) as { type: string; error?: { code?: string } };
        if (/^response\.(completed|failed|incomplete)$/.test(msg.type)) played++;
        else if (msg.type === "error" && msg.error?.code === "too_many_pending_requests") refused++;
        if (played + refused === TURNS) resolve();
      }),
    );
    const message = JSON.stringify({
      type: "response.create",
      model: "mock-model-1",
      input: "hello there",
      store: false,
    });
    for (let i = 0; i < TURNS; i++) ws.send(message);
    // Asked right after the burst: answered after a few turns, not after all of them
    // (if one macrotask played every queued turn, /health would wait for the last).
    const health = await new Promise<{ status: number; played: number }>((resolve, reject) => {
      http
        .get(`${mock.url}/health`, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, played }));
        })
        .on("error", reject);
    });
    expect(health.status).toBe(200);
    expect(health.played).toBeLessThan(50);
    await all;
    // At least one playing and every waiting one were played (more when turns ended while the burst still arrived), the rest refused.
    expect(played).toBeGreaterThanOrEqual(PLAYED);
    expect(refused).toBeGreaterThan(0);
    expect(played + refused).toBe(TURNS);
    ws.close();
    expect(internal.take()).toEqual([]);
  }, 60_000);
});
