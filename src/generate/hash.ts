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

/** A deterministic string of `length` characters of `alphabet` (base 62 unless told) derived from `key`. */
export function hashString(key: string, length: number, alphabet = ALPHABET): string {
  return hashChars(fnv1a(key), length, alphabet);
}

/** hashString's characters from the key's FNV-1a hash (`hashString(key, n)` is `hashChars(fnv1a(key), n)`). */
export function hashChars(hash: number, length: number, alphabet = ALPHABET): string {
  let out = "";
  let h = hash;
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    out += alphabet[h % alphabet.length];
  }
  return out;
}

/**
 * FNV-1a of `${prefix}:${n}` for a whole number `n ≥ 0`, from `prefixHash =
 * fnv1a(prefix)`: the key of the n-th of many (an answer's events) hashed
 * without hashing the prefix again or building the string.
 */
export function fnv1aNumbered(prefixHash: number, n: number): number {
  let h = Math.imul((prefixHash >>> 0) ^ 0x3a, 0x01000193) >>> 0; // ":"
  const digits = String(n);
  for (let i = 0; i < digits.length; i++) h = Math.imul(h ^ digits.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** UTF-8 text → base64url (no padding), without Node's Buffer. */
export function base64UrlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    if (i + 1 < bytes.length) out += B64[(n >> 6) & 63];
    if (i + 2 < bytes.length) out += B64[n & 63];
  }
  return out;
}

/** base64url → UTF-8 text; throws on characters outside the alphabet. */
export function base64UrlDecode(encoded: string): string {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of encoded) {
    const v = B64.indexOf(ch);
    if (v < 0) throw new Error("not base64url");
    buffer = (buffer << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 255);
    }
  }
  return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
}
