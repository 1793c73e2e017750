/**
 * The input items OpenAI accepts beyond the spec's: hosted-tool calls
 * (`web_search_call`, `file_search_call`, `code_interpreter_call`,
 * `image_generation_call`, `mcp_*`), client-run tool calls and their outputs
 * (`computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
 * `custom_tool_call`, `tool_search_call`, each with its `_output`), and the
 * spec's own items with OpenAI's extra fields (a function call's `namespace`,
 * a reasoning item's `content`). Each gets a minimal check (the ids that tie
 * calls to outputs) and is otherwise kept whole, so it round-trips through
 * `previous_response_id` and `input_items` as it was sent.
 */
import { z } from "zod";
import { MAX_TEXT } from "./common.js";
import {
  FileCitationParam,
  FunctionOutputContentParam,
  OutputTextContentParam,
  RefusalContentParam,
  UrlCitationParam,
} from "./content.js";
import {
  AssistantMessageItemParam,
  DeveloperMessageItemParam,
  FunctionCallItemParam,
  ReasoningItemParam,
  SpecItemParams,
  SystemMessageItemParam,
  UserMessageItemParam,
  VendorItemParam,
  normalizeItem,
} from "./items.js";
import { byKind, tagged } from "./tagged.js";

const Id = z.string().min(1);
const item = <T extends string>(type: T) => ({
  type: z.literal(type),
  id: z.string().nullish(),
  status: z.string().nullish(),
});

/** Calls the model made with a hosted tool: identified by their `id`. */
const hostedCall = <T extends string>(type: T) => z.looseObject({ ...item(type), id: Id });
/** Calls the client runs: tied to their output by `call_id`. */
const clientCall = <T extends string>(type: T) => z.looseObject({ ...item(type), call_id: Id });

export const WebSearchCallItemParam = hostedCall("web_search_call");
export const FileSearchCallItemParam = hostedCall("file_search_call");
export const CodeInterpreterCallItemParam = hostedCall("code_interpreter_call");
export const ImageGenerationCallItemParam = hostedCall("image_generation_call");
export const McpCallItemParam = hostedCall("mcp_call");
export const McpListToolsItemParam = hostedCall("mcp_list_tools");
export const McpApprovalRequestItemParam = hostedCall("mcp_approval_request");

export const McpApprovalResponseItemParam = z.looseObject({
  ...item("mcp_approval_response"),
  approval_request_id: Id,
  approve: z.boolean(),
});

export const ComputerCallItemParam = clientCall("computer_call");
export const ComputerCallOutputItemParam = z.looseObject({
  ...item("computer_call_output"),
  call_id: Id,
  output: z.looseObject({ type: z.string() }),
});

export const LocalShellCallItemParam = clientCall("local_shell_call");
/** Its `id` is the call's `call_id`. */
export const LocalShellCallOutputItemParam = z.looseObject({
  ...item("local_shell_call_output"),
  id: Id,
  output: z.string().max(MAX_TEXT),
});

export const ShellCallItemParam = clientCall("shell_call");
export const ShellCallOutputItemParam = z.looseObject({
  ...item("shell_call_output"),
  call_id: Id,
  output: z.array(z.record(z.string(), z.unknown())),
});

export const ApplyPatchCallItemParam = clientCall("apply_patch_call");
export const ApplyPatchCallOutputItemParam = clientCall("apply_patch_call_output");

/** A call of a custom (freeform) tool: raw text `input`, not JSON arguments. */
export const CustomToolCallItemParam = z.looseObject({
  ...item("custom_tool_call"),
  call_id: Id,
  name: z.string().min(1),
  input: z.string().max(MAX_TEXT),
  namespace: z.string().optional(),
});

export const CustomToolCallOutputItemParam = z.looseObject({
  ...item("custom_tool_call_output"),
  call_id: Id,
  output: byKind(
    { string: z.string().max(MAX_TEXT), array: z.array(FunctionOutputContentParam) },
    "a string or an array of content parts",
  ),
});

export const ToolSearchCallItemParam = z.looseObject({ ...item("tool_search_call"), call_id: z.string().nullish() });
export const ToolSearchOutputItemParam = z.looseObject({
  ...item("tool_search_output"),
  call_id: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })),
});

export const AdditionalToolsItemParam = z.looseObject({
  ...item("additional_tools"),
  role: z.string().optional(),
  tools: z.array(z.looseObject({ type: z.string() })),
});

export const CompactionTriggerItemParam = z.looseObject({ type: z.literal("compaction_trigger") });

/** OpenAI's item types beyond the spec's, by type. */
export const OpenAIItemParams = {
  web_search_call: WebSearchCallItemParam,
  file_search_call: FileSearchCallItemParam,
  code_interpreter_call: CodeInterpreterCallItemParam,
  image_generation_call: ImageGenerationCallItemParam,
  computer_call: ComputerCallItemParam,
  computer_call_output: ComputerCallOutputItemParam,
  local_shell_call: LocalShellCallItemParam,
  local_shell_call_output: LocalShellCallOutputItemParam,
  shell_call: ShellCallItemParam,
  shell_call_output: ShellCallOutputItemParam,
  apply_patch_call: ApplyPatchCallItemParam,
  apply_patch_call_output: ApplyPatchCallOutputItemParam,
  mcp_call: McpCallItemParam,
  mcp_list_tools: McpListToolsItemParam,
  mcp_approval_request: McpApprovalRequestItemParam,
  mcp_approval_response: McpApprovalResponseItemParam,
  custom_tool_call: CustomToolCallItemParam,
  custom_tool_call_output: CustomToolCallOutputItemParam,
  tool_search_call: ToolSearchCallItemParam,
  tool_search_output: ToolSearchOutputItemParam,
  additional_tools: AdditionalToolsItemParam,
  compaction_trigger: CompactionTriggerItemParam,
};

/** A function call may name the namespace of its function. */
export const OpenAIFunctionCallItemParam = FunctionCallItemParam.extend({ namespace: z.string().optional() });

/**
 * An assistant message sent back as OpenAI answered it: its output_text may
 * carry OpenAI's `file_citation` (a file_search's answer) besides the spec's
 * `url_citation`.
 */
const OpenAIOutputTextContentParam = OutputTextContentParam.extend({
  annotations: z.array(tagged("type", { url_citation: UrlCitationParam, file_citation: FileCitationParam })).optional(),
});
export const OpenAIAssistantMessageItemParam = AssistantMessageItemParam.extend({
  content: byKind(
    {
      string: z.string().max(MAX_TEXT),
      array: z.array(tagged("type", { output_text: OpenAIOutputTextContentParam, refusal: RefusalContentParam })),
    },
    "a string or an array of output_text/refusal parts",
  ),
});
export const OpenAIMessageItemParam = tagged("role", {
  user: UserMessageItemParam,
  system: SystemMessageItemParam,
  developer: DeveloperMessageItemParam,
  assistant: OpenAIAssistantMessageItemParam,
});

/** OpenAI replays reasoning with its `reasoning_text` content and a status. */
export const OpenAIReasoningItemParam = ReasoningItemParam.extend({
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  status: z.string().nullish(),
});

/** An input item the server accepts by default: the spec's, OpenAI's, or a vendor item. */
export const ItemParam = tagged(
  "type",
  {
    ...SpecItemParams,
    message: OpenAIMessageItemParam,
    function_call: OpenAIFunctionCallItemParam,
    reasoning: OpenAIReasoningItemParam,
    ...OpenAIItemParams,
  },
  { vendor: VendorItemParam, normalize: normalizeItem },
);

export type ItemParam = z.infer<typeof ItemParam>;
