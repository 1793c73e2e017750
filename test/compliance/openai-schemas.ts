/**
 * Strict zod schemas for what api.openai.com sends on `POST /v1/responses`,
 * and validators that check a stream or a body against them. They are the
 * reference for the mock's `openai` dialect.
 *
 * Written by hand from recorded OpenAI traffic (public test cassettes and SDK
 * fixtures, gpt-4o / gpt-5 / gpt-5.1-codex-max / gpt-5.5 / o3-mini / o4-mini,
 * recorded 2025-09 to 2026-07), not from the mock's code. Unlike the spec
 * schemas in `schemas.ts`, every object here is strict: a key OpenAI always
 * sends must be present (a nullable one as `null`), and a key it never sends
 * is a violation. Keys that only some models or accounts send are `optional`
 * and say so in a comment.
 *
 * The subset covered is what the mock can produce: messages (text, refusal,
 * url citations), function calls, reasoning items, and their events. Hosted
 * tool items and events (web search calls, code interpreter, …) are outside
 * it and reported as such.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";

// ------------------------------------------------------------------ ids (row 13 of the dialect table)

/** `resp_` + 50 lowercase hex. (Some 2025 recordings have 48 hex; the dialect renders today's 50.) */
export const RESPONSE_ID = /^resp_[0-9a-f]{50}$/;
/** Item id prefixes by item type; every item id is prefix + `_` + 50 lowercase hex. */
export const ITEM_ID_PREFIX: Record<string, string> = {
  message: "msg",
  function_call: "fc",
  reasoning: "rs",
  web_search_call: "ws",
  file_search_call: "fs",
  code_interpreter_call: "ci",
  image_generation_call: "ig",
  mcp_list_tools: "mcpl",
  mcp_call: "mcp",
  mcp_approval_request: "mcpr",
};
export const ITEM_ID = /^([a-z]+)_([0-9a-f]{50})$/;
/** `call_` + 24 base62. */
export const CALL_ID = /^call_[A-Za-z0-9]{24}$/;
/** `x-request-id`: `req_` and an opaque token. */
export const REQUEST_ID = /^req_[A-Za-z0-9]{16,}$/;

// ------------------------------------------------------------------ content

const int = z.int();

export const TopLogProb = z.strictObject({ token: z.string(), logprob: z.number(), bytes: z.array(int) });
export const LogProb = z.strictObject({
  token: z.string(),
  logprob: z.number(),
  bytes: z.array(int),
  top_logprobs: z.array(TopLogProb),
});

export const UrlCitation = z.strictObject({
  type: z.literal("url_citation"),
  start_index: int,
  end_index: int,
  title: z.string(),
  url: z.string(),
});

/** A file_search's citation: the file, cited at `index` (the end of the sentence drawn from it). */
export const FileCitation = z.strictObject({
  type: z.literal("file_citation"),
  file_id: z.string().regex(/^file-/),
  filename: z.string(),
  index: int.min(0),
});
export const Annotation = z.discriminatedUnion("type", [UrlCitation, FileCitation]);

/** `logprobs` is always there (`[]` unless asked), on parts in events and in items alike (row 6). */
export const OutputText = z.strictObject({
  type: z.literal("output_text"),
  annotations: z.array(Annotation),
  logprobs: z.array(LogProb),
  text: z.string(),
});
export const Refusal = z.strictObject({ type: z.literal("refusal"), refusal: z.string() });
export const SummaryText = z.strictObject({ type: z.literal("summary_text"), text: z.string() });
export const ReasoningText = z.strictObject({ type: z.literal("reasoning_text"), text: z.string() });

// ------------------------------------------------------------------ output items

export const Message = z.strictObject({
  id: z.string(),
  type: z.literal("message"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  content: z.array(z.discriminatedUnion("type", [OutputText, Refusal])),
  role: z.literal("assistant"),
  /** Sent by the gpt-5.x models since 2026. */
  phase: z.enum(["commentary", "final_answer"]).optional(),
});

/** No `name` on the arguments events and no `namespace` here: the recordings have neither. */
export const FunctionCall = z.strictObject({
  id: z.string(),
  type: z.literal("function_call"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  arguments: z.string(),
  call_id: z.string(),
  name: z.string(),
});

/** Reasoning items have no `status`. `content` is there for newer models (often `[]`); `encrypted_content` when included. */
export const Reasoning = z.strictObject({
  id: z.string(),
  type: z.literal("reasoning"),
  content: z.array(ReasoningText).optional(),
  encrypted_content: z.string().optional(),
  summary: z.array(SummaryText),
});

// Hosted-tool items, as recorded (vercel/ai __fixtures__, pydantic-ai cassettes): one schema for
// the item as added (in progress, the later fields empty) and as done.

const hostedStatus = z.enum([
  "in_progress",
  "searching",
  "interpreting",
  "generating",
  "calling",
  "completed",
  "incomplete",
  "failed",
]);

/** `action` is on the done item only; `sources` only when `include` has `web_search_call.action.sources`. */
export const WebSearchCall = z.strictObject({
  id: z.string(),
  type: z.literal("web_search_call"),
  status: hostedStatus,
  action: z
    .strictObject({
      type: z.literal("search"),
      query: z.string().optional(),
      sources: z.array(z.strictObject({ type: z.literal("url"), url: z.string() })).optional(),
    })
    .optional(),
});

/** `outputs` is null unless `include` has `code_interpreter_call.outputs`. */
export const CodeInterpreterCall = z.strictObject({
  id: z.string(),
  type: z.literal("code_interpreter_call"),
  status: hostedStatus,
  code: z.string().nullable(),
  container_id: z.string(),
  outputs: z
    .array(
      z.discriminatedUnion("type", [
        z.strictObject({ type: z.literal("logs"), logs: z.string() }),
        z.strictObject({ type: z.literal("image"), url: z.string() }),
      ]),
    )
    .nullable(),
});

export const ImageGenerationCall = z.strictObject({
  id: z.string(),
  type: z.literal("image_generation_call"),
  status: hostedStatus,
  result: z.string().nullable(),
  revised_prompt: z.string().optional(),
});

/** `results` is null unless `include` has `file_search_call.results`. */
export const FileSearchCall = z.strictObject({
  id: z.string(),
  type: z.literal("file_search_call"),
  status: hostedStatus,
  queries: z.array(z.string()),
  results: z
    .array(
      z.strictObject({
        file_id: z.string(),
        filename: z.string(),
        score: z.number(),
        text: z.string(),
        attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
      }),
    )
    .nullable(),
});

export const McpListTools = z.strictObject({
  id: z.string(),
  type: z.literal("mcp_list_tools"),
  status: hostedStatus.optional(),
  server_label: z.string(),
  tools: z.array(
    z.strictObject({
      name: z.string(),
      description: z.string().nullable(),
      input_schema: z.record(z.string(), z.unknown()),
      annotations: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  error: z.string().nullable(),
});

export const McpCall = z.strictObject({
  id: z.string(),
  type: z.literal("mcp_call"),
  status: hostedStatus.optional(),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  approval_request_id: z.string().nullable(),
  output: z.string().nullable(),
  error: z.string().nullable(),
});

/** Sent whole, with no status. */
export const McpApprovalRequest = z.strictObject({
  id: z.string(),
  type: z.literal("mcp_approval_request"),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
});

export const OutputItem = z.discriminatedUnion("type", [
  Message,
  FunctionCall,
  Reasoning,
  WebSearchCall,
  CodeInterpreterCall,
  ImageGenerationCall,
  FileSearchCall,
  McpListTools,
  McpCall,
  McpApprovalRequest,
]);
export type OutputItem = z.infer<typeof OutputItem>;

// ------------------------------------------------------------------ request echoes

export const FunctionTool = z.strictObject({
  type: z.literal("function"),
  description: z.string().nullable(),
  name: z.string(),
  /** Echoed as `null` by the 2026 models. */
  output_schema: z.unknown().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable(),
  strict: z.boolean().nullable(),
});
export const WebSearchTool = z.strictObject({
  type: z.enum(["web_search", "web_search_preview", "web_search_2025_08_26"]),
  filters: z.record(z.string(), z.unknown()).nullable(),
  search_context_size: z.enum(["low", "medium", "high"]),
  user_location: z
    .strictObject({
      type: z.literal("approximate"),
      city: z.string().nullable(),
      country: z.string().nullable(),
      region: z.string().nullable(),
      timezone: z.string().nullable(),
    })
    .nullable(),
});
/** Hosted tools other than web search: echoed, but their key sets are not modelled here. */
export const HOSTED_TOOL_TYPES = [
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer_use_preview",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
  "custom",
  "namespace",
  "tool_search",
] as const;
export const OtherHostedTool = z.looseObject({ type: z.enum(HOSTED_TOOL_TYPES) });
export const Tool = z.union([FunctionTool, WebSearchTool, OtherHostedTool]);

export const ToolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.strictObject({ type: z.literal("function"), name: z.string() }),
  z.strictObject({
    type: z.literal("allowed_tools"),
    mode: z.enum(["auto", "required"]),
    tools: z.array(z.looseObject({ type: z.string() })),
  }),
  z.strictObject({
    type: z.enum([
      "web_search",
      "web_search_preview",
      "file_search",
      "code_interpreter",
      "image_generation",
      "tool_search",
    ]),
  }),
]);

export const TextFormat = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  /** The schema is echoed as sent, with `description: null` when none was sent (row 11). */
  z.strictObject({
    type: z.literal("json_schema"),
    description: z.string().nullable(),
    name: z.string(),
    schema: z.record(z.string(), z.unknown()),
    strict: z.boolean(),
  }),
]);

/** `verbosity` is always there (row 7). */
export const TextConfig = z.strictObject({ format: TextFormat, verbosity: z.enum(["low", "medium", "high"]) });

/**
 * Always an object, never `null` (row 5). `summary: "auto"` is echoed resolved,
 * as `"detailed"` (row 10), so `"auto"` never appears.
 */
export const ReasoningConfig = z.strictObject({
  /** Sent by the 2026 models (`"current_turn"`). */
  context: z.string().optional(),
  effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh"]).nullable(),
  /** Sent by the 2026 models (`"standard"`). */
  mode: z.string().optional(),
  summary: z.enum(["concise", "detailed"]).nullable(),
});

export const Usage = z.strictObject({
  input_tokens: int,
  input_tokens_details: z.strictObject({
    /** Sent since 2026. */
    cache_write_tokens: int.optional(),
    cached_tokens: int,
  }),
  output_tokens: int,
  output_tokens_details: z.strictObject({ reasoning_tokens: int }),
  total_tokens: int,
});

/**
 * A failed response's `error`. The recordings (a streamed `response.failed`)
 * show `{code, message}`; the AI SDK's OpenAI provider requires a `type` on a
 * non-streamed failed body, so `type` is allowed too.
 */
export const ResponseError = z.strictObject({ code: z.string(), message: z.string(), type: z.string().optional() });

export const SERVICE_TIERS = ["auto", "default", "flex", "priority", "scale"] as const;

// ------------------------------------------------------------------ the response object

/**
 * The response object, in streamed snapshots and JSON bodies alike: the spec's
 * 31 keys plus `user` and `prompt_cache_retention` (row 8), and three keys
 * some accounts or models get since 2026 (`billing`, `moderation`, `tool_usage`).
 */
export const Response = z.strictObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: int,
  status: z.enum(["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"]),
  background: z.boolean(),
  /** Sent on finished bodies since 2026 (`{"payer": "developer"}`). */
  billing: z.strictObject({ payer: z.string() }).optional(),
  completed_at: int.nullable(),
  error: ResponseError.nullable(),
  frequency_penalty: z.number(),
  incomplete_details: z.strictObject({ reason: z.enum(["max_output_tokens", "content_filter"]) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: int.nullable(),
  max_tool_calls: int.nullable(),
  metadata: z.record(z.string(), z.string()),
  model: z.string(),
  /** Sent since 2026, `null` so far. */
  moderation: z.unknown().optional(),
  output: z.array(OutputItem),
  parallel_tool_calls: z.boolean(),
  presence_penalty: z.number(),
  previous_response_id: z.string().nullable(),
  prompt_cache_key: z.string().nullable(),
  prompt_cache_retention: z.enum(["in_memory", "24h"]).nullable(),
  reasoning: ReasoningConfig,
  safety_identifier: z.string().nullable(),
  service_tier: z.enum(SERVICE_TIERS),
  store: z.boolean(),
  temperature: z.number(),
  text: TextConfig,
  tool_choice: ToolChoice,
  /** Sent since 2026: per hosted tool counters. */
  tool_usage: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(Tool),
  top_logprobs: int,
  top_p: z.number(),
  truncation: z.enum(["auto", "disabled"]),
  usage: Usage.nullable(),
  user: z.string().nullable(),
});
export type OpenAIResponse = z.infer<typeof Response>;

// ------------------------------------------------------------------ stream events

const seq = { sequence_number: int };
const inContent = { ...seq, item_id: z.string(), output_index: int, content_index: int };
const inSummary = { ...seq, item_id: z.string(), output_index: int, summary_index: int };
/** OpenAI sends `obfuscation` on deltas unless `stream_options.include_obfuscation` is false. */
const obfuscation = z.string().optional();

/** A hosted tool's own events: `type, sequence_number, output_index, item_id`. */
const inItem = { ...seq, output_index: int, item_id: z.string() };
const hostedPhases = <F extends string, P extends string>(family: F, phases: P[]) =>
  Object.fromEntries(
    phases.map((p) => [
      `response.${family}.${p}`,
      z.strictObject({ type: z.literal(`response.${family}.${p}`), ...inItem }),
    ]),
  ) as unknown as Record<`response.${F}.${P}`, z.ZodType>;

const lifecycle = <T extends string>(type: T) => z.strictObject({ type: z.literal(type), ...seq, response: Response });

export const EVENT_SCHEMAS = {
  "response.created": lifecycle("response.created"),
  "response.queued": lifecycle("response.queued"),
  "response.in_progress": lifecycle("response.in_progress"),
  "response.completed": lifecycle("response.completed"),
  "response.incomplete": lifecycle("response.incomplete"),
  "response.failed": lifecycle("response.failed"),
  "response.output_item.added": z.strictObject({
    type: z.literal("response.output_item.added"),
    ...seq,
    output_index: int,
    item: OutputItem,
  }),
  "response.output_item.done": z.strictObject({
    type: z.literal("response.output_item.done"),
    ...seq,
    output_index: int,
    item: OutputItem,
  }),
  "response.content_part.added": z.strictObject({
    type: z.literal("response.content_part.added"),
    ...inContent,
    part: z.discriminatedUnion("type", [OutputText, Refusal, ReasoningText]),
  }),
  "response.content_part.done": z.strictObject({
    type: z.literal("response.content_part.done"),
    ...inContent,
    part: z.discriminatedUnion("type", [OutputText, Refusal, ReasoningText]),
  }),
  "response.output_text.delta": z.strictObject({
    type: z.literal("response.output_text.delta"),
    ...inContent,
    delta: z.string(),
    logprobs: z.array(LogProb),
    obfuscation,
  }),
  "response.output_text.done": z.strictObject({
    type: z.literal("response.output_text.done"),
    ...inContent,
    text: z.string(),
    logprobs: z.array(LogProb),
  }),
  "response.output_text.annotation.added": z.strictObject({
    type: z.literal("response.output_text.annotation.added"),
    ...inContent,
    annotation_index: int,
    annotation: Annotation,
  }),
  "response.refusal.delta": z.strictObject({
    type: z.literal("response.refusal.delta"),
    ...inContent,
    delta: z.string(),
    obfuscation,
  }),
  "response.refusal.done": z.strictObject({
    type: z.literal("response.refusal.done"),
    ...inContent,
    refusal: z.string(),
  }),
  /** The raw reasoning events are `reasoning_text`, not the spec's `response.reasoning.*` (row 1). */
  "response.reasoning_text.delta": z.strictObject({
    type: z.literal("response.reasoning_text.delta"),
    ...inContent,
    delta: z.string(),
    obfuscation,
  }),
  "response.reasoning_text.done": z.strictObject({
    type: z.literal("response.reasoning_text.done"),
    ...inContent,
    text: z.string(),
  }),
  "response.reasoning_summary_part.added": z.strictObject({
    type: z.literal("response.reasoning_summary_part.added"),
    ...inSummary,
    part: SummaryText,
  }),
  "response.reasoning_summary_part.done": z.strictObject({
    type: z.literal("response.reasoning_summary_part.done"),
    ...inSummary,
    part: SummaryText,
  }),
  "response.reasoning_summary_text.delta": z.strictObject({
    type: z.literal("response.reasoning_summary_text.delta"),
    ...inSummary,
    delta: z.string(),
    obfuscation,
  }),
  "response.reasoning_summary_text.done": z.strictObject({
    type: z.literal("response.reasoning_summary_text.done"),
    ...inSummary,
    text: z.string(),
  }),
  "response.function_call_arguments.delta": z.strictObject({
    type: z.literal("response.function_call_arguments.delta"),
    ...seq,
    item_id: z.string(),
    output_index: int,
    delta: z.string(),
    obfuscation,
  }),
  "response.function_call_arguments.done": z.strictObject({
    type: z.literal("response.function_call_arguments.done"),
    ...seq,
    item_id: z.string(),
    output_index: int,
    arguments: z.string(),
  }),
  ...hostedPhases("web_search_call", ["in_progress", "searching", "completed"]),
  ...hostedPhases("file_search_call", ["in_progress", "searching", "completed"]),
  ...hostedPhases("code_interpreter_call", ["in_progress", "interpreting", "completed"]),
  ...hostedPhases("image_generation_call", ["in_progress", "generating", "completed"]),
  ...hostedPhases("mcp_list_tools", ["in_progress", "completed", "failed"]),
  ...hostedPhases("mcp_call", ["in_progress", "completed", "failed"]),
  "response.code_interpreter_call_code.delta": z.strictObject({
    type: z.literal("response.code_interpreter_call_code.delta"),
    ...inItem,
    delta: z.string(),
    obfuscation,
  }),
  "response.code_interpreter_call_code.done": z.strictObject({
    type: z.literal("response.code_interpreter_call_code.done"),
    ...inItem,
    code: z.string(),
  }),
  "response.mcp_call_arguments.delta": z.strictObject({
    type: z.literal("response.mcp_call_arguments.delta"),
    ...inItem,
    delta: z.string(),
    obfuscation,
  }),
  "response.mcp_call_arguments.done": z.strictObject({
    type: z.literal("response.mcp_call_arguments.done"),
    ...inItem,
    arguments: z.string(),
  }),
  "response.image_generation_call.partial_image": z.strictObject({
    type: z.literal("response.image_generation_call.partial_image"),
    ...inItem,
    partial_image_index: int,
    partial_image_b64: z.string(),
  }),
  error: z.strictObject({
    type: z.literal("error"),
    ...seq,
    error: z.strictObject({
      type: z.string(),
      code: z.string().nullable(),
      message: z.string(),
      param: z.string().nullable(),
    }),
  }),
} as const;

export type OpenAIEventType = keyof typeof EVENT_SCHEMAS;
export const OPENAI_EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as OpenAIEventType[];
const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);
const OPENING = new Set(["response.created", "response.queued", "response.in_progress"]);

// ------------------------------------------------------------------ HTTP errors and headers

/** The `type`s OpenAI's HTTP errors use (its error table). */
export const OPENAI_ERROR_TYPES = [
  "invalid_request_error",
  "requests",
  "tokens",
  "insufficient_quota",
  "server_error",
] as const;

export const ErrorBody = z.strictObject({
  error: z.strictObject({
    message: z.string().min(1),
    type: z.enum(OPENAI_ERROR_TYPES),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
});

// ------------------------------------------------------------------ violations

export interface Violation {
  /** Index of the event in the stream, or null for the body, the framing or the headers. */
  event: number | null;
  /** A JSON path into the event or body (`$.response.output[0].id`). */
  path: string;
  message: string;
}

export function formatViolation(v: Violation): string {
  return `${v.event === null ? "" : `event #${v.event} `}${v.path}: ${v.message}`;
}

const jsonPath = (segments: readonly PropertyKey[], base = "$") =>
  segments.reduce<string>(
    (p, s) =>
      typeof s === "number"
        ? `${p}[${s}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(s))
          ? `${p}.${String(s)}`
          : `${p}[${JSON.stringify(String(s))}]`,
    base,
  );

function zodViolations(error: z.ZodError, event: number | null, base = "$"): Violation[] {
  return error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return {
        event,
        path: jsonPath(issue.path, base),
        message: `key(s) api.openai.com does not send: ${issue.keys.join(", ")}`,
      };
    }
    return { event, path: jsonPath(issue.path, base), message: issue.message };
  });
}

/** Integral numbers in response snapshots are written `1.0`, `0.0` (row 15); only a byte comparison sees it. */
const FLOAT_FIELDS = /"(temperature|top_p|presence_penalty|frequency_penalty)":(-?\d+)(?=[,}])/g;
function floatViolations(raw: string, event: number | null): Violation[] {
  return [...raw.matchAll(FLOAT_FIELDS)].map((m) => ({
    event,
    path: `$..${m[1]}`,
    message: `written ${m[2]}; api.openai.com writes ${m[2]}.0`,
  }));
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks an item's id (and call_id) shape and that it shares the response id's first 16 hex. */
function itemIdViolations(item: Obj, responseId: string | undefined, event: number | null, path: string): Violation[] {
  const out: Violation[] = [];
  const m = typeof item.id === "string" ? ITEM_ID.exec(item.id) : null;
  const want = ITEM_ID_PREFIX[item.type];
  if (!m || (want && m[1] !== want)) {
    out.push({
      event,
      path: `${path}.id`,
      message: `${JSON.stringify(item.id)} is not ${want ?? "a prefix"}_ + 50 lowercase hex`,
    });
  } else if (responseId && RESPONSE_ID.test(responseId) && m[2].slice(0, 16) !== responseId.slice(5, 21)) {
    out.push({
      event,
      path: `${path}.id`,
      message: `${item.id} does not share the response id's first 16 hex (${responseId.slice(5, 21)})`,
    });
  }
  if (item.type === "function_call" && !(typeof item.call_id === "string" && CALL_ID.test(item.call_id))) {
    out.push({ event, path: `${path}.call_id`, message: `${JSON.stringify(item.call_id)} is not call_ + 24 base62` });
  }
  return out;
}

/** Checks of one response object shared by bodies and stream snapshots. */
function responseViolations(r: Obj, event: number | null, base: string): Violation[] {
  const out: Violation[] = [];
  if (typeof r.id === "string" && !RESPONSE_ID.test(r.id))
    out.push({ event, path: `${base}.id`, message: `${r.id} is not resp_ + 50 lowercase hex` });
  const output: unknown[] = Array.isArray(r.output) ? r.output : [];
  const seen = new Set<string>();
  output.forEach((item, i) => {
    if (!isObj(item)) return;
    out.push(...itemIdViolations(item, r.id, event, `${base}.output[${i}]`));
    if (typeof item.id === "string") {
      if (seen.has(item.id)) out.push({ event, path: `${base}.output[${i}].id`, message: `${item.id} is used twice` });
      seen.add(item.id);
    }
    // Row 12: no summary unless reasoning.summary was asked.
    if (
      item.type === "reasoning" &&
      r.reasoning?.summary == null &&
      Array.isArray(item.summary) &&
      item.summary.length > 0
    ) {
      out.push({
        event,
        path: `${base}.output[${i}].summary`,
        message: "a summary although reasoning.summary is null",
      });
    }
  });
  if (isObj(r.usage) && r.usage.total_tokens !== r.usage.input_tokens + r.usage.output_tokens) {
    out.push({ event, path: `${base}.usage.total_tokens`, message: "is not input_tokens + output_tokens" });
  }
  switch (r.status) {
    case "completed":
      if (r.completed_at === null)
        out.push({ event, path: `${base}.completed_at`, message: "null in a completed response" });
      if (r.usage === null) out.push({ event, path: `${base}.usage`, message: "null in a completed response" });
      if (r.error !== null || r.incomplete_details !== null)
        out.push({ event, path: base, message: "a completed response with error or incomplete_details" });
      break;
    case "incomplete":
      if (r.incomplete_details === null)
        out.push({ event, path: `${base}.incomplete_details`, message: "null in an incomplete response" });
      break;
    case "failed":
      if (r.error === null) out.push({ event, path: `${base}.error`, message: "null in a failed response" });
      break;
  }
  return out;
}

/**
 * Validates a JSON body (parsed, or the raw text, which also checks how
 * numbers are written) as api.openai.com sends it. Returns the violations.
 */
export function validateOpenAIResponse(body: unknown): Violation[] {
  const out: Violation[] = [];
  let value = body;
  if (typeof body === "string") {
    out.push(...floatViolations(body, null));
    try {
      value = JSON.parse(body);
    } catch {
      return [{ event: null, path: "$", message: "body is not JSON" }];
    }
  }
  const parsed = Response.safeParse(value);
  if (!parsed.success) out.push(...zodViolations(parsed.error, null));
  if (!isObj(value)) return out;
  out.push(...responseViolations(value, null, "$"));
  // Row 9 (and 17): a JSON body says "auto" only while queued (or failed, as recorded).
  if (!["queued", "failed"].includes(value.status) && value.service_tier === "auto") {
    out.push({
      event: null,
      path: "$.service_tier",
      message: `"auto" in a ${value.status} body; api.openai.com answers the tier it used ("default")`,
    });
  }
  return out;
}

/** Validates an HTTP error body as api.openai.com sends it. */
export function validateOpenAIErrorBody(body: unknown): Violation[] {
  const parsed = ErrorBody.safeParse(typeof body === "string" ? safeJson(body) : body);
  return parsed.success ? [] : zodViolations(parsed.error, null);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Checks the headers of an answer: `x-request-id` always, the SSE content type on streams (rows 3 and 4). */
export function validateOpenAIHeaders(headers: Headers, kind: "sse" | "json"): Violation[] {
  const out: Violation[] = [];
  const requestId = headers.get("x-request-id");
  if (!requestId || !REQUEST_ID.test(requestId))
    out.push({
      event: null,
      path: "headers.x-request-id",
      message: `expected req_…, got ${JSON.stringify(requestId)}`,
    });
  const type = headers.get("content-type");
  const want = kind === "sse" ? "text/event-stream; charset=utf-8" : "application/json";
  if (type !== want && !(kind === "json" && type?.startsWith("application/json"))) {
    out.push({ event: null, path: "headers.content-type", message: `expected ${want}, got ${JSON.stringify(type)}` });
  }
  return out;
}

/**
 * Splits an SSE body into its events, recording framing violations: a
 * `data: [DONE]` (OpenAI sends none, row 2), an `event:` line that differs
 * from the JSON `type`, and integral numbers written without `.0`.
 */
export function parseOpenAISse(text: string): { events: unknown[]; raw: string[]; violations: Violation[] } {
  const events: unknown[] = [];
  const raw: string[] = [];
  const violations: Violation[] = [];
  if (text.includes("\r"))
    violations.push({ event: null, path: "(framing)", message: "\\r in the stream; lines end with \\n" });
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.length > 0 && !l.startsWith(":"));
    if (lines.length === 0) continue;
    const event = lines
      .find((l) => l.startsWith("event:"))
      ?.slice(6)
      .trim();
    const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
    if (data.length !== 1) {
      violations.push({ event: events.length, path: "(framing)", message: `a message with ${data.length} data lines` });
      continue;
    }
    if (data[0] === "[DONE]") {
      violations.push({
        event: null,
        path: "(framing)",
        message: "data: [DONE] — api.openai.com ends the stream after the terminal event, with no [DONE]",
      });
      continue;
    }
    const index = events.length;
    let json: unknown;
    try {
      json = JSON.parse(data[0]);
    } catch {
      violations.push({ event: index, path: "(framing)", message: "data is not JSON" });
      continue;
    }
    if (!isObj(json) || json.type !== event)
      violations.push({
        event: index,
        path: "$.type",
        message: `event line ${JSON.stringify(event)} differs from type`,
      });
    if (isObj(json) && isObj(json.response)) violations.push(...floatViolations(data[0], index));
    events.push(json);
    raw.push(data[0]);
  }
  return { events, raw, violations };
}

/**
 * Validates a whole stream as api.openai.com sends it: each event against its
 * strict schema, then the stream's rules — sequence numbers, the opening and
 * the single terminal event, item and part bracketing, deltas that add up,
 * the id shapes (row 13), `service_tier` auto→default (row 9),
 * `encrypted_content` on `added` as well as `done` (row 14), no summary
 * events unless `reasoning.summary` is set (row 12), each annotation right
 * after the delta that completes its span (row 18), `error` right before
 * `response.failed`, and the terminal output equal to the finished items.
 * Pass the raw SSE text to check the framing too (no `[DONE]`, row 2).
 */
export function validateOpenAIStream(input: string | readonly unknown[]): Violation[] {
  const out: Violation[] = [];
  let events: readonly unknown[];
  if (typeof input === "string") {
    const parsed = parseOpenAISse(input);
    out.push(...parsed.violations);
    events = parsed.events;
  } else events = input;

  if (events.length === 0) return [...out, { event: null, path: "$", message: "no events" }];

  // Each event against its schema.
  events.forEach((ev, i) => {
    if (ev === "[DONE]") return out.push({ event: i, path: "$", message: "[DONE]: api.openai.com sends none" });
    if (!isObj(ev) || typeof ev.type !== "string")
      return out.push({ event: i, path: "$", message: "not an event object" });
    const schema = (EVENT_SCHEMAS as Record<string, z.ZodType>)[ev.type];
    if (!schema) {
      const hint = ev.type.startsWith("response.reasoning.")
        ? ` (the spec's name; OpenAI sends response.reasoning_text.${ev.type.split(".").pop()})`
        : "";
      return out.push({ event: i, path: "$.type", message: `${ev.type} is not an event api.openai.com sends${hint}` });
    }
    const r = schema.safeParse(ev);
    if (!r.success) out.push(...zodViolations(r.error, i));
    if (ev.sequence_number !== i)
      out.push({ event: i, path: "$.sequence_number", message: `expected ${i}, got ${ev.sequence_number}` });
  });

  const evs = events.map((e) => (isObj(e) ? e : {})) as Obj[];
  const types = evs.map((e) => e.type);

  // Opening and terminal.
  if (types[0] !== "response.created")
    out.push({ event: 0, path: "$.type", message: "the stream must open with response.created" });
  const open = types[1] === "response.queued" ? 2 : 1;
  if (types[open] !== "response.in_progress")
    out.push({ event: open, path: "$.type", message: "expected response.in_progress" });
  const terminals = types.flatMap((t, i) => (TERMINAL.has(t) ? [i] : []));
  if (terminals.length !== 1 || terminals[0] !== evs.length - 1) {
    out.push({
      event: terminals[0] ?? null,
      path: "$.type",
      message: `expected exactly one terminal event, last; found at ${JSON.stringify(terminals)}`,
    });
  }
  const terminal = TERMINAL.has(types.at(-1)) ? evs.at(-1)! : undefined;

  // Snapshots: one id, the id shape, service_tier auto→default.
  const snapshots = evs.flatMap((e, i) =>
    isObj(e.response) ? [{ i, r: e.response as Obj, type: e.type as string }] : [],
  );
  const responseId: string | undefined = snapshots[0]?.r.id;
  for (const { i, r, type } of snapshots) {
    if (r.id !== responseId)
      out.push({ event: i, path: "$.response.id", message: `differs from the first snapshot's ${responseId}` });
    if (OPENING.has(type) && Array.isArray(r.output) && r.output.length > 0)
      out.push({ event: i, path: "$.response.output", message: "not empty before any item" });
    out.push(...responseViolations(r, i, "$.response"));
  }
  const openingTiers = new Set(snapshots.filter((s) => OPENING.has(s.type)).map((s) => s.r.service_tier));
  if (openingTiers.size > 1)
    out.push({
      event: null,
      path: "$.response.service_tier",
      message: `differs between opening snapshots: ${[...openingTiers].join(", ")}`,
    });
  if (terminal && isObj(terminal.response) && openingTiers.size === 1) {
    const before = [...openingTiers][0];
    const after = terminal.response.service_tier;
    const want = before === "auto" ? "default" : before;
    // The recorded failure (insufficient_quota, before any output) kept "auto" in response.failed.
    const failedAuto = terminal.type === "response.failed" && before === "auto" && after === "auto";
    if (after !== want && !failedAuto)
      out.push({
        event: evs.length - 1,
        path: "$.response.service_tier",
        message: `${JSON.stringify(before)} while streaming must end as ${JSON.stringify(want)}, got ${JSON.stringify(after)}`,
      });
  }
  const summaryAsked = snapshots[0]?.r.reasoning?.summary != null;

  // Items, parts and deltas.
  let item: { index: number; id: string; type: string; added: Obj } | null = null;
  let part: { kind: "content" | "summary"; index: number; type: string; text: string; before: number } | null = null;
  let nextOutput = 0;
  let args = "";
  const done: Obj[] = [];
  const ids = new Set<string>();
  for (let i = open + 1; i < evs.length; i++) {
    const ev = evs[i];
    const t: string = ev.type;
    if (TERMINAL.has(t)) break;
    const inItem = (p = "$") => {
      if (!item) return (out.push({ event: i, path: p, message: `${t} outside an item` }), false);
      if (ev.output_index !== item.index)
        out.push({ event: i, path: "$.output_index", message: `expected ${item.index}` });
      if ("item_id" in ev && ev.item_id !== item.id)
        out.push({ event: i, path: "$.item_id", message: `expected ${item.id}` });
      return true;
    };
    switch (t) {
      case "response.output_item.added": {
        if (item) out.push({ event: i, path: "$", message: `item ${item.id} is still open` });
        if (ev.output_index !== nextOutput)
          out.push({ event: i, path: "$.output_index", message: `expected ${nextOutput}` });
        nextOutput++;
        const it: Obj = isObj(ev.item) ? ev.item : {};
        out.push(...itemIdViolations(it, responseId, i, "$.item"));
        if (ids.has(it.id)) out.push({ event: i, path: "$.item.id", message: `${it.id} is used twice` });
        ids.add(it.id);
        if ("status" in it && it.status !== "in_progress")
          out.push({ event: i, path: "$.item.status", message: "must be in_progress" });
        if (it.type === "function_call" && it.arguments !== "")
          out.push({ event: i, path: "$.item.arguments", message: "must be empty when added" });
        if (Array.isArray(it.content) && it.content.length > 0)
          out.push({ event: i, path: "$.item.content", message: "must be empty when added" });
        if (Array.isArray(it.summary) && it.summary.length > 0)
          out.push({ event: i, path: "$.item.summary", message: "must be empty when added" });
        item = { index: ev.output_index, id: it.id, type: it.type, added: it };
        args = "";
        break;
      }
      case "response.output_item.done": {
        if (!inItem()) break;
        if (part) out.push({ event: i, path: "$", message: "a part is still open" });
        const it: Obj = isObj(ev.item) ? ev.item : {};
        if (it.id !== item!.id) out.push({ event: i, path: "$.item.id", message: `expected ${item!.id}` });
        const finals =
          it.type === "mcp_call" || it.type === "mcp_list_tools"
            ? ["completed", "incomplete", "failed"]
            : ["completed", "incomplete"];
        if ("status" in it && !finals.includes(it.status))
          out.push({ event: i, path: "$.item.status", message: `must be ${finals.join(" or ")}` });
        if (it.type === "code_interpreter_call" && it.code !== args)
          out.push({ event: i, path: "$.item.code", message: "differs from the streamed code" });
        if (it.type === "mcp_call" && it.arguments !== args)
          out.push({ event: i, path: "$.item.arguments", message: "differs from the streamed arguments" });
        if (typeof it.encrypted_content === "string" && typeof item!.added.encrypted_content !== "string") {
          out.push({
            event: i,
            path: "$.item.encrypted_content",
            message: "on output_item.done but not on output_item.added (OpenAI sends it on both)",
          });
        }
        if (it.type === "function_call" && it.arguments !== args)
          out.push({ event: i, path: "$.item.arguments", message: "differs from the streamed arguments" });
        done.push(it);
        item = null;
        break;
      }
      case "response.content_part.added":
      case "response.reasoning_summary_part.added": {
        if (!inItem()) break;
        if (part) out.push({ event: i, path: "$", message: "a part is still open" });
        const kind = t.includes("summary") ? "summary" : "content";
        const index = kind === "summary" ? ev.summary_index : ev.content_index;
        part = { kind, index, type: ev.part?.type, text: "", before: 0 };
        if ((ev.part?.text ?? ev.part?.refusal) !== "")
          out.push({ event: i, path: "$.part", message: "must be empty when added" });
        if (kind === "summary" && !summaryAsked)
          out.push({
            event: i,
            path: "$.type",
            message: "a summary although reasoning.summary is null (OpenAI sends none)",
          });
        break;
      }
      case "response.content_part.done":
      case "response.reasoning_summary_part.done": {
        if (!inItem()) break;
        const index = t.includes("summary") ? ev.summary_index : ev.content_index;
        if (!part || part.index !== index) out.push({ event: i, path: "$", message: "closes a part that is not open" });
        else if ((ev.part?.text ?? ev.part?.refusal) !== part.text)
          out.push({ event: i, path: "$.part", message: "text differs from the deltas" });
        part = null;
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
      case "response.reasoning_text.delta":
      case "response.reasoning_summary_text.delta": {
        if (!inItem()) break;
        const want = {
          "response.output_text.delta": "output_text",
          "response.refusal.delta": "refusal",
          "response.reasoning_text.delta": "reasoning_text",
          "response.reasoning_summary_text.delta": "summary_text",
        }[t];
        if (part?.type !== want) out.push({ event: i, path: "$.type", message: `not inside a ${want} part` });
        else {
          part.before = part.text.length;
          part.text += ev.delta;
        }
        break;
      }
      case "response.output_text.done":
      case "response.refusal.done":
      case "response.reasoning_text.done":
      case "response.reasoning_summary_text.done": {
        if (!inItem()) break;
        const whole = t === "response.refusal.done" ? ev.refusal : ev.text;
        if (!part || whole !== part.text)
          out.push({ event: i, path: "$", message: "the whole text differs from the deltas" });
        break;
      }
      case "response.output_text.annotation.added":
        if (!inItem()) break;
        if (part?.type !== "output_text") out.push({ event: i, path: "$", message: "not inside an output_text part" });
        else if (typeof ev.annotation?.end_index === "number" || typeof ev.annotation?.index === "number") {
          // Row 18: right after the delta that completes the cited span (a file_citation's: the sentence ending at `index`), not later.
          const key = ev.annotation.type === "file_citation" ? "index" : "end_index";
          const end: number = ev.annotation[key];
          if (part.text.length < end)
            out.push({
              event: i,
              path: `$.annotation.${key}`,
              message: `cites text not streamed yet (${part.text.length} characters so far)`,
            });
          else if (part.before >= end)
            out.push({
              event: i,
              path: "$",
              message: "comes later than the delta that completed its span (OpenAI sends it right after that delta)",
            });
        }
        break;
      case "response.function_call_arguments.delta":
        if (!inItem()) break;
        args += ev.delta;
        break;
      case "response.function_call_arguments.done":
        if (!inItem()) break;
        if (ev.arguments !== args) out.push({ event: i, path: "$.arguments", message: "differs from the deltas" });
        break;
      case "response.code_interpreter_call_code.delta":
      case "response.mcp_call_arguments.delta":
        if (!inItem()) break;
        if (!t.startsWith(`response.${item!.type}`))
          out.push({ event: i, path: "$.type", message: `inside a ${item!.type}` });
        args += ev.delta;
        break;
      case "response.code_interpreter_call_code.done":
      case "response.mcp_call_arguments.done":
        if (!inItem()) break;
        if ((ev.code ?? ev.arguments) !== args) out.push({ event: i, path: "$", message: "differs from the deltas" });
        break;
      case "error":
        if (types[i + 1] !== "response.failed")
          out.push({ event: i, path: "$.type", message: "an error event must be followed by response.failed" });
        else {
          const failed = evs[i + 1].response?.error;
          if (failed && (failed.message !== ev.error?.message || failed.code !== ev.error?.code)) {
            out.push({
              event: i + 1,
              path: "$.response.error",
              message: "differs from the error event's code and message",
            });
          }
        }
        break;
      default:
        // A hosted tool's status event: inside an item of its own type.
        if (
          /^response\.(web_search_call|file_search_call|code_interpreter_call|image_generation_call|mcp_list_tools|mcp_call)\./.test(
            t,
          ) &&
          inItem()
        ) {
          const family = t.split(".")[1];
          if (family !== item!.type) out.push({ event: i, path: "$.type", message: `inside a ${item!.type}` });
        }
        break; // unknown types were reported above
    }
  }

  // The terminal output is the finished items (a failed stream may add the one it cut).
  if (terminal && isObj(terminal.response) && Array.isArray(terminal.response.output)) {
    const output: unknown[] = terminal.response.output;
    if (terminal.type !== "response.failed" && item)
      out.push({ event: evs.length - 1, path: "$", message: `item ${(item as { id: string }).id} was never finished` });
    const expected = terminal.type === "response.failed" ? output.slice(0, done.length) : output;
    if (!isDeepStrictEqual(expected, done)) {
      out.push({
        event: evs.length - 1,
        path: "$.response.output",
        message: "differs from the items of the output_item.done events",
      });
    }
  }
  return out;
}

// ------------------------------------------------------------------ vendor extras

const isVendor = (type: unknown) => typeof type === "string" && type.includes(":");

/**
 * The stream without vendor events and vendor items (renumbered), for a
 * scenario that scripts them: OpenAI never sends them, so the rest of the
 * stream must still be OpenAI's.
 */
export function withoutVendor(events: readonly unknown[]): Obj[] {
  const kept = (events as Obj[]).filter((e) => !isVendor(e.type) && !(isObj(e.item) && isVendor(e.item.type)));
  const shift = new Map<number, number>();
  let next = 0;
  for (const e of events as Obj[]) {
    if (e.type === "response.output_item.added" && !isVendor(e.item?.type)) shift.set(e.output_index, next++);
  }
  return kept.map((e, i) => {
    const copy: Obj = { ...e, sequence_number: i };
    if (typeof e.output_index === "number") copy.output_index = shift.get(e.output_index) ?? e.output_index;
    if (isObj(e.response)) copy.response = withoutVendorItems(e.response);
    return copy;
  });
}

/** A response body without vendor items. */
export function withoutVendorItems(response: Obj): Obj {
  return Array.isArray(response.output)
    ? { ...response, output: response.output.filter((o: Obj) => !isVendor(o?.type)) }
    : response;
}
