/**
 * A hand-written fast path beside the zod schema of `POST /v1/responses`
 * (`CreateResponseBody`, the default policy), for the shapes nearly every
 * request has: a model, a string or a list of plain messages, function calls
 * and their outputs, function tools, and the scalar options. Parsing a small
 * body with zod costs more than answering it, and every request is parsed.
 *
 * It never rejects: it returns exactly the value zod would (same keys, same
 * order, new objects where zod makes new ones), or `undefined` for anything it
 * does not recognise — an unknown key, a value of another shape, a value zod
 * would refuse — and the caller then parses with zod, so every error object
 * is zod's own. A property test holds the two to that (test/spec).
 */
import {
  FunctionCallStatus,
  IncludeEnum,
  MAX_TEXT,
  MAX_TOOLS,
  MessagePhase,
  ReasoningEffort,
  ReasoningSummary,
  ServiceTierEnum,
  ToolChoiceValue,
  TruncationEnum,
  VerbosityEnum,
} from "./common.js";
import type { CreateResponseBody } from "./request.js";

type Json = Record<string, unknown>;

/** Nothing the fast path recognises: the caller falls back to zod. */
const NO = Symbol("fast path declines");
type Check = (value: unknown) => unknown;

const isPlainObject = (v: unknown): v is Json => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

// ---- scalars (zod gives back the value itself) ----------------------------------------

const string: Check = (v) => (typeof v === "string" ? v : NO);
const text: Check = (v) => (typeof v === "string" && v.length <= MAX_TEXT ? v : NO);
const stringUpTo =
  (max: number): Check =>
  (v) =>
    typeof v === "string" && v.length <= max ? v : NO;
const boolean: Check = (v) => (typeof v === "boolean" ? v : NO);
const number: Check = (v) => (typeof v === "number" && Number.isFinite(v) ? v : NO);
const between =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === "number" && v >= min && v <= max ? v : NO;
/** A safe integer of at least `min` (at most `max`): zod's `int()` range and ours agree there. */
const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? v : NO;
const oneOf = (values: readonly string[]): Check => {
  const set = new Set(values);
  return (v) => (typeof v === "string" && set.has(v) ? v : NO);
};
const nullish =
  (check: Check): Check =>
  (v) =>
    v === null ? null : check(v);
/** Only null: a field the fast path takes only when it is left empty. */
const onlyNull: Check = (v) => (v === null ? null : NO);

// ---- objects ------------------------------------------------------------------------

/**
 * An object with only the keys of `shape` (any of them may be missing; none
 * may be undefined), rebuilt in the shape's order, as a zod object outputs it.
 * Unknown keys decline (zod would drop or refuse them; either way, zod decides).
 */
function object(shape: Record<string, Check>, required: readonly string[] = []): Check {
  const keys = Object.keys(shape);
  return (v) => {
    if (!isPlainObject(v)) return NO;
    let n = 0;
    for (const key in v) {
      if (!Object.hasOwn(shape, key)) return NO;
      n++;
    }
    const out: Json = {};
    let seen = 0;
    for (const key of keys) {
      if (!Object.hasOwn(v, key)) continue;
      const value = shape[key](v[key]);
      if (value === NO) return NO;
      out[key] = value;
      seen++;
    }
    if (seen !== n) return NO; // an inherited or odd key: zod decides
    for (const key of required) if (!Object.hasOwn(out, key)) return NO;
    return out;
  };
}

/** A list whose every element passes, as a new array (zod's arrays are new). */
const arrayOf =
  (check: Check, max = Infinity): Check =>
  (v) => {
    if (!Array.isArray(v) || v.length > max) return NO;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const value = check(v[i]);
      if (value === NO) return NO;
      out[i] = value;
    }
    return out;
  };

/** Values of an object of strings, as a new object (a zod record); declines an own `__proto__` key. */
const stringRecord =
  (maxKeys: number, maxKey: number, maxValue: number): Check =>
  (v) => {
    if (!isPlainObject(v)) return NO;
    const out: Json = {};
    let n = 0;
    for (const key in v) {
      if (!Object.hasOwn(v, key) || key === "__proto__" || key.length > maxKey) return NO;
      const value = v[key];
      if (typeof value !== "string" || value.length > maxValue || ++n > maxKeys) return NO;
      out[key] = value;
    }
    return out;
  };

/** A JSON Schema object (`parameters`): a new object with the same values (a zod record of unknowns). */
const schemaObject: Check = (v) => {
  if (!isPlainObject(v)) return NO;
  const out: Json = {};
  for (const key in v) {
    if (!Object.hasOwn(v, key) || key === "__proto__" || v[key] === undefined) return NO;
    out[key] = v[key];
  }
  return out;
};

// ---- items ----------------------------------------------------------------------------

const FUNCTION_NAME = /^[a-zA-Z0-9_-]+$/;
const functionName: Check = (v) =>
  typeof v === "string" && v.length >= 1 && v.length <= 64 && FUNCTION_NAME.test(v) ? v : NO;
const callId: Check = (v) => (typeof v === "string" && v.length >= 1 && v.length <= 64 ? v : NO);
const itemId = nullish(string);
const callStatus = nullish(oneOf(FunctionCallStatus.options));

const inputText = object({ type: oneOf(["input_text"]), text }, ["type", "text"]);
const outputText = object(
  { type: oneOf(["output_text"]), text, annotations: (v) => (Array.isArray(v) && v.length === 0 ? [] : NO) },
  ["type", "text"],
);

/** `string | parts[]` content of a message. */
const content = (part: Check): Check => {
  const parts = arrayOf(part);
  return (v) => (typeof v === "string" ? text(v) : parts(v));
};

/** Messages by role: the keys of each in zod's order (`type` is filled in when only `role` was sent). */
const MESSAGES: Record<string, Check> = {
  user: object({ type: oneOf(["message"]), role: string, content: content(inputText), id: itemId, status: itemId }, [
    "type",
    "role",
    "content",
  ]),
  system: object({ type: oneOf(["message"]), role: string, content: content(inputText), id: itemId, status: itemId }, [
    "type",
    "role",
    "content",
  ]),
  developer: object(
    { type: oneOf(["message"]), role: string, content: content(inputText), id: itemId, status: itemId },
    ["type", "role", "content"],
  ),
  assistant: object(
    {
      type: oneOf(["message"]),
      role: string,
      content: content(outputText),
      phase: oneOf(MessagePhase.options),
      id: itemId,
      status: itemId,
    },
    ["type", "role", "content"],
  ),
};

const ITEMS: Record<string, Check> = {
  function_call: object(
    {
      type: string,
      call_id: callId,
      name: functionName,
      arguments: string,
      id: itemId,
      status: callStatus,
      namespace: string,
    },
    ["type", "call_id", "name", "arguments"],
  ),
  function_call_output: object({ type: string, call_id: callId, output: text, id: itemId, status: callStatus }, [
    "type",
    "call_id",
    "output",
  ]),
};

/** One input item: a message (with or without `type`), a function call or its output. */
const item: Check = (v) => {
  if (!isPlainObject(v)) return NO;
  const type = v.type;
  if (type === "message" || (type === undefined && Object.hasOwn(v, "role"))) {
    const check = typeof v.role === "string" && Object.hasOwn(MESSAGES, v.role) ? MESSAGES[v.role] : undefined;
    return check ? check(type === undefined ? { type: "message", ...v } : v) : NO;
  }
  return typeof type === "string" && Object.hasOwn(ITEMS, type) ? ITEMS[type](v) : NO;
};

const input: Check = (() => {
  const items = arrayOf(item);
  return (v) => (typeof v === "string" ? text(v) : items(v));
})();

// ---- tools --------------------------------------------------------------------------

const functionTool = object(
  {
    type: oneOf(["function"]),
    name: functionName,
    description: nullish(string),
    parameters: nullish(schemaObject),
    strict: nullish(boolean),
  },
  ["type", "name"],
);
const toolChoice: Check = (() => {
  const named = object({ type: oneOf(["function"]), name: functionName }, ["type", "name"]);
  const values = oneOf(ToolChoiceValue.options);
  return (v) => (typeof v === "string" ? values(v) : named(v));
})();

// ---- the body -------------------------------------------------------------------------

/**
 * The fields of `CreateResponseBody`, in its order (the order zod's output
 * has), with what the fast path takes for each. Keep in step with
 * src/spec/request.ts: the property test compares the two on generated bodies.
 */
const BODY: Record<string, Check> = {
  model: string,
  instructions: nullish(text),
  previous_response_id: nullish(string),
  parallel_tool_calls: nullish(boolean),
  max_output_tokens: nullish(integer(16)),
  max_tool_calls: nullish(integer(1)),
  temperature: nullish(between(0, 2)),
  top_p: nullish(between(0, 1)),
  presence_penalty: nullish(number),
  frequency_penalty: nullish(number),
  top_logprobs: nullish(integer(0, 20)),
  metadata: nullish(stringRecord(16, 64, 512)),
  safety_identifier: nullish(stringUpTo(64)),
  prompt_cache_key: nullish(stringUpTo(64)),
  input,
  include: nullish(arrayOf(oneOf(IncludeEnum.options))),
  tools: nullish(arrayOf(functionTool, MAX_TOOLS)),
  tool_choice: nullish(toolChoice),
  text: nullish(
    object({
      format: nullish(object({ type: oneOf(["text", "json_object"]) }, ["type"])),
      verbosity: nullish(oneOf(VerbosityEnum.options)),
    }),
  ),
  reasoning: nullish(
    object({
      effort: nullish(oneOf(ReasoningEffort.options)),
      summary: nullish(oneOf(ReasoningSummary.options)),
    }),
  ),
  truncation: nullish(oneOf(TruncationEnum.options)),
  store: nullish(boolean),
  stream: nullish(boolean),
  stream_options: nullish(object({ include_obfuscation: boolean })),
  background: nullish(boolean),
  service_tier: nullish(oneOf(ServiceTierEnum.options)),
  user: nullish(string),
  prompt_cache_retention: nullish(oneOf(["in_memory", "24h"])),
  conversation: onlyNull,
  prompt: onlyNull,
  context_management: onlyNull,
  moderation: onlyNull,
};

const body = object(BODY, ["model", "input"]);

/**
 * The request body as `CreateResponseBody` (the default policy) parses it,
 * when it has one of the common shapes; `undefined` otherwise (parse it with
 * zod then, for the value or the error).
 */
export function fastCreateRequest(json: unknown): CreateResponseBody | undefined {
  const value = body(json);
  return value === NO ? undefined : (value as CreateResponseBody);
}
