/**
 * Compaction (`POST /v1/responses/compact`): a conversation becomes its user
 * messages plus one `compaction` item whose opaque `encrypted_content` holds
 * the whole conversation, so a later request that carries the item continues
 * it. Deterministic: the same conversation gives the same bytes.
 */
import { z } from "zod";
import {
  ItemParam,
  invalidRequest,
  nestsDeeperThan,
  type CompactionItem,
  type OutputItem,
  type Usage,
} from "../spec/index.js";
import { base64UrlDecode, base64UrlEncode, hashString } from "./hash.js";
import { countInputTokens } from "./input-tokens.js";
import { countTokens } from "./tokens.js";

/** Marks compaction content that this server made (and can expand again). */
export const COMPACTION_PREFIX = "orm.cmp.v1.";

export interface CompactResource {
  id: string;
  object: "response.compaction";
  created_at: number;
  output: OutputItem[];
  usage: Usage;
}

const encode = (items: readonly ItemParam[]) => COMPACTION_PREFIX + base64UrlEncode(JSON.stringify(items));

const forged = () =>
  invalidRequest(
    "input",
    "A compaction item's encrypted_content was not made by this server (or was altered). Send it back exactly as /v1/responses/compact returned it.",
    "invalid_compaction",
  );

/** The conversation a compaction item holds; null for one made elsewhere; a 400 for a forged one. */
function decode(content: string): ItemParam[] | null {
  if (!content.startsWith(COMPACTION_PREFIX)) return null;
  let value: unknown;
  try {
    value = JSON.parse(base64UrlDecode(content.slice(COMPACTION_PREFIX.length)));
  } catch {
    throw forged();
  }
  if (nestsDeeperThan(value)) throw forged();
  const items = z.array(ItemParam).safeParse(value);
  if (!items.success) throw forged();
  return items.data;
}

const userText = (item: ItemParam) => {
  const content = (item as { content?: unknown }).content;
  if (typeof content === "string") return [{ type: "input_text" as const, text: content }];
  return ((content as { type: string; text?: string }[]) ?? [])
    .filter((p) => p.type === "input_text")
    .map((p) => ({ type: "input_text" as const, text: p.text ?? "" }));
};

/** Compacts a conversation (its items already carry ids). */
export function compactConversation(
  items: readonly ItemParam[],
  init: { id: string; createdAt: number; instructions?: string | null },
): CompactResource {
  const kept: OutputItem[] = items
    .filter((i) => i.type === "message" && (i as { role?: string }).role === "user")
    .map((i) => ({
      type: "message",
      id: (i as { id: string }).id,
      status: "completed",
      role: "user",
      content: userText(i),
    }));
  const encrypted = encode(items);
  const compaction: CompactionItem = {
    type: "compaction",
    id: `cmp_${hashString(encrypted, 24)}`,
    encrypted_content: encrypted,
    created_by: "openresponses-mock",
  };
  const input = countInputTokens({ instructions: init.instructions }, items);
  const output = kept.reduce((n, m) => n + countTokens(JSON.stringify((m as { content: unknown }).content)), 0) + 16;
  return {
    id: init.id,
    object: "response.compaction",
    created_at: init.createdAt,
    output: [...kept, compaction],
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + output,
    },
  };
}

/**
 * Replaces each compaction item this server made with the conversation it
 * holds (dropping the messages that were kept beside it, which it holds too).
 * Compaction items from elsewhere stay as they are.
 */
export function expandCompactions(items: readonly ItemParam[]): ItemParam[] {
  if (!items.some((i) => i.type === "compaction")) return [...items];
  const expanded: ItemParam[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const decoded =
      item.type === "compaction" ? decode((item as { encrypted_content: string }).encrypted_content) : null;
    if (!decoded) {
      expanded.push(item);
      continue;
    }
    const inner = expandCompactions(decoded);
    const ids = new Set(inner.map((i) => (i as { id?: string }).id).filter(Boolean));
    // The kept copies of these messages came just before the compaction item: drop them.
    for (let k = expanded.length - 1; k >= 0; k--) {
      const id = (expanded[k] as { id?: string }).id;
      if (id && ids.has(id) && !seen.has(id)) expanded.splice(k, 1);
    }
    for (const i of inner) {
      const id = (i as { id?: string }).id;
      if (id) seen.add(id);
      expanded.push(i);
    }
  }
  return expanded;
}
