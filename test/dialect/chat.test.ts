/**
 * The pure halves of Chat Completions: a chat body mapped onto the Responses
 * request that asks the same (every message role and content part, tools,
 * tool_choice, response_format, the numbers), the mapping's refusals, and the
 * renderer: chunks from events, and the whole completion from the final
 * response, both agreeing with what the proxy's reverse translation reads.
 */
import { describe, expect, it } from "vitest";
import { chatCompletion, ChatChunker, chatId, finishReason } from "../../src/dialect/chat.js";
import { readChatRequest } from "../../src/dialect/chat-request.js";
import { ApiError, type ResponseResource, type StreamEvent } from "../../src/spec/index.js";

type Json = Record<string, unknown>;

const refusedWith = (body: Json): ApiError => {
  try {
    readChatRequest(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("not refused");
};

describe("readChatRequest", () => {
  it("maps every message role and content part onto input items, in order", () => {
    const { body } = readChatRequest({
      model: "m",
      messages: [
        { role: "system", content: "sys" },
        {
          role: "developer",
          content: [
            { type: "text", text: "dev " },
            { type: "text", text: "more" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "https://x/a.png", detail: "low" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,AA==", filename: "a.pdf" } },
          ],
        },
        {
          role: "assistant",
          content: "calling",
          tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "out" }] },
        { role: "assistant", content: [{ type: "refusal", refusal: "no" }] },
      ],
    });
    expect(body.input).toEqual([
      { type: "message", role: "system", content: "sys" },
      { type: "message", role: "developer", content: "dev more" },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_image", image_url: "https://x/a.png", detail: "low" },
          { type: "input_file", file_data: "data:application/pdf;base64,AA==", filename: "a.pdf" },
        ],
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "calling", annotations: [] }] },
      { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "out" },
      { type: "message", role: "assistant", content: [{ type: "refusal", refusal: "no" }] },
    ]);
    expect(body.store).toBe(false);
  });

  it("maps tools, tool_choice, response_format and the numbers; keeps max_tokens and seed apart", () => {
    const ask = readChatRequest({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" }, strict: true } }],
      tool_choice: { type: "function", function: { name: "f" } },
      parallel_tool_calls: false,
      response_format: { type: "json_schema", json_schema: { name: "s", schema: { type: "object" }, strict: true } },
      max_completion_tokens: 5,
      max_tokens: 9,
      temperature: 0.5,
      seed: 3,
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: "low",
    });
    expect(ask.body).toMatchObject({
      tools: [{ type: "function", name: "f", parameters: { type: "object" }, strict: true }],
      tool_choice: { type: "function", name: "f" },
      parallel_tool_calls: false,
      text: { format: { type: "json_schema", name: "s", schema: { type: "object" }, strict: true } },
      temperature: 0.5,
      reasoning: { effort: "low" },
      stream: true,
    });
    expect(ask).toMatchObject({ maxTokens: 5, seed: 3, stream: true, includeUsage: true, model: "m" });
    const allowed = readChatRequest({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "f" } }],
      tool_choice: {
        type: "allowed_tools",
        allowed_tools: { mode: "required", tools: [{ type: "function", function: { name: "f" } }] },
      },
      response_format: { type: "json_object" },
    });
    expect(allowed.body.tool_choice).toEqual({
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "f" }],
    });
    expect(allowed.body.text).toEqual({ format: { type: "json_object" } });
  });

  it.each([
    [{ model: "m", messages: [{ role: "user", content: "x" }], n: 3 }, "n", "unsupported_parameter"],
    [
      { model: "m", messages: [{ role: "function", name: "f", content: "x" }] },
      "messages[0].role",
      "unsupported_parameter",
    ],
    [
      { model: "m", messages: [{ role: "user", content: [{ type: "input_audio" }] }] },
      "messages[0].content[0].type",
      "unsupported_parameter",
    ],
    [{ model: "m", messages: [{ role: "assistant" }] }, "messages[0].content", "missing_required_parameter"],
    [{ model: "m", messages: [{ role: "user", content: "x" }], logprobs: true }, "logprobs", "unsupported_parameter"],
    [
      { model: "m", messages: [{ role: "user", content: "x" }], tools: [{ type: "custom", custom: {} }] },
      "tools[0].type",
      "unsupported_parameter",
    ],
    [{ model: "m", messages: [{ role: "user", content: "x" }], frobnicate: 1 }, "frobnicate", "unknown_parameter"],
    [{ model: 3, messages: [{ role: "user", content: "x" }] }, "model", "invalid_type"],
  ])("refuses %j naming %s", (body, param, code) => {
    const err = refusedWith(body as Json);
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(err.code).toBe(code);
  });
});

const frame = { id: "chatcmpl-x", created: 7, model: "m", includeUsage: true };
const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 2 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 1 },
  total_tokens: 15,
};

describe("the renderer", () => {
  it("chatId keeps the response id's tail", () => {
    expect(chatId("resp_abc123")).toBe("chatcmpl-abc123");
  });

  it("chunks from events: role, text, a call's head then fragments, the finish and the usage chunk; reasoning says nothing", () => {
    const chunker = new ChatChunker(frame);
    const events = [
      { type: "response.created", response: {} },
      { type: "response.reasoning.delta", delta: "hmm" },
      { type: "response.output_text.delta", delta: "Hi" },
      {
        type: "response.output_item.added",
        item: { type: "function_call", call_id: "call_9", name: "f", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", delta: '{"a"' },
      { type: "response.function_call_arguments.delta", delta: ":1}" },
      { type: "response.completed", response: { status: "completed", output: [{ type: "function_call" }], usage } },
    ] as unknown as StreamEvent[];
    const deltas = events.flatMap((e) =>
      chunker.event(e).map((o) => {
        expect(o.kind).toBe("chunk");
        const chunk = (o as { chunk: Json }).chunk;
        expect(chunk.usage).toBeDefined();
        const choices = chunk.choices as Json[];
        return choices.length === 0
          ? { usage: chunk.usage }
          : { delta: choices[0].delta, finish: choices[0].finish_reason };
      }),
    );
    expect(deltas).toEqual([
      { delta: { role: "assistant", content: "", refusal: null }, finish: null },
      { delta: { content: "Hi" }, finish: null },
      {
        delta: { tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "f", arguments: "" } }] },
        finish: null,
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }, finish: null },
      { delta: {}, finish: "tool_calls" },
      {
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: 2, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 1,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      },
    ]);
  });

  it("an error event ends the chunks with the error object; the failed response after it adds nothing", () => {
    const chunker = new ChatChunker({ ...frame, includeUsage: false });
    const error = chunker.event({
      type: "error",
      error: { type: "server_error", code: "boom", message: "Boom.", param: null },
    } as unknown as StreamEvent);
    expect(error).toEqual([
      { kind: "error", error: { message: "Boom.", type: "server_error", param: null, code: "boom" } },
    ]);
    expect(chunker.errored).toBe(true);
    expect(chunker.event({ type: "response.failed", response: {} } as unknown as StreamEvent)).toEqual([]);
  });

  it("finish reasons: stop, tool_calls, length, content_filter", () => {
    const r = (status: string, reason: string | null, output: Json[] = []) =>
      ({ status, incomplete_details: reason ? { reason } : null, output }) as unknown as ResponseResource;
    expect(finishReason(r("completed", null))).toBe("stop");
    expect(finishReason(r("completed", null, [{ type: "message" }, { type: "function_call" }]))).toBe("tool_calls");
    expect(finishReason(r("incomplete", "max_output_tokens"))).toBe("length");
    expect(finishReason(r("incomplete", "content_filter"))).toBe("content_filter");
  });

  it("the whole completion: text and refusal joined, calls in order, url_citations shifted to the whole content", () => {
    const response = {
      status: "completed",
      incomplete_details: null,
      usage,
      output: [
        { type: "reasoning", summary: [] },
        {
          type: "message",
          content: [
            { type: "output_text", text: "Hello ", annotations: [] },
            {
              type: "output_text",
              text: "world",
              annotations: [{ type: "url_citation", start_index: 0, end_index: 5, url: "https://w", title: "W" }],
            },
          ],
        },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
      ],
    } as unknown as ResponseResource;
    const completion = chatCompletion(frame, response);
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Hello world",
          refusal: null,
          annotations: [
            { type: "url_citation", url_citation: { start_index: 6, end_index: 11, title: "W", url: "https://w" } },
          ],
          tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        logprobs: null,
        finish_reason: "tool_calls",
      },
    ]);
    expect(completion).toMatchObject({ id: "chatcmpl-x", object: "chat.completion", created: 7, model: "m" });
  });
});
