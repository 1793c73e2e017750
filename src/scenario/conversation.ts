/**
 * Reading a conversation: the request's input (and, later, its
 * previous_response_id chain) as one list of items, and the facts scenarios
 * decide on — the last user text, trailing tool outputs, assistant turns.
 */
import type { CreateResponseBody, ItemParam } from "../spec/index.js";

/** A plain-string input is one user message. */
export function inputItems(input: CreateResponseBody["input"]): ItemParam[] {
  return typeof input === "string" ? [{ type: "message", role: "user", content: input }] : input;
}

type ContentLike = string | readonly { type: string; text?: string; refusal?: string }[];

/** The text of a message's or a tool output's content (text parts joined by newlines). */
export function contentText(content: ContentLike | unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: { type?: string; text?: unknown; refusal?: unknown }) =>
      typeof p?.text === "string" ? p.text : typeof p?.refusal === "string" ? p.refusal : "",
    )
    .filter((t) => t.length > 0)
    .join("\n");
}

/** The text of the last user message, or "" when there is none. */
export function lastUserText(items: readonly ItemParam[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as { type: string; role?: string; content?: unknown };
    if (item.type === "message" && item.role === "user") return contentText(item.content);
  }
  return "";
}

/** A tool's result sent back by the client, with the text a model would read: a function's or a custom tool's output. */
export type ToolOutputItem = Extract<ItemParam, { type: "function_call_output" | "custom_tool_call_output" }>;

const isToolOutput = (item: ItemParam): item is ToolOutputItem =>
  item.type === "function_call_output" || item.type === "custom_tool_call_output";

/** The function (and custom tool) outputs at the end of the conversation, in order. */
export function trailingToolOutputs(items: readonly ItemParam[]): ToolOutputItem[] {
  const out: ToolOutputItem[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (!isToolOutput(item)) break;
    out.unshift(item);
  }
  return out;
}

/** The function calls (and custom tool calls, their `input` as arguments) in a conversation, by `call_id`. */
export function callsById(items: readonly ItemParam[]): Map<string, { name: string; arguments: string }> {
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const item of items) {
    if (item.type === "function_call") calls.set(item.call_id, { name: item.name, arguments: item.arguments });
    else if (item.type === "custom_tool_call") calls.set(item.call_id, { name: item.name, arguments: item.input });
  }
  return calls;
}

/** The model's side of a turn besides assistant messages: its reasoning and its calls, hosted-tool calls (run by the server) included. */
const MODEL_ITEM_TYPES: ReadonlySet<string> = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "web_search_call",
  "file_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "computer_call",
  "local_shell_call",
  "shell_call",
  "apply_patch_call",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "tool_search_call",
]);

/** Whether an item is model output: an assistant message, a call, reasoning, or a tool search the server ran. */
export function isModelItem(item: ItemParam): boolean {
  const it = item as { type: string; role?: string; execution?: unknown };
  if (it.type === "message") return it.role === "assistant";
  if (it.type === "tool_search_output") return it.execution === "server";
  // The spec dialect sends OpenAI's hosted calls as `openai:`-prefixed vendor items (generate/hosted.ts).
  return MODEL_ITEM_TYPES.has(it.type.startsWith("openai:") ? it.type.slice(7) : it.type);
}

/**
 * The number of assistant turns already in the conversation: runs of model
 * output (assistant messages, calls, reasoning) separated by anything else
 * (user input, tool outputs) count once each.
 */
export function assistantTurns(items: readonly ItemParam[]): number {
  let turns = 0;
  let inTurn = false;
  for (const item of items) {
    const model = isModelItem(item);
    if (model && !inTurn) turns++;
    inTurn = model;
  }
  return turns;
}
