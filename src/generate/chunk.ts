/** Splitting text into the deltas that stream it. */
import type { Rng } from "./rng.js";
import { tokenEnd } from "./tokens.js";

/**
 * Groups the tokens of `text` into deltas of `min`..`max` tokens each (drawn
 * from the rng). The deltas always join back to `text`; an empty text gives
 * no delta.
 */
export function chunkText(text: string, rng: Rng, min = 1, max = 3): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = Math.max(1, min === max ? min : rng.int(min, max));
    let end = i;
    for (let k = 0; k < n && end < text.length; k++) end = tokenEnd(text, end);
    out.push(text.slice(i, end));
    i = end;
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
