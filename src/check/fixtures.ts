/**
 * The requests' fixtures, shared by the battery (battery.ts) and the bridge
 * bench (bridge.ts): two function tools and a json_schema for structured output.
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
