/**
 * Which seed a request plays with. An explicit seed (header) wins, else the
 * server's seed; either way it is mixed with a canonical hash of the request
 * (without its transport fields), so the same request gets the same answer,
 * streamed or not, and different requests get different ids.
 */
import { fnv1a } from "./hash.js";

const TRANSPORT_FIELDS = new Set(["stream", "stream_options"]);

/** JSON with object keys sorted, so key order never changes a seed. */
export function canonicalJson(value: unknown, skipTopLevel?: ReadonlySet<string>): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const keys = Object.keys(value).filter((k) => !skipTopLevel?.has(k) && (value as Record<string, unknown>)[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

/** A short, stable digest of a request body (transport fields left out). */
export function requestDigest(body: unknown): string {
  const text = canonicalJson(body, TRANSPORT_FIELDS);
  return `${fnv1a(text).toString(36)}${fnv1a(text, 0x9e3779b9).toString(36)}`;
}

/** The seed string of one request. */
export function requestSeed(seed: number | string, body: unknown): string {
  return `${seed}|${requestDigest(body)}`;
}
