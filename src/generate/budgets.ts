/**
 * What one generated answer may cost: the size of each call's arguments and
 * of the whole answer, how many calls it makes, how many deltas stream each
 * part, how much of the user's message the generators read. A small request
 * never makes a large answer: a schema that has no value within these is a
 * 400 `schema_too_large` naming it, never megabytes of output.
 */
import { ApiError } from "../spec/index.js";
import type { BoundedSample } from "./json-schema-sample.js";

/** Largest `arguments` of one generated function call, in bytes of JSON. */
export const CALL_BYTES = 32 * 1024;
/** Largest sum of the arguments of one answer's calls, and largest structured-output (json_schema) text. */
export const ANSWER_BYTES = 64 * 1024;
/** At most this many function calls in one generated answer. */
export const MAX_CALLS = 16;
/** A generated text or arguments string streams in at most this many deltas (longer ones get longer deltas). */
export const MAX_DELTAS = 128;
/** A scripted text that holds request values (`{{input}}`, `{{tool_output}}`…) streams in at most this many deltas. */
export const MAX_FILLED_DELTAS = 1_024;
/** The generators read at most this much of the user's last message (a model's answer does not grow with it). */
export const USER_TEXT_LIMIT = 16 * 1024;
/** A text answer quotes at most this many tool outputs (and says how many more there were). */
export const MAX_QUOTED_OUTPUTS = 16;

/** The user's last message as the generators read it: its first USER_TEXT_LIMIT characters. */
export function userTextWithin(text: string): string {
  if (text.length <= USER_TEXT_LIMIT) return text;
  // Never cut a surrogate pair in half.
  const end = (text.charCodeAt(USER_TEXT_LIMIT - 1) & 0xfc00) === 0xd800 ? USER_TEXT_LIMIT - 1 : USER_TEXT_LIMIT;
  return text.slice(0, end);
}

/**
 * The 400 for a schema with no value within `limit` bytes: its smallest valid
 * value is larger (`minLength: 1e9`, `^(a{1000}){1000}$`, `minItems` in the
 * millions), needs too many values, or takes too much work to sample.
 */
export function schemaTooLarge(
  param: string,
  what: string,
  sample: Extract<BoundedSample, { ok: false }>,
  limit: number,
): ApiError {
  const why =
    sample.reason === "values"
      ? "needs more values than the mock makes for one answer (2,000)"
      : sample.reason === "work"
        ? "is too large or too deeply combined (allOf, $ref, anyOf, enum) for the mock to sample"
        : `has no valid value smaller than ${sample.least.toLocaleString("en-US")} bytes; the mock sends at most ${limit.toLocaleString("en-US")}`;
  return new ApiError({
    status: 400,
    type: "invalid_request",
    code: "schema_too_large",
    param,
    message: `The schema of ${what} ${why}. Lower its minLength, minItems, required keys or pattern repetitions.`,
  });
}
