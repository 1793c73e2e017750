/**
 * Which seed a request plays with. An explicit seed (header) wins, else the
 * server's seed; either way it is mixed with a canonical hash of the request
 * (without its transport fields), so the same request gets the same answer,
 * streamed or not, and different requests get different ids.
 */

const TRANSPORT_FIELDS = new Set(["stream", "stream_options"]);

/**
 * JSON with object keys sorted, so key order never changes a seed. Written
 * as plain loops (every request is hashed): the text is the same as ever, or
 * every seed and id would change.
 */
export function canonicalJson(value: unknown, skipTopLevel?: ReadonlySet<string>): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += i === 0 ? canonicalJson(value[i]) : `,${canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let out = "{";
  for (const key of keys) {
    const v = object[key];
    if (v === undefined || skipTopLevel?.has(key)) continue;
    const piece = `${JSON.stringify(key)}:${canonicalJson(v)}`;
    out += out.length === 1 ? piece : `,${piece}`;
  }
  return `${out}}`;
}

/** FNV-1a's two seeds of a request digest. */
const DIGEST_SEED_2 = 0x9e3779b9;

/** A short, stable digest of a request body (transport fields left out): two FNV-1a hashes of its canonical JSON, in one pass. */
export function requestDigest(body: unknown): string {
  const text = canonicalJson(body, TRANSPORT_FIELDS);
  let a = 0x811c9dc5;
  let b = DIGEST_SEED_2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return `${a.toString(36)}${b.toString(36)}`;
}

/** The seed string of one request. */
export function requestSeed(seed: number | string, body: unknown): string {
  return `${seed}|${requestDigest(body)}`;
}
