/**
 * What `--store` names: `memory` (this process) or a Redis server
 * (`redis://HOST:PORT`, `rediss://` for TLS, with an optional `/DB` number and
 * credentials). Pure: it only reads the text.
 */

/** Where the store lives. */
export type StoreLocation = { kind: "memory" } | { kind: "redis"; url: string; display: string };

/** The schemes a Redis store is named by. */
const REDIS_SCHEMES = ["redis:", "rediss:"];

/** What a bad value is told to give instead. */
const EXPECTED = "memory (the default) or a Redis URL, redis://HOST:PORT";

const quoted = (text: string) => `'${text.length > 80 ? `${text.slice(0, 80)}…` : text}'`;

/** A URL as it is shown: without its credentials. */
function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
}

/**
 * Reads a `store` value: the location, or a message that says what is wrong
 * with it and what to give instead (the caller prefixes the option's name).
 */
export function parseStoreUrl(text: string): StoreLocation | string {
  if (text === "memory") return { kind: "memory" };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return `expected ${EXPECTED}, got ${quoted(text)}`;
  if (!REDIS_SCHEMES.includes(`${scheme}:`))
    return `'${scheme}:' is not a store this server knows (got ${quoted(text)}); give ${EXPECTED}`;
  if (!/^[a-z]+:\/\/[^/]/i.test(text)) return `expected ${EXPECTED}: a host after '${scheme}://', got ${quoted(text)}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `expected ${EXPECTED}, got ${quoted(text)} (not a URL)`;
  }
  if (url.hostname === "") return `expected ${EXPECTED}: a host after '${scheme}://', got ${quoted(text)}`;
  if (url.search !== "" || url.hash !== "")
    return `expected ${EXPECTED} with no query or fragment, got ${quoted(text)}`;
  if (url.pathname !== "" && url.pathname !== "/" && !/^\/\d{1,2}$/.test(url.pathname)) {
    return `expected ${EXPECTED}, optionally with a database number (/0 to /99), got ${quoted(text)}`;
  }
  return { kind: "redis", url: text, display: displayUrl(url) };
}
