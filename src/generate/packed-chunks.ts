/**
 * A compact form of a long list of deltas: their text joined once, and where
 * each one ends. A 1,000-delta answer as an array holds 1,000 small strings
 * (about 32 bytes each, with the array); packed it holds one string and a
 * typed array (a few bytes per delta). The store keeps its plans for as long
 * as it keeps their responses, and an open stream keeps its plan until it
 * ends: long answers are kept packed (`packPlan`). Pure.
 */
import type { Plan, PlanItem } from "./plan.js";

/** A packed list of deltas; reads like the array it replaces (length, index, iteration, join). */
export class PackedChunks implements Iterable<string> {
  /** The deltas joined. */
  readonly text: string;
  /** Where delta `i` ends in `text` (it starts where the one before ends). */
  private readonly ends: Uint32Array | Uint16Array;

  /**
   * @param text the deltas joined, when the caller has it: `chunks` must be
   *   this very text cut in order (as the chunkers cut it). Kept as it is, not
   *   joined again: a scripted step's text is then one string for all of its
   *   answers, not a copy per answer.
   */
  constructor(chunks: readonly string[], text?: string) {
    let total = 0;
    for (let i = 0; i < chunks.length; i++) total += chunks[i].length;
    this.text = text !== undefined && text.length === total ? text : chunks.join("");
    this.ends = this.text.length <= 0xffff ? new Uint16Array(chunks.length) : new Uint32Array(chunks.length);
    let end = 0;
    for (let i = 0; i < chunks.length; i++) this.ends[i] = end += chunks[i].length;
  }

  get length(): number {
    return this.ends.length;
  }

  /** Delta `i` (undefined outside the list). */
  at(i: number): string | undefined {
    if (i < 0 || i >= this.ends.length) return undefined;
    return this.text.slice(i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }

  /** The first `n` deltas joined (a slice of the joined text: no copy of each). */
  prefix(n: number): string {
    return n <= 0 ? "" : this.text.slice(0, this.ends[Math.min(n, this.ends.length) - 1]);
  }

  join(separator = ""): string {
    return separator === "" ? this.text : [...this].join(separator);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0, start = 0; i < this.ends.length; start = this.ends[i++]) yield this.text.slice(start, this.ends[i]);
  }

  /** The deltas as an array again. */
  toJSON(): string[] {
    return [...this];
  }
}

/** A plan's list of deltas: an array as planned, or packed. */
export type Chunks = string[] | PackedChunks;

/** The first `n` deltas of a list joined. */
export const chunkPrefix = (chunks: Chunks, n: number): string =>
  chunks instanceof PackedChunks ? chunks.prefix(n) : n === 1 ? chunks[0] : chunks.slice(0, n).join("");

/** Lists of at least this many deltas are packed: below it an array costs little, and packing costs time. */
export const PACK_MIN_CHUNKS = 64;

const pack = (chunks: Chunks): Chunks =>
  Array.isArray(chunks) && chunks.length >= PACK_MIN_CHUNKS ? new PackedChunks(chunks) : chunks;

function packItem(item: PlanItem): PlanItem {
  switch (item.kind) {
    case "message":
      return item.parts.some((p) => Array.isArray(p.chunks) && p.chunks.length >= PACK_MIN_CHUNKS)
        ? { ...item, parts: item.parts.map((p) => ({ ...p, chunks: pack(p.chunks) })) }
        : item;
    case "function_call":
      return { ...item, chunks: pack(item.chunks) };
    case "reasoning":
      return { ...item, summary: item.summary.map(pack), ...(item.content ? { content: item.content.map(pack) } : {}) };
    default:
      return item;
  }
}

/** Whether a plan has a long list of deltas packed (`packPlan`): a long answer. */
export function isPacked(plan: Plan): boolean {
  const packed = (c: Chunks) => c instanceof PackedChunks;
  return plan.items.some((it) =>
    it.kind === "message"
      ? it.parts.some((p) => packed(p.chunks))
      : it.kind === "function_call"
        ? packed(it.chunks)
        : it.kind === "reasoning"
          ? it.summary.some(packed) || (it.content ?? []).some(packed)
          : false,
  );
}

/**
 * The plan with its long lists of deltas packed (the same plan when none is
 * long): it emits the same events. Short answers are left as they are.
 */
export function packPlan(plan: Plan): Plan {
  const long = (c: Chunks) => Array.isArray(c) && c.length >= PACK_MIN_CHUNKS;
  const needs = plan.items.some((it) =>
    it.kind === "message"
      ? it.parts.some((p) => long(p.chunks))
      : it.kind === "function_call"
        ? long(it.chunks)
        : it.kind === "reasoning"
          ? it.summary.some(long) || (it.content ?? []).some(long)
          : false,
  );
  return needs ? { ...plan, items: plan.items.map(packItem) } : plan;
}
