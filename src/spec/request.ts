/**
 * The request body of `POST /v1/responses`, in two policies built once here:
 * `CreateResponseBody`, what the server accepts by default (the spec plus
 * what OpenAI accepts: its tools, items, include values, efforts, json_object
 * and top-level fields), and `SpecCreateResponseBody`, exactly the spec
 * (`--strict`: anything else, unknown top-level keys included, is refused).
 * A body valid under the spec parses to a value of the default's type.
 */
import { z } from "zod";
import {
  IncludeEnum,
  JsonSchemaObject,
  MAX_TEXT,
  MAX_TOOLS,
  ReasoningEffort,
  ReasoningSummary,
  ServiceTierEnum,
  SpecIncludeEnum,
  SpecReasoningEffort,
  SpecServiceTierEnum,
  TruncationEnum,
  VerbosityEnum,
} from "./common.js";
import { SpecItemParam } from "./items.js";
import { ItemParam } from "./openai-items.js";
import { ToolChoiceParam, ToolParam } from "./openai-tools.js";
import { byKind, tagged } from "./tagged.js";
import { SpecToolChoiceParam, SpecToolParam } from "./tools.js";

export const TextResponseFormat = z.object({ type: z.literal("text") });
export const JsonSchemaResponseFormatParam = z.object({
  type: z.literal("json_schema"),
  name: z.string().optional(),
  description: z.string().nullish(),
  schema: JsonSchemaObject.optional(),
  strict: z.boolean().nullish(),
});
/** OpenAI's older JSON mode: any JSON object. */
export const JsonObjectResponseFormat = z.object({ type: z.literal("json_object") });

export const SpecTextFormatParam = tagged("type", {
  text: TextResponseFormat,
  json_schema: JsonSchemaResponseFormatParam,
});
export const TextFormatParam = tagged("type", {
  text: TextResponseFormat,
  json_schema: JsonSchemaResponseFormatParam,
  json_object: JsonObjectResponseFormat,
});

export const SpecTextParam = z.object({
  format: SpecTextFormatParam.nullish(),
  verbosity: VerbosityEnum.optional(),
});
export const TextParam = z.object({
  format: TextFormatParam.nullish(),
  verbosity: VerbosityEnum.nullish(),
});

export const SpecReasoningParam = z.object({
  effort: SpecReasoningEffort.nullish(),
  summary: ReasoningSummary.nullish(),
});
/** OpenAI's reasoning options; the deprecated `generate_summary` stands in for a missing `summary`. */
export const ReasoningParam = z
  .object({
    effort: ReasoningEffort.nullish(),
    summary: ReasoningSummary.nullish(),
    generate_summary: ReasoningSummary.nullish(),
    context: z.enum(["auto", "current_turn", "all_turns"]).nullish(),
    mode: z.string().optional(),
  })
  .transform((r) => (r.summary == null && r.generate_summary != null ? { ...r, summary: r.generate_summary } : r));

export const StreamOptionsParam = z.object({ include_obfuscation: z.boolean().optional() });

export const MetadataParam = z
  .record(
    z.string().max(64, "metadata keys are at most 64 characters"),
    z.string().max(512, "metadata values are strings of at most 512 characters"),
  )
  .refine((m) => Object.keys(m).length <= 16, "metadata has at most 16 keys");

/** A string (one user message) or an array of items. */
export const SpecInput = byKind(
  { string: z.string().max(MAX_TEXT), array: z.array(SpecItemParam) },
  "a string or an array of items",
);
export const Input = byKind(
  { string: z.string().max(MAX_TEXT), array: z.array(ItemParam) },
  "a string or an array of items",
);

/** The fields both policies type alike. */
const common = {
  model: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
  instructions: z.string().max(MAX_TEXT).nullish(),
  previous_response_id: z.string().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  max_tool_calls: z.number().int().min(1).nullish(),
  // The spec says "between 0 and 2" and "between 0 and 1" in words; OpenAI refuses values outside.
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  metadata: MetadataParam.nullish(),
  safety_identifier: z.string().max(64).nullish(),
  prompt_cache_key: z.string().max(64).nullish(),
};

/**
 * The request body exactly as the spec has it. The spec makes every key
 * optional; we require `model` and `input` (our choice: docs/architecture.md, "Where the spec is ambiguous") and report them
 * as missing. Any other key is refused (`unknown_parameter`).
 */
export const SpecCreateResponseBody = z.strictObject({
  ...common,
  input: SpecInput,
  include: z.array(SpecIncludeEnum).optional(),
  tools: z.array(SpecToolParam).max(MAX_TOOLS).nullish(),
  tool_choice: SpecToolChoiceParam.nullish(),
  text: SpecTextParam.nullish(),
  reasoning: SpecReasoningParam.nullish(),
  truncation: TruncationEnum.optional(),
  store: z.boolean().optional(),
  stream: z.boolean().optional(),
  stream_options: StreamOptionsParam.nullish(),
  background: z.boolean().optional(),
  service_tier: SpecServiceTierEnum.optional(),
});

/**
 * The request body the server accepts by default: the spec's, with OpenAI's
 * values and fields. OpenAI's fields the mock has no use for (`user`,
 * `conversation`, `prompt`, …) are checked and otherwise ignored; keys
 * nobody knows pass (the spec allows extra fields).
 */
export const CreateResponseBody = z.object({
  ...common,
  input: Input,
  include: z.array(IncludeEnum).nullish(),
  tools: z.array(ToolParam).max(MAX_TOOLS).nullish(),
  tool_choice: ToolChoiceParam.nullish(),
  text: TextParam.nullish(),
  reasoning: ReasoningParam.nullish(),
  truncation: TruncationEnum.nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: StreamOptionsParam.nullish(),
  background: z.boolean().nullish(),
  service_tier: ServiceTierEnum.nullish(),
  user: z.string().nullish(),
  prompt_cache_retention: z.enum(["in_memory", "24h"]).nullish(),
  conversation: byKind(
    { string: z.string().min(1), object: z.looseObject({ id: z.string().min(1) }) },
    'a conversation id or {"id": …}',
  ).nullish(),
  prompt: z
    .looseObject({
      id: z.string().min(1),
      version: z.string().nullish(),
      variables: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  context_management: z
    .array(z.looseObject({ type: z.string(), compact_threshold: z.number().int().min(0).nullish() }))
    .nullish(),
  moderation: z.looseObject({ model: z.string() }).nullish(),
});

export type CreateResponseBody = z.infer<typeof CreateResponseBody>;
export type SpecCreateResponseBody = z.infer<typeof SpecCreateResponseBody>;

// A body valid under the spec is a value of the default's type: the compiler checks it here.
true satisfies SpecCreateResponseBody extends CreateResponseBody ? true : false;

/** `POST /v1/responses/compact`: model, and the conversation to compact. */
const compactFields = {
  model: common.model,
  previous_response_id: z.string().nullish(),
  instructions: z.string().max(MAX_TEXT).nullish(),
  prompt_cache_key: z.string().max(64).nullish(),
};
export const SpecCompactBody = z.strictObject({ ...compactFields, input: SpecInput.nullish() });
export const CompactBody = z.object({
  ...compactFields,
  input: Input.nullish(),
  prompt_cache_retention: z.enum(["in_memory", "24h"]).nullish(),
  service_tier: ServiceTierEnum.nullish(),
});
export type CompactBody = z.infer<typeof CompactBody>;
