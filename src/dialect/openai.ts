/**
 * The `openai` dialect: what api.openai.com sends where it differs from the
 * spec, as measured on recorded traffic (docs/dialects.md lists each point).
 */
import type { DialectDescription } from "./dialect.js";

export const openai: DialectDescription = {
  name: "openai",
  summary: "what api.openai.com sends: no [DONE], reasoning_text events, OpenAI's ids, fields and error spellings",
  ids: "openai",
  vendorExtensions: false,
  hostedItems: "native",
  annotationsInline: true,
  sse: { contentType: "text/event-stream; charset=utf-8", done: false },
  eventNames: {
    "response.reasoning.delta": "response.reasoning_text.delta",
    "response.reasoning.done": "response.reasoning_text.done",
  },
  encryptedContentOnAdded: true,
  response: {
    reasoningDefault: { effort: null, summary: null },
    reasoningEffortDefault: "medium",
    reasoningSummaryEcho: { auto: "detailed" },
    verbosityDefault: "medium",
    outputTextLogprobs: true,
    echoFields: { user: null, prompt_cache_retention: null },
    echoJsonSchema: true,
    serviceTierInProgress: "auto",
    floatFields: ["temperature", "top_p", "presence_penalty", "frequency_penalty"],
    hostedToolDefaults: true,
  },
  errors: {
    types: {
      invalid_request: "invalid_request_error",
      not_found: "invalid_request_error",
      too_many_requests: "requests",
      model_error: "server_error",
    },
    codes: {
      internal_error: "server_error",
      invalid_request: null,
      not_found: null,
      unsupported_parameter: null,
      call_not_found: null,
      value_below_minimum: "invalid_value",
      value_above_maximum: "invalid_value",
    },
    bounds: {
      decimalParams: ["temperature", "top_p", "presence_penalty", "frequency_penalty"],
      below: { integer: "integer_below_min_value", decimal: "decimal_below_min_value" },
      above: { integer: "integer_above_max_value", decimal: "decimal_above_max_value" },
      message: (param, side, kind, bound, got) =>
        `Invalid '${param}': ${kind} ${side === "below" ? "below minimum" : "above maximum"} value. Expected a value ${side === "below" ? ">=" : "<="} ${bound}, but got ${JSON.stringify(got)} instead.`,
    },
    // As api.openai.com answers `tools` with 129 entries, or a call_id of 65 characters.
    lengths: {
      above: { string: "string_above_max_length", array: "array_above_max_length" },
      message: (param, kind, limit, got) =>
        `Invalid '${param}': ${kind} too long. Expected ${kind === "array" ? "an array" : "a string"} with maximum length ${limit}, but got ${kind === "array" ? "an array" : "a string"} with length ${got} instead.`,
    },
    // What api.openai.com sends when a model has no capacity left (503): the type and message of its overloaded error.
    overloaded: {
      type: "service_unavailable_error",
      message: "Our servers are currently overloaded. Please try again later.",
    },
    rateLimitHeaders: {
      "x-ratelimit-limit-requests": "10000",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "2s",
    },
  },
  headers: {
    requestId: { name: "x-request-id", prefix: "req_" },
    processingMs: "openai-processing-ms",
    constant: { "openai-version": "2020-10-01" },
  },
};
