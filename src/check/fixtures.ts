/**
 * The requests' fixtures, shared by the battery (battery.ts) and the bridge
 * bench (bridge.ts): two function tools, a json_schema for structured output,
 * and the requests both send.
 */
export const WEATHER_TOOL = {
  type: "function",
  name: "get_weather",
  description: "The current weather in a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "The city name" } },
    required: ["city"],
    additionalProperties: false,
  },
};
export const TIME_TOOL = {
  type: "function",
  name: "get_time",
  description: "The current local time in a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "The city name" } },
    required: ["city"],
    additionalProperties: false,
  },
};
export const ANSWER_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, temp_c: { type: "number" } },
  required: ["city", "temp_c"],
  additionalProperties: false,
};

/** A request both send: its JSON body and whether it streams. */
export interface FixtureRequest {
  stream: boolean;
  body: Record<string, unknown>;
}

/** The requests the battery and the bridge bench both send, by check name. */
export const REQUESTS = {
  text: (model: string): FixtureRequest => ({ stream: false, body: { model, input: "Say hello in three words." } }),
  textStream: (model: string): FixtureRequest => ({
    stream: true,
    body: { model, input: "Say hello in three words.", stream: true },
  }),
  instructions: (model: string): FixtureRequest => ({
    stream: false,
    body: { model, instructions: "Answer in one short sentence.", input: "What is the capital of France?" },
  }),
  /** A named tool_choice, streamed. */
  functionTool: (model: string): FixtureRequest => ({
    stream: true,
    body: {
      model,
      input: "What is the weather in Paris?",
      tools: [WEATHER_TOOL],
      tool_choice: { type: "function", name: "get_weather" },
      stream: true,
    },
  }),
  /** tool_choice "required" with two tools and parallel_tool_calls, streamed. */
  parallelTools: (model: string): FixtureRequest => ({
    stream: true,
    body: {
      model,
      input: "What is the weather in Paris, and what time is it in Tokyo?",
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: "required",
      parallel_tool_calls: true,
      stream: true,
    },
  }),
};
