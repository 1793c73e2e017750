/**
 * The Chat Completions translation, pure: a Responses request as the chat
 * request that asks the same, and chat chunks as Responses events. Every
 * translated stream is held to the same conformance checks as the mock's own
 * (schemas, ordering, sequence numbers, the fold against the terminal
 * snapshot), and a non-streamed completion gives the response its stream would.
 */
import { describe, expect, it } from "vitest";
import { foldEvents } from "../../src/emit/fold.js";
import { buildBaseResponse, createIdSource } from "../../src/generate/index.js";
import { buildChatRequest } from "../../src/proxy/chat-request.js";
import { ChatTranslator, completionAsChunks } from "../../src/proxy/chat-stream.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { ApiError, CreateResponseBody, type StreamEvent } from "../../src/spec/index.js";
import { expectConformantStream } from "../support/conformance.js";

const request = (body: object) => CreateResponseBody.parse({ model: "llama3.2", input: "hi", ...body });
const chatOf = (body: object, stream = true) => {
  const r = request(body);
  return buildChatRequest(r, inputItems(r.input), stream);
};

describe("the chat request", () => {
  it("puts instructions first, maps roles and content parts, and merges calls into the assistant turn", () => {
    const chat = chatOf({
      instructions: "Be brief.",
      input: [
        { type: "message", role: "developer", content: "Use metric units." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "Weather?" },
            { type: "input_image", image_url: "https://x/y.png", detail: "low" },
          ],
        },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }] },
        { type: "reasoning", summary: [] },
        { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { type: "function_call", call_id: "call_2", name: "get_time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "12°C" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "noon" }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Use metric units." },
      {
        role: "user",
        content: [
          { type: "text", text: "Weather?" },
          { type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
          { id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "12°C" },
      { role: "tool", tool_call_id: "call_2", content: "noon" },
    ]);
    expect(chat.stream).toBe(true);
    expect(chat.stream_options).toEqual({ include_usage: true });
  });

  it("maps tools, tool_choice, max_output_tokens, sampling, text format and effort", () => {
    const tools = [
      { type: "function", name: "a", description: "A.", parameters: { type: "object", properties: {} }, strict: true },
      { type: "function", name: "b", parameters: { type: "object" } },
    ];
    const chat = chatOf(
      {
        tools,
        tool_choice: { type: "function", name: "a" },
        parallel_tool_calls: false,
        max_output_tokens: 64,
        temperature: 0.2,
        top_p: 0.9,
        presence_penalty: 0.1,
        frequency_penalty: 0.3,
        text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true } },
        reasoning: { effort: "low" },
        top_logprobs: 2,
        include: ["message.output_text.logprobs"],
      },
      false,
    );
    expect(chat).toMatchObject({
      tools: [
        {
          type: "function",
          function: { name: "a", description: "A.", parameters: { type: "object", properties: {} }, strict: true },
        },
        { type: "function", function: { name: "b", parameters: { type: "object" } } },
      ],
      tool_choice: { type: "function", function: { name: "a" } },
      parallel_tool_calls: false,
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      reasoning_effort: "low",
      logprobs: true,
      top_logprobs: 2,
      stream: false,
    });
    expect(chat.stream_options).toBeUndefined();
    // allowed_tools: only the allowed tools are offered, with the mode as the choice.
    const allowed = chatOf({
      tools,
      tool_choice: { type: "allowed_tools", tools: [{ type: "function", name: "b" }], mode: "required" },
    });
    expect(allowed.tools!.map((t) => t.function.name)).toEqual(["b"]);
    expect(allowed.tool_choice).toBe("required");
  });

  it("refuses what Chat Completions cannot carry with a 400 naming the field", () => {
    const refused = (body: object, param: string) => {
      try {
        chatOf(body);
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).status).toBe(400);
        expect((err as ApiError).param).toBe(param);
        expect((err as ApiError).message).toMatch(/Chat Completions/);
        return;
      }
      throw new Error(`not refused: ${JSON.stringify(body)}`);
    };
    refused({ tools: [{ type: "web_search" }] }, "tools[0].type");
    refused({ input: [{ type: "item_reference", id: "msg_1" }] }, "input[0].type");
    refused({ background: true }, "background");
    refused(
      { input: [{ type: "message", role: "user", content: [{ type: "input_image", detail: "low" }] }] },
      "input[0].content[0]",
    );
  });
});

// ---- the answer -------------------------------------------------------------------

const BASE = buildBaseResponse(request({}), { id: "resp_test", createdAt: 1_700_000_000 });
const translator = (init: Partial<ConstructorParameters<typeof ChatTranslator>[0]> = {}) =>
  new ChatTranslator({ base: BASE, ids: createIdSource("proxy-test"), logprobs: false, inputTokens: 7, ...init });

const chunk = (delta: object, extra: object = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  model: "llama3.2:latest",
  choices: [{ index: 0, delta, finish_reason: null, ...extra }],
});
const usage = (prompt: number, completion: number) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  model: "llama3.2:latest",
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

/** Feeds chunks and ends the stream as `[DONE]` does; returns every event. */
function run(chunks: object[], t = translator(), done = true): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const c of chunks) events.push(...t.chunk(c));
  if (done) events.push(...t.end(1_700_000_001));
  return events;
}

const types = (events: StreamEvent[]) => events.map((e) => e.type);

describe("chat chunks → Responses events", () => {
  it("streams text as a message with one output_text part, and maps the usage", () => {
    const events = run([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Hel" }),
      chunk({ content: "lo!" }),
      chunk({}, { finish_reason: "stop" }),
      usage(5, 2),
    ]);
    const response = expectConformantStream(events as never);
    expect(types(events)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(response.model).toBe("llama3.2:latest");
    expect(response.status).toBe("completed");
    expect(response.completed_at).toBe(1_700_000_001);
    expect(response.output).toMatchObject([
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Hello!", annotations: [] }],
      },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 5,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 7,
    });
  });

  it("turns tool call deltas split across chunks into one function_call item with argument deltas", () => {
    const events = run([
      chunk({ role: "assistant", content: null }),
      chunk({
        tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "get_", arguments: "" } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { name: "weather" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Os' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'lo"}' } }] }),
      chunk({}, { finish_reason: "tool_calls" }),
      usage(9, 8),
    ]);
    const response = expectConformantStream(events as never);
    expect(response.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        call_id: "call_abc",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
        status: "completed",
      }),
    ]);
    expect(
      events
        .filter((e) => e.type === "response.function_call_arguments.delta")
        .map((e) => (e as { delta: string }).delta),
    ).toEqual(['{"ci', 'ty":"Os', 'lo"}']);
  });

  it("gives parallel calls as consecutive items, in their order", () => {
    const events = run([
      chunk({
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":"Oslo"}' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_2", type: "function", function: { name: "get_weather", arguments: '{"ci' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'ty":"Rome"}' } }] }),
      // Ollama's way: a whole call in one delta, and no id.
      chunk({ tool_calls: [{ index: 2, function: { name: "get_time", arguments: "{}" } }] }),
      chunk({}, { finish_reason: "tool_calls" }),
    ]);
    const response = expectConformantStream(events as never);
    expect(
      response.output.map((o) => [
        (o as { call_id: string }).call_id.startsWith("call_"),
        (o as { arguments: string }).arguments,
      ]),
    ).toEqual([
      [true, '{"city":"Oslo"}'],
      [true, '{"city":"Rome"}'],
      [true, "{}"],
    ]);
    expect((response.output[0] as { call_id: string }).call_id).toBe("call_1");
    expect((response.output[1] as { call_id: string }).call_id).toBe("call_2");
  });

  it("takes a name sent again in every delta (NVIDIA NIM, Fireworks) as the same name, not a longer one", () => {
    const events = run([
      chunk({
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }],
      }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":' } },
        ],
      }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: '"Oslo"}' } },
        ],
      }),
      chunk({}, { finish_reason: "tool_calls" }),
    ]);
    const response = expectConformantStream(events as never);
    expect(response.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      }),
    ]);
  });

  it("tells calls apart without an index (Gemini): a new id or name starts the next call, the rest goes on with the latest", () => {
    const events = run([
      chunk({
        role: "assistant",
        tool_calls: [
          { id: "function-call-1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
        ],
      }),
      chunk({
        tool_calls: [
          { id: "function-call-2", type: "function", function: { name: "get_weather", arguments: '{"city":' } },
        ],
      }),
      chunk({ tool_calls: [{ function: { arguments: '"Rome"}' } }] }),
      chunk({ tool_calls: [{ type: "function", function: { name: "get_time", arguments: "{}" } }] }),
      chunk({}, { finish_reason: "stop" }),
    ]);
    const response = expectConformantStream(events as never);
    expect(response.status).toBe("completed");
    expect(response.output.map((o) => [(o as { name: string }).name, (o as { arguments: string }).arguments])).toEqual([
      ["get_weather", '{"city":"Oslo"}'],
      ["get_weather", '{"city":"Rome"}'],
      ["get_time", "{}"],
    ]);
    expect(response.output.slice(0, 2).map((o) => (o as { call_id: string }).call_id)).toEqual([
      "function-call-1",
      "function-call-2",
    ]);
  });

  it("counts the usage itself when the upstream sends no usage chunk", () => {
    const events = run([chunk({ content: "Three little words" }), chunk({}, { finish_reason: "stop" })]);
    const response = expectConformantStream(events as never);
    expect(response.usage!.input_tokens).toBe(7); // the estimate it was given
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
  });

  it("makes finish_reason length an incomplete response, its last item incomplete", () => {
    const events = run([chunk({ content: "Once upon a" }), chunk({}, { finish_reason: "length" }), usage(3, 16)]);
    const response = expectConformantStream(events as never);
    expect(events.at(-1)!.type).toBe("response.incomplete");
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.output[0]).toMatchObject({ type: "message", status: "incomplete" });
  });

  it("makes an error mid-stream an error event then response.failed, sequence numbers going on", () => {
    const t = translator();
    const events = run(
      [
        chunk({ content: "Half a sen" }),
        { error: { message: "model crashed", type: "server_error", code: "boom" } },
        chunk({ content: "ignored" }),
      ],
      t,
      false,
    );
    const response = expectConformantStream(events as never);
    expect(types(events).slice(-2)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)).toMatchObject({
      error: { type: "server_error", code: "boom", message: "Upstream error: model crashed" },
    });
    expect(response.status).toBe("failed");
    expect(response.error).toEqual({ type: "server_error", code: "boom", message: "Upstream error: model crashed" });
    expect(response.output[0]).toMatchObject({ status: "incomplete" });
    expect(t.end(0)).toEqual([]);
  });

  it("fails a stream cut short the same way (fail), even before any chunk", () => {
    const t = translator();
    const events = t.fail({ type: "server_error", code: "upstream_disconnected", message: "cut", param: null });
    expectConformantStream(events as never);
    expect(types(events)).toEqual(["response.created", "response.in_progress", "error", "response.failed"]);
  });

  it("reports an upstream that sends more of a call after the next one began", () => {
    const events = run(
      [
        chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "a", arguments: "{" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "c2", function: { name: "b", arguments: "{}" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "}" } }] }),
      ],
      translator(),
      false,
    );
    expectConformantStream(events as never);
    expect(events.at(-2)).toMatchObject({ type: "error", error: { code: "upstream_invalid_chunk" } });
  });

  it("streams reasoning_content as a reasoning item first, and carries logprobs when asked", () => {
    const events = run(
      [
        chunk({ reasoning_content: "Think" }),
        chunk({ reasoning_content: "ing." }),
        chunk(
          { content: "Hi" },
          {
            logprobs: {
              content: [
                {
                  token: "Hi",
                  logprob: -0.1,
                  bytes: [72, 105],
                  top_logprobs: [{ token: "Hi", logprob: -0.1, bytes: [72, 105] }],
                },
              ],
            },
          },
        ),
        chunk({}, { finish_reason: "stop" }),
      ],
      translator({ logprobs: true }),
    );
    const response = expectConformantStream(events as never);
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    expect(response.output[0]).toMatchObject({ content: [{ type: "reasoning_text", text: "Thinking." }] });
    expect(response.output[1]).toMatchObject({
      content: [{ type: "output_text", text: "Hi", logprobs: [{ token: "Hi", logprob: -0.1 }] }],
    });
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it("reads a whole completion as the stream it would have been: the same response", () => {
    const completion = {
      id: "chatcmpl-9",
      object: "chat.completion",
      model: "llama3.2:latest",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me look.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 9, total_tokens: 20 },
    };
    const a = run(completionAsChunks(completion), translator());
    const streamed = run(
      [
        chunk({ content: "Let " }),
        chunk({ content: "me look." }),
        chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "get_weather", arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        chunk({}, { finish_reason: "tool_calls" }),
        usage(11, 9),
      ],
      translator(),
    );
    const whole = expectConformantStream(a as never);
    expect(whole).toEqual(foldEvents(streamed));
    expect(whole.output.map((o) => o.type)).toEqual(["message", "function_call"]);
  });
});
