/**
 * The upstream: where the proxy sends requests, and how it talks to it. The
 * base URL is taken as the SDKs take it (`http://127.0.0.1:11434/v1`) and
 * routes are appended to it. A request resolves once the upstream's status
 * and headers are in; the body is read as it comes. What goes wrong before
 * that becomes the spec error a client gets — 502 when the upstream cannot
 * be reached, 504 when it says nothing for the timeout — and after it, the
 * body fails with an UpstreamFailure the caller turns into the end of the
 * answer. Nothing here logs: the key never leaves the request it is put on.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { ApiError } from "../spec/index.js";

/** An upstream base URL, checked: http or https, no fragment. Returns the message of what is wrong, or the URL. */
export function parseUpstream(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `must be a URL such as http://127.0.0.1:11434/v1, got '${text.slice(0, 200)}'`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `must be an http:// or https:// URL, got '${url.protocol}'`;
  if (url.hash !== "") return "must not have a #fragment";
  return url;
}

/** The URL of a route on the upstream: the base's path, then the route (its query kept). */
export function routeUrl(base: URL, route: string): URL {
  const url = new URL(base.href);
  const [path, query] = route.split("?", 2);
  url.pathname = url.pathname.replace(/\/+$/, "") + path;
  if (query !== undefined) url.search = base.search ? `${base.search}&${query}` : `?${query}`;
  return url;
}

/** The upstream as it may be shown (logs, journal, recorded files): origin and path, no credentials, no query. */
export function displayUpstream(base: URL): string {
  return `${base.protocol}//${base.host}${base.pathname.replace(/\/+$/, "")}`;
}

/** Why the upstream's body stopped before its end. */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: "timeout" | "cut",
    message: string,
  ) {
    super(message);
    this.name = "UpstreamFailure";
  }
}

/**
 * Watches the client of an exchange: `signal` aborts the upstream request
 * when the client goes away before its answer is finished (waiting for the
 * upstream, or mid-stream), and `gone()` says whether it has.
 */
export function clientWatch(res: ServerResponse): { signal: AbortSignal; gone(): boolean } {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return { signal: controller.signal, gone: () => controller.signal.aborted || res.destroyed };
}

export interface UpstreamRequest {
  /** Aborts the request (and the reading of its answer): the client went away. */
  signal?: AbortSignal;
  method: string;
  /** The route, appended to the base URL (`/responses`, `/chat/completions`, with a query if any). */
  route: string;
  headers: OutgoingHttpHeaders;
  body?: string;
}

export interface UpstreamAnswer {
  status: number;
  headers: IncomingMessage["headers"];
  /** The body, piece by piece; throws an UpstreamFailure when it stops short (a cut, or silence past the timeout). */
  body: AsyncIterable<Buffer>;
  /** Stops reading and closes the connection (the client went away). */
  abort(): void;
}

/** Headers of a hop, never passed on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authorization",
  "proxy-authenticate",
  "host",
  "content-length",
]);

/**
 * The client's headers to send upstream: all but the hop's own, with
 * `accept-encoding: identity` (the proxy reads the body) and the upstream's
 * key in `authorization` when there is one (the client's own passes
 * through otherwise).
 */
export function forwardHeaders(
  headers: IncomingMessage["headers"],
  upstreamKey: string | undefined,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === "accept-encoding") continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  if (upstreamKey !== undefined) out.authorization = `Bearer ${upstreamKey}`;
  return out;
}

/** The upstream's headers to pass to the client: all but the hop's own (and the length, which the proxy sets). */
export function answerHeaders(headers: IncomingMessage["headers"]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === "content-encoding") continue;
    out[name] = value;
  }
  return out;
}

export interface UpstreamOptions {
  base: URL;
  /** Longest silence from the upstream, in ms: before its headers, and between two pieces of its body. */
  timeoutMs: number;
}

/** A client of one upstream, keeping connections alive between requests. */
export class Upstream {
  readonly base: URL;
  readonly timeoutMs: number;
  private readonly agent: HttpAgent;

  constructor(options: UpstreamOptions) {
    this.base = options.base;
    this.timeoutMs = options.timeoutMs;
    this.agent =
      options.base.protocol === "https:" ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** Where the upstream is, as it may be shown. */
  get display(): string {
    return displayUpstream(this.base);
  }

  /** Sends a request; resolves with the status and headers, or rejects with the ApiError a client gets (502, 504). */
  send(req: UpstreamRequest): Promise<UpstreamAnswer> {
    const url = routeUrl(this.base, req.route);
    const where = `${this.display}${req.route.split("?")[0]}`;
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const headers: OutgoingHttpHeaders = { ...req.headers };
    if (req.body !== undefined) headers["content-length"] = Buffer.byteLength(req.body);
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      let answered = false;
      let failure: UpstreamFailure | null = null;
      const request = send(url, { method: req.method, headers, agent: this.agent, signal: req.signal });
      request.setTimeout(this.timeoutMs, () => {
        failure = new UpstreamFailure(
          "timeout",
          `The upstream (${where}) sent nothing for ${this.timeoutMs} ms (--upstream-timeout-ms).`,
        );
        request.destroy(failure);
      });
      request.on("error", (err: NodeJS.ErrnoException) => {
        if (answered) return;
        answered = true;
        if (failure?.kind === "timeout") {
          reject(
            new ApiError({
              status: 504,
              type: "server_error",
              code: "upstream_timeout",
              message: `${failure.message} Is it overloaded, or is the timeout too short for it?`,
            }),
          );
          return;
        }
        reject(
          new ApiError({
            status: 502,
            type: "server_error",
            code: "upstream_unreachable",
            message: `The upstream (${where}) could not be reached: ${err.code ?? err.message}. Check --upstream and that the server there is running.`,
          }),
        );
      });
      request.on("response", (res) => {
        answered = true;
        const body = (async function* () {
          try {
            for await (const chunk of res) yield chunk as Buffer;
          } catch (err) {
            throw (
              failure ??
              new UpstreamFailure(
                "cut",
                `The upstream (${where}) closed the connection before the answer ended (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
              )
            );
          }
          if (failure) throw failure;
          if (!res.complete)
            throw new UpstreamFailure("cut", `The upstream (${where}) closed the connection before the answer ended.`);
        })();
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body, abort: () => request.destroy() });
      });
      request.end(req.body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** Reads a whole body (what is not streamed). */
export async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString("utf8");
}
