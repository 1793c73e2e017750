/**
 * What every route shares at the level of Node's request and response: the
 * journal entry of a request, JSON answers, and the rendering of errors as the
 * spec's error object. The Koa app and the direct `POST /v1/responses` path
 * both go through these, so the two cannot answer differently.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import type { Journal, JournalEntry } from "../journal/journal.js";
import { dialectHeaders, renderError, type Dialect } from "../dialect/index.js";
import { ApiError } from "../spec/index.js";

/** Koa's `ctx.type = "application/json"`, spelled out, so both paths send the same header. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** A request's path and query string, split once. */
export function splitUrl(url: string | undefined): { path: string; search: string } {
  const raw = url ?? "/";
  const q = raw.indexOf("?");
  return q < 0 ? { path: raw, search: "" } : { path: raw.slice(0, q), search: raw.slice(q + 1) };
}

/** The query of a path without one: one frozen object for every such entry, not one kept per request. */
const NO_QUERY: Record<string, string | string[]> = Object.freeze({});

/** Opens the journal entry of a request. */
export function openEntry(
  journal: Journal,
  req: IncomingMessage,
  at: number,
  path: string,
  search: string,
): JournalEntry {
  const session = req.headers["x-mock-session"];
  return journal.open({
    at,
    session: typeof session === "string" && session !== "" ? session : null,
    method: req.method ?? "GET",
    path,
    query: search === "" ? NO_QUERY : ({ ...parseQuery(search) } as Record<string, string | string[]>),
    headers: req.headers as Record<string, string | string[]>,
  });
}

/**
 * Records an error answer on an entry: its status and code, and `error` —
 * or `aborted` when the answer had begun (or the client had gone) and the
 * connection is cut instead.
 */
export function entryError(entry: JournalEntry, error: ApiError, res: ServerResponse): void {
  entry.status = error.status;
  entry.errorCode = error.code ?? error.type;
  entry.outcome = res.headersSent || res.destroyed || res.writableEnded ? "aborted" : "error";
}

/**
 * Ends the entry of a request answered on Node's response (`started` is the
 * clock time it arrived). An answer that never reached `res.end()` was cut
 * short: `aborted`, unless the handler said how it ended.
 */
export function endEntry(
  journal: Journal,
  entry: JournalEntry,
  res: ServerResponse,
  started: number,
  now: number,
): void {
  if (entry.outcome === null && !res.writableEnded) entry.outcome = "aborted";
  journal.end(entry, now - started);
}

/**
 * Calls `fn` if the client goes away before the response has been sent whole
 * (the socket closes first); returns what stops listening. A turn waiting for
 * a slot leaves its queue by it.
 */
export function onClientGone(res: ServerResponse, fn: () => void): () => void {
  const listener = () => {
    if (!res.writableFinished) fn();
  };
  res.once("close", listener);
  return () => void res.off("close", listener);
}

/** Sends a whole JSON answer (the body already serialised). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  // A flat [name, value, …] list: Node takes it as is, with no object to walk.
  const list = ["content-type", JSON_TYPE, "content-length", String(Buffer.byteLength(body))];
  for (const name in headers) list.push(name, headers[name]);
  res.writeHead(status, list);
  res.end(body);
}

/** Any thrown value as the ApiError a client gets: itself, or a 500 that reports the server's fault. */
export function asApiError(err: unknown, onError?: (error: unknown) => void): ApiError {
  if (err instanceof ApiError) return err;
  onError?.(err);
  return new ApiError({
    status: 500,
    type: "server_error",
    code: "internal_error",
    message: `Internal error in openresponses-mock: ${(err as Error)?.message ?? String(err)}`,
  });
}

/** The headers of an error answer: its own (e.g. retry-after), and `connection: close` after a 413 (the body was not read). */
export function errorHeaders(error: ApiError): Record<string, string> {
  return error.status === 413 ? { ...error.headers, connection: "close" } : { ...error.headers };
}

let errorSerial = 0;

/** An error answer in a dialect: its status, headers (the error's own and the dialect's) and JSON body. */
export function renderedError(
  error: ApiError,
  dialect: Dialect,
): { status: number; headers: Record<string, string>; body: string } {
  const rendered = renderError(dialect, error);
  const headers = {
    ...dialectHeaders(dialect, `error:${++errorSerial}`, 0),
    ...errorHeaders(error),
    ...rendered.headers,
  };
  return { status: rendered.status, headers, body: JSON.stringify(rendered.body) };
}

/** Answers with an error object in a dialect, or cuts the connection when the answer had already begun. */
export function sendError(res: ServerResponse, error: ApiError, dialect: Dialect): void {
  if (res.headersSent || res.destroyed || res.writableEnded) {
    res.destroy();
    return;
  }
  const { status, headers, body } = renderedError(error, dialect);
  sendJson(res, status, body, headers);
}
