/**
 * The checker's schemas, written by hand from openapi.json (Open Responses
 * 2026-04-24, `components.schemas`), one zod schema per spec schema of the
 * same name. They are the checker's own, apart from the server's src/spec
 * (which holds what the mock accepts, OpenAI's superset included) and from
 * the test suite's: a mistake copied into the server and its judge would
 * otherwise go unseen.
 *
 * Rules followed throughout, as openapi.json states them:
 * - every key under `required` must be present; a nullable one may be null,
 *   never missing;
 * - types, enums and integer-ness as declared;
 * - extra keys are allowed (no schema restricts additionalProperties).
 *
 * The `openai` dialect differs where api.openai.com does (dialects.ts):
 * OpenAI's hosted tools, items and events, `reasoning_text` events, the
 * json_schema echo with its schema, more reasoning efforts.
 */
import { z } from "zod";
import type { DialectRules } from "./dialects.js";
import { isVendorType, tagged } from "./shape.js";

const int = z.int();
const str = z.string();
const nullable = <T extends z.ZodType>(t: T) => t.nullable();
/** A required key whose value has no schema (`ResponseResource.metadata`): present, anything. */
const present = z.custom<unknown>((v) => v !== undefined, { message: "is required but missing" });

// ---------------------------------------------------------------- enums

export const MessageStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const MessageRole = z.enum(["user", "assistant", "system", "developer"]);
export const FunctionCallStatus = z.enum(["in_progress", "completed", "incomplete"]);
export const FunctionCallOutputStatusEnum = z.enum(["in_progress", "completed", "incomplete"]);
export const ImageDetail = z.enum(["low", "high", "auto"]);
export const ToolChoiceValueEnum = z.enum(["none", "auto", "required"]);
export const TruncationEnum = z.enum(["auto", "disabled"]);
export const VerbosityEnum = z.enum(["low", "medium", "high"]);
export const ReasoningSummaryEnum = z.enum(["concise", "detailed", "auto"]);

// ---------------------------------------------------------------- content

export const TopLogProb = z.object({ token: str, logprob: z.number(), bytes: z.array(int) });
export const LogProb = z.object({
  token: str,
  logprob: z.number(),
  bytes: z.array(int),
  top_logprobs: z.array(TopLogProb),
});
/** `Annotation` is a `$ref` to `UrlCitationBody`, its only member. */
export const UrlCitationBody = z.object({
  type: z.literal("url_citation"),
  url: str,
  start_index: int,
  end_index: int,
  title: str,
});

const InputTextContent = z.object({ type: z.literal("input_text"), text: str });
const TextContent = z.object({ type: z.literal("text"), text: str });
const SummaryTextContent = z.object({ type: z.literal("summary_text"), text: str });
const ReasoningTextContent = z.object({ type: z.literal("reasoning_text"), text: str });
const RefusalContent = z.object({ type: z.literal("refusal"), refusal: str });
const InputImageContent = z.object({ type: z.literal("input_image"), image_url: nullable(str), detail: ImageDetail });
const InputFileContent = z.object({
  type: z.literal("input_file"),
  filename: str.optional(),
  file_url: str.optional(),
});
const InputVideoContent = z.object({ type: z.literal("input_video"), video_url: str });

/** OpenAI's `file_citation` (openai dialect): the file a file_search found, cited at `index`. Not a spec type. */
export const FileCitationBody = z.object({ type: z.literal("file_citation"), file_id: str, filename: str, index: int });

/**
 * The part and item schemas that hold annotations, for an annotation schema:
 * the spec's `UrlCitationBody`, or in the openai dialect that or a `file_citation`.
 */
function contentSchemas(Annotation: z.ZodType) {
  const OutputTextContent = z.object({
    type: z.literal("output_text"),
    text: str,
    annotations: z.array(Annotation),
    logprobs: z.array(LogProb).optional(),
  });
  /** The part union of `ReasoningBody.content/summary` and of the part events (no video). */
  const PART_TABLE = {
    input_text: InputTextContent,
    output_text: OutputTextContent,
    text: TextContent,
    summary_text: SummaryTextContent,
    reasoning_text: ReasoningTextContent,
    refusal: RefusalContent,
    input_image: InputImageContent,
    input_file: InputFileContent,
  };
  const Part = tagged("type", PART_TABLE);
  /** `Message.content` also allows `input_video`. */
  const MessageContent = tagged("type", { ...PART_TABLE, input_video: InputVideoContent });

  const Message = z.object({
    type: z.literal("message"),
    id: str,
    status: MessageStatus,
    role: MessageRole,
    content: z.array(MessageContent),
    phase: z.enum(["commentary", "final_answer"]).optional(),
  });
  /** `encrypted_content` is a string, not nullable: absent rather than null. Reasoning items have no `status` in the schema. */
  const ReasoningBody = z.object({
    type: z.literal("reasoning"),
    id: str,
    summary: z.array(Part),
    content: z.array(Part).optional(),
    encrypted_content: str.optional(),
  });
  return { Part, Message, ReasoningBody };
}

// ---------------------------------------------------------------- items

const FunctionCall = z.object({
  type: z.literal("function_call"),
  id: str,
  call_id: str,
  name: str,
  arguments: str,
  status: FunctionCallStatus,
});
const FunctionCallOutput = z.object({
  type: z.literal("function_call_output"),
  id: str,
  call_id: str,
  output: z.union([
    str,
    z.array(
      tagged("type", { input_text: InputTextContent, input_image: InputImageContent, input_file: InputFileContent }),
    ),
  ]),
  status: FunctionCallOutputStatusEnum,
});
const CompactionBody = z.object({
  type: z.literal("compaction"),
  id: str,
  encrypted_content: str,
  created_by: str.optional(),
});

/** A vendor item (`acme:search_call`): the extension rules ask every item for `id`, `type` and `status`. */
const VendorItem = z.looseObject({ type: str, id: str, status: str });
/** OpenAI's hosted-tool items (web_search_call, mcp_call, …), in the openai dialect: a type and an id, the rest theirs. */
const HostedItem = z.looseObject({ type: str, id: str });

/** OpenAI item types outside the spec, accepted loosely in the openai dialect. */
export const OPENAI_HOSTED_ITEMS: ReadonlySet<string> = new Set([
  "web_search_call",
  "file_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "computer_call",
  "computer_call_output",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "custom_tool_call",
  "custom_tool_call_output",
  "tool_search_call",
]);

/** OpenAI event families outside the spec (hosted tools), accepted loosely in the openai dialect. */
const OPENAI_HOSTED_EVENT =
  /^response\.(web_search_call|file_search_call|code_interpreter_call(_code)?|image_generation_call|mcp_call(_arguments)?|mcp_list_tools|custom_tool_call_input|computer_call|shell_call|apply_patch_call)\.[a-z_]+$/;

export interface Schemas {
  item: z.ZodType;
  response: z.ZodType;
  /** The schema of an event type, or undefined when the type is unknown to this dialect. */
  event(type: string): z.ZodType | undefined;
  /** The HTTP error body. */
  errorBody: z.ZodType;
  /** `ResponseResource.error` (`Error`). */
  responseError: z.ZodType;
  /** `CompactResource`, the answer of `POST /responses/compact`. */
  compact: z.ZodType;
  /** `WebSocketErrorEvent`, a WebSocket mode failure. */
  webSocketError: z.ZodType;
}

/** The schemas for a dialect. */
export function buildSchemas(rules: DialectRules): Schemas {
  const itemFallback = (tag: string) =>
    isVendorType(tag) ? VendorItem : rules.hosted && OPENAI_HOSTED_ITEMS.has(tag) ? HostedItem : undefined;
  // OpenAI's file_search cites with file_citation: in the openai dialect an annotation is either.
  const Annotation = rules.hosted
    ? tagged("type", { url_citation: UrlCitationBody, file_citation: FileCitationBody })
    : UrlCitationBody;
  const { Part, Message, ReasoningBody } = contentSchemas(Annotation);
  const Item = tagged(
    "type",
    {
      message: Message,
      function_call: FunctionCall,
      function_call_output: FunctionCallOutput,
      reasoning: ReasoningBody,
      compaction: CompactionBody,
    },
    itemFallback,
  );

  // ---- the response object
  const FunctionTool = z.object({
    type: z.literal("function"),
    name: str,
    description: nullable(str),
    parameters: nullable(z.record(str, z.unknown())),
    strict: nullable(z.boolean()),
  });
  const HostedTool = z.looseObject({ type: str });
  const Tool = tagged("type", { function: FunctionTool }, (tag) =>
    rules.hosted || isVendorType(tag) ? HostedTool : undefined,
  );
  const FunctionToolChoice = z.object({ type: z.literal("function"), name: str.optional() });
  const AllowedToolChoice = z.object({
    type: z.literal("allowed_tools"),
    tools: z.array(FunctionToolChoice),
    mode: ToolChoiceValueEnum,
  });
  const ToolChoiceObject = tagged("type", { function: FunctionToolChoice, allowed_tools: AllowedToolChoice }, (tag) =>
    rules.hosted ? HostedTool : isVendorType(tag) ? HostedTool : undefined,
  );
  const ToolChoice = z.unknown().superRefine((v, ctx) => {
    if (typeof v === "string") {
      if (!ToolChoiceValueEnum.options.includes(v as never))
        ctx.addIssue({
          code: "custom",
          input: v,
          message: `\`tool_choice\` must be 'none', 'auto', 'required' or an object, got '${v}'`,
        });
      return;
    }
    const r = ToolChoiceObject.safeParse(v, { reportInput: true });
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue(issue as never);
  });
  const JsonSchemaResponseFormat = z.object({
    type: z.literal("json_schema"),
    name: str,
    description: nullable(str),
    // openapi.json types the echoed schema as null (a defect in openapi.json, but it is what the schema says); OpenAI echoes the object.
    schema: rules.jsonSchemaEcho === "null" ? z.null() : nullable(z.record(str, z.unknown())),
    strict: z.boolean(),
  });
  const TextField = z.object({
    format: tagged("type", {
      text: z.object({ type: z.literal("text") }),
      json_object: z.object({ type: z.literal("json_object") }),
      json_schema: JsonSchemaResponseFormat,
    }),
    verbosity: VerbosityEnum.optional(),
  });
  const Reasoning = z.object({
    effort: nullable(z.enum(rules.efforts as [string, ...string[]])),
    summary: nullable(ReasoningSummaryEnum),
  });
  const Usage = z.object({
    input_tokens: int,
    output_tokens: int,
    total_tokens: int,
    input_tokens_details: z.object({ cached_tokens: int }),
    output_tokens_details: z.object({ reasoning_tokens: int }),
  });
  const ResponseError = z.object({ code: str, message: str });
  const ResponseResource = z.object({
    id: str,
    object: z.literal("response"),
    created_at: int,
    completed_at: nullable(int),
    status: str,
    incomplete_details: nullable(z.object({ reason: str })),
    model: str,
    previous_response_id: nullable(str),
    instructions: nullable(str),
    output: z.array(Item),
    error: nullable(ResponseError),
    tools: z.array(Tool),
    tool_choice: ToolChoice,
    truncation: TruncationEnum,
    parallel_tool_calls: z.boolean(),
    text: TextField,
    top_p: z.number(),
    presence_penalty: z.number(),
    frequency_penalty: z.number(),
    top_logprobs: int,
    temperature: z.number(),
    reasoning: nullable(Reasoning),
    usage: nullable(Usage),
    max_output_tokens: nullable(int),
    max_tool_calls: nullable(int),
    store: z.boolean(),
    background: z.boolean(),
    service_tier: str,
    metadata: present,
    safety_identifier: nullable(str),
    prompt_cache_key: nullable(str),
  });

  // ---- the events
  const seq = { sequence_number: int };
  const at = { item_id: str, output_index: int };
  const content = { ...at, content_index: int };
  const summary = { ...at, summary_index: int };
  const lifecycle = (type: string) => z.object({ type: z.literal(type), ...seq, response: ResponseResource });
  const ErrorPayload = z.object({
    type: str,
    code: nullable(str),
    message: str,
    param: nullable(str),
    headers: z.record(str, str).optional(),
  });
  const events: Record<string, z.ZodType> = {
    "response.created": lifecycle("response.created"),
    "response.queued": lifecycle("response.queued"),
    "response.in_progress": lifecycle("response.in_progress"),
    "response.completed": lifecycle("response.completed"),
    "response.failed": lifecycle("response.failed"),
    "response.incomplete": lifecycle("response.incomplete"),
    "response.output_item.added": z.object({
      type: z.literal("response.output_item.added"),
      ...seq,
      output_index: int,
      item: nullable(Item),
    }),
    "response.output_item.done": z.object({
      type: z.literal("response.output_item.done"),
      ...seq,
      output_index: int,
      item: nullable(Item),
    }),
    "response.content_part.added": z.object({
      type: z.literal("response.content_part.added"),
      ...seq,
      ...content,
      part: Part,
    }),
    "response.content_part.done": z.object({
      type: z.literal("response.content_part.done"),
      ...seq,
      ...content,
      part: Part,
    }),
    "response.output_text.delta": z.object({
      type: z.literal("response.output_text.delta"),
      ...seq,
      ...content,
      delta: str,
      logprobs: z.array(LogProb).optional(),
      obfuscation: str.optional(),
    }),
    "response.output_text.done": z.object({
      type: z.literal("response.output_text.done"),
      ...seq,
      ...content,
      text: str,
      logprobs: z.array(LogProb).optional(),
    }),
    "response.output_text.annotation.added": z.object({
      type: z.literal("response.output_text.annotation.added"),
      ...seq,
      ...content,
      annotation_index: int,
      annotation: nullable(Annotation),
    }),
    "response.refusal.delta": z.object({ type: z.literal("response.refusal.delta"), ...seq, ...content, delta: str }),
    "response.refusal.done": z.object({ type: z.literal("response.refusal.done"), ...seq, ...content, refusal: str }),
    [rules.reasoningDelta]: z.object({
      type: z.literal(rules.reasoningDelta),
      ...seq,
      ...content,
      delta: str,
      obfuscation: str.optional(),
    }),
    [rules.reasoningDone]: z.object({ type: z.literal(rules.reasoningDone), ...seq, ...content, text: str }),
    "response.reasoning_summary_part.added": z.object({
      type: z.literal("response.reasoning_summary_part.added"),
      ...seq,
      ...summary,
      part: Part,
    }),
    "response.reasoning_summary_part.done": z.object({
      type: z.literal("response.reasoning_summary_part.done"),
      ...seq,
      ...summary,
      part: Part,
    }),
    "response.reasoning_summary_text.delta": z.object({
      type: z.literal("response.reasoning_summary_text.delta"),
      ...seq,
      ...summary,
      delta: str,
      obfuscation: str.optional(),
    }),
    "response.reasoning_summary_text.done": z.object({
      type: z.literal("response.reasoning_summary_text.done"),
      ...seq,
      ...summary,
      text: str,
    }),
    "response.function_call_arguments.delta": z.object({
      type: z.literal("response.function_call_arguments.delta"),
      ...seq,
      ...at,
      delta: str,
      obfuscation: str.optional(),
    }),
    "response.function_call_arguments.done": z.object({
      type: z.literal("response.function_call_arguments.done"),
      ...seq,
      ...at,
      arguments: str,
    }),
    error: z.object({ type: z.literal("error"), ...seq, error: ErrorPayload }),
  };
  /** Vendor events need `type` and `sequence_number` (extension rules); OpenAI's hosted events the same, loosely. */
  const LooseEvent = z.looseObject({ type: str, ...seq });

  const ErrorBody = z.object({ error: ErrorPayload });

  const CompactResource = z.object({
    id: str,
    object: z.literal("response.compaction"),
    output: z.array(Item),
    created_at: int,
    // Not nullable here, unlike ResponseResource.usage.
    usage: Usage,
  });
  const WebSocketErrorEvent = z.object({
    type: z.literal("error"),
    status: int,
    error: z.looseObject({ code: str, message: str, type: str.optional(), param: nullable(str).optional() }),
  });

  return {
    item: Item,
    response: ResponseResource,
    event: (type) =>
      Object.hasOwn(events, type)
        ? events[type]
        : isVendorType(type) || (rules.hosted && OPENAI_HOSTED_EVENT.test(type))
          ? LooseEvent
          : undefined,
    errorBody: ErrorBody,
    responseError: ResponseError,
    compact: CompactResource,
    webSocketError: WebSocketErrorEvent,
  };
}

const cache = new Map<string, Schemas>();
/** The schemas of a dialect, built once. */
export function schemasFor(rules: DialectRules): Schemas {
  let s = cache.get(rules.name);
  if (!s) cache.set(rules.name, (s = buildSchemas(rules)));
  return s;
}
