/**
 * The `openai` dialect: what api.openai.com sends where it differs from the
 * spec, as measured on recorded traffic (docs/dialects.md lists each point).
 */
import { goDuration } from "../service/bucket.js";
import type { DialectDescription } from "./dialect.js";

/** The organization OpenAI's rate limit messages name (the mock has none of its own). */
export const OPENAI_ORG = "org-mock";

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
    // As api.openai.com words its rate limit and quota errors (docs/dialects.md).
    rateLimit: (info) => {
      if (info.kind === "budget")
        return {
          type: "insufficient_quota",
          code: "insufficient_quota",
          message:
            "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        };
      const per = info.kind === "requests" ? "requests per min (RPM)" : "tokens per min (TPM)";
      const message =
        info.retryMs === null
          ? `Request too large for ${info.model} in organization ${OPENAI_ORG} on ${per}: Limit ${info.limit}, Requested ${info.requested}. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.`
          : `Rate limit reached for ${info.model} in organization ${OPENAI_ORG} on ${per}: Limit ${info.limit}, Used ${info.used}, Requested ${info.requested}. Please try again in ${goDuration(info.retryMs)}. Visit https://platform.openai.com/account/rate-limits to learn more.`;
      return { type: info.kind, code: "rate_limit_exceeded", message };
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
