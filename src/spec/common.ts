/**
 * Shared building blocks of the spec model: enums, limits and the vendor
 * (`slug:name`) type rule of the extension section. Where OpenAI accepts more
 * than the spec, the plain name holds what the server accepts by default and
 * `Spec…` exactly the spec's values (what `--strict` accepts).
 */
import { z } from "zod";

/** Longest string the spec allows for text input fields (OpenAI refuses longer ones too: `string_above_max_length`). */
export const MAX_TEXT = 10_485_760;

/**
 * Most tools one request may carry: OpenAI refuses more with a 400
 * `array_above_max_length` at `tools` ("Expected an array with maximum length
 * 128"). Both policies keep to it: a request with thousands of tools costs
 * the mock a lot and no real server accepts it.
 */
export const MAX_TOOLS = 128;

/**
 * A vendor extension type: an implementor slug, a colon, a name
 * (`acme:search_call`, `openai:web_search_call`).
 */
export const VENDOR_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*:[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;

export const isVendorType = (type: unknown): type is string =>
  typeof type === "string" && VENDOR_TYPE_PATTERN.test(type);

export const VendorType = z
  .string()
  .regex(VENDOR_TYPE_PATTERN, "a vendor type is 'slug:name', e.g. 'acme:search_call'");

/** Tool and function names: 1-64 of `[a-zA-Z0-9_-]`. */
export const FunctionName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-zA-Z0-9_-]+$/, "must match ^[a-zA-Z0-9_-]+$");

export const CallId = z.string().min(1).max(64);

export const MessageRole = z.enum(["user", "assistant", "system", "developer"]);
export const MessageStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const FunctionCallStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const MessagePhase = z.enum(["commentary", "final_answer"]);
export const ImageDetail = z.enum(["low", "high", "auto"]);
/** The spec's `include` values. */
export const SpecIncludeEnum = z.enum(["reasoning.encrypted_content", "message.output_text.logprobs"]);
/** The `include` values OpenAI accepts: the spec's and its hosted tools' (accepted, nothing is added for them). */
export const IncludeEnum = z.enum([
  ...SpecIncludeEnum.options,
  "web_search_call.action.sources",
  "web_search_call.results",
  "code_interpreter_call.outputs",
  "file_search_call.results",
  "message.input_image.image_url",
  "computer_call_output.output.image_url",
]);
export const ToolChoiceValue = z.enum(["none", "auto", "required"]);
export const VerbosityEnum = z.enum(["low", "medium", "high"]);
export const SpecReasoningEffort = z.enum(["none", "low", "medium", "high", "xhigh"]);
/** OpenAI's efforts: the spec's, `minimal` and `max`. */
export const ReasoningEffort = z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
export const ReasoningSummary = z.enum(["concise", "detailed", "auto"]);
export const TruncationEnum = z.enum(["auto", "disabled"]);
export const SpecServiceTierEnum = z.enum(["auto", "default", "flex", "priority"]);
/** OpenAI's tiers: the spec's and `scale`. */
export const ServiceTierEnum = z.enum([...SpecServiceTierEnum.options, "scale"]);

/** A JSON Schema object, kept as it was sent. */
export const JsonSchemaObject = z.record(z.string(), z.unknown());

/** The deepest nesting of arrays and objects accepted in any JSON the server reads. */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a parsed JSON value nests arrays/objects deeper than `max`
 * (iterative: no recursion to overflow; two flat stacks and no per-node
 * allocation, since every request body goes through it).
 */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const v = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const child: unknown = v[i];
        if (child !== null && typeof child === "object") {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in v) {
        const child: unknown = (v as Record<string, unknown>)[k];
        if (child !== null && typeof child === "object") {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
