/** The function tools the library scenarios are played with (weather, time, calendar), as a client sends them. */
export const LIBRARY_TOOLS = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city"],
      additionalProperties: false,
    },
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
  },
  {
    type: "function" as const,
    name: "create_calendar_event",
    description: "Creates an event in the user's calendar",
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, start: { type: "string" }, end: { type: "string" } },
      required: ["title", "start"],
    },
  },
];

/** The same tools with `strict: false`, as the openai SDK's types want them. */
export const LIBRARY_TOOLS_NOT_STRICT = LIBRARY_TOOLS.map((t) => ({ ...t, strict: false }));
