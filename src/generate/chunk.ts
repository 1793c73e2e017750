/** Splitting text into the deltas that stream it. */
import type { Rng } from "./rng.js";
import { tokenize } from "./tokens.js";

/**
 * Groups the tokens of `text` into deltas of `min`..`max` tokens each (drawn
 * from the rng). The deltas always join back to `text`; an empty text gives
 * no delta.
 */
export function chunkText(text: string, rng: Rng, min = 1, max = 3): string[] {
  const pieces = tokenize(text);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; ) {
    const n = Math.max(1, min === max ? min : rng.int(min, max));
    out.push(pieces.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

/** Splits text into deltas of exactly `size` characters (the last may be shorter). */
export function chunkChars(text: string, size: number): string[] {
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}
