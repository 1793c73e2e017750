/** Strings measured and cut by their UTF-8 bytes, as bodies are sent. */

/** The UTF-8 length of a string, counted without encoding it. */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 2 code units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The longest prefix of `text` that fits in `max` UTF-8 bytes, whole characters only, as a
 * fresh string: a `slice` would keep the whole body alive (V8 shares the parent's memory).
 */
export function utf8Prefix(text: string, max: number): string {
  if (max <= 0 || text.length === 0) return "";
  let head = text.length > max ? text.slice(0, max) : text;
  // Never end on half of a surrogate pair.
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last < 0xdc00) head = head.slice(0, -1);
  const bytes = new Uint8Array(Math.min(max, head.length * 3));
  const { written } = encoder.encodeInto(head, bytes);
  return decoder.decode(bytes.subarray(0, written));
}
