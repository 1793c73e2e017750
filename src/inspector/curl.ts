/**
 * What reproduces a journaled request: a `curl` command line, safely quoted
 * for a POSIX shell, and the same request as data for the inspector's
 * "replay" (sent with fetch). The request's own `x-mock-*` headers go with
 * it, plus the scenario that answered and the seed, where they pin the same
 * answer; the credential never does — only a reference to
 * `$OPENRESPONSES_MOCK_API_KEY`. Pure.
 */
import type { JournalEntry } from "../journal/journal.js";

export interface ReplayRequest {
  method: string;
  url: string;
  /** The headers to send (no authorization: the page adds the key it holds). */
  headers: Record<string, string>;
  /** The raw body text, or null. */
  body: string | null;
}

export interface CurlView {
  curl: string;
  request: ReplayRequest;
}

/** The environment variable the command reads the API key from. */
export const API_KEY_VARIABLE = "OPENRESPONSES_MOCK_API_KEY";

/** Selections made from the server's own scenarios: naming the scenario picks it again anywhere. */
const NAMED_REASONS: ReadonlySet<string> = new Set(["header", "model", "match", "default"]);

/** A word the shell reads as it is, unquoted. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes a string for a POSIX shell: single quotes, with each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  if (text !== "" && SAFE_WORD.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A here-document delimiter that no line of `body` equals. */
function delimiterFor(body: string): string {
  const lines = new Set(body.split(/\r?\n/));
  let name = "JSON";
  for (let n = 1; lines.has(name); n++) name = `JSON_${n}`;
  return name;
}

export interface CurlOptions {
  /** The server's seed: sent as `x-mock-seed` when the request had none, so the same answer is drawn again. */
  seed?: number;
  /** The scheme of the URL (the server listens on plain HTTP). */
  scheme?: string;
}

const headerValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(", ") : v);

/** The request of an entry, as data: what the replay sends. */
export function replayRequest(entry: JournalEntry, options: CurlOptions = {}): ReplayRequest {
  const host = headerValue(entry.headers.host) ?? "127.0.0.1";
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(entry.query))
    for (const value of Array.isArray(v) ? v : [v]) search.append(k, value);
  const query = search.toString();
  const url = `${options.scheme ?? "http"}://${host}${entry.path}${query === "" ? "" : `?${query}`}`;
  const headers: Record<string, string> = {};
  const type = headerValue(entry.headers["content-type"]);
  if (entry.rawBody !== null) headers["content-type"] = type ?? "application/json";
  for (const [name, value] of Object.entries(entry.headers)) {
    if (name.startsWith("x-mock-")) headers[name] = headerValue(value)!;
  }
  if (
    headers["x-mock-scenario"] === undefined &&
    entry.scenario !== null &&
    entry.reason !== null &&
    NAMED_REASONS.has(entry.reason)
  )
    headers["x-mock-scenario"] = entry.scenario;
  if (headers["x-mock-seed"] === undefined && options.seed !== undefined && entry.scenario !== null)
    headers["x-mock-seed"] = String(options.seed);
  return { method: entry.method, url, headers, body: entry.rawBody };
}

/** The curl command of a request; `authorized` adds the key from the environment. */
export function curlCommand(request: ReplayRequest, authorized: boolean): string {
  const parts = ["curl -sS -N"];
  if (request.method !== "GET" && !(request.method === "POST" && request.body !== null))
    parts.push(`-X ${shellQuote(request.method)}`);
  parts.push(shellQuote(request.url));
  for (const [name, value] of Object.entries(request.headers)) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (authorized) parts.push(`-H "Authorization: Bearer $${API_KEY_VARIABLE}"`);
  if (request.body === null) return parts.join(" ");
  const end = delimiterFor(request.body);
  parts.push(`--data-binary @- <<'${end}'`);
  return `${parts.join(" ")}\n${request.body}\n${end}`;
}

/** What reproduces an entry's request (its body must have been kept whole). */
export function curlOf(entry: JournalEntry, options: CurlOptions = {}): CurlView {
  const request = replayRequest(entry, options);
  return { curl: curlCommand(request, entry.headers.authorization !== undefined), request };
}
