/**
 * `previous_response_id`: the conversation a request continues is the chain's
 * earlier input and output, then the new input, in that order. Pure over the
 * store interface.
 */
import { hashString } from "../generate/hash.js";
import { expandCompactions } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { ApiError, type CreateResponseBody, type ItemParam, type OutputItem } from "../spec/index.js";
import { copyWith } from "../util/copy-with.js";
import type { ResponseStore } from "./response-store.js";

/** An output item as it is replayed as input (output items already fit the input union). */
export const outputAsInput = (item: OutputItem): ItemParam => item as unknown as ItemParam;

export const previousNotFound = (id: string, detail = "") =>
  new ApiError({
    status: 400,
    type: "invalid_request",
    code: "previous_response_not_found",
    param: "previous_response_id",
    message: `Previous response with id '${id.slice(0, 80)}' not found${detail}. It may never have existed, been stored with store: false, deleted, or evicted (see --store-limit).`,
  });

/**
 * The items before a request's own input: every earlier response's input
 * and output, oldest first. Throws `previous_response_not_found` when the id,
 * or an ancestor it needs, is not in the store.
 */
export function priorItems(
  store: Pick<ResponseStore, "get">,
  previousResponseId: string,
  maxDepth = 10_000,
): ItemParam[] {
  const chain: { input: ItemParam[]; output: OutputItem[] }[] = [];
  let id: string | null = previousResponseId;
  const seen = new Set<string>();
  while (id !== null) {
    if (seen.has(id) || chain.length >= maxDepth) break;
    seen.add(id);
    const record = store.get(id);
    if (!record)
      throw previousNotFound(previousResponseId, id === previousResponseId ? "" : ` (its ancestor '${id}' is gone)`);
    chain.push({ input: record.input, output: record.response.output });
    id = record.response.previous_response_id;
  }
  const items: ItemParam[] = [];
  for (let i = chain.length - 1; i >= 0; i--) items.push(...chain[i].input, ...chain[i].output.map(outputAsInput));
  return items;
}

/**
 * The whole conversation of a request: the previous_response_id chain (as
 * `lookup` sees the store: a session's view, a WebSocket connection's cache
 * first), then its input; compactions expanded.
 */
export function conversationOf(
  lookup: Pick<ResponseStore, "get">,
  request: { input?: CreateResponseBody["input"] | null; previous_response_id?: string | null },
): ItemParam[] {
  const prior = request.previous_response_id ? priorItems(lookup, request.previous_response_id) : [];
  return expandCompactions([...prior, ...(request.input == null ? [] : inputItems(request.input))]);
}

const ID_PREFIX: Record<string, string> = {
  message: "msg",
  function_call: "fc",
  function_call_output: "fco",
  reasoning: "rs",
  compaction: "cmp",
};

/**
 * Gives every input item an id, as a stored response's input items have:
 * items that came with one keep it; the others get a deterministic one.
 */
export function withItemIds(items: readonly ItemParam[], responseId: string): ItemParam[] {
  return items.map((item, i) => {
    const it = item as ItemParam & { id?: string | null };
    if (typeof it.id === "string" && it.id.length > 0) return item;
    const prefix = ID_PREFIX[it.type] ?? "item";
    // Not `{ ...it, id }`: that copy would keep a V8 map of its own with every stored item.
    return copyWith(it, { id: `${prefix}_${hashString(`${responseId}:input:${i}`, 24)}` }) as ItemParam;
  });
}

type Part = Record<string, unknown> & { type: string };

/** An input item in the output form that `GET …/input_items` lists (ids, statuses, content parts). */
export function asListedItem(item: ItemParam): Record<string, unknown> {
  const it = item as unknown as Record<string, unknown> & { type: string };
  switch (it.type) {
    case "message": {
      const role = it.role as string;
      const content =
        typeof it.content === "string"
          ? [
              role === "assistant"
                ? { type: "output_text", text: it.content, annotations: [] }
                : { type: "input_text", text: it.content },
            ]
          : (it.content as Part[]).map((p) => {
              if (p.type === "input_image")
                return { type: "input_image", image_url: p.image_url ?? null, detail: p.detail ?? "auto" };
              if (p.type === "input_file") {
                const { file_data: _omit, ...rest } = p;
                return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
              }
              if (p.type === "output_text") return { ...p, annotations: p.annotations ?? [] };
              return p;
            });
      const out: Record<string, unknown> = { type: "message", id: it.id, status: "completed", role, content };
      if (it.phase) out.phase = it.phase;
      return out;
    }
    case "function_call":
    case "function_call_output":
    case "custom_tool_call":
    case "custom_tool_call_output":
      return { ...it, status: it.status ?? "completed" };
    default:
      return { ...it };
  }
}
