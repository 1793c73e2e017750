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

/** The `function_call_output` items at the end of the conversation, in order. */
export function trailingToolOutputs(items: readonly ItemParam[]): Extract<ItemParam, { type: "function_call_output" }>[] {
  const out: Extract<ItemParam, { type: "function_call_output" }>[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type !== "function_call_output") break;
    out.unshift(item as Extract<ItemParam, { type: "function_call_output" }>);
  }
  return out;
}

/** The function calls in a conversation, by `call_id`. */
export function callsById(items: readonly ItemParam[]): Map<string, { name: string; arguments: string }> {
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const item of items) {
    if (item.type === "function_call") {
      const call = item as Extract<ItemParam, { type: "function_call" }>;
      calls.set(call.call_id, { name: call.name, arguments: call.arguments });
    }
  }
  return calls;
}

/**
 * The number of assistant turns already in the conversation: runs of model
 * output (assistant messages, function calls, reasoning) separated by
 * anything else count once each.
 */
export function assistantTurns(items: readonly ItemParam[]): number {
  let turns = 0;
  let inTurn = false;
  for (const item of items) {
    const t = item.type as string;
    const model = (t === "message" && (item as { role?: string }).role === "assistant") || t === "function_call" || t === "reasoning";
    if (model && !inTurn) turns++;
    inTurn = model;
  }
  return turns;
}
