/** Splitting text into the deltas that stream it. */
import type { Rng } from "./rng.js";
import { countTokens, tokenEnd } from "./tokens.js";

/**
 * Groups the tokens of `text` into deltas of `min`..`max` tokens each (drawn
 * from the rng). The deltas always join back to `text`; an empty text gives
 * no delta. At most `maxDeltas` deltas: a longer text gets longer deltas.
 */
export function chunkText(text: string, rng: Rng, min = 1, max = 3, maxDeltas = Infinity): string[] {
  // Each delta has at least one character: only a text longer than maxDeltas may need more per delta.
  if (text.length > maxDeltas) {
    const least = Math.ceil(countTokens(text) / maxDeltas);
    if (least > min) [min, max] = [least, Math.max(max, least)];
  }
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const n = Math.max(1, min === max ? min : rng.int(min, max));
    let end = i;
    for (let k = 0; k < n && end < text.length; k++) end = tokenEnd(text, end);
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** Splits text into deltas of exactly `size` characters (the last may be shorter), at most `maxDeltas` of them (longer then). */
export function chunkChars(text: string, size: number, maxDeltas = Infinity): string[] {
  if (text.length > maxDeltas) size = Math.max(size, Math.ceil(text.length / maxDeltas));
  const out: string[] = [];
  let start = 0;
  let n = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    if (++n === size) {
      out.push(text.slice(start, i));
      [start, n] = [i, 0];
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/**
 * Splits text into deltas of the given sizes in characters, in order (a
 * recorded stream's own chunking); text past them goes in one last delta, and
 * sizes past the text are left unused. At most `maxDeltas` deltas (the last one longer then).
 */
export function chunkSizes(text: string, sizes: readonly number[], maxDeltas = Infinity): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  for (const size of sizes) {
    if (i >= text.length || out.length + 1 >= maxDeltas) break;
    for (let n = 0; n < size && i < text.length; n++) {
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    out.push(text.slice(start, i));
    start = i;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
