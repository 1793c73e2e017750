/**
 * `POST /v1/chat/completions` with raw fetch and a strict chat SSE parser:
 * the exact chunk and completion shapes, each shipped scenario's mapping
 * (content, tool_calls, refusal, finish_reason, an error mid-stream), the
 * same text and calls as `/v1/responses` gives for the same conversation,
 * OpenAI-shaped 400s, same request and seed → same bytes, the journal, a
 * session's queue, expectations, max_tokens and faults.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { CHAT_TOOLS, foldChatChunks, parseChatSse, type Json } from "../support/chat-sse.js";
import { TEST_NOW_MS, useServer } from "../support/server.js";

const RESPONSES_TOOLS = CHAT_TOOLS.map((t) => ({ type: "function", ...t.function }));

async function chat(mock: MockServer, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${mock.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function responses(mock: MockServer, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { status: string; output: Json[] };
}

/** The text and calls of a Responses output. */
function saidBy(output: Json[]) {
  let content = "";
  let refusal = "";
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const item of output) {
    if (item.type === "message")
      for (const part of item.content as Json[]) {
        if (part.type === "output_text") content += part.text as string;
        if (part.type === "refusal") refusal += part.refusal as string;
      }
    if (item.type === "function_call")
      calls.push({ id: item.call_id as string, name: item.name as string, arguments: item.arguments as string });
  }
  return { content, refusal, calls };
}

const ask = (extra: Json = {}) => ({
  model: "gpt-4o",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "What is the weather in Paris?" },
  ],
  ...extra,
});

describe("POST /v1/chat/completions", () => {
  const server = useServer();

  it("streams text as OpenAI does: role first, content deltas, finish_reason last, [DONE], one id throughout", async () => {
    const { status, headers, text } = await chat(server(), ask({ stream: true }), { "x-mock-scenario": "text" });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(headers.get("x-mock-scenario")).toBe("text");
    const { chunks, done, error } = parseChatSse(text);
    expect(done).toBe(true);
    expect(error).toBeNull();
    expect(chunks.length).toBeGreaterThan(4);
    const first = chunks[0];
    expect(first).toEqual({
      id: expect.stringMatching(/^chatcmpl-[A-Za-z0-9]+$/),
      object: "chat.completion.chunk",
      created: Math.floor(TEST_NOW_MS / 1000),
      model: "gpt-4o",
      service_tier: "default",
      system_fingerprint: expect.any(String),
      choices: [
        { index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null },
      ],
    });
    for (const chunk of chunks) {
      expect(chunk.id).toBe(first.id);
      expect(chunk.created).toBe(first.created);
      expect("usage" in chunk).toBe(false);
      expect((chunk.choices as Json[]).length).toBe(1);
    }
    const middle = chunks.slice(1, -1);
    for (const chunk of middle) {
      const [choice] = chunk.choices as Json[];
      expect(Object.keys(choice.delta as Json)).toEqual(["content"]);
      expect(choice.finish_reason).toBeNull();
    }
    const last = (chunks.at(-1)!.choices as Json[])[0];
    expect(last).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    const said = foldChatChunks(chunks);
    expect(said.content).toContain('You said: "What is the weather in Paris?"');
    // The same answer as /v1/responses gives for the same conversation.
    const direct = await responses(
      server(),
      {
        model: "gpt-4o",
        input: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "What is the weather in Paris?" },
        ],
      },
      { "x-mock-scenario": "text" },
    );
    expect(said.content).toBe(saidBy(direct.output).content);
  });

  it("with stream_options.include_usage, every chunk has usage: null and a last chunk with no choices has the usage", async () => {
    const { text } = await chat(server(), ask({ stream: true, stream_options: { include_usage: true } }), {
      "x-mock-scenario": "text",
    });
    const { chunks } = parseChatSse(text);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    const usage = usageChunk.usage as Json;
    expect(usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: (usage.prompt_tokens as number) + (usage.completion_tokens as number),
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    expect(usage.completion_tokens).toBeGreaterThan(0);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect((chunks.at(-2)!.choices as Json[])[0].finish_reason).toBe("stop");
  });

  it("streams parallel tool calls: index, id, type and name first (arguments ''), then fragments by index only", async () => {
    const { text } = await chat(server(), ask({ stream: true, tools: CHAT_TOOLS }), {
      "x-mock-scenario": "parallel-tool-calls",
    });
    const { chunks, done } = parseChatSse(text);
    expect(done).toBe(true);
    const entries = chunks.flatMap((c) =>
      (c.choices as Json[]).flatMap((ch) => ((ch.delta as Json).tool_calls as Json[] | undefined) ?? []),
    );
    const heads = entries.filter((e) => "id" in e);
    expect(heads.length).toBeGreaterThanOrEqual(2);
    heads.forEach((head, i) => {
      expect(head).toEqual({
        index: i,
        id: expect.stringMatching(/^call_/),
        type: "function",
        function: { name: expect.any(String), arguments: "" },
      });
    });
    const fragments = entries.filter((e) => !("id" in e));
    expect(fragments.length).toBeGreaterThan(heads.length);
    for (const f of fragments) expect(Object.keys(f).sort()).toEqual(["function", "index"]);
    const said = foldChatChunks(chunks);
    expect(said.finish).toBe("tool_calls");
    expect(said.content).toBe("");
    for (const call of said.calls) expect(() => JSON.parse(call.arguments)).not.toThrow();
    const direct = await responses(
      server(),
      {
        model: "gpt-4o",
        input: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "What is the weather in Paris?" },
        ],
        tools: RESPONSES_TOOLS,
      },
      { "x-mock-scenario": "parallel-tool-calls" },
    );
    expect(said.calls.map((c) => [c.name, c.arguments])).toEqual(
      saidBy(direct.output).calls.map((c) => [c.name, c.arguments]),
    );
  });

  it.each([
    ["text", "stop"],
    ["tool-call", "tool_calls"],
    ["parallel-tool-calls", "tool_calls"],
    ["streamed-arguments", "tool_calls"],
    ["refusal", "stop"],
    ["incomplete", "length"],
    ["content-filter", "content_filter"],
    ["reasoning", "stop"],
    ["long-text", "stop"],
  ])(
    "non-streamed %s: a chat.completion with finish_reason %s, saying what the stream says",
    async (scenario, finish) => {
      const headers = { "x-mock-scenario": scenario };
      const { status, text } = await chat(server(), ask({ tools: CHAT_TOOLS }), headers);
      expect(status).toBe(200);
      const body = JSON.parse(text) as Json;
      expect(Object.keys(body)).toEqual([
        "id",
        "object",
        "created",
        "model",
        "choices",
        "usage",
        "service_tier",
        "system_fingerprint",
      ]);
      expect(body.object).toBe("chat.completion");
      const [choice] = body.choices as Json[];
      expect(choice.finish_reason).toBe(finish);
      const message = choice.message as Json;
      expect(message.role).toBe("assistant");
      expect(message).toHaveProperty("content");
      expect(message).toHaveProperty("refusal");
      expect((body.usage as Json).prompt_tokens_details).toEqual({ cached_tokens: 0, audio_tokens: 0 });
      // The stream of the same request says the same.
      const streamed = foldChatChunks(
        parseChatSse((await chat(server(), ask({ tools: CHAT_TOOLS, stream: true }), headers)).text).chunks,
      );
      expect(streamed.finish).toBe(finish);
      expect(message.content ?? "").toBe(streamed.content);
      expect(message.refusal ?? "").toBe(streamed.refusal);
      const calls = ((message.tool_calls as Json[] | undefined) ?? []).map((c) => [
        (c.function as Json).name,
        (c.function as Json).arguments,
      ]);
      expect(calls).toEqual(streamed.calls.map((c) => [c.name, c.arguments]));
      if (finish === "tool_calls") expect(calls.length).toBeGreaterThan(0);
      if (scenario === "refusal") {
        expect(message.content).toBeNull();
        expect(String(message.refusal)).toMatch(/sorry/i);
      }
    },
  );

  it("a failure mid-stream sends the error object as a data line, then ends without [DONE]", async () => {
    const { status, text } = await chat(server(), ask({ stream: true }), { "x-mock-scenario": "failure-mid-stream" });
    expect(status).toBe(200);
    const { chunks, error, done } = parseChatSse(text);
    expect(done).toBe(false);
    expect(error).toEqual({
      message: expect.stringMatching(/stopped unexpectedly/),
      type: "server_error",
      param: null,
      code: "server_error",
    });
    expect(foldChatChunks(chunks).content.length).toBeGreaterThan(0);
    expect(text.endsWith(`data: ${JSON.stringify({ error })}\n\n`)).toBe(true);
  });

  it("a failed answer, not streamed, is the error object with status 500", async () => {
    const { status, text } = await chat(server(), ask(), { "x-mock-scenario": "failure-mid-stream" });
    expect(status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: { message: expect.any(String), type: "server_error", param: null, code: "server_error" },
    });
  });

  it("a scripted HTTP error scenario answers with its status in OpenAI's shape", async () => {
    const { status, text } = await chat(server(), ask(), { "x-mock-scenario": "error-429" });
    expect(status).toBe(429);
    const body = JSON.parse(text) as { error: Json };
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  });

  it("maps the conversation: assistant tool_calls and tool messages reach the scenario as function_call and its output", async () => {
    const first = JSON.parse(
      (await chat(server(), ask({ tools: CHAT_TOOLS }), { "x-mock-scenario": "tool-call" })).text,
    );
    const message = first.choices[0].message as Json;
    const [call] = message.tool_calls as { id: string; function: { name: string; arguments: string } }[];
    const second = await chat(
      server(),
      {
        model: "gpt-4o",
        tools: CHAT_TOOLS,
        messages: [
          ...ask().messages,
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: call.id, type: "function", function: call.function }],
          },
          { role: "tool", tool_call_id: call.id, content: "Sunny, 24°C" },
        ],
      },
      { "x-mock-scenario": "tool-call" },
    );
    const answer = JSON.parse(second.text);
    expect(answer.choices[0].finish_reason).toBe("stop");
    // The tool-call scenario's second turn quotes the tool's output ({{tool_output}}).
    expect(answer.choices[0].message.content).toContain("Sunny, 24°C");
    const entry = server().requests.at(-1)!;
    expect(entry.path).toBe("/v1/chat/completions");
    expect(entry.scenario).toBe("tool-call");
  });

  it("max_tokens (below the Responses minimum of 16) cuts the answer: finish_reason length", async () => {
    for (const key of ["max_tokens", "max_completion_tokens"]) {
      const { text } = await chat(server(), ask({ [key]: 3 }), { "x-mock-scenario": "long-text" });
      const body = JSON.parse(text);
      expect(body.choices[0].finish_reason).toBe("length");
      expect(body.usage.completion_tokens).toBeLessThanOrEqual(3);
    }
  });

  it("response_format json_schema: the content is JSON of the schema's shape", async () => {
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, temperature: { type: "number" } },
      required: ["city", "temperature"],
      additionalProperties: false,
    };
    const { text } = await chat(
      server(),
      ask({ response_format: { type: "json_schema", json_schema: { name: "weather", schema, strict: true } } }),
    );
    const content = JSON.parse(JSON.parse(text).choices[0].message.content);
    expect(Object.keys(content).sort()).toEqual(["city", "temperature"]);
    expect(typeof content.temperature).toBe("number");
  });

  it("journals the request: path, scenario, streamed, outcome", async () => {
    await chat(server(), ask({ stream: true }), { "x-mock-scenario": "incomplete" });
    const entry = server().requests.at(-1)!;
    expect(entry).toMatchObject({
      method: "POST",
      path: "/v1/chat/completions",
      scenario: "incomplete",
      status: 200,
      streamed: true,
      outcome: "incomplete",
    });
    expect((entry.body as Json).messages).toEqual(ask().messages);
  });
});

describe("the inspector on a chat request", () => {
  const server = useServer();
  it("its answer is not judged as a Responses answer: the check says why", async () => {
    await chat(server(), ask({ stream: true }), { "x-mock-scenario": "text" });
    const seq = server().requests.at(-1)!.seq;
    const res = await fetch(`${server().url}/__mock/requests/${seq}/check`);
    expect(res.status).toBe(200);
    const view = (await res.json()) as Json;
    expect(view.checked).toBe(false);
    expect(String(view.note)).toMatch(/Chat Completions answer/);
  });
});

describe("bad chat requests are 400s in OpenAI's error shape, naming the parameter", () => {
  const server = useServer();
  const cases: [string, unknown, string][] = [
    ["n > 1", ask({ n: 2 }), "n"],
    ["no messages", { model: "gpt-4o" }, "messages"],
    ["empty messages", { model: "gpt-4o", messages: [] }, "messages"],
    ["no model", { messages: ask().messages }, "model"],
    ["an unknown role", { model: "m", messages: [{ role: "wizard", content: "x" }] }, "messages[0].role"],
    [
      "a bad content part",
      { model: "m", messages: [{ role: "user", content: [{ type: "video" }] }] },
      "messages[0].content[0].type",
    ],
    [
      "a tool message without tool_call_id",
      { model: "m", messages: [{ role: "tool", content: "x" }] },
      "messages[0].tool_call_id",
    ],
    ["stream_options without stream", ask({ stream_options: { include_usage: true } }), "stream_options"],
    ["tool_choice without tools", ask({ tool_choice: "required" }), "tool_choice"],
    ["an unknown parameter", ask({ input: "hello" }), "input"],
    ["a bad response_format", ask({ response_format: { type: "yaml" } }), "response_format.type"],
    [
      "a json_schema without its name",
      ask({ response_format: { type: "json_schema", json_schema: {} } }),
      "response_format.json_schema.name",
    ],
    ["a temperature out of range", ask({ temperature: 3 }), "temperature"],
    ["a string max_tokens", ask({ max_tokens: "ten" }), "max_tokens"],
    ["a tool without a function", ask({ tools: [{ type: "function" }] }), "tools[0].function"],
  ];
  it.each(cases)("%s", async (_name, body, param) => {
    const { status, headers, text } = await chat(server(), body);
    expect(status).toBe(400);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    const parsed = JSON.parse(text) as { error: Json };
    expect(Object.keys(parsed)).toEqual(["error"]);
    expect(Object.keys(parsed.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(parsed.error.type).toBe("invalid_request_error");
    expect(parsed.error.param).toBe(param);
    expect(String(parsed.error.message).length).toBeGreaterThan(10);
    expect(server().requests.at(-1)).toMatchObject({ path: "/v1/chat/completions", status: 400, outcome: "error" });
  });

  it("a body that is not JSON is a 400 too", async () => {
    const { status, text } = await chat(server(), "{not json");
    expect(status).toBe(400);
    expect(JSON.parse(text).error.type).toBe("invalid_request_error");
  });
});

describe("with an API key", () => {
  const server = useServer({ apiKey: "sk-chat" });
  it("a missing key is a 401 in OpenAI's shape; the key lets the request through", async () => {
    const refused = await chat(server(), ask());
    expect(refused.status).toBe(401);
    expect(Object.keys(JSON.parse(refused.text).error).sort()).toEqual(["code", "message", "param", "type"]);
    const ok = await chat(server(), ask(), { authorization: "Bearer sk-chat" });
    expect(ok.status).toBe(200);
  });
});

describe("determinism, sessions, expectations, faults", () => {
  let a: MockServer;
  let b: MockServer;
  beforeAll(async () => {
    a = await startMockServer({ port: 0, seed: 42, clock: fixedClock(TEST_NOW_MS) });
    b = await startMockServer({ port: 0, seed: 42, clock: fixedClock(TEST_NOW_MS) });
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it("the same request and seed give the same bytes, streamed or not; another seed another answer", async () => {
    for (const stream of [true, false]) {
      const body = ask({ stream, tools: CHAT_TOOLS, seed: 7 });
      const headers = { "x-mock-scenario": "random" };
      const one = await chat(a, body, headers);
      const two = await chat(b, body, headers);
      expect(one.status).toBe(200);
      expect(two.text).toBe(one.text);
      const other = await chat(b, { ...body, seed: 8 }, headers);
      expect(other.text).not.toBe(one.text);
    }
  });

  it("a session's queued answer is played, and the session's journal holds the request", async () => {
    const session = a.session("chat-session");
    session.enqueue({ steps: [{ type: "message", text: "From the queue." }] });
    const { text } = await chat(a, ask(), session.headers);
    expect(JSON.parse(text).choices[0].message.content).toBe("From the queue.");
    expect(session.requests.map((r) => [r.path, r.reason])).toEqual([["/v1/chat/completions", "queue"]]);
  });

  it("expectations judge the chat tool loop: the tool messages are the function_call_outputs", async () => {
    const session = a.session("chat-expect");
    session.enqueue(
      {
        steps: [
          { type: "function_call", name: "get_weather", call_id: "call_a", arguments: { city: "Paris" } },
          { type: "function_call", name: "get_time", call_id: "call_b", arguments: { city: "Paris" } },
        ],
        expect: { tool_outputs: true },
      },
      { steps: [{ type: "message", text: "Done." }] },
    );
    const first = JSON.parse((await chat(a, ask({ tools: CHAT_TOOLS }), session.headers)).text);
    const calls = first.choices[0].message.tool_calls as { id: string; function: Json }[];
    expect(calls.map((c) => c.id)).toEqual(["call_a", "call_b"]);
    await chat(
      a,
      {
        model: "gpt-4o",
        tools: CHAT_TOOLS,
        messages: [
          ...ask().messages,
          { role: "assistant", content: null, tool_calls: calls },
          { role: "tool", tool_call_id: "call_a", content: "sunny" },
          { role: "tool", tool_call_id: "call_b", content: "noon" },
        ],
      },
      session.headers,
    );
    expect(() => session.verify()).not.toThrow();
    expect(session.expectations.map((e) => e.status)).toEqual(["met"]);
  });

  it("limits and usage count chat turns: a spent bucket is OpenAI's 429 with its headers; usage counts the tokens", async () => {
    const session = a.session("chat-limits");
    await session.limits({ rpm: 1 });
    const first = await chat(a, ask(), session.headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("1");
    const refused = await chat(a, ask(), session.headers);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = JSON.parse(refused.text).error as Json;
    expect(error).toMatchObject({ type: "requests", code: "rate_limit_exceeded", param: null });
    const usage = await session.usage();
    const completion = JSON.parse(first.text) as { usage: { prompt_tokens: number; completion_tokens: number } };
    // The refused request is counted among the refusals, not the requests served.
    expect(usage.total).toMatchObject({
      requests: 1,
      inputTokens: completion.usage.prompt_tokens,
      outputTokens: completion.usage.completion_tokens,
    });
    expect(usage.total.refused.rate_limited).toBe(1);
  });

  it("a drop fault cuts the stream where it cuts the events: no [DONE], no finish_reason", async () => {
    const cut = await rawChat(a, ask({ stream: true }), {
      "x-mock-scenario": "text",
      "x-mock-fault": "drop-after-events=4",
    });
    expect(cut.status).toBe(200);
    const { chunks, done } = parseChatSse(cut.text, { requireEnd: false });
    expect(done).toBe(false);
    expect(chunks.length).toBeGreaterThan(0);
    expect(foldChatChunks(chunks).finish).toBeNull();
    expect(a.requests.at(-1)!.outcome).toBe("dropped");
  });
});

/** POSTs with node:http and collects every byte until the connection ends, however it ends. */
function rawChat(mock: MockServer, payload: object, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      new URL(`${mock.baseURL}/chat/completions`),
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        const done = () => resolve({ status: res.statusCode!, text });
        res.on("end", done);
        res.on("error", done);
        res.on("aborted", done);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(payload));
  });
}
