/**
 * Zod schemas for the compliance checks, written by hand from the spec's
 * openapi.json (release 2026-04-24), independently of the server's own
 * `src/spec` schemas: a bug copied into both would otherwise go unseen.
 *
 * Rules followed throughout:
 * - every key listed under `required` must be present (a nullable one may be
 *   `null`, never missing);
 * - `type`s, enums and integer-ness are checked as openapi.json states them;
 * - extra keys are allowed, because no schema in the spec restricts
 *   `additionalProperties` (the spec allows vendor extensions).
 */
import { z } from "zod";

/** A required key whose value has no schema (`ResponseResource.metadata`): present, anything. */
const present = z.custom<unknown>((v) => v !== undefined, { message: "required key is missing" });

// ------------------------------------------------------------------ enums

export const MessageStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const MessageRole = z.enum(["user", "assistant", "system", "developer"]);
export const FunctionCallStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const FunctionCallOutputStatusEnum = z.enum(["in_progress", "completed", "incomplete"]);
export const ImageDetail = z.enum(["low", "high", "auto"]);
export const ToolChoiceValueEnum = z.enum(["none", "auto", "required"]);
export const TruncationEnum = z.enum(["auto", "disabled"]);
export const VerbosityEnum = z.enum(["low", "medium", "high"]);
export const ReasoningEffortEnum = z.enum(["none", "low", "medium", "high", "xhigh"]);
export const ReasoningSummaryEnum = z.enum(["concise", "detailed", "auto"]);

// ------------------------------------------------------------------ content parts

export const TopLogProb = z.object({ token: z.string(), logprob: z.number(), bytes: z.array(z.int()) });
export const LogProb = z.object({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(z.int()),
  top_logprobs: z.array(TopLogProb),
});

/** `Annotation` is a `$ref` to `UrlCitationBody`, its only member. */
export const UrlCitationBody = z.object({
  type: z.literal("url_citation"),
  url: z.string(),
  start_index: z.int(),
  end_index: z.int(),
  title: z.string(),
});
export const Annotation = UrlCitationBody;

export const InputTextContent = z.object({ type: z.literal("input_text"), text: z.string() });
export const OutputTextContent = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(Annotation),
  logprobs: z.array(LogProb).optional(),
});
export const TextContent = z.object({ type: z.literal("text"), text: z.string() });
export const SummaryTextContent = z.object({ type: z.literal("summary_text"), text: z.string() });
export const ReasoningTextContent = z.object({ type: z.literal("reasoning_text"), text: z.string() });
export const RefusalContent = z.object({ type: z.literal("refusal"), refusal: z.string() });
export const InputImageContent = z.object({
  type: z.literal("input_image"),
  image_url: z.string().nullable(),
  detail: ImageDetail,
});
export const InputFileContent = z.object({
  type: z.literal("input_file"),
  filename: z.string().optional(),
  file_url: z.string().optional(),
});
export const InputVideoContent = z.object({ type: z.literal("input_video"), video_url: z.string() });

/** The eight-member content union used by reasoning items and by the `part` of streaming events. */
export const ContentPart = z.discriminatedUnion("type", [
  InputTextContent,
  OutputTextContent,
  TextContent,
  SummaryTextContent,
  ReasoningTextContent,
  RefusalContent,
  InputImageContent,
  InputFileContent,
]);

/** `Message.content` items: the same union plus `InputVideoContent`. */
export const MessageContentPart = z.discriminatedUnion("type", [...ContentPart.options, InputVideoContent]);

// ------------------------------------------------------------------ items (ItemField)

export const Message = z.object({
  type: z.literal("message"),
  id: z.string(),
  status: MessageStatus,
  role: MessageRole,
  content: z.array(MessageContentPart),
  phase: z.enum(["commentary", "final_answer"]).optional(),
});
export const FunctionCall = z.object({
  type: z.literal("function_call"),
  id: z.string(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: FunctionCallStatus,
});
export const FunctionCallOutput = z.object({
  type: z.literal("function_call_output"),
  id: z.string(),
  call_id: z.string(),
  output: z.union([
    z.string(),
    z.array(z.discriminatedUnion("type", [InputTextContent, InputImageContent, InputFileContent])),
  ]),
  status: FunctionCallOutputStatusEnum,
});
export const ReasoningBody = z.object({
  type: z.literal("reasoning"),
  id: z.string(),
  content: z.array(ContentPart).optional(),
  summary: z.array(ContentPart),
  // A string when present; the schema does not allow null.
  encrypted_content: z.string().optional(),
});
export const CompactionBody = z.object({
  type: z.literal("compaction"),
  id: z.string(),
  encrypted_content: z.string(),
  created_by: z.string().optional(),
});

export const ItemField = z.discriminatedUnion("type", [
  Message,
  FunctionCall,
  FunctionCallOutput,
  ReasoningBody,
  CompactionBody,
]);

// ------------------------------------------------------------------ response configuration

/** `Tool` is a `$ref` to `FunctionTool`, its only member; all five keys are required. */
export const FunctionTool = z.object({
  type: z.literal("function"),
  name: z.string(),
  description: z.string().nullable(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  strict: z.boolean().nullable(),
});

export const FunctionToolChoice = z.object({ type: z.literal("function"), name: z.string().optional() });
export const AllowedToolChoice = z.object({
  type: z.literal("allowed_tools"),
  tools: z.array(FunctionToolChoice),
  mode: ToolChoiceValueEnum,
});
export const ToolChoice = z.union([FunctionToolChoice, ToolChoiceValueEnum, AllowedToolChoice]);

export const TextResponseFormat = z.object({ type: z.literal("text") });
export const JsonObjectResponseFormat = z.object({ type: z.literal("json_object") });
export const JsonSchemaResponseFormat = z.object({
  type: z.literal("json_schema"),
  name: z.string(),
  description: z.string().nullable(),
  // openapi.json types `schema` as {"type":"null"} (a known defect of the
  // generated document); the suite's generated Zod accepted an object or null.
  schema: z.union([z.record(z.string(), z.unknown()), z.null()]),
  strict: z.boolean(),
});
export const TextField = z.object({
  format: z.discriminatedUnion("type", [TextResponseFormat, JsonObjectResponseFormat, JsonSchemaResponseFormat]),
  verbosity: VerbosityEnum.optional(),
});

export const Reasoning = z.object({ effort: ReasoningEffortEnum.nullable(), summary: ReasoningSummaryEnum.nullable() });

export const Usage = z.object({
  input_tokens: z.int(),
  output_tokens: z.int(),
  total_tokens: z.int(),
  input_tokens_details: z.object({ cached_tokens: z.int() }),
  output_tokens_details: z.object({ reasoning_tokens: z.int() }),
});

export const ErrorObject = z.object({ code: z.string(), message: z.string() });
export const IncompleteDetails = z.object({ reason: z.string() });

// ------------------------------------------------------------------ ResponseResource

/** The 31 required keys of `ResponseResource`, in openapi.json order. */
export const RESPONSE_RESOURCE_KEYS = [
  "id",
  "object",
  "created_at",
  "completed_at",
  "status",
  "incomplete_details",
  "model",
  "previous_response_id",
  "instructions",
  "output",
  "error",
  "tools",
  "tool_choice",
  "truncation",
  "parallel_tool_calls",
  "text",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "top_logprobs",
  "temperature",
  "reasoning",
  "usage",
  "max_output_tokens",
  "max_tool_calls",
  "store",
  "background",
  "service_tier",
  "metadata",
  "safety_identifier",
  "prompt_cache_key",
] as const;

export const ResponseResource = z.object({
  id: z.string(),
  object: z.literal("response"),
  created_at: z.int(),
  completed_at: z.int().nullable(),
  // A free string in the schema (no enum).
  status: z.string(),
  incomplete_details: IncompleteDetails.nullable(),
  model: z.string(),
  previous_response_id: z.string().nullable(),
  instructions: z.string().nullable(),
  output: z.array(ItemField),
  error: ErrorObject.nullable(),
  tools: z.array(FunctionTool),
  tool_choice: ToolChoice,
  truncation: TruncationEnum,
  parallel_tool_calls: z.boolean(),
  text: TextField,
  top_p: z.number(),
  presence_penalty: z.number(),
  frequency_penalty: z.number(),
  top_logprobs: z.int(),
  temperature: z.number(),
  reasoning: Reasoning.nullable(),
  usage: Usage.nullable(),
  max_output_tokens: z.int().nullable(),
  max_tool_calls: z.int().nullable(),
  store: z.boolean(),
  background: z.boolean(),
  service_tier: z.string(),
  metadata: present,
  safety_identifier: z.string().nullable(),
  prompt_cache_key: z.string().nullable(),
});
export type ResponseResource = z.infer<typeof ResponseResource>;

// ------------------------------------------------------------------ streaming events (the 24-member union)

const seq = z.int();

const lifecycle = <T extends string>(type: T) =>
  z.object({ type: z.literal(type), sequence_number: seq, response: ResponseResource });

export const ResponseCreatedStreamingEvent = lifecycle("response.created");
export const ResponseQueuedStreamingEvent = lifecycle("response.queued");
export const ResponseInProgressStreamingEvent = lifecycle("response.in_progress");
export const ResponseCompletedStreamingEvent = lifecycle("response.completed");
export const ResponseFailedStreamingEvent = lifecycle("response.failed");
export const ResponseIncompleteStreamingEvent = lifecycle("response.incomplete");

export const ResponseOutputItemAddedStreamingEvent = z.object({
  type: z.literal("response.output_item.added"),
  sequence_number: seq,
  output_index: z.int(),
  item: ItemField.nullable(),
});
export const ResponseOutputItemDoneStreamingEvent = z.object({
  type: z.literal("response.output_item.done"),
  sequence_number: seq,
  output_index: z.int(),
  item: ItemField.nullable(),
});

const contentIndexed = { sequence_number: seq, item_id: z.string(), output_index: z.int(), content_index: z.int() };
const summaryIndexed = { sequence_number: seq, item_id: z.string(), output_index: z.int(), summary_index: z.int() };

export const ResponseContentPartAddedStreamingEvent = z.object({
  type: z.literal("response.content_part.added"),
  ...contentIndexed,
  part: ContentPart,
});
export const ResponseContentPartDoneStreamingEvent = z.object({
  type: z.literal("response.content_part.done"),
  ...contentIndexed,
  part: ContentPart,
});
export const ResponseOutputTextDeltaStreamingEvent = z.object({
  type: z.literal("response.output_text.delta"),
  ...contentIndexed,
  delta: z.string(),
  logprobs: z.array(LogProb).optional(),
  obfuscation: z.string().optional(),
});
export const ResponseOutputTextDoneStreamingEvent = z.object({
  type: z.literal("response.output_text.done"),
  ...contentIndexed,
  text: z.string(),
  logprobs: z.array(LogProb).optional(),
});
export const ResponseOutputTextAnnotationAddedStreamingEvent = z.object({
  type: z.literal("response.output_text.annotation.added"),
  ...contentIndexed,
  annotation_index: z.int(),
  annotation: Annotation.nullable(),
});
export const ResponseRefusalDeltaStreamingEvent = z.object({
  type: z.literal("response.refusal.delta"),
  ...contentIndexed,
  delta: z.string(),
});
export const ResponseRefusalDoneStreamingEvent = z.object({
  type: z.literal("response.refusal.done"),
  ...contentIndexed,
  refusal: z.string(),
});
export const ResponseReasoningDeltaStreamingEvent = z.object({
  type: z.literal("response.reasoning.delta"),
  ...contentIndexed,
  delta: z.string(),
  obfuscation: z.string().optional(),
});
export const ResponseReasoningDoneStreamingEvent = z.object({
  type: z.literal("response.reasoning.done"),
  ...contentIndexed,
  text: z.string(),
});
export const ResponseReasoningSummaryPartAddedStreamingEvent = z.object({
  type: z.literal("response.reasoning_summary_part.added"),
  ...summaryIndexed,
  part: ContentPart,
});
export const ResponseReasoningSummaryPartDoneStreamingEvent = z.object({
  type: z.literal("response.reasoning_summary_part.done"),
  ...summaryIndexed,
  part: ContentPart,
});
export const ResponseReasoningSummaryDeltaStreamingEvent = z.object({
  type: z.literal("response.reasoning_summary_text.delta"),
  ...summaryIndexed,
  delta: z.string(),
  obfuscation: z.string().optional(),
});
export const ResponseReasoningSummaryDoneStreamingEvent = z.object({
  type: z.literal("response.reasoning_summary_text.done"),
  ...summaryIndexed,
  text: z.string(),
});
export const ResponseFunctionCallArgumentsDeltaStreamingEvent = z.object({
  type: z.literal("response.function_call_arguments.delta"),
  sequence_number: seq,
  item_id: z.string(),
  output_index: z.int(),
  delta: z.string(),
  obfuscation: z.string().optional(),
});
export const ResponseFunctionCallArgumentsDoneStreamingEvent = z.object({
  type: z.literal("response.function_call_arguments.done"),
  sequence_number: seq,
  item_id: z.string(),
  output_index: z.int(),
  arguments: z.string(),
});

export const ErrorPayload = z.object({
  type: z.string(),
  code: z.string().nullable(),
  message: z.string(),
  param: z.string().nullable(),
  headers: z.record(z.string(), z.string()).optional(),
});
export const ErrorStreamingEvent = z.object({ type: z.literal("error"), sequence_number: seq, error: ErrorPayload });

/** The union of the 24 streaming event schemas listed for `text/event-stream` in openapi.json. */
export const StreamingEvent = z.discriminatedUnion("type", [
  ResponseCreatedStreamingEvent,
  ResponseQueuedStreamingEvent,
  ResponseInProgressStreamingEvent,
  ResponseCompletedStreamingEvent,
  ResponseFailedStreamingEvent,
  ResponseIncompleteStreamingEvent,
  ResponseOutputItemAddedStreamingEvent,
  ResponseOutputItemDoneStreamingEvent,
  ResponseReasoningSummaryPartAddedStreamingEvent,
  ResponseReasoningSummaryPartDoneStreamingEvent,
  ResponseContentPartAddedStreamingEvent,
  ResponseContentPartDoneStreamingEvent,
  ResponseOutputTextDeltaStreamingEvent,
  ResponseOutputTextDoneStreamingEvent,
  ResponseRefusalDeltaStreamingEvent,
  ResponseRefusalDoneStreamingEvent,
  ResponseReasoningDeltaStreamingEvent,
  ResponseReasoningDoneStreamingEvent,
  ResponseReasoningSummaryDeltaStreamingEvent,
  ResponseReasoningSummaryDoneStreamingEvent,
  ResponseOutputTextAnnotationAddedStreamingEvent,
  ResponseFunctionCallArgumentsDeltaStreamingEvent,
  ResponseFunctionCallArgumentsDoneStreamingEvent,
  ErrorStreamingEvent,
]);
export type StreamingEvent = z.infer<typeof StreamingEvent>;

/** Every `type` the union accepts (24). */
export const STREAMING_EVENT_TYPES = StreamingEvent.options.map((o) => o.shape.type.value);

export const TERMINAL_EVENT_TYPES = new Set(["response.completed", "response.failed", "response.incomplete"]);

// ------------------------------------------------------------------ WebSocket and compaction

/** `WebSocketErrorEvent`: `error` requires only code and message; extra keys allowed. */
export const WebSocketErrorEvent = z.object({
  type: z.literal("error"),
  status: z.int(),
  error: z.looseObject({
    type: z.string().optional(),
    code: z.string(),
    message: z.string(),
    param: z.string().nullable().optional(),
  }),
});
export type WebSocketErrorEvent = z.infer<typeof WebSocketErrorEvent>;

/** `CompactResource`: all five keys required, and `usage` is not nullable. */
export const CompactResource = z.object({
  id: z.string(),
  object: z.literal("response.compaction"),
  output: z.array(ItemField),
  created_at: z.int(),
  usage: Usage,
});
export type CompactResource = z.infer<typeof CompactResource>;

/** Zod issues as `path: message` lines. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
}
