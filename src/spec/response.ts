/** `ResponseResource` (all 31 keys required) and its parts. */
import { z } from "zod";
import { ReasoningEffort, ReasoningSummary, TruncationEnum, VerbosityEnum } from "./common.js";
import { OutputItem } from "./items.js";
import { ResponseTool, ToolChoice } from "./openai-tools.js";

export const ResponseStatus = z.enum(["queued", "in_progress", "completed", "failed", "incomplete", "cancelled"]);

export const Usage = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
});

/** The spec requires `code` and `message`; we also send `type` (extra fields are allowed), as clients such as the AI SDK read it. */
export const ResponseError = z.object({ type: z.string().optional(), code: z.string(), message: z.string() });
export const IncompleteDetails = z.object({ reason: z.string() });

export const TextField = z.object({
  format: z.union([
    z.object({ type: z.literal("text") }),
    z.object({ type: z.literal("json_object") }),
    z.object({
      type: z.literal("json_schema"),
      name: z.string(),
      description: z.string().nullable(),
      // The published schema types this as null (openapi.json; docs/architecture.md, "Where the spec is ambiguous"); we echo null.
      schema: z.null(),
      strict: z.boolean(),
    }),
  ]),
  verbosity: VerbosityEnum.optional(),
});

export const Reasoning = z.object({
  effort: ReasoningEffort.nullable(),
  summary: ReasoningSummary.nullable(),
});

export const ResponseResource = z.object({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.number().int(),
  completed_at: z.number().int().nullable(),
  status: ResponseStatus,
  incomplete_details: IncompleteDetails.nullable(),
  model: z.string(),
  previous_response_id: z.string().nullable(),
  instructions: z.string().nullable(),
  output: z.array(OutputItem),
  error: ResponseError.nullable(),
  tools: z.array(ResponseTool),
  tool_choice: ToolChoice,
  truncation: TruncationEnum,
  parallel_tool_calls: z.boolean(),
  text: TextField,
  top_p: z.number(),
  presence_penalty: z.number(),
  frequency_penalty: z.number(),
  top_logprobs: z.number().int(),
  temperature: z.number(),
  reasoning: Reasoning.nullable(),
  usage: Usage.nullable(),
  max_output_tokens: z.number().int().nullable(),
  max_tool_calls: z.number().int().nullable(),
  store: z.boolean(),
  background: z.boolean(),
  service_tier: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  safety_identifier: z.string().nullable(),
  prompt_cache_key: z.string().nullable(),
});

export type Usage = z.infer<typeof Usage>;
export type ResponseStatus = z.infer<typeof ResponseStatus>;
export type ResponseResource = z.infer<typeof ResponseResource>;
