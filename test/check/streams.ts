/**
 * Hand-made streams for the checker's tests, written from the spec's
 * examples (not from the mock's emitter): a good text answer, a good
 * reasoning + function call answer, and SSE framing for them. Each test
 * breaks one thing in a copy.
 */

export type Ev = Record<string, any>;

export const REQUEST = { model: "mock-model-1", input: "Say hello.", stream: true };

/** A full ResponseResource snapshot with every required key. */
export function snapshot(over: Record<string, unknown> = {}): Record<string, any> {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1767225600,
    completed_at: null,
    status: "in_progress",
    incomplete_details: null,
    model: "mock-model-1",
    previous_response_id: null,
    instructions: null,
    output: [],
    error: null,
    tools: [],
    tool_choice: "auto",
    truncation: "disabled",
    parallel_tool_calls: true,
    text: { format: { type: "text" } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage: null,
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: "default",
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
    ...over,
  };
}

export const USAGE = {
  input_tokens: 9,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 3,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 12,
};

const MESSAGE_DONE = {
  type: "message",
  id: "msg_1",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "Hello there!", annotations: [] }],
};

/** The spec's plain text stream (the first example of https://www.openresponses.org/specification, "Streaming HTTP Responses"), numbered. */
export function textStream(): Ev[] {
  return number([
    { type: "response.created", response: snapshot() },
    { type: "response.in_progress", response: snapshot() },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { type: "message", id: "msg_1", status: "in_progress", role: "assistant", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hello" },
    { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: " there!" },
    { type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: "Hello there!" },
    {
      type: "response.content_part.done",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "Hello there!", annotations: [] },
    },
    { type: "response.output_item.done", output_index: 0, item: structuredClone(MESSAGE_DONE) },
    {
      type: "response.completed",
      response: snapshot({
        status: "completed",
        completed_at: 1767225601,
        output: [structuredClone(MESSAGE_DONE)],
        usage: USAGE,
      }),
    },
  ]);
}

export const WEATHER_TOOL = {
  type: "function",
  name: "get_weather",
  description: "Weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
export const TOOL_REQUEST = {
  model: "mock-model-1",
  input: "Weather in Paris?",
  tools: [WEATHER_TOOL],
  reasoning: { effort: "low", summary: "auto" },
  stream: true,
};

/** Reasoning (a summary part and raw reasoning text) then a function call (the second example there, plus raw text). */
export function toolStream(
  reasoningDelta = "response.reasoning.delta",
  reasoningDone = "response.reasoning.done",
): Ev[] {
  const reasoningDoneItem = {
    type: "reasoning",
    id: "rs_1",
    summary: [{ type: "summary_text", text: "Need the weather." }],
    content: [{ type: "reasoning_text", text: "The user asks for Paris." }],
  };
  const callDone = {
    type: "function_call",
    id: "fc_1",
    call_id: "call_1",
    name: "get_weather",
    arguments: '{"city":"Paris"}',
    status: "completed",
  };
  const echo = { tools: [{ ...WEATHER_TOOL, strict: null }], reasoning: { effort: "low", summary: "auto" } };
  return number([
    { type: "response.created", response: snapshot(echo) },
    { type: "response.in_progress", response: snapshot(echo) },
    { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
    {
      type: "response.reasoning_summary_part.added",
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    },
    {
      type: "response.reasoning_summary_text.delta",
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      delta: "Need the ",
    },
    {
      type: "response.reasoning_summary_text.delta",
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      delta: "weather.",
    },
    {
      type: "response.reasoning_summary_text.done",
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      text: "Need the weather.",
    },
    {
      type: "response.reasoning_summary_part.done",
      item_id: "rs_1",
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "Need the weather." },
    },
    {
      type: "response.content_part.added",
      item_id: "rs_1",
      output_index: 0,
      content_index: 0,
      part: { type: "reasoning_text", text: "" },
    },
    { type: reasoningDelta, item_id: "rs_1", output_index: 0, content_index: 0, delta: "The user asks for Paris." },
    { type: reasoningDone, item_id: "rs_1", output_index: 0, content_index: 0, text: "The user asks for Paris." },
    {
      type: "response.content_part.done",
      item_id: "rs_1",
      output_index: 0,
      content_index: 0,
      part: { type: "reasoning_text", text: "The user asks for Paris." },
    },
    { type: "response.output_item.done", output_index: 0, item: structuredClone(reasoningDoneItem) },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "get_weather",
        arguments: "",
        status: "in_progress",
      },
    },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '{"city":' },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '"Paris"}' },
    { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 1, arguments: '{"city":"Paris"}' },
    { type: "response.output_item.done", output_index: 1, item: structuredClone(callDone) },
    {
      type: "response.completed",
      response: snapshot({
        ...echo,
        status: "completed",
        completed_at: 1767225601,
        output: [structuredClone(reasoningDoneItem), structuredClone(callDone)],
        usage: { ...USAGE, output_tokens_details: { reasoning_tokens: 2 } },
      }),
    },
  ]);
}

/** Sets sequence_number 0, 1, 2, … (in place) and returns the list. */
export function number(events: Ev[]): Ev[] {
  events.forEach((e, i) => {
    // Keep `type` first and `sequence_number` second, as servers send them.
    const { type, sequence_number: _, ...rest } = e;
    for (const k of Object.keys(e)) delete e[k];
    Object.assign(e, { type, sequence_number: i, ...rest });
  });
  return events;
}

/** SSE text for events: `event:` = type, one `data:` line each, `[DONE]` last unless told not to. */
export function sse(events: readonly Ev[], options: { done?: boolean } = {}): string {
  const frames = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
  if (options.done !== false) frames.push("data: [DONE]\n\n");
  return frames.join("");
}
