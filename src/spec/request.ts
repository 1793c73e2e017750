/** `CreateResponseBody`: every field of the request body, as the spec types it. */
import { z } from "zod";
import {
  IncludeEnum,
  JsonSchemaObject,
  MAX_TEXT,
  ReasoningEffort,
  ReasoningSummary,
  ServiceTierEnum,
  TruncationEnum,
  VerbosityEnum,
} from "./common.js";
import { ItemParam } from "./items.js";
import { byKind, tagged } from "./tagged.js";
import { ToolChoiceParam, ToolParam } from "./tools.js";

export const TextResponseFormat = z.object({ type: z.literal("text") });
export const JsonSchemaResponseFormatParam = z.object({
  type: z.literal("json_schema"),
  name: z.string().optional(),
  description: z.string().nullish(),
  schema: JsonSchemaObject.optional(),
  strict: z.boolean().nullish(),
});
export const TextFormatParam = tagged("type", { text: TextResponseFormat, json_schema: JsonSchemaResponseFormatParam });

export const TextParam = z.object({
  format: TextFormatParam.nullish(),
  verbosity: VerbosityEnum.optional(),
});

export const ReasoningParam = z.object({
  effort: ReasoningEffort.nullish(),
  summary: ReasoningSummary.nullish(),
});

export const StreamOptionsParam = z.object({ include_obfuscation: z.boolean().optional() });

export const MetadataParam = z
  .record(z.string().max(64, "metadata keys are at most 64 characters"), z.string().max(512, "metadata values are strings of at most 512 characters"))
  .refine((m) => Object.keys(m).length <= 16, "metadata has at most 16 keys");

/** A string (one user message) or an array of items. */
export const Input = byKind({ string: z.string().max(MAX_TEXT), array: z.array(ItemParam) }, "a string or an array of items");

/**
 * The request body. The spec makes every key optional; we require `model` and
 * `input` (DIGEST §12 #12) and report them as missing. Unknown keys pass.
 */
export const CreateResponseBody = z.object({
  model: z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") }),
  input: Input,
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  include: z.array(IncludeEnum).optional(),
  tools: z.array(ToolParam).nullish(),
  tool_choice: ToolChoiceParam.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(16).nullish(),
  max_tool_calls: z.number().int().min(1).nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  text: TextParam.nullish(),
  reasoning: ReasoningParam.nullish(),
  truncation: TruncationEnum.optional(),
  store: z.boolean().optional(),
  stream: z.boolean().optional(),
  stream_options: StreamOptionsParam.nullish(),
  background: z.boolean().optional(),
  service_tier: ServiceTierEnum.optional(),
  metadata: MetadataParam.nullish(),
  safety_identifier: z.string().max(64).nullish(),
  prompt_cache_key: z.string().max(64).nullish(),
});

export type CreateResponseBody = z.infer<typeof CreateResponseBody>;
