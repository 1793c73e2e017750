/** Small, fast, dependency-free hashes for deterministic derived values. */

/** FNV-1a, 32 bit, over the UTF-16 code units of a string. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A deterministic string of `length` base-62 characters derived from `key`. */
export function hashString(key: string, length: number): string {
  let out = "";
  let h = fnv1a(key);
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    out += ALPHABET[h % 62];
  }
  return out;
}
