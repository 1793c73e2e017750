/**
 * Shared helpers of the robustness suite (test/robust/): run counts from the
 * environment, the one invariant every HTTP answer must hold, a watch on the
 * server's internal-error log, a raw-socket HTTP client for what fetch cannot
 * send, and a plain node:http client that never pools connections.
 *
 * ORM_FUZZ_RUNS=N  runs every fuzz property N times (default: each its own count).
 * ORM_SOAK_MS=T    soaks for T ms (default 5000).
 */
import http from "node:http";
import net from "node:net";
import { expect, vi } from "vitest";
import { ErrorBody } from "../../src/spec/index.js";
import { expectConformantStream, expectErrorBody, expectValidResponse } from "./conformance.js";
import { parseSseStrict } from "./sse-parser.js";

// ---- run counts ------------------------------------------------------------

const positiveInt = (raw: string | undefined): number | undefined => {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The number of runs of one fuzz property: ORM_FUZZ_RUNS if set, else `fallback`. */
export const fuzzRuns = (fallback: number): number => positiveInt(process.env.ORM_FUZZ_RUNS) ?? fallback;

/** How long the soak lasts: ORM_SOAK_MS if set, else `fallback`. */
export const soakMs = (fallback: number): number => positiveInt(process.env.ORM_SOAK_MS) ?? fallback;

/** Whether the counts were raised for a long local run (tests widen their timeouts then). */
export const longRun = () =>
  positiveInt(process.env.ORM_FUZZ_RUNS) !== undefined || positiveInt(process.env.ORM_SOAK_MS) !== undefined;

// ---- the invariant of every answer ----------------------------------------

export interface HttpAnswer {
  status: number;
  contentType: string;
  text: string;
}

export type AnswerKind = "json" | "stream" | "error";

/**
 * What every answer of the server must be: never a 5xx (unless `allow5xx`
 * names that exact status, for the library's error-5xx scenarios), every
 * error a spec error body with exactly the four keys, every 200 either a
 * valid response object or a strictly framed, conformant SSE stream.
 */
export function expectSaneAnswer(
  answer: HttpAnswer,
  options: { expectedStatus?: number; allow5xx?: readonly number[]; scriptedErrors?: boolean } = {},
): AnswerKind {
  const where = () => `${answer.status} ${answer.contentType}: ${answer.text.slice(0, 300)}`;
  if (options.expectedStatus !== undefined) expect(answer.status, where()).toBe(options.expectedStatus);
  if (answer.status >= 500) expect(options.allow5xx ?? [], `unexpected 5xx: ${where()}`).toContain(answer.status);
  if (answer.status >= 400) {
    expect(answer.contentType, where()).toMatch(/^application\/json/);
    const body = JSON.parse(answer.text) as { error: Record<string, unknown> };
    // A scenario may script any non-empty message; the server's own are sentences.
    if (options.scriptedErrors) expect(ErrorBody.safeParse(body).success, where()).toBe(true);
    else expectErrorBody(body);
    expect(Object.keys(body).sort(), where()).toEqual(["error"]);
    expect(Object.keys(body.error).sort(), where()).toEqual(["code", "message", "param", "type"]);
    return "error";
  }
  expect(answer.status, where()).toBe(200);
  if (answer.contentType.startsWith("text/event-stream")) {
    const { events } = parseSseStrict(answer.text);
    expectConformantStream(events);
    return "stream";
  }
  expect(answer.contentType, where()).toMatch(/^application\/json/);
  expectValidResponse(JSON.parse(answer.text));
  return "json";
}

/** POSTs a body (text, bytes, or a value sent as JSON) with fetch; any network failure throws. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<HttpAnswer> {
  const payload = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
  const res = await fetch(url, {
    method: "POST",
    headers: body instanceof Uint8Array ? headers : { "content-type": "application/json", ...headers },
    body: payload as string,
    ...init,
  });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text: await res.text() };
}

// ---- internal errors ---------------------------------------------------------

/**
 * The server reports every error that is its own fault (a non-ApiError) with
 * `console.error("openresponses-mock: internal error:", err)`. This collects
 * them (and keeps them off the console); `take()` returns and forgets them.
 * Other console.error calls pass through.
 */
export function watchInternalErrors() {
  const seen: unknown[] = [];
  const original = console.error.bind(console);
  const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes("internal error")) seen.push(args[1]);
    else original(...args);
  });
  return {
    take: (): string[] => seen.splice(0).map((e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e))),
    restore: () => spy.mockRestore(),
  };
}

export type InternalErrors = ReturnType<typeof watchInternalErrors>;

// ---- raw sockets ---------------------------------------------------------------

export interface RawResponse {
  status: number | null;
  headers: Record<string, string>;
  body: Buffer;
  /** Everything received. */
  raw: Buffer;
  /** The server closed (or reset) the connection. */
  closed: boolean;
  error?: string;
}

/** Parses an HTTP/1.1 response out of bytes (status null if the head is incomplete). */
export function parseRawResponse(raw: Buffer, closed: boolean, error?: string): RawResponse {
  let rest = raw;
  // Skip interim 1xx responses.
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return { status: null, headers: {}, body: Buffer.alloc(0), raw, closed, error };
    const head = rest.subarray(0, end).toString("latin1");
    const [statusLine, ...lines] = head.split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    let body = rest;
    if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(rest);
    else if (headers["content-length"] !== undefined) body = rest.subarray(0, Number(headers["content-length"]));
    return { status: Number.isNaN(status) ? null : status, headers, body, raw, closed, error };
  }
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** A raw TCP connection to the server that collects what comes back. */
export interface RawConnection {
  socket: net.Socket;
  /** Bytes received so far. */
  received(): Buffer;
  /** Resolves when the server closes the connection (or after `timeoutMs`, then closed is false). */
  closed(timeoutMs: number): Promise<RawResponse>;
  /** Resolves once a whole response head has arrived (or the connection closed, or the timeout). */
  head(timeoutMs: number): Promise<RawResponse>;
  /** Writes, resolving false once the connection is unusable. */
  write(data: string | Buffer): Promise<boolean>;
}

export async function connectRaw(port: number, host = "127.0.0.1"): Promise<RawConnection> {
  const socket = net.connect(port, host);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const chunks: Buffer[] = [];
  let isClosed = false;
  let error: string | undefined;
  const waiters = new Set<() => void>();
  const poke = () => waiters.forEach((w) => w());
  socket.on("data", (d: Buffer) => {
    chunks.push(d);
    poke();
  });
  socket.on("error", (e: NodeJS.ErrnoException) => {
    error = e.code ?? e.message;
  });
  socket.on("close", () => {
    isClosed = true;
    poke();
  });
  const received = () => Buffer.concat(chunks);
  const waitFor = (ready: () => boolean, timeoutMs: number) =>
    new Promise<RawResponse>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
        resolve(parseRawResponse(received(), isClosed, error));
      };
      const check = () => ready() && done();
      const timer = setTimeout(done, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    socket,
    received,
    closed: (timeoutMs) => waitFor(() => isClosed, timeoutMs),
    head: (timeoutMs) =>
      waitFor(
        () => isClosed || (received().includes("\r\n\r\n") && parseRawResponse(received(), false).status !== null),
        timeoutMs,
      ),
    write: (data) =>
      new Promise<boolean>((resolve) => {
        if (isClosed || socket.destroyed || !socket.writable) return resolve(false);
        socket.write(data, (err) => resolve(!err));
      }),
  };
}

/** Sends bytes on a fresh connection and collects the answer until the server closes it. */
export async function rawExchange(port: number, request: string | Buffer, timeoutMs = 5_000): Promise<RawResponse> {
  const conn = await connectRaw(port);
  await conn.write(typeof request === "string" ? Buffer.from(request, "latin1") : request);
  const res = await conn.closed(timeoutMs);
  conn.socket.destroy();
  return res;
}

// ---- node:http without pooling ------------------------------------------------------

export interface PlainResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** How it ended: the whole body, cut by the server, or aborted by us. */
  end: "complete" | "cut" | "aborted";
  error?: string;
}

/**
 * One request on its own connection (`agent: false`, so `Connection: close`):
 * nothing stays pooled, and an abort or a cut is reported, never thrown.
 */
export function plainRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<PlainResult> {
  return new Promise((resolve) => {
    let status = 0;
    let headers: http.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (end: PlainResult["end"], error?: string) => {
      if (settled) return;
      settled = true;
      resolve({ status, headers, text: Buffer.concat(chunks).toString("utf8"), end, error });
    };
    const req = http.request(
      url,
      { method: options.method ?? "POST", headers: options.headers, agent: false, signal: options.signal },
      (res) => {
        status = res.statusCode ?? 0;
        headers = res.headers;
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => finish(res.complete ? "complete" : "cut"));
        res.on("aborted", () => finish(options.signal?.aborted ? "aborted" : "cut"));
        res.on("error", (e: NodeJS.ErrnoException) =>
          finish(options.signal?.aborted ? "aborted" : "cut", e.code ?? e.message),
        );
        res.on("close", () => finish(options.signal?.aborted ? "aborted" : res.complete ? "complete" : "cut"));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) =>
      finish(options.signal?.aborted ? "aborted" : "cut", e.code ?? e.message),
    );
    req.end(options.body);
  });
}

// ---- process resources -----------------------------------------------------

/** How many handles of each kind the process holds (`Timeout`, `TCPSocketWrap`, …). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

/** Polls until `check` holds or `timeoutMs` passes; returns whether it held. */
export async function settle(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 25,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The number of open connections of a server. */
export const connectionsOf = (server: net.Server) =>
  new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

/** Calls the server's own health route and returns its status (throws on a network failure or the timeout). */
export async function health(url: string, timeoutMs = 10_000): Promise<number> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  await res.text();
  return res.status;
}

// ---- mutating JSON documents (shared by the request and scenario fuzzers) ----

/** Every path into a JSON value (not the root), bounded in depth and count. */
export function paths(
  value: unknown,
  prefix: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  if (prefix.length > 100 || out.length > 5_000) return out;
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...prefix, i]), paths(v, [...prefix, i], out)));
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) (out.push([...prefix, k]), paths(v, [...prefix, k], out));
  return out;
}

/** A copy of `value` with the value at `path` replaced (or removed when `replacement` is undefined); `__proto__` stays data. */
export function setAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(head as number, 1);
    else copy[head as number] = setAt(copy[head as number], rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, unknown>) };
  if (rest.length === 0 && replacement === undefined) delete copy[head as string];
  else
    Object.defineProperty(copy, head as string, {
      value: setAt(copy[head as string], rest, replacement),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}
