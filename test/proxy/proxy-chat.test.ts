/**
 * `proxy --upstream-api chat`: a Chat Completions upstream, translated into
 * Responses. In front of aimock's `/v1/chat/completions` (a Chat Completions
 * server written elsewhere), every stream the client gets is held to our
 * conformance checks and the fold, in both dialects, and the `openai` SDK
 * runs a tool loop through it (the conversation by input and by
 * previous_response_id, rebuilt from the proxy's store). A scripted fake
 * Chat Completions server (node:http, here) plays the edge cases chunk by
 * chunk and shows the chat request the proxy sent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { parseSseStream } from "../compliance/sse.js";
import { formatViolation, validateOpenAIStream } from "../compliance/openai-schemas.js";
import { expectConformantStream, expectValidResponse } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

type Ev = { type: string; sequence_number: number; [k: string]: unknown };

const post = (base: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${base}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** A streamed answer checked as its dialect says, returning its events. */
async function checkedStream(
  res: Response,
  dialect: "open-responses" | "openai",
  allow: RegExp | null = null,
): Promise<Ev[]> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const text = await res.text();
  if (dialect === "openai") {
    // aimock's call ids are its own (`call_` + 16 characters): passed on, as the client sends them back.
    const violations = validateOpenAIStream(text).filter((v) => !(allow && allow.test(formatViolation(v))));
    expect(violations.map(formatViolation)).toEqual([]);
    return text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)) as Ev);
  }
  const { events, done } = parseSseStrict(text);
  expect(done).toBe(true);
  expectConformantStream(events as never);
  // The compliance suite's own reader and schemas accept it too.
  const compliance = await parseSseStream(new Response(text));
  expect(compliance.errors).toEqual([]);
  expect(compliance.finalResponse).not.toBeNull();
  return events as Ev[];
}

const CALL_ID_VIOLATION = /call_id/;

describe("in front of aimock's /v1/chat/completions", () => {
  let aimock: LLMock;
  beforeAll(async () => {
    aimock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", chunkSize: 4 });
    // aimock matches the last tool message: the second call's result.
    aimock.onToolResult("call_paris_time_00002", { content: "It is sunny in Paris, 24°C." });
    aimock.onMessage("weather", {
      toolCalls: [
        { name: "get_weather", arguments: '{"city":"Paris"}', id: "call_paris_weather_0001" },
        { name: "get_time", arguments: '{"city":"Paris"}', id: "call_paris_time_00002" },
      ],
    });
    aimock.onMessage("hello", { content: "Hello there, friend. How can I help you today?" });
    await aimock.start();
  });
  afterAll(async () => {
    await aimock.stop();
  });

  describe.each(["open-responses", "openai"] as const)("%s dialect", (dialect) => {
    let proxy: MockServer;
    beforeAll(async () => {
      proxy = await startMockServer({ port: 0, dialect, upstream: `${aimock.url}/v1`, upstreamApi: "chat" });
    });
    afterAll(async () => {
      await proxy.close();
    });

    it("streams text that our checks and the fold accept", async () => {
      const events = await checkedStream(
        await post(proxy.baseURL, { model: "gpt-4o", input: "hello", stream: true }),
        dialect,
      );
      const deltas = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta);
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.join("")).toBe("Hello there, friend. How can I help you today?");
      expect(events.at(-1)!.type).toBe("response.completed");
    });

    it("streams parallel tool calls as consecutive function_call items", async () => {
      const events = await checkedStream(
        await post(proxy.baseURL, {
          model: "gpt-4o",
          input: "weather in Paris?",
          tools: LIBRARY_TOOLS_NOT_STRICT,
          stream: true,
        }),
        dialect,
        CALL_ID_VIOLATION,
      );
      const output = (
        events.at(-1)!.response as { output: { type: string; name: string; call_id: string; arguments: string }[] }
      ).output;
      expect(output.map((o) => [o.type, o.name, o.call_id, o.arguments])).toEqual([
        ["function_call", "get_weather", "call_paris_weather_0001", '{"city":"Paris"}'],
        ["function_call", "get_time", "call_paris_time_00002", '{"city":"Paris"}'],
      ]);
      expect(events.filter((e) => e.type === "response.function_call_arguments.delta").length).toBeGreaterThan(2);
    });

    it("answers JSON, and serves what it answered from its store (retrieve, previous_response_id) for the openai SDK", async () => {
      const client = new OpenAI({
        baseURL: proxy.baseURL,
        apiKey: "unused",
        maxRetries: 0,
        defaultHeaders: { "x-mock-dialect": dialect },
      });
      const first = await client.responses.create({
        model: "gpt-4o",
        input: "weather in Paris?",
        tools: LIBRARY_TOOLS_NOT_STRICT,
      });
      if (dialect === "open-responses") expectValidResponse(first);
      const calls = first.output.filter(
        (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call",
      );
      expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
      const stored = await client.responses.retrieve(first.id);
      expect(stored.output).toEqual(first.output);
      // Turn 2 through the store: aimock sees the tool result and answers with text.
      const second = await client.responses
        .stream({
          model: "gpt-4o",
          previous_response_id: first.id,
          input: calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: "sunny" })),
          tools: LIBRARY_TOOLS_NOT_STRICT,
        })
        .finalResponse();
      expect(second.status).toBe("completed");
      expect(second.output_text).toBe("It is sunny in Paris, 24°C.");
      expect(second.previous_response_id).toBe(first.id);
    });
  });
});

describe("recording a Chat Completions upstream, replayed offline", () => {
  it("replays the translated tool loop to the unchanged client: same items and text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orm-chat-record-"));
    const aimock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", chunkSize: 3 });
    aimock.onToolResult("call_oslo_weather_00001", { content: "Oslo is cold today: 2°C and snow." });
    aimock.onMessage("Oslo", {
      toolCalls: [{ name: "get_weather", arguments: '{"city":"Oslo","unit":"c"}', id: "call_oslo_weather_00001" }],
    });
    await aimock.start();
    /** The client's loop: stream turn 1, send the tool output back by previous_response_id, get turn 2 whole. */
    const loop = async (baseURL: string) => {
      const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0 });
      const first = await client.responses
        .stream({ model: "gpt-4o", input: "Weather in Oslo?", tools: LIBRARY_TOOLS_NOT_STRICT })
        .finalResponse();
      const call = first.output.find((o) => o.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
      const second = await client.responses.create({
        model: "gpt-4o",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "2°C" }],
        tools: LIBRARY_TOOLS_NOT_STRICT,
      });
      const shape = (r: OpenAI.Responses.Response) => ({
        status: r.status,
        model: r.model,
        items: r.output.map((o) =>
          o.type === "function_call" ? [o.type, o.name, o.arguments, o.call_id] : [o.type, r.output_text],
        ),
      });
      return [shape(first), shape(second)];
    };
    try {
      const proxy = await startMockServer({ port: 0, upstream: `${aimock.url}/v1`, upstreamApi: "chat", record: dir });
      let recorded;
      try {
        recorded = await loop(proxy.baseURL);
      } finally {
        await proxy.close();
      }
      expect(recorded[1].items).toEqual([["message", "Oslo is cold today: 2°C and snow."]]);
      const replay = await startMockServer({ port: 0, scenarios: dir });
      try {
        expect(await loop(replay.baseURL)).toEqual(recorded);
      } finally {
        await replay.close();
      }
    } finally {
      await aimock.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- a scripted Chat Completions server --------------------------------------------

/** What the fake does with one request: SSE chunks (objects, or raw lines), pauses, a cut. */
type Step = { chunk: object } | { raw: string } | { cut: true } | { stall: true };
interface FakeChat {
  url: string;
  /** The chat requests received, in order. */
  requests: { headers: IncomingMessage["headers"]; body: Record<string, unknown> }[];
  /** The script of the next request(s). */
  script: Step[] | ((res: ServerResponse) => void);
  close(): Promise<void>;
}

async function fakeChat(): Promise<FakeChat> {
  const sockets = new Set<import("node:net").Socket>();
  const fake: FakeChat = {
    url: "",
    requests: [],
    script: [],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      fake.requests.push({ headers: req.headers, body: JSON.parse(text) });
      const script = fake.script;
      if (typeof script === "function") return script(res);
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const step of script) {
        // What was written reaches the proxy before the connection is cut.
        if ("cut" in step) return void setTimeout(() => res.socket?.destroy(), 50);
        if ("stall" in step) return; // nothing more, ever (until the proxy gives up)
        res.write("raw" in step ? step.raw : `data: ${JSON.stringify(step.chunk)}\n\n`);
      }
      res.end();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}

const chunk = (delta: object, extra: object = {}): Step => ({
  chunk: {
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  },
});
const usage = (p: number, c: number): Step => ({
  chunk: {
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    created: 1,
    model: "fake-model",
    choices: [],
    usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c },
  },
});
const DONE: Step = { raw: "data: [DONE]\n\n" };

describe("in front of a scripted Chat Completions server", () => {
  let fake: FakeChat;
  let proxy: MockServer;
  const UPSTREAM_KEY = "sk-fake-upstream-4kT9pQ2wZ7";
  beforeAll(async () => {
    fake = await fakeChat();
    proxy = await startMockServer({
      port: 0,
      upstream: fake.url,
      upstreamApi: "chat",
      upstreamKey: UPSTREAM_KEY,
      upstreamTimeoutMs: 400,
    });
  });
  afterAll(async () => {
    await proxy.close();
    await fake.close();
  });

  const stream = async (body: object = {}) => {
    const res = await post(
      proxy.baseURL,
      { model: "fake", input: "go", tools: LIBRARY_TOOLS_NOT_STRICT, stream: true, ...body },
      { authorization: "Bearer sk-client-never-sent-9XbR" },
    );
    expect(res.status).toBe(200);
    const { events } = parseSseStrict(await res.text());
    expectConformantStream(events as never);
    return events as Ev[];
  };
  const final = (events: Ev[]) =>
    events.at(-1)!.response as {
      status: string;
      output: Record<string, unknown>[];
      usage: Record<string, number>;
      incomplete_details: unknown;
      error: unknown;
    };

  it("sends the chat request: messages, tools, max_tokens, stream_options, and the upstream's key (not the client's)", async () => {
    fake.script = [chunk({ content: "ok" }), chunk({}, { finish_reason: "stop" }), usage(1, 1), DONE];
    await stream({ instructions: "Be brief.", max_output_tokens: 32, temperature: 0.5 });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body).toMatchObject({
      model: "fake",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 32,
      temperature: 0.5,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "go" },
      ],
    });
    expect((sent.body.tools as unknown[]).length).toBe(3);
  });

  it("joins tool call deltas split across chunks (the name too), and streams parallel calls one after the other", async () => {
    fake.script = [
      chunk({ role: "assistant", content: null }),
      chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "weather", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Oslo"}' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_b", type: "function", function: { name: "get_time", arguments: '{"city"' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ': "Oslo"}' } }] }),
      chunk({}, { finish_reason: "tool_calls" }),
      usage(20, 10),
      DONE,
    ];
    const events = await stream();
    expect(final(events).output.map((o) => [o.type, o.call_id, o.name, o.arguments, o.status])).toEqual([
      ["function_call", "call_a", "get_weather", '{"city": "Oslo"}', "completed"],
      ["function_call", "call_b", "get_time", '{"city": "Oslo"}', "completed"],
    ]);
    expect(final(events).usage).toMatchObject({ input_tokens: 20, output_tokens: 10, total_tokens: 30 });
  });

  it("counts the usage itself when no usage chunk comes", async () => {
    fake.script = [chunk({ content: "No usage from me." }), chunk({}, { finish_reason: "stop" }), DONE];
    const events = await stream();
    const u = final(events).usage;
    expect(final(events).status).toBe("completed");
    expect(u.output_tokens).toBeGreaterThan(0);
    expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens);
  });

  it("makes finish_reason length an incomplete response (max_output_tokens)", async () => {
    fake.script = [chunk({ content: "Once upon a time" }), chunk({}, { finish_reason: "length" }), usage(4, 16), DONE];
    const events = await stream({ max_output_tokens: 16 });
    expect(events.at(-1)!.type).toBe("response.incomplete");
    expect(final(events).incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(final(events).output[0]).toMatchObject({ status: "incomplete" });
  });

  it("makes an error chunk mid-stream an error event, then response.failed", async () => {
    fake.script = [
      chunk({ content: "Half" }),
      { chunk: { error: { message: "CUDA out of memory", type: "server_error", code: "oom" } } },
    ];
    const events = await stream();
    expect(events.slice(-2).map((e) => e.type)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)!.error).toMatchObject({ code: "oom", message: "Upstream error: CUDA out of memory" });
    expect(final(events).status).toBe("failed");
  });

  it("ends a stream cut mid-way with error then response.failed, sequence numbers going on", async () => {
    fake.script = [chunk({ content: "Cut " }), chunk({ content: "short" }), { cut: true }];
    const events = await stream();
    expect(events.slice(-2).map((e) => e.type)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)!.error).toMatchObject({ type: "server_error", code: "upstream_disconnected" });
    expect((final(events).output[0] as { content: { text: string }[] }).content[0].text).toBe("Cut short");
  });

  it("ends a stream that goes silent past --upstream-timeout-ms the same way", async () => {
    fake.script = [chunk({ content: "Then silence" }), { stall: true }];
    const events = await stream();
    expect(events.at(-2)!.error).toMatchObject({ code: "upstream_timeout" });
    expect(events.at(-1)!.type).toBe("response.failed");
  });

  it("passes an upstream error answer on as a spec error object with its status", async () => {
    fake.script = (res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "model 'fake' not found, try pulling it first" }));
    };
    const res = await post(proxy.baseURL, { model: "fake", input: "go" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { type: string; code: string; message: string; param: null } };
    expect(body.error).toMatchObject({ type: "not_found", code: "upstream_error", param: null });
    expect(body.error.message).toMatch(/answered 404: model 'fake' not found/);
  });

  it("blanks the upstream key should the upstream echo it in an error", async () => {
    fake.script = (res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error: { message: `Invalid key ${UPSTREAM_KEY} for this model`, code: "invalid_api_key" } }),
      );
    };
    const res = await post(proxy.baseURL, { model: "fake", input: "go" });
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).toContain("Invalid key [redacted] for this model");
    fake.script = [chunk({ content: "a" }), { chunk: { error: { message: `bad key ${UPSTREAM_KEY}` } } }];
    const streamed = await (await post(proxy.baseURL, { model: "fake", input: "go", stream: true })).text();
    expect(streamed).not.toContain(UPSTREAM_KEY);
    expect(streamed).toContain("bad key [redacted]");
  });

  it("never lets a key into the journal", async () => {
    const journal = await (await fetch(`${proxy.url}/__mock/requests`)).text();
    expect(journal).not.toContain(UPSTREAM_KEY);
    expect(journal).not.toContain("sk-client-never-sent-9XbR");
    expect(journal).toContain('"api":"chat"');
  });
});
