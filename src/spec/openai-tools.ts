/**
 * The tools OpenAI accepts beyond the spec's function tools: its hosted tools
 * (web search, file search, code interpreter, image generation, computer use,
 * MCP), the client-run ones (shells, apply_patch, custom), `namespace` groups
 * and `tool_search`; and the `tool_choice` forms that name them. Each is
 * checked for the fields that matter (names, required keys, enums) and kept
 * whole otherwise: shapes are large and still growing. They are accepted by
 * default, not with `--strict`; the server echoes them and never calls them.
 */
import { z } from "zod";
import { FunctionName, JsonSchemaObject, ToolChoiceValue } from "./common.js";
import { byKind, tagged } from "./tagged.js";
import {
  AllowedToolChoice,
  AllowedToolsParam,
  FunctionTool,
  FunctionToolChoice,
  FunctionToolParam,
  SpecificFunctionParam,
  VendorToolParam,
  toolChoiceParam,
} from "./tools.js";

const ContextSize = z.enum(["low", "medium", "high"]);

const UserLocation = z.looseObject({
  type: z.literal("approximate").optional(),
  city: z.string().nullish(),
  country: z.string().nullish(),
  region: z.string().nullish(),
  timezone: z.string().nullish(),
});

export const WebSearchToolParam = z.looseObject({
  type: z.enum(["web_search", "web_search_2025_08_26"]),
  filters: z.looseObject({ allowed_domains: z.array(z.string()).nullish() }).nullish(),
  search_context_size: ContextSize.optional(),
  user_location: UserLocation.nullish(),
  external_web_access: z.boolean().optional(),
});

export const WebSearchPreviewToolParam = z.looseObject({
  type: z.enum(["web_search_preview", "web_search_preview_2025_03_11"]),
  search_context_size: ContextSize.optional(),
  search_content_types: z.array(z.enum(["text", "image"])).optional(),
  user_location: UserLocation.nullish(),
});

export const FileSearchToolParam = z.looseObject({
  type: z.literal("file_search"),
  vector_store_ids: z.array(z.string()),
  max_num_results: z.number().int().min(1).max(50).optional(),
  filters: z.record(z.string(), z.unknown()).nullish(),
  ranking_options: z
    .looseObject({ ranker: z.string().optional(), score_threshold: z.number().min(0).max(1).optional() })
    .optional(),
});

export const CodeInterpreterToolParam = z.looseObject({
  type: z.literal("code_interpreter"),
  container: byKind(
    {
      string: z.string().min(1),
      object: z.looseObject({
        type: z.string(),
        file_ids: z.array(z.string()).optional(),
        memory_limit: z.enum(["1g", "4g", "16g", "64g"]).nullish(),
      }),
    },
    "a container id or {type: 'auto', …}",
  ),
});

export const ImageGenerationToolParam = z.looseObject({
  type: z.literal("image_generation"),
  action: z.enum(["generate", "edit", "auto"]).optional(),
  background: z.enum(["transparent", "opaque", "auto"]).optional(),
  input_fidelity: z.enum(["high", "low"]).nullish(),
  model: z.string().optional(),
  moderation: z.enum(["auto", "low"]).optional(),
  output_compression: z.number().int().min(0).max(100).optional(),
  output_format: z.enum(["png", "webp", "jpeg"]).optional(),
  partial_images: z.number().int().min(0).max(3).optional(),
  quality: z.enum(["low", "medium", "high", "auto"]).optional(),
  size: z.string().optional(),
});

export const ComputerUsePreviewToolParam = z.looseObject({
  type: z.literal("computer_use_preview"),
  display_width: z.number().int().min(1),
  display_height: z.number().int().min(1),
  environment: z.enum(["windows", "mac", "linux", "ubuntu", "browser"]),
});

export const ComputerToolParam = z.looseObject({ type: z.literal("computer") });

export const McpToolParam = z
  .looseObject({
    type: z.literal("mcp"),
    server_label: z.string().min(1),
    server_url: z.string().min(1).optional(),
    connector_id: z.string().min(1).optional(),
    server_description: z.string().optional(),
    allowed_tools: byKind(
      {
        array: z.array(z.string()),
        object: z.looseObject({ tool_names: z.array(z.string()).optional(), read_only: z.boolean().optional() }),
      },
      "a list of tool names or a filter object",
    ).nullish(),
    require_approval: byKind(
      { string: z.enum(["always", "never"]), object: z.record(z.string(), z.unknown()) },
      "'always', 'never' or a filter object",
    ).nullish(),
    headers: z.record(z.string(), z.string()).nullish(),
    authorization: z.string().optional(),
    defer_loading: z.boolean().optional(),
  })
  .superRefine((tool, ctx) => {
    if (tool.server_url === undefined && tool.connector_id === undefined) {
      ctx.addIssue({
        code: "invalid_value",
        values: [],
        input: undefined,
        path: ["server_url"],
        message: "is required: an MCP tool needs server_url or connector_id",
      });
    }
  });

export const LocalShellToolParam = z.looseObject({ type: z.literal("local_shell") });

export const ShellToolParam = z.looseObject({
  type: z.literal("shell"),
  environment: z.looseObject({ type: z.string() }).nullish(),
});

export const ApplyPatchToolParam = z.looseObject({ type: z.literal("apply_patch") });

/** The input format of a custom tool: free text, or a Lark or regex grammar. */
export const CustomToolFormat = tagged("type", {
  text: z.looseObject({ type: z.literal("text") }),
  grammar: z.looseObject({ type: z.literal("grammar"), syntax: z.enum(["lark", "regex"]), definition: z.string() }),
});

/** A freeform tool: the model sends it raw text (`custom_tool_call.input`), not JSON arguments. */
export const CustomToolParam = z.looseObject({
  type: z.literal("custom"),
  name: FunctionName,
  description: z.string().nullish(),
  format: CustomToolFormat.optional(),
  defer_loading: z.boolean().optional(),
});

/** A function inside a namespace (kept as sent, unlike a top-level function tool). */
export const NamespaceFunctionParam = z.looseObject({
  type: z.literal("function"),
  name: FunctionName,
  description: z.string().nullish(),
  parameters: JsonSchemaObject.nullish(),
  strict: z.boolean().nullish(),
  defer_loading: z.boolean().optional(),
});

/** Function and custom tools grouped under one name (Codex CLI sends its MCP servers' tools so). */
export const NamespaceToolParam = z.looseObject({
  type: z.literal("namespace"),
  name: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[a-zA-Z0-9_-]+$/, "must match ^[a-zA-Z0-9_-]+$"),
  description: z.string(),
  tools: z.array(tagged("type", { function: NamespaceFunctionParam, custom: CustomToolParam })),
});

/** Tool search over deferred tools, run by the server or (`execution: "client"`) by the client. */
export const ToolSearchToolParam = z.looseObject({
  type: z.literal("tool_search"),
  execution: z.string().optional(),
  description: z.string().nullish(),
  parameters: JsonSchemaObject.nullish(),
});

/** OpenAI's tool types beyond `function`, by type. */
export const OpenAIToolParams = {
  web_search: WebSearchToolParam,
  web_search_2025_08_26: WebSearchToolParam,
  web_search_preview: WebSearchPreviewToolParam,
  web_search_preview_2025_03_11: WebSearchPreviewToolParam,
  file_search: FileSearchToolParam,
  code_interpreter: CodeInterpreterToolParam,
  image_generation: ImageGenerationToolParam,
  computer: ComputerToolParam,
  computer_use_preview: ComputerUsePreviewToolParam,
  mcp: McpToolParam,
  local_shell: LocalShellToolParam,
  shell: ShellToolParam,
  apply_patch: ApplyPatchToolParam,
  custom: CustomToolParam,
  namespace: NamespaceToolParam,
  tool_search: ToolSearchToolParam,
};

export const OPENAI_TOOL_TYPES = Object.keys(OpenAIToolParams) as (keyof typeof OpenAIToolParams)[];

/** A tool the server accepts by default: a function, one of OpenAI's, or a vendor tool. */
export const ToolParam = tagged(
  "type",
  { function: FunctionToolParam, ...OpenAIToolParams },
  { vendor: VendorToolParam },
);

/** An OpenAI tool as it is echoed in a response's `tools`: as it was sent. */
export const OpenAITool = z.looseObject({ type: z.enum(OPENAI_TOOL_TYPES) });

// ---- tool_choice ------------------------------------------------------------------------

/** The tool types a `{"type": …}` tool_choice may name on its own (OpenAI's hosted and built-in tools). */
export const HOSTED_TOOL_CHOICE_TYPES = [
  "file_search",
  "web_search",
  "web_search_2025_08_26",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "computer",
  "computer_use",
  "computer_use_preview",
  "code_interpreter",
  "image_generation",
  "local_shell",
  "shell",
  "apply_patch",
  "tool_search",
] as const;

export const HostedToolChoiceParam = z.object({ type: z.enum(HOSTED_TOOL_CHOICE_TYPES) });
export const McpToolChoiceParam = z.object({
  type: z.literal("mcp"),
  server_label: z.string().min(1),
  name: z.string().nullish(),
});
export const CustomToolChoiceParam = z.object({ type: z.literal("custom"), name: FunctionName });

const hostedChoices = Object.fromEntries(HOSTED_TOOL_CHOICE_TYPES.map((t) => [t, HostedToolChoiceParam])) as Record<
  (typeof HOSTED_TOOL_CHOICE_TYPES)[number],
  typeof HostedToolChoiceParam
>;

/** One entry of an `allowed_tools` list: a named function, or another tool by its type. */
export type AllowedToolEntry =
  z.infer<typeof SpecificFunctionParam> | { type: (typeof OPENAI_TOOL_TYPES)[number]; [key: string]: unknown };

const AllowedToolEntry = tagged("type", {
  function: SpecificFunctionParam,
  custom: CustomToolChoiceParam,
  mcp: z.looseObject({ type: z.literal("mcp"), server_label: z.string().min(1) }),
  ...Object.fromEntries(
    OPENAI_TOOL_TYPES.filter((t) => t !== "custom" && t !== "mcp").map((t) => [
      t,
      z.looseObject({ type: z.literal(t) }),
    ]),
  ),
}) as z.ZodType<AllowedToolEntry, unknown>;

/** `allowed_tools` whose list may name OpenAI's tools too (`{"type":"mcp","server_label":…}`, `{"type":"image_generation"}`). */
export const OpenAIAllowedToolsParam = AllowedToolsParam.extend({ tools: z.array(AllowedToolEntry).min(1).max(128) });

/** The tool_choice the server accepts by default: the spec's forms, plus OpenAI's hosted, `mcp` and `custom` choices. */
export const ToolChoiceParam = toolChoiceParam(
  tagged("type", {
    function: SpecificFunctionParam,
    allowed_tools: OpenAIAllowedToolsParam,
    mcp: McpToolChoiceParam,
    custom: CustomToolChoiceParam,
    ...hostedChoices,
  }),
  `{"type":"function","name":…}, {"type":"allowed_tools",…}, {"type":"custom","name":…}, {"type":"mcp","server_label":…} or a hosted tool type`,
);

// ---- response side ----------------------------------------------------------------------

/** A hosted, `mcp` or `custom` tool_choice echoed in a response, as sent. */
export const OpenAIToolChoice = z.union([HostedToolChoiceParam, McpToolChoiceParam, CustomToolChoiceParam]);

/** An `allowed_tools` choice echoed: functions by name, other tools as sent. */
export const OpenAIAllowedToolChoice = AllowedToolChoice.extend({
  tools: z.array(z.union([FunctionToolChoice, z.looseObject({ type: z.enum(OPENAI_TOOL_TYPES) })])),
});

/** A response's `tool_choice`: the spec's forms, and OpenAI's as they were sent. */
export const ToolChoice = z.union([ToolChoiceValue, FunctionToolChoice, OpenAIAllowedToolChoice, OpenAIToolChoice]);

/** A response's `tools`: functions as the spec echoes them, OpenAI's and vendor tools as sent. */
export const ResponseTool = z.union([FunctionTool, OpenAITool, VendorToolParam]);

export type ToolParam = z.infer<typeof ToolParam>;
export type ToolChoiceParam = z.infer<typeof ToolChoiceParam>;
export type OpenAIToolParam = Exclude<ToolParam, z.infer<typeof FunctionToolParam>>;
export type ToolChoice = z.infer<typeof ToolChoice>;
export type ResponseTool = z.infer<typeof ResponseTool>;
