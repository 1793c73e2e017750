/**
 * Conversation state against a real server, through the official `openai` SDK
 * and raw fetch: previous_response_id chains (multi-turn, agentic tool loops,
 * scripted turn selection), store: false, eviction at the store cap, every
 * stored-response route (retrieve and replay, delete, input items, input
 * tokens, cancel), background runs, and compaction.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { MockServer } from "../../src/server.js";
import { expectConformantStream, expectErrorBody, expectValidResponse } from "../support/conformance.js";
import { TEST_NOW_MS, useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { withoutIds } from "../support/ids.js";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A raw-fetch client of one server: method, path under /v1, optional JSON body and headers. */
function rawClient(get: () => MockServer) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${get().baseURL}${path}`, {
      method,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: Json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = useServer({ seed: 11 });
const api = rawClient(server);
const client = () => new OpenAI({ baseURL: server().baseURL, apiKey: "x", maxRetries: 0 });
const MODEL = "mock-model-1";

/** POST /v1/responses, expecting 200 and a JSON response. */
async function create(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Json> {
  const res = await api("POST", "/responses", { model: MODEL, ...body }, headers);
  expect(res.status, res.text).toBe(200);
  return res.json;
}

/** Expects a spec error object with this status (and, when given, code and param). */
function expectError(
  res: { status: number; json: Json; text: string; headers: Headers },
  status: number,
  code?: string | null,
  param?: string | null,
) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expectErrorBody(res.json);
  if (code !== undefined) expect(res.json.error.code).toBe(code);
  if (param !== undefined) expect(res.json.error.param).toBe(param);
  return res.json.error as { type: string; code: string | null; param: string | null; message: string };
}

const tools = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
  {
    type: "function" as const,
    name: "get_time",
    description: "Local time in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
];

/** expectValidResponse without narrowing the raw JSON's type. */
const valid = (r: Json): void => expectValidResponse(r);

const fco = (call_id: string, output: string) => ({ type: "function_call_output" as const, call_id, output });

describe("previous_response_id: multi-turn through the SDK", () => {
  it("continues a 3-turn conversation; each response echoes previous_response_id; input_tokens counts the whole context", async () => {
    const c = client();
    const r1 = await c.responses.create({ model: MODEL, input: "My name is Ada. Please remember it." });
    const r2 = await c.responses.create({ model: MODEL, previous_response_id: r1.id, input: "What is my name?" });
    // Turn 3 streams: the SDK's accumulator must accept a continued conversation too.
    const r3 = await c.responses
      .stream({ model: MODEL, previous_response_id: r2.id, input: "Now spell it backwards." })
      .finalResponse();
    for (const r of [r1, r2, r3]) {
      valid(r);
      expect(r.status).toBe("completed");
    }
    expect(new Set([r1.id, r2.id, r3.id]).size).toBe(3);
    expect(r1.previous_response_id).toBeNull();
    expect(r2.previous_response_id).toBe(r1.id);
    expect(r3.previous_response_id).toBe(r2.id);
    // Each answer is to its own turn's user message.
    expect(r2.output_text).toContain("What is my name?");
    expect(r3.output_text).toContain("Now spell it backwards.");

    const in1 = r1.usage!.input_tokens;
    const in2 = r2.usage!.input_tokens;
    const in3 = r3.usage!.input_tokens;
    expect(in2).toBeGreaterThan(in1);
    expect(in3).toBeGreaterThan(in2);
    // The context of turn 2 is turn 1's input and output plus its own input: more than its own input alone.
    const alone = await c.responses.inputTokens.count({ model: MODEL, input: "What is my name?" });
    expect(in2).toBeGreaterThan(alone.input_tokens + in1);
    // The input_tokens route counts the same context as usage does.
    const counted = await c.responses.inputTokens.count({
      model: MODEL,
      previous_response_id: r1.id,
      input: "What is my name?",
    });
    expect(counted.input_tokens).toBe(in2);
  });

  it("the SDK surfaces an unknown previous_response_id as a BadRequestError with the spec code and param", async () => {
    const err = await client()
      .responses.create({ model: MODEL, previous_response_id: "resp_sdk_unknown", input: "Hi" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.code).toBe("previous_response_not_found");
    expect(e.param).toBe("previous_response_id");
  });
});

describe("agentic loop with auto", () => {
  it("turn 1 calls both tools; turn 2 sends only the outputs with previous_response_id and gets an answer quoting both", async () => {
    const c = client();
    const t1 = await c.responses.create({
      model: MODEL,
      input: "What's the weather and the local time in Oslo?",
      tools,
    });
    expectValidResponse(t1);
    const calls = t1.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call");
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    expect(new Set(calls.map((call) => call.call_id)).size).toBe(2);
    for (const call of calls) expect(typeof JSON.parse(call.arguments).city).toBe("string");

    const t2 = await c.responses.create({
      model: MODEL,
      tools,
      previous_response_id: t1.id,
      input: [fco(calls[0].call_id, '{"temp_c":3}'), fco(calls[1].call_id, "09:30")],
    });
    expectValidResponse(t2);
    expect(t2.previous_response_id).toBe(t1.id);
    expect(t2.output.map((o) => o.type)).toEqual(["message"]);
    expect(t2.output_text).toMatch(/^Based on the tool results: /);
    expect(t2.output_text).toContain('get_weather returned {"temp_c":3}.');
    expect(t2.output_text).toContain("get_time returned 09:30.");
    // The context holds the calls and their outputs.
    expect(t2.usage!.input_tokens).toBeGreaterThan(t1.usage!.input_tokens);
  });

  it("a function_call_output matching no call, without previous_response_id, is a 400 naming the call_id", async () => {
    const res = await api("POST", "/responses", { model: MODEL, tools, input: [fco("call_nowhere_1", "42")] });
    const error = expectError(res, 400, "call_not_found", "input[0].call_id");
    expect(error.message).toContain("call_nowhere_1");
  });

  // Regression: call_ids used to be checked only without previous_response_id.
  it("a function_call_output matching no call in the previous_response_id chain is a 400 naming the call_id", async () => {
    const t1 = await create({ input: "What's the weather in Bergen?", tools });
    expect(t1.output.some((o: Json) => o.type === "function_call")).toBe(true);
    const res = await api("POST", "/responses", {
      model: MODEL,
      tools,
      previous_response_id: t1.id,
      input: [fco("call_nowhere_2", "42")],
    });
    const error = expectError(res, 400, "call_not_found", "input[0].call_id");
    expect(error.message).toContain("call_nowhere_2");
  });
});

describe("scripted turn selection counts the previous_response_id chain", () => {
  const H = { "x-mock-scenario": "tool-call" };

  it("tool-call by header: turn 1 via create, turn 2 via previous_response_id and only the tool output", async () => {
    const t1 = await api("POST", "/responses", { model: MODEL, input: "Is it raining in Paris?" }, H);
    expect(t1.status, t1.text).toBe(200);
    expect(t1.headers.get("x-mock-scenario")).toBe("tool-call");
    valid(t1.json);
    expect(t1.json.output).toHaveLength(1);
    const call = t1.json.output[0];
    expect(call).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
    expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });

    const t2 = await api(
      "POST",
      "/responses",
      { model: MODEL, previous_response_id: t1.json.id, input: [fco(call.call_id, "12°C and drizzle")] },
      H,
    );
    expect(t2.status, t2.text).toBe(200);
    valid(t2.json);
    expect(t2.json.previous_response_id).toBe(t1.json.id);
    expect(t2.json.output).toHaveLength(1);
    expect(t2.json.output[0].content[0].text).toBe(
      "Here's the latest weather for Paris: 12°C and drizzle. Let me know if you'd like the forecast for the next few days or the weather somewhere else.",
    );
  });

  it("parallel-tool-calls selected by model name, through the SDK", async () => {
    const c = client();
    const t1 = await c.responses.create({ model: "parallel-tool-calls", input: "Weather and time in Paris?" });
    const calls = t1.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call");
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    const t2 = await c.responses.create({
      model: "parallel-tool-calls",
      previous_response_id: t1.id,
      input: [fco(calls[0].call_id, "sunny, 21C"), fco(calls[1].call_id, "15:42")],
    });
    expectValidResponse(t2);
    expect(t2.output_text).toContain("are back: sunny, 21C; 15:42.");
  });
});

describe("store: false and unknown previous ids", () => {
  it("a store: false response is not retrievable and cannot be continued", async () => {
    const r = await create({ input: "Do not keep this one.", store: false });
    valid(r);
    expect(r.store).toBe(false);
    const got = await api("GET", `/responses/${r.id}`);
    expectError(got, 404, "not_found");
    const next = await api("POST", "/responses", { model: MODEL, previous_response_id: r.id, input: "Continue." });
    const error = expectError(next, 400, "previous_response_not_found", "previous_response_id");
    expect(error.type).toBe("invalid_request");
    expect(error.message).toContain(r.id);
  });

  it("an unknown previous_response_id is a 400 previous_response_not_found (streamed or not, and for input_tokens)", async () => {
    for (const stream of [false, true]) {
      const res = await api("POST", "/responses", {
        model: MODEL,
        previous_response_id: "resp_never_existed",
        input: "Hello?",
        stream,
      });
      const error = expectError(res, 400, "previous_response_not_found", "previous_response_id");
      expect(error.type).toBe("invalid_request");
      expect(error.message).toContain("resp_never_existed");
    }
    const counted = await api("POST", "/responses/input_tokens", {
      model: MODEL,
      previous_response_id: "resp_never_existed",
      input: "Hello?",
    });
    expectError(counted, 400, "previous_response_not_found", "previous_response_id");
  });
});

describe("eviction at the store cap", () => {
  const small = useServer({ storeLimit: 3 });
  const smallApi = rawClient(small);
  const post = async (body: Record<string, unknown>) => {
    const res = await smallApi("POST", "/responses", { model: MODEL, ...body });
    expect(res.status, res.text).toBe(200);
    return res.json;
  };

  it("the 4th stored response evicts the 1st; the others stay retrievable", async () => {
    const rs: Json[] = [];
    for (let i = 1; i <= 4; i++) rs.push(await post({ input: `Eviction message number ${i}.` }));
    expectError(await smallApi("GET", `/responses/${rs[0].id}`), 404, "not_found");
    for (const r of rs.slice(1)) {
      const got = await smallApi("GET", `/responses/${r.id}`);
      expect(got.status).toBe(200);
      expect(got.json).toEqual(r);
    }
    const next = await smallApi("POST", "/responses", {
      model: MODEL,
      previous_response_id: rs[0].id,
      input: "Go on.",
    });
    expectError(next, 400, "previous_response_not_found", "previous_response_id");
    // store: false responses take no slot.
    await post({ input: "Not stored.", store: false });
    for (const r of rs.slice(1)) expect((await smallApi("GET", `/responses/${r.id}`)).status).toBe(200);
  });

  it("a chain whose first response was evicted cannot be continued; the error names the missing ancestor", async () => {
    const a = await post({ input: "Ancestor turn." });
    const b = await post({ input: "Child turn.", previous_response_id: a.id });
    await post({ input: "Filler one." });
    await post({ input: "Filler two." }); // evicts a
    expect((await smallApi("GET", `/responses/${b.id}`)).status).toBe(200);
    const next = await smallApi("POST", "/responses", { model: MODEL, previous_response_id: b.id, input: "And then?" });
    const error = expectError(next, 400, "previous_response_not_found", "previous_response_id");
    expect(error.message).toContain(b.id);
    expect(error.message).toContain(a.id);
  });
});

describe("stored-response routes", () => {
  it("GET returns exactly what create returned (raw and through the SDK)", async () => {
    const r = await create({ input: "Retrieve me later.", instructions: "Be brief.", metadata: { k: "v" } });
    const got = await api("GET", `/responses/${r.id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toContain("application/json");
    expect(got.json).toEqual(r);
    // The SDK adds its convenience output_text; the rest is the stored response.
    const { output_text: _text, ...sdk } = await client().responses.retrieve(r.id);
    expect(JSON.parse(JSON.stringify(sdk))).toEqual(r);
  });

  it("GET of a tool-calling response equals its create response too", async () => {
    const r = await create({ input: "Time in Lima?", tools });
    expect((await api("GET", `/responses/${r.id}`)).json).toEqual(r);
  });

  it("GET ?stream=true replays the stored events as a conformant stream whose fold is the stored response", async () => {
    const r = await create({ input: "Replay this answer, please." });
    const res = await api("GET", `/responses/${r.id}?stream=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { events } = parseSseStrict(res.text);
    const folded = expectConformantStream(events);
    expect(folded).toEqual(r);
  });

  it("the replay is the very stream the response was created as", async () => {
    const created = await api("POST", "/responses", {
      model: MODEL,
      input: "Stream me, then replay me.",
      stream: true,
    });
    expect(created.status).toBe(200);
    const original = parseSseStrict(created.text).events;
    const id = original[0].response as { id: string };
    const replayed = parseSseStrict((await api("GET", `/responses/${id.id}?stream=true`)).text).events;
    expect(replayed).toEqual(original);
    // And through the SDK's stream reader.
    const sdkEvents: unknown[] = [];
    for await (const e of await client().responses.retrieve(id.id, { stream: true })) sdkEvents.push(e);
    expect(JSON.parse(JSON.stringify(sdkEvents))).toEqual(original);
  });

  it("GET ?stream=true&starting_after=N sends only the events after N, then [DONE]", async () => {
    const r = await create({ input: "Resume the stream from the middle." });
    const all = parseSseStrict((await api("GET", `/responses/${r.id}?stream=true`)).text).events;
    for (const n of [-1, 0, 2, 5, all.length - 2]) {
      const res = await api("GET", `/responses/${r.id}?stream=true&starting_after=${n}`);
      expect(res.status).toBe(200);
      const part = parseSseStrict(res.text);
      expect(part.done).toBe(true);
      expect(part.events).toEqual(all.slice(n + 1));
    }
    const past = parseSseStrict(
      (await api("GET", `/responses/${r.id}?stream=true&starting_after=${all.length + 10}`)).text,
    );
    expect(past.events).toEqual([]);
    expect(past.done).toBe(true);
    for (const bad of ["abc", "1.5", "-2"]) {
      expectError(
        await api("GET", `/responses/${r.id}?stream=true&starting_after=${bad}`),
        400,
        "invalid_value",
        "starting_after",
      );
    }
  });

  it("DELETE answers {id, object: response.deleted, deleted: true}; then GET and DELETE are 404", async () => {
    const r = await create({ input: "Delete me." });
    const del = await api("DELETE", `/responses/${r.id}`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({ id: r.id, object: "response.deleted", deleted: true });
    expectError(await api("GET", `/responses/${r.id}`), 404, "not_found");
    expectError(await api("GET", `/responses/${r.id}/input_items`), 404, "not_found");
    expectError(await api("DELETE", `/responses/${r.id}`), 404, "not_found");
    const next = await api("POST", "/responses", { model: MODEL, previous_response_id: r.id, input: "Still there?" });
    expectError(next, 400, "previous_response_not_found", "previous_response_id");
  });

  it("the SDK's delete resolves, and the response is gone", async () => {
    const r = await create({ input: "Delete me through the SDK." });
    await client().responses.delete(r.id);
    await expect(client().responses.retrieve(r.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  describe("input_items", () => {
    const INPUT = [
      { type: "message", role: "developer", content: "Answer in French." },
      { type: "message", role: "user", content: [{ type: "input_text", text: "First question." }] },
      {
        type: "message",
        id: "msg_given_assistant",
        role: "assistant",
        content: [{ type: "output_text", text: "First answer.", annotations: [] }],
      },
      { type: "message", role: "user", content: "Second question." },
      { type: "message", role: "user", content: "Third question." },
    ];
    let stored: Json;
    const ensure = async () => (stored ??= await create({ input: INPUT }));
    const list = async (query = "") => {
      const r = await ensure();
      return api("GET", `/responses/${r.id}/input_items${query}`);
    };

    it("lists the request's input items with ids, newest first by default", async () => {
      const res = await list();
      expect(res.status).toBe(200);
      const body = res.json;
      expect(body.object).toBe("list");
      expect(body.has_more).toBe(false);
      expect(body.data).toHaveLength(5);
      const ids: string[] = body.data.map((i: Json) => i.id);
      for (const id of ids) expect(id).toMatch(/^[a-z]+_\w+/);
      expect(new Set(ids).size).toBe(5);
      expect(ids).toContain("msg_given_assistant");
      expect(body.first_id).toBe(ids[0]);
      expect(body.last_id).toBe(ids[4]);
      // desc: the last input item first.
      expect(body.data[0]).toMatchObject({
        type: "message",
        role: "user",
        status: "completed",
        content: [{ type: "input_text", text: "Third question." }],
      });
      expect(body.data[4]).toMatchObject({
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "Answer in French." }],
      });
      expect(body.data[2]).toMatchObject({
        id: "msg_given_assistant",
        role: "assistant",
        content: [{ type: "output_text", text: "First answer." }],
      });
    });

    it("order=asc is the input order; order=desc its reverse; ids are stable across calls", async () => {
      const asc = (await list("?order=asc")).json;
      const desc = (await list("?order=desc")).json;
      const dflt = (await list()).json;
      expect(asc.data.map((i: Json) => i.content[0].text)).toEqual([
        "Answer in French.",
        "First question.",
        "First answer.",
        "Second question.",
        "Third question.",
      ]);
      expect(desc.data).toEqual([...asc.data].reverse());
      expect(dflt).toEqual(desc);
    });

    it("pages with limit and after: has_more, first_id and last_id", async () => {
      const all = (await list("?order=asc")).json.data.map((i: Json) => i.id);
      const p1 = (await list("?order=asc&limit=2")).json;
      expect(p1.data.map((i: Json) => i.id)).toEqual(all.slice(0, 2));
      expect(p1).toMatchObject({ object: "list", first_id: all[0], last_id: all[1], has_more: true });
      const p2 = (await list(`?order=asc&limit=2&after=${p1.last_id}`)).json;
      expect(p2.data.map((i: Json) => i.id)).toEqual(all.slice(2, 4));
      expect(p2).toMatchObject({ first_id: all[2], last_id: all[3], has_more: true });
      const p3 = (await list(`?order=asc&limit=2&after=${p2.last_id}`)).json;
      expect(p3.data.map((i: Json) => i.id)).toEqual(all.slice(4));
      expect(p3).toMatchObject({ first_id: all[4], last_id: all[4], has_more: false });
      const p4 = (await list(`?order=asc&after=${p3.last_id}`)).json;
      expect(p4).toEqual({ object: "list", data: [], first_id: null, last_id: null, has_more: false });
      // desc pages walk the other way.
      const d1 = (await list("?limit=3")).json;
      expect(d1.data.map((i: Json) => i.id)).toEqual([...all].reverse().slice(0, 3));
      expect(d1.has_more).toBe(true);
      const d2 = (await list(`?limit=3&after=${d1.last_id}`)).json;
      expect(d2.data.map((i: Json) => i.id)).toEqual([...all].reverse().slice(3));
      expect(d2.has_more).toBe(false);
      // Exactly `limit` items left: no more.
      expect((await list("?limit=5")).json.has_more).toBe(false);
      expect((await list("?limit=4")).json.has_more).toBe(true);
    });

    it("the SDK's auto-pagination walks every page", async () => {
      const r = await ensure();
      const all = (await list("?order=asc")).json.data.map((i: Json) => i.id);
      const seen: string[] = [];
      for await (const item of client().responses.inputItems.list(r.id, { limit: 2, order: "asc" })) seen.push(item.id);
      expect(seen).toEqual(all);
    });

    it("rejects a bad limit, order or after with a 400 naming the parameter", async () => {
      for (const limit of ["0", "101", "abc", "1.5", "-1"]) {
        expectError(await list(`?limit=${limit}`), 400, "invalid_value", "limit");
      }
      expectError(await list("?order=sideways"), 400, "invalid_value", "order");
      expectError(await list("?after=msg_not_in_this_response"), 400, "invalid_value", "after");
      expect((await list("?limit=1")).status).toBe(200);
      expect((await list("?limit=100")).status).toBe(200);
    });

    it("lists only the request's own input for a continued response (tool outputs included)", async () => {
      const t1 = await create({ input: "Weather in Quito?", tools: [tools[0]] });
      const call = t1.output.find((o: Json) => o.type === "function_call");
      const t2 = await create({ previous_response_id: t1.id, tools: [tools[0]], input: [fco(call.call_id, "19C")] });
      const items = (await api("GET", `/responses/${t2.id}/input_items`)).json;
      expect(items.data).toHaveLength(1);
      expect(items.data[0]).toMatchObject({
        type: "function_call_output",
        call_id: call.call_id,
        output: "19C",
        status: "completed",
      });
      expect(items.data[0].id).toMatch(/^fco_/);
    });
  });

  describe("input_tokens", () => {
    it("counts a request's input (same as the usage of creating it)", async () => {
      const body = { model: MODEL, input: "How many tokens is this sentence worth?", instructions: "Count carefully." };
      const res = await api("POST", "/responses/input_tokens", body);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ object: "response.input_tokens", input_tokens: expect.any(Number) });
      expect(res.json.input_tokens).toBeGreaterThan(0);
      const r = await create(body);
      expect(r.usage.input_tokens).toBe(res.json.input_tokens);
      const sdk = await client().responses.inputTokens.count(body);
      expect(sdk.input_tokens).toBe(res.json.input_tokens);
    });

    it("grows along a previous_response_id chain", async () => {
      const count = async (extra: Record<string, unknown>) => {
        const res = await api("POST", "/responses/input_tokens", { model: MODEL, input: "Next question?", ...extra });
        expect(res.status, res.text).toBe(200);
        return res.json.input_tokens as number;
      };
      const r1 = await create({ input: "Tell me about the moon." });
      const r2 = await create({ input: "And about the sun.", previous_response_id: r1.id });
      const n0 = await count({});
      const n1 = await count({ previous_response_id: r1.id });
      const n2 = await count({ previous_response_id: r2.id });
      expect(n0).toBeGreaterThan(0);
      expect(n1).toBeGreaterThan(n0);
      expect(n2).toBeGreaterThan(n1);
      // Tools count too.
      expect(await count({ tools })).toBeGreaterThan(n0);
    });
  });

  it("every route answers 404 with a spec error object for an unknown id", async () => {
    const id = "resp_unknown_route_check";
    const routes: [string, string][] = [
      ["GET", `/responses/${id}`],
      ["GET", `/responses/${id}?stream=true`],
      ["DELETE", `/responses/${id}`],
      ["POST", `/responses/${id}/cancel`],
      ["GET", `/responses/${id}/input_items`],
    ];
    for (const [method, path] of routes) {
      const error = expectError(await api(method, path), 404, "not_found");
      expect(error.type).toBe("not_found");
      expect(error.message).toContain(id);
    }
    await expect(client().responses.retrieve(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(client().responses.cancel(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("background responses", () => {
  /** Polls GET until `done`, at most `tries` times; returns the statuses seen and the last response. */
  async function poll(id: string, done: (r: Json) => boolean, tries = 300, everyMs = 20) {
    const statuses: string[] = [];
    for (let i = 0; i < tries; i++) {
      const res = await api("GET", `/responses/${id}`);
      expect(res.status, res.text).toBe(200);
      if (statuses.at(-1) !== res.json.status) statuses.push(res.json.status);
      if (done(res.json)) return { statuses, last: res.json };
      await sleep(everyMs);
    }
    throw new Error(`response ${id} never got there; statuses seen: ${statuses.join(" → ")}`);
  }

  it("returns queued at once, then GET shows it progressing to completed", async () => {
    const t0 = Date.now();
    const res = await api(
      "POST",
      "/responses",
      { model: MODEL, input: "Take your time on this one.", background: true },
      { "x-mock-chunk-ms": "20" },
    );
    expect(res.status, res.text).toBe(200);
    expect(Date.now() - t0).toBeLessThan(500);
    expect(res.json).toMatchObject({ status: "queued", background: true, output: [], completed_at: null, usage: null });
    const { statuses, last } = await poll(res.json.id, (r) => r.status === "completed");
    expect(["queued", "in_progress", "completed"]).toEqual(expect.arrayContaining(statuses));
    expect(statuses.at(-1)).toBe("completed");
    expect(statuses).toContain("in_progress");
    valid(last);
    expect(last.id).toBe(res.json.id);
    expect(last.background).toBe(true);
    expect(last.output.length).toBeGreaterThan(0);
    // Once done, the replay is the whole stream, queued included, and folds to the stored response.
    const replay = parseSseStrict((await api("GET", `/responses/${last.id}?stream=true`)).text).events;
    expect(replay[1].type).toBe("response.queued");
    expect(expectConformantStream(replay)).toEqual(last);
  });

  it("background + stream: true streams created, queued, in_progress, … conformantly", async () => {
    const res = await api(
      "POST",
      "/responses",
      { model: MODEL, input: "Stream in the background.", background: true, stream: true },
      { "x-mock-chunk-ms": "5" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { events } = parseSseStrict(res.text);
    expect(events.slice(0, 3).map((e) => e.type)).toEqual([
      "response.created",
      "response.queued",
      "response.in_progress",
    ]);
    const folded = expectConformantStream(events);
    expect(folded.background).toBe(true);
    expect(folded.status).toBe("completed");
    const stored = (await api("GET", `/responses/${folded.id}`)).json;
    expect(stored).toEqual(folded);
  });

  it("GET ?stream=true follows a running background response live, from the start", async () => {
    const res = await create({ input: "Follow me while I run.", background: true }, { "x-mock-chunk-ms": "15" });
    expect(res.status).toBe("queued");
    const followed = await api("GET", `/responses/${res.id}?stream=true`);
    expect(followed.status).toBe(200);
    const { events } = parseSseStrict(followed.text);
    const folded = expectConformantStream(events);
    expect(folded.id).toBe(res.id);
    expect((await api("GET", `/responses/${res.id}`)).json).toEqual(folded);
  });

  it("cancel stops a slow background response: cancelled, and it stays cancelled", async () => {
    const res = await create(
      { input: "A long, slow background task.", background: true },
      { "x-mock-chunk-ms": "200" },
    );
    expect(res.status).toBe("queued");
    await sleep(250);
    const cancelled = await api("POST", `/responses/${res.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json).toMatchObject({ id: res.id, status: "cancelled", background: true });
    for (const o of cancelled.json.output) if ("status" in o) expect(o.status).not.toBe("in_progress");
    expect((await api("GET", `/responses/${res.id}`)).json.status).toBe("cancelled");
    await sleep(500);
    const later = (await api("GET", `/responses/${res.id}`)).json;
    expect(later.status).toBe("cancelled");
    expect(later).toEqual(cancelled.json);
    // Cancelling again is harmless and returns the same response.
    const again = await client().responses.cancel(res.id);
    expect(JSON.parse(JSON.stringify(again))).toEqual(cancelled.json);
  });

  it("cancel right after create (still queued) leaves an empty cancelled response", async () => {
    const res = await create({ input: "Cancel me before I start.", background: true }, { "x-mock-chunk-ms": "200" });
    const cancelled = await client().responses.cancel(res.id);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.output).toEqual([]);
    await sleep(300);
    expect((await api("GET", `/responses/${res.id}`)).json.status).toBe("cancelled");
  });

  it("background with an unknown previous_response_id is a 400 before anything is queued", async () => {
    const res = await api("POST", "/responses", {
      model: MODEL,
      input: "Go.",
      background: true,
      previous_response_id: "resp_bg_unknown",
    });
    expectError(res, 400, "previous_response_not_found", "previous_response_id");
  });

  // Regression: the replay used to play every planned event, response.completed included.
  it("the replay of a cancelled background response does not claim it completed", async () => {
    const res = await create({ input: "Cancel me, then replay me.", background: true }, { "x-mock-chunk-ms": "200" });
    await sleep(250);
    expect((await api("POST", `/responses/${res.id}/cancel`)).json.status).toBe("cancelled");
    const replay = await api("GET", `/responses/${res.id}?stream=true`);
    expect(replay.status).toBe(200);
    const { events } = parseSseStrict(replay.text, { requireDone: false });
    expect(events.map((e) => e.type)).not.toContain("response.completed");
    for (const e of events) if (e.response) expect((e.response as { status: string }).status).not.toBe("completed");
  });

  it("DELETE of a running background response stops it; it does not come back", async () => {
    const res = await create({ input: "Delete me while I run.", background: true }, { "x-mock-chunk-ms": "30" });
    expect((await api("DELETE", `/responses/${res.id}`)).json).toEqual({
      id: res.id,
      object: "response.deleted",
      deleted: true,
    });
    await sleep(300);
    expectError(await api("GET", `/responses/${res.id}`), 404, "not_found");
  });

  it("cancel on a response not created in the background is a 400", async () => {
    const r = await create({ input: "I am not a background response." });
    const error = expectError(await api("POST", `/responses/${r.id}/cancel`), 400);
    expect(error.type).toBe("invalid_request");
    expect(error.message).toMatch(/background/);
    // And it is unchanged.
    expect((await api("GET", `/responses/${r.id}`)).json).toEqual(r);
  });

  it("background with store: false is a 400 naming store", async () => {
    const res = await api("POST", "/responses", {
      model: MODEL,
      input: "Background but unstored.",
      background: true,
      store: false,
    });
    const error = expectError(res, 400, "invalid_value", "store");
    expect(error.message).toMatch(/background/);
  });
});

describe("compaction", () => {
  const CONVERSATION = [
    { type: "message", role: "user", content: "Plan a weekend trip to Lisbon for me." },
    {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Gladly. Which dates, and what is your budget?", annotations: [] }],
    },
  ];
  const compact = async (body: Record<string, unknown>) => {
    const res = await api("POST", "/responses/compact", body);
    expect(res.status, res.text).toBe(200);
    return res.json;
  };
  const userTexts = (output: Json[]) =>
    output.filter((o) => o.type === "message").map((o) => o.content.map((p: Json) => p.text).join(""));

  it("compacts a 2-message conversation: the user message kept, then one compaction item; usage present", async () => {
    const c = await compact({ model: MODEL, input: CONVERSATION });
    expect(c.object).toBe("response.compaction");
    expect(c.id).toMatch(/^resp_/);
    expect(c.created_at).toBe(Math.floor(TEST_NOW_MS / 1000));
    const last = c.output.at(-1);
    expect(last).toMatchObject({
      type: "compaction",
      id: expect.stringMatching(/^cmp_/),
      encrypted_content: expect.any(String),
      created_by: expect.any(String),
    });
    expect(last.encrypted_content.length).toBeGreaterThan(20);
    expect(userTexts(c.output)).toEqual(["Plan a weekend trip to Lisbon for me."]);
    expect(c.output.slice(0, -1).every((o: Json) => o.type === "message" && o.role === "user")).toBe(true);
    expect(c.usage.input_tokens).toBeGreaterThan(0);
    expect(c.usage.output_tokens).toBeGreaterThan(0);
    expect(c.usage.total_tokens).toBe(c.usage.input_tokens + c.usage.output_tokens);
    // Deterministic but for the ids (each compaction of a server has its own), and the SDK reads it.
    const again = await compact({ model: MODEL, input: CONVERSATION });
    expect(again.id).not.toBe(c.id);
    expect(withoutIds(again)).toEqual(withoutIds(c));
    const sdk = await client().responses.compact({
      model: MODEL,
      input: CONVERSATION as OpenAI.Responses.ResponseInputItem[],
    });
    expect(withoutIds(JSON.parse(JSON.stringify(sdk)))).toEqual(withoutIds(c));
  });

  it("missing model is a 400 naming model", async () => {
    const res = await api("POST", "/responses/compact", { input: CONVERSATION });
    expectError(res, 400, undefined, "model");
  });

  it("an unknown previous_response_id is a 400 previous_response_not_found", async () => {
    const res = await api("POST", "/responses/compact", { model: MODEL, previous_response_id: "resp_compact_unknown" });
    expectError(res, 400, "previous_response_not_found", "previous_response_id");
  });

  it("a later request carrying the compaction continues the conversation", async () => {
    const c = await compact({ model: MODEL, input: CONVERSATION });
    const next = { type: "message", role: "user", content: "Next Friday to Sunday, 500 euros." };
    const r = await create({ input: [...c.output, next] });
    valid(r);
    expect(r.output_text ?? r.output[0].content[0].text).toContain("Next Friday to Sunday, 500 euros.");
    const alone = await create({ input: [next] });
    expect(r.usage.input_tokens).toBeGreaterThan(alone.usage.input_tokens);
    // The compaction stands for the whole conversation: the same context as sending it uncompacted.
    const full = await create({ input: [...CONVERSATION, next] });
    expect(r.usage.input_tokens).toBe(full.usage.input_tokens);
  });

  it("compact with previous_response_id compacts the chain (and any new input after it)", async () => {
    const r1 = await create({ input: "First, tell me about Porto." });
    const r2 = await create({ input: "Then about Faro.", previous_response_id: r1.id });
    const c = await compact({ model: MODEL, previous_response_id: r2.id });
    expect(c.output.at(-1).type).toBe("compaction");
    expect(userTexts(c.output)).toEqual(["First, tell me about Porto.", "Then about Faro."]);
    const withInput = await compact({ model: MODEL, previous_response_id: r2.id, input: "And Coimbra?" });
    expect(userTexts(withInput.output)).toEqual(["First, tell me about Porto.", "Then about Faro.", "And Coimbra?"]);
    expect(withInput.usage.input_tokens).toBeGreaterThan(c.usage.input_tokens);

    // Continuing from the compaction gives the same context as continuing the chain.
    const next = { type: "message", role: "user", content: "Which is best in May?" };
    const viaCompaction = await create({ input: [...c.output, next] });
    const viaChain = await create({ input: [next], previous_response_id: r2.id });
    expect(viaCompaction.usage.input_tokens).toBe(viaChain.usage.input_tokens);
    // A compaction can itself be continued by previous_response_id.
    const after = await create({ input: "Thanks!", previous_response_id: viaCompaction.id });
    expect(after.usage.input_tokens).toBeGreaterThan(viaCompaction.usage.input_tokens);
  });
});
