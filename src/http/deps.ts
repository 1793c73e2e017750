/**
 * What the HTTP and WebSocket transports are built from: the server's state
 * and settings (a turn's, and the routes' own), and the small readers of a
 * Koa context that every route uses. A leaf: it imports no route.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SharedJournal } from "../journal/shared.js";
import type { JournalEntry } from "../journal/journal.js";
import { sessionOf } from "../session/session.js";
import type { RunBus } from "../store/redis-runs.js";
import type { LimitsStore } from "../service/limits.js";
import type { TurnDeps } from "../turn/turn.js";
import type { Expectations } from "../turn/expect.js";

/**
 * A handler that answers one request on Node's request and response (throwing an ApiError before anything was sent).
 * It may resolve with the clock time it began the answer's last write: the journal's end of the request (see
 * `endEntry`). Read before the write, because the write wakes the client, which may run (and start timing its next
 * request) before this process runs again.
 */
export type RequestHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  entry: JournalEntry | undefined,
) => Promise<number | void>;

/** What proxy mode puts in place of the mock's own answers (the proxy implements it). */
export interface ProxyHandler {
  /** `POST /v1/responses`: throws an ApiError (before anything was sent) for a bad request, as the mock's own handler does. */
  create: RequestHandler;
  /** The other `/v1/responses/*` routes, passed to the upstream; null when the proxy's own store answers them (`chat`). */
  forward: RequestHandler | null;
  /** Where requests go, as it may be shown (`responses http://127.0.0.1:11434/v1`). */
  readonly describe: string;
  /** Resolves once every recording has been written. */
  flush(): Promise<void>;
  /** Closes the upstream's kept-alive connections. */
  close(): void;
}

export interface AppDeps extends TurnDeps {
  /** What clients are expected to send next (src/turn/expect.ts), judged in this process; `GET /__mock/verify` reports them. */
  expectations: Expectations;
  /** The limiter's buckets, session limits and usage totals (src/turn/limits.ts): in memory, or shared in Redis. */
  limits: LimitsStore;
  /** With a shared store: every process's journal entries, which the admin routes list. */
  sharedJournal?: SharedJournal;
  /** With a shared store: cancels passed to the process that plays a background run. */
  runBus?: RunBus;
  /** Serve the `/__mock/` admin routes (journal and controls). */
  admin: boolean;
  apiKey?: string;
  bodyLimit: number;
  /** Validate bodies against the spec alone unless a request's `x-mock-strict` says otherwise (default false). */
  strict?: boolean;
  /** Proxy mode: `POST /v1/responses` (and, for a Responses upstream, the other `/v1/responses/*` routes) go to the upstream. */
  proxy?: ProxyHandler;
}

/** The journal entry of the request being handled. */
export const journalEntry = (ctx: { state: { journal?: unknown } }): JournalEntry | undefined =>
  ctx.state.journal as JournalEntry | undefined;

/** A request's session (its `x-mock-session`), from a Koa context. */
export const sessionOfContext = (ctx: { get(name: string): string }) =>
  sessionOf(ctx.get("x-mock-session") || undefined);
