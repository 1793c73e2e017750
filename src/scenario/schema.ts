/**
 * The scenario file format, as one zod schema. Objects are strict, so a typo
 * ("mesage") is an error with its JSON path rather than a silent no-op. The
 * published JSON Schema (scenario.schema.json) is generated from this.
 *
 * `z.toJSONSchema` drops refinements, so each `.refine` whose rule JSON Schema
 * can say carries that rule beside it, as `.meta({...})` (merged into the
 * generated schema): the message a person reads comes from zod, the rule an
 * editor checks from the meta, and test/scenario/schema-agreement.test.ts
 * proves the two accept the same files. The rules JSON Schema cannot say are
 * listed in SEMANTIC_RULES.
 */
import { z } from "zod";
import { ErrorType, FunctionName, VENDOR_TYPE_PATTERN } from "../spec/index.js";

/**
 * Rules of scenario files that JSON Schema cannot state: the parser checks
 * them, scenario.schema.json only lists them (in its description), so an
 * editor may accept a file that `validate` refuses for one of these.
 */
export const SEMANTIC_RULES = [
  "a range [min, max] needs min <= max",
  "an incomplete vendor_item must be the turn's last item (only vendor_event steps may follow it)",
  "match.matches must compile as a JavaScript regular expression with the 'u' flag (the schema says format: regex, which most editors do not check)",
  "arrays and objects nest at most 100 levels deep",
] as const;

/**
 * `content-type` → `[Cc][Oo][Nn]…`: JSON Schema patterns take no flags, so a
 * case-insensitive match is spelled out.
 */
const caseless = (word: string) => word.replace(/[a-z]/gi, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);

// (The pattern already excludes line breaks in ECMA-262, where `$` is the end
// of input; the refine and its `not` keep that true for validators whose `$`
// also matches before a final newline.)
const vendorType = z
  .string()
  .regex(VENDOR_TYPE_PATTERN, "must be a vendor type 'slug:name', e.g. 'acme:search_call'")
  .refine((t) => !/[\r\n]/.test(t), "must not contain a line break")
  .meta({ not: { pattern: "[\\r\\n]" } });

const DelayMs = z.number().min(0).max(3_600_000).optional().describe("Pause before this step, in ms.");

/** How a text is split into deltas: N tokens per delta, N characters per delta, or the size of each delta. */
export const Chunking = z
  .strictObject({
    tokens: z.number().int().min(1).max(10_000).optional().describe("Tokens per delta."),
    chars: z.number().int().min(1).max(100_000).optional().describe("Characters per delta."),
    sizes: z
      .array(z.number().int().min(1).max(100_000))
      .min(1)
      .max(100_000)
      .optional()
      .describe(
        "Characters of each delta, in order (as recorded by `proxy --record`); text past them goes in one last delta.",
      ),
  })
  .refine(
    (c) => [c.tokens, c.chars, c.sizes].filter((v) => v !== undefined).length === 1,
    "give exactly one of 'tokens', 'chars' or 'sizes'",
  )
  .meta({ oneOf: [{ required: ["tokens"] }, { required: ["chars"] }, { required: ["sizes"] }] })
  .describe("How the text is split into deltas. Default: 1-3 tokens per delta, from the seed.");

const UrlCitation = z
  .strictObject({
    type: z.literal("url_citation").default("url_citation"),
    url: z.string(),
    title: z.string(),
    start_index: z.number().int().min(0),
    end_index: z.number().int().min(0),
  })
  .describe("A url_citation over text[start_index, end_index) (the type may be left out).");

/** OpenAI's file citation: sent in the openai dialect; the spec dialect refuses it (the spec has no such annotation). */
const FileCitation = z
  .strictObject({
    type: z.literal("file_citation"),
    file_id: z.string().min(1),
    filename: z.string(),
    index: z.number().int().min(0),
  })
  .describe("An OpenAI file_citation at text index `index` (the end of the cited sentence); openai dialect only.");

const Annotation = z.union([FileCitation, UrlCitation], {
  error:
    "an annotation is a url_citation {url, title, start_index, end_index} or a file_citation {type: 'file_citation', file_id, filename, index}",
});

export const MessageStep = z
  .strictObject({
    type: z.literal("message"),
    delayMs: DelayMs,
    text: z
      .string()
      .optional()
      .describe(
        "The answer text. {{input}} is replaced by the last user message, {{tool_output}} by the last tool output, {{tool_outputs}} by all trailing tool outputs joined by '; ', {{model}} by the request's model.",
      ),
    annotations: z
      .array(Annotation)
      .optional()
      .describe("Annotations on the text: url_citation, or file_citation (openai dialect only)."),
    refusal: z.string().optional().describe("A refusal part (after the text part, if there is one)."),
    phase: z.enum(["commentary", "final_answer"]).optional(),
    chunk: Chunking.optional(),
  })
  .refine((m) => m.text !== undefined || m.refusal !== undefined, "a message needs 'text', 'refusal' or both")
  .meta({ anyOf: [{ required: ["text"] }, { required: ["refusal"] }] })
  .describe("An assistant message.");

export const ReasoningStep = z
  .strictObject({
    type: z.literal("reasoning"),
    delayMs: DelayMs,
    summary: z.array(z.string()).default([]).describe("Summary parts, each streamed as its own part."),
    text: z.string().optional().describe("Raw reasoning text (a reasoning_text content part)."),
    encrypted_content: z.string().optional(),
    chunk: Chunking.optional(),
  })
  .describe("A reasoning item.");

export const FunctionCallStep = z
  .strictObject({
    type: z.literal("function_call"),
    delayMs: DelayMs,
    name: FunctionName.optional().describe(
      "The function to call. Omitted: the request's first function tool (a request that offers none is answered with a 400 no_function_tool).",
    ),
    arguments: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .optional()
      .describe(
        "An object (sent as JSON) or a raw string (sent as is, even if not JSON). Omitted: synthesized from the tool's schema in the request.",
      ),
    call_id: z.string().min(1).max(64).optional(),
    chunk: Chunking.optional(),
  })
  .describe("A function call.");

export const VendorItemStep = z
  .strictObject({
    type: z.literal("vendor_item"),
    delayMs: DelayMs,
    item: z.looseObject({
      type: vendorType,
      id: z.string().optional(),
      status: z
        .enum(["completed", "incomplete"])
        .optional()
        .describe("The item's final status (default completed); incomplete only on the turn's last item."),
    }),
  })
  .describe("A vendor custom item, sent whole in output_item.added/done.");

export const VendorEventStep = z
  .strictObject({
    type: z.literal("vendor_event"),
    delayMs: DelayMs,
    event: z
      .looseObject({ type: vendorType })
      .refine((e) => !("sequence_number" in e), "sequence_number is set by the server")
      .meta({ not: { required: ["sequence_number"] } })
      .describe("The event: a vendor 'type' and any other fields but sequence_number (set by the server)."),
  })
  .describe("A vendor custom streaming event between items.");

// ---- hosted-tool calls --------------------------------------------------------
// OpenAI's hosted tools, played as OpenAI streams them in the `openai` dialect
// and as `openai:`-prefixed vendor items in the spec's (docs/decisions.md).

const HostedId = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .describe(
    "The item's id. Default: drawn from the seed, with OpenAI's prefix (ws_, ci_, ig_, fs_, mcpl_, mcp_, mcpr_).",
  );
const ShortText = z.string().min(1).max(10_000);
const McpArguments = z
  .union([z.record(z.string(), z.unknown()), z.string()])
  .optional()
  .describe("An object (sent as JSON) or a raw string (sent as is). Default: {}.");

export const WebSearchCallStep = z
  .strictObject({
    type: z.literal("web_search_call"),
    delayMs: DelayMs,
    id: HostedId,
    query: ShortText.describe("The search query (action.query). {{input}} is replaced by the last user message."),
    sources: z
      .array(
        z
          .string()
          .max(10_000)
          .regex(/^https?:\/\/[^\s]+$/, "must be an http(s) URL"),
      )
      .max(100)
      .optional()
      .describe(
        "URLs the search found: sent as action.sources only when the request's include has 'web_search_call.action.sources'.",
      ),
  })
  .describe(
    "A web_search_call (the web_search tool): in_progress, searching, completed. Cite its sources with the next message's annotations.",
  );

const CodeOutput = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("logs"), logs: z.string().max(100_000) }),
  z.strictObject({ type: z.literal("image"), url: z.string().min(1).max(10_000) }),
]);

export const CodeInterpreterCallStep = z
  .strictObject({
    type: z.literal("code_interpreter_call"),
    delayMs: DelayMs,
    id: HostedId,
    code: z.string().max(100_000).describe("The code, streamed as code deltas."),
    container_id: z.string().min(1).max(128).optional().describe("Default: drawn from the seed (cntr_…)."),
    outputs: z
      .array(CodeOutput)
      .max(100)
      .optional()
      .describe(
        "What the code printed ({type: 'logs', logs}) or drew ({type: 'image', url}): sent only when the request's include has 'code_interpreter_call.outputs' (else outputs is null).",
      ),
    chunk: Chunking.optional(),
  })
  .describe("A code_interpreter_call: in_progress, the code as deltas, interpreting, completed.");

export const ImageGenerationCallStep = z
  .strictObject({
    type: z.literal("image_generation_call"),
    delayMs: DelayMs,
    id: HostedId,
    result: z
      .string()
      .max(5_000_000)
      .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, "must be base64")
      .optional()
      .describe("The image, base64. Default: a small valid PNG."),
    partial_images: z
      .number()
      .int()
      .min(0)
      .max(3)
      .optional()
      .describe("How many partial_image events (0-3, as the tool's partial_images). Default 0."),
    revised_prompt: z.string().max(10_000).optional(),
  })
  .describe("An image_generation_call: in_progress, generating, partial images, completed.");

const FileSearchResult = z.strictObject({
  file_id: z.string().min(1).max(128),
  filename: z.string().min(1).max(1_000),
  score: z.number().min(0).max(1),
  text: z.string().max(100_000),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

export const FileSearchCallStep = z
  .strictObject({
    type: z.literal("file_search_call"),
    delayMs: DelayMs,
    id: HostedId,
    queries: z.array(ShortText).min(1).max(100).describe("The queries searched."),
    results: z
      .array(FileSearchResult)
      .max(100)
      .optional()
      .describe(
        "What was found: sent only when the request's include has 'file_search_call.results' (else results is null).",
      ),
  })
  .describe("A file_search_call: in_progress, searching, completed.");

const ServerLabel = z.string().min(1).max(128).describe("The MCP server's label (the mcp tool's server_label).");
const McpToolName = z.string().min(1).max(128);

export const McpListToolsStep = z
  .strictObject({
    type: z.literal("mcp_list_tools"),
    delayMs: DelayMs,
    id: HostedId,
    server_label: ServerLabel,
    tools: z
      .array(
        z.strictObject({
          name: McpToolName,
          description: z.string().max(10_000).optional(),
          input_schema: z.record(z.string(), z.unknown()).optional().describe("Default: an empty object schema."),
          annotations: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .max(128)
      .describe("The server's tools."),
  })
  .describe("An mcp_list_tools item: the tools an MCP server offers (in_progress, completed).");

export const McpCallStep = z
  .strictObject({
    type: z.literal("mcp_call"),
    delayMs: DelayMs,
    id: HostedId,
    server_label: ServerLabel,
    name: McpToolName.describe("The MCP tool called."),
    arguments: McpArguments,
    output: z
      .string()
      .max(1_000_000)
      .optional()
      .describe("What the tool returned. Default: '' (or none when 'error' is given)."),
    error: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe("The tool's error: the call ends with response.mcp_call.failed."),
    approval_request_id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe("The mcp_approval_request this call was approved through."),
    chunk: Chunking.optional(),
  })
  .refine((s) => s.output === undefined || s.error === undefined, "give 'output' or 'error', not both")
  .meta({ not: { required: ["output", "error"] } })
  .describe("An mcp_call the server runs: in_progress, the arguments as deltas, completed (or failed with 'error').");

export const McpApprovalRequestStep = z
  .strictObject({
    type: z.literal("mcp_approval_request"),
    delayMs: DelayMs,
    id: HostedId,
    server_label: ServerLabel,
    name: McpToolName.describe("The MCP tool that asks to be approved."),
    arguments: McpArguments,
  })
  .describe("An mcp_approval_request, sent whole; the client answers with an mcp_approval_response item.");

export const HOSTED_STEP_TYPES = [
  "web_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "file_search_call",
  "mcp_list_tools",
  "mcp_call",
  "mcp_approval_request",
] as const;

export const Step = z.discriminatedUnion("type", [
  MessageStep,
  ReasoningStep,
  FunctionCallStep,
  VendorItemStep,
  VendorEventStep,
  WebSearchCallStep,
  CodeInterpreterCallStep,
  ImageGenerationCallStep,
  FileSearchCallStep,
  McpListToolsStep,
  McpCallStep,
  McpApprovalRequestStep,
]);
export const STEP_TYPES = [
  "message",
  "reasoning",
  "function_call",
  "vendor_item",
  "vendor_event",
  ...HOSTED_STEP_TYPES,
];
export const END_TYPES = ["completed", "incomplete", "failed", "http_error"];
export const STRATEGIES = ["auto", "random"];

const ErrorFields = z
  .strictObject({
    type: z
      .union([ErrorType, z.string().min(1)])
      .optional()
      .describe("Error type; default from the status."),
    code: z.string().nullable().optional().describe("Error code; default from the status."),
    message: z.string().min(1).optional().describe("Error message; default from the status."),
    param: z.string().nullable().optional().describe("The request parameter at fault, or null."),
  })
  .describe("The error object sent; each field left out gets the status's default.");

const HOP_BY_HOP = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "content-type",
]);

export const HTTP_ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503] as const;

export const End = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("completed") }),
    z.strictObject({
      type: z.literal("incomplete"),
      reason: z.string().min(1).default("max_output_tokens").describe("incomplete_details.reason"),
    }),
    z.strictObject({
      type: z.literal("failed"),
      afterEvents: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe("Fail after this many events (never before response.in_progress). Default: after the last item."),
      error: ErrorFields.optional(),
    }),
    z.strictObject({
      type: z.literal("http_error"),
      status: z
        .number()
        .int()
        .refine(
          (s) => (HTTP_ERROR_STATUSES as readonly number[]).includes(s),
          `must be one of ${HTTP_ERROR_STATUSES.join(", ")}`,
        )
        .meta({ enum: [...HTTP_ERROR_STATUSES] })
        .describe(`HTTP status: one of ${HTTP_ERROR_STATUSES.join(", ")}.`),
      error: ErrorFields.optional(),
      headers: z
        .record(
          z
            .string()
            .regex(/^[A-Za-z0-9-]+$/, "header names are letters, digits and '-'")
            .refine(
              (name) => !HOP_BY_HOP.has(name.toLowerCase()),
              "this header is set by the server (content-length, transfer-encoding, connection, …)",
            )
            .meta({ not: { pattern: `^(?:${[...HOP_BY_HOP].map(caseless).join("|")})$` } }),
          z.string().regex(/^[\t\x20-\x7e]*$/, "header values are visible ASCII (no line breaks)"),
        )
        .optional()
        .describe(
          "Extra response headers (e.g. retry-after); not the ones the server sets itself (content-type, content-length, …).",
        ),
    }),
  ])
  .describe("How the turn ends. Default: completed.");

/**
 * Timing of a scenario's (or a turn's) streams; each key overrides the
 * server's, unless `recorded` marks it as a recorded pace, which the server's
 * options and the request's headers override (src/timing/profile.ts).
 */
export const ScenarioTiming = z
  .strictObject({
    recorded: z
      .boolean()
      .optional()
      .describe(
        "Set by `proxy --record`: this is a recorded pace, the replay's default. Timing given to the server (a flag or option) or by a request header overrides it, and a chunk pace so given (even 0) also replaces the turn's per-step delays.",
      ),
    latencyMs: z.number().min(0).max(3_600_000).optional().describe("Time to the first byte, in ms."),
    chunkMs: z.number().min(0).max(3_600_000).optional().describe("Pause between events, in ms."),
    jitterMs: z.number().min(0).max(3_600_000).optional().describe("Each pause varies by up to ± this, from the seed."),
    tokensPerSecond: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .describe("Pace text deltas at this rate instead of chunkMs."),
    heartbeatMs: z
      .number()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe("Send ': keep-alive' after this many idle ms; 0 = never."),
  })
  .describe("Timing (see the README's timing section).");

/** Ways a stream breaks. */
export const Fault = z
  .strictObject({
    dropAfterEvents: z.number().int().min(0).optional().describe("Close the connection right after this many events."),
    dropAfterMs: z
      .number()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe("Close the connection this many ms after the request."),
    stall: z
      .strictObject({ afterEvents: z.number().int().min(0), ms: z.number().min(0).max(3_600_000) })
      .optional()
      .describe("Send nothing (not even heartbeats) for `ms` after `afterEvents` events."),
    hangAfterEvents: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe("Stop after this many events and never finish; heartbeats go on until the client leaves."),
    splitUtf8: z
      .boolean()
      .optional()
      .describe(
        "Split the SSE stream's network writes in the middle of a multi-byte UTF-8 character, so that a client reads a character's bytes in two reads (the bytes of the whole stream are unchanged; paced streams only: each write goes out at its event's time).",
      ),
  })
  .describe("Faults of the stream.");

export const MatchRules = z
  .strictObject({
    contains: z.string().min(1).optional().describe("The last user message contains this text (case-insensitive)."),
    matches: z
      .string()
      .min(1)
      .refine((p) => {
        try {
          new RegExp(p, "u");
          return true;
        } catch {
          return false;
        }
      }, "is not a valid regular expression")
      // An assertion only for validators that check formats (SEMANTIC_RULES).
      .meta({ format: "regex" })
      .optional()
      .describe("The last user message matches this regular expression (JavaScript syntax, 'u' flag)."),
    model: z.string().min(1).optional().describe("The request's model equals this."),
    tool: z.string().min(1).optional().describe("A function tool with this name is offered."),
    afterToolOutput: z.boolean().optional().describe("Whether the last input item is a function_call_output."),
    metadata: z.record(z.string(), z.string()).optional().describe("The request's metadata has these key/value pairs."),
  })
  .describe("All rules given must hold for the scenario to be chosen.");

/**
 * What the next request of the same conversation must show (docs/scenarios.md,
 * "Expectations"): each key one rule, all of which must hold. Judged by
 * src/scenario/expect.ts and reported by `GET /__mock/verify`.
 */
export const ExpectRules = z
  .strictObject({
    tool_outputs: z
      .literal(true)
      .optional()
      .describe("A function_call_output for every call_id this turn made, all in the next request."),
    reasoning_returned: z
      .literal(true)
      .optional()
      .describe(
        "When the next request has store: false, it carries this turn's reasoning items (by id) with their encrypted_content.",
      ),
    continues: z
      .literal(true)
      .optional()
      .describe(
        "The next request carries previous_response_id of this response, or the history including this turn's output items.",
      ),
    waits_ms: z
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe("The next request arrives no sooner than this many ms after this answer ended."),
    no_retry_ms: z
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe("No request of the session with the same body as this turn's request arrives within this many ms."),
    within_ms: z
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe(
        "How long to wait for the next request before its rules are unmet rather than pending. Default: forever.",
      ),
    match: MatchRules.optional().describe("The selection rules' form: all given must hold on the next request."),
  })
  .describe("What the next request of the same conversation must show: each key one rule, all must hold.");

export const Turn = z
  .strictObject({
    steps: z.array(Step).default([]).describe("The output items (and vendor events), in order."),
    end: End.optional(),
    timing: ScenarioTiming.optional(),
    fault: Fault.optional(),
    expect: ExpectRules.optional(),
  })
  // Not in JSON Schema (SEMANTIC_RULES): it cannot relate an item to the ones after it.
  .refine(
    (t) =>
      t.steps.every(
        (step, i) =>
          step.type !== "vendor_item" ||
          step.item.status !== "incomplete" ||
          t.steps.slice(i + 1).every((later) => later.type === "vendor_event"),
      ),
    "an incomplete vendor_item must be the turn's last item (only the last item may end incomplete)",
  )
  .describe("The answer to one request.");

/** `[min, max]`; min <= max is not in JSON Schema (SEMANTIC_RULES): it cannot compare two values. */
const range = (max: number) =>
  z
    .tuple([z.number().int().min(0).max(max), z.number().int().min(0).max(max)])
    .refine(([a, b]) => a <= b, "a range is [min, max] with min <= max");

/** The kinds of answer `random` draws, each with a relative weight. */
const Weights = z.strictObject({
  text: z.number().min(0).optional(),
  tool_calls: z.number().min(0).optional(),
  reasoning_text: z.number().min(0).optional(),
  refusal: z.number().min(0).optional(),
  incomplete: z.number().min(0).optional(),
  failure: z.number().min(0).optional(),
  vendor_item: z.number().min(0).optional(),
});

export const RandomSettings = z
  .strictObject({
    weights: Weights.refine((w) => Object.values(w).some((v) => (v ?? 0) > 0), "at least one weight must be above 0")
      .meta({
        anyOf: Object.keys(Weights.shape).map((kind) => ({
          required: [kind],
          properties: { [kind]: { type: "number", exclusiveMinimum: 0 } },
        })),
      })
      .optional()
      .describe("Relative weights of the kinds of answer. Default: all 1."),
    sentences: range(200).optional().describe("Sentences per text, [min, max]. Default [1, 4]."),
    toolCalls: range(128).optional().describe("Tool calls per tool-call answer, [min, max]. Default [1, 3]."),
    chunkTokens: range(10_000).optional().describe("Tokens per delta, [min, max]. Default [1, 3]."),
    failAfterEvents: range(1_000_000)
      .optional()
      .describe("Where a failure cuts the stream, [min, max]. Default [2, 12]."),
  })
  .describe("Seeded-random generation: each answer is drawn from the seed.");

export const Generate = z
  .discriminatedUnion("strategy", [
    z.strictObject({ strategy: z.literal("auto") }).describe("Behave like a plausible model (the built-in 'auto')."),
    z.strictObject({ strategy: z.literal("random"), ...RandomSettings.shape }).describe(RandomSettings.description!),
  ])
  .describe(
    "Seeded generation instead of scripted turns: 'auto' (a plausible model) or 'random' (drawn from the seed).",
  );

export const SCENARIO_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const Scenario = z
  .strictObject({
    $schema: z
      .string()
      .optional()
      .describe(
        "Where this schema is, for editors: e.g. 'node_modules/openresponses-mock/scenario.schema.json'. Ignored by the server.",
      ),
    name: z
      .string()
      .regex(SCENARIO_NAME, "must be 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit")
      .describe(
        "What selects the scenario (x-mock-scenario, --scenario): 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit.",
      ),
    description: z
      .string()
      .min(1, "describe the scenario in one line, or leave 'description' out")
      .optional()
      .describe("One line on what the scenario does, shown by `list`. Optional."),
    model: z.string().min(1).optional().describe("The model name reported in responses. Default: the request's model."),
    match: MatchRules.optional(),
    timing: ScenarioTiming.optional(),
    fault: Fault.optional(),
    turns: z
      .array(Turn)
      .min(1, "a scripted scenario needs at least one turn")
      .optional()
      .describe(
        "Scripted answers; turn N answers a request whose conversation already holds N assistant turns (the last turn repeats).",
      ),
    generate: Generate.optional(),
  })
  .refine(
    (s) => (s.turns === undefined) !== (s.generate === undefined),
    "give exactly one of 'turns' (scripted) or 'generate' (seeded)",
  )
  .meta({ oneOf: [{ required: ["turns"] }, { required: ["generate"] }] });

export type Scenario = z.output<typeof Scenario>;
export type ScenarioInput = z.input<typeof Scenario>;
export type Turn = z.output<typeof Turn>;
export type Step = z.output<typeof Step>;
export type HostedStep = Extract<Step, { type: (typeof HOSTED_STEP_TYPES)[number] }>;
export type End = z.output<typeof End>;
export type MatchRules = z.output<typeof MatchRules>;
export type ExpectRules = z.output<typeof ExpectRules>;
export type RandomSettings = z.output<typeof RandomSettings>;
export type Chunking = z.output<typeof Chunking>;
export type ScenarioTiming = z.output<typeof ScenarioTiming>;
export type Fault = z.output<typeof Fault>;
