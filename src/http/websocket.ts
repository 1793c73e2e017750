/**
 * WebSocket mode on `/v1/responses` (the spec's WebSocket mode, https://www.openresponses.org/specification). The client sends one
 * `{ "type": "response.create", ...CreateResponseBody }` text message per
 * turn; the server answers with the same events as SSE, each as its own JSON
 * text frame, through the same pipeline (answer, schedule, pacer). Failures
 * are `WebSocketErrorEvent`s and leave the connection open. Turns on one
 * connection run in order; each connection keeps a cache of the responses it
 * produced, so `store: false` responses can be continued on it.
 */
import { apiKeyOf } from "../service/service.js";
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer, type RawData } from "ws";
import { DEFAULT_DIALECT, renderErrorObject, renderEvent, toJson, type Dialect } from "../dialect/index.js";
import type { JournalEntry } from "../journal/journal.js";
import { unknownScenarioHeader } from "../scenario/registry.js";
import { sessionOf, sessionStore } from "../session/session.js";
import { ApiError, type CreateResponseBody, MAX_JSON_DEPTH, nestsDeeperThan } from "../spec/index.js";
import { DEFAULT_STORE_BYTES } from "../store/record-cost.js";
import { BoundedRecords, storedId, type ResponseStore, type StoredResponse } from "../store/response-store.js";
import type { PaceSink } from "../timing/pacer.js";
import { answerDialect, fromHeaders, readControls, type RequestControls } from "../turn/control-headers.js";
import { playTurn, prepareTurn } from "../turn/turn.js";
import { bearerChecker } from "./auth.js";
import type { AppDeps } from "./deps.js";
import { renderedError } from "./raw.js";
import { parseCreateRequest, type ParsePolicy } from "./validate.js";

/** The only path that accepts a WebSocket upgrade. */
export const WEBSOCKET_PATH = "/v1/responses";

/** Request fields a `response.create` message must not carry (`x-openresponses-disallowed`); strict mode refuses them. */
const DISALLOWED = ["stream", "stream_options", "background"] as const;

/** Responses one connection remembers for `previous_response_id`; the oldest go first. */
export const CONNECTION_CACHE_LIMIT = 1000;

/** `response.create` messages one connection may have waiting behind the turn it plays; past it, a message is refused. */
export const PENDING_MESSAGES_LIMIT = 64;
/** …and the bytes they may hold together (a message alone is accepted whatever its size, up to --body-limit). */
export const PENDING_BYTES_LIMIT = 64 * 1024 * 1024;

/** What a message refused by a full queue is answered (the connection stays open for later ones). */
export const tooManyPending = (count: number, bytes: number) =>
  new ApiError({
    status: 429,
    type: "too_many_requests",
    code: "too_many_pending_requests",
    param: null,
    message: `This response.create was refused: ${count} messages (${bytes} bytes) already wait on this connection behind the turn being played, and it holds at most ${PENDING_MESSAGES_LIMIT} messages or ${PENDING_BYTES_LIMIT} bytes. Wait for the events of earlier turns before sending more, or open another connection.`,
  });

/** The bytes of a message as `ws` gives it. */
const messageBytes = (data: RawData): number =>
  Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;

/** Above this many buffered bytes, an event waits until the socket has taken it. */
const HIGH_WATER_BYTES = 1 << 20;

/** The error message of WebSocket mode: `{ type: "error", status, error: { type, code, message, param } }`. */
export interface WebSocketErrorEvent {
  type: "error";
  status: number;
  error: { type: string; code: string; message: string; param: string | null; headers?: Record<string, string> };
}

/**
 * An ApiError as a WebSocketErrorEvent, in a dialect. The spec's schema
 * requires a string `code`: the type stands in for a null one.
 */
export function webSocketErrorEvent(error: ApiError, dialect: Dialect = DEFAULT_DIALECT): WebSocketErrorEvent {
  const e = renderErrorObject(dialect, error);
  const payload = {
    type: e.type,
    code: dialect.identity ? (e.code ?? e.type) : e.code,
    message: e.message,
    param: e.param,
  } as WebSocketErrorEvent["error"];
  if (Object.keys(error.headers).length > 0) payload.headers = { ...error.headers };
  return { type: "error", status: error.status, error: payload };
}

const invalidMessage = (code: string, param: string | null, message: string) =>
  new ApiError({ status: 400, type: "invalid_request", code, param, message });

/**
 * Parses one client message into a validated request, or throws the 400 that
 * describes the problem. By default `stream` and `stream_options` are
 * accepted and ignored (every turn streams; the OpenAI Agents SDK always sends
 * `stream: true`), and so is `background: false`; strict mode refuses them all,
 * as the spec does.
 */
export function parseCreateMessage(
  data: RawData | string,
  isBinary = false,
  policy: ParsePolicy = { strict: false },
): CreateResponseBody {
  let text: string;
  try {
    text =
      typeof data === "string"
        ? data
        : new TextDecoder("utf-8", { fatal: true }).decode(
            Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer),
          );
  } catch {
    throw invalidMessage(
      "invalid_json",
      null,
      "The message is not valid UTF-8. Send each response.create event as a JSON text message.",
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw invalidMessage(
      "invalid_json",
      null,
      `The message is not valid JSON (${(err as Error).message}). Send {"type":"response.create", ...request body} as a text message${isBinary ? " (not a binary one)" : ""}.`,
    );
  }
  if (nestsDeeperThan(json))
    throw invalidMessage(
      "nested_too_deeply",
      null,
      `The message nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
    );
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw invalidMessage(
      "invalid_type",
      null,
      `The message must be a JSON object {"type":"response.create", ...request body}, got ${Array.isArray(json) ? "an array" : json === null ? "null" : typeof json}.`,
    );
  }
  const { type, ...body } = json as Record<string, unknown>;
  if (type === undefined)
    throw invalidMessage(
      "missing_required_parameter",
      "type",
      'Missing required parameter: \'type\'. Each message is {"type":"response.create", ...request body}.',
    );
  if (type !== "response.create") {
    throw invalidMessage(
      "invalid_value",
      "type",
      `Invalid value for 'type': expected 'response.create', got ${JSON.stringify(type)?.slice(0, 60)}. It is the only client event of WebSocket mode.`,
    );
  }
  for (const field of DISALLOWED) {
    if (!(field in body)) continue;
    // Checked for type with the rest of the body, and otherwise ignored: the socket decides how a turn is sent.
    if (!policy.strict && (field !== "background" || body.background !== true)) continue;
    throw invalidMessage(
      "unsupported_parameter",
      field,
      `'${field}' must not be sent over WebSocket: every turn is streamed as events on the socket. Leave the field out.`,
    );
  }
  return parseCreateRequest(body, policy);
}

/** What the upgrade request fixes for every turn of its connection. */
interface ConnectionSettings {
  /** The dialect of every turn (the upgrade request's `x-mock-dialect`, else the server's). */
  dialect: Dialect;
  /** The `x-mock-session` of the upgrade request: its store view and its use()/enqueue() controls. */
  session: string | null;
  /** The upgrade request's `x-mock-*` headers, read once: they steer every turn. */
  controls: RequestControls;
  /** The upgrade request's headers, for the journal. */
  raw: IncomingMessage["headers"];
  /** Read every message against the spec alone (the upgrade's `x-mock-strict`, else the server's option). */
  strict: boolean;
  /** The upgrade request's API key (limits and usage are kept per key). */
  key: string | null;
}

/** Checks the upgrade request (auth, then control headers); throws the ApiError it is refused with. */
function checkUpgrade(
  req: IncomingMessage,
  deps: AppDeps,
  check: ((header: string | undefined) => void) | undefined,
): ConnectionSettings {
  if (check) {
    const raw = req.headers.authorization?.trim();
    // The compliance tester may send the bare key; a value without the Bearer scheme is taken as the key.
    check(raw && !/^Bearer\s/i.test(raw) ? `Bearer ${raw}` : raw);
  }
  const headers = fromHeaders(req.headers);
  const controls = readControls(headers, deps.service.profiles);
  const dialect = controls.dialect ?? deps.dialect;
  const strict = controls.strict ?? deps.strict ?? false;
  const session = sessionOf(headers.get("x-mock-session") || undefined);
  const scenario = controls.scenario;
  if (scenario !== undefined && !deps.registry.byName.has(scenario))
    throw unknownScenarioHeader(deps.registry, scenario);
  return { dialect, session, controls, raw: req.headers, strict, key: apiKeyOf(req.headers.authorization) };
}

/** Answers an upgrade request with an HTTP error (JSON body) and closes the socket. */
export function refuseUpgrade(socket: Duplex, error: ApiError, dialect: Dialect): void {
  if (!socket.writable) return void socket.destroy();
  const rendered = renderedError(error, dialect);
  const body = rendered.body;
  const headers: OutgoingHttpHeaders = {
    ...rendered.headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  };
  if (error.status === 401) headers["www-authenticate"] = 'Bearer realm="openresponses-mock"';
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join("\r\n");
  socket.once("finish", () => socket.destroy());
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Error"}\r\n${head}\r\n\r\n${body}`);
}

/** One open WebSocket: its queue of messages, its response cache, and what stops its turn. */
class Connection {
  /** Bounded as the store is: CONNECTION_CACHE_LIMIT responses within the store's byte budget (big inputs left out alike). */
  private readonly cache: BoundedRecords;
  private readonly queue: { data: RawData; isBinary: boolean; bytes: number }[] = [];
  /** The bytes the queued messages hold. */
  private queuedBytes = 0;
  private running = false;
  private closed = false;
  private readonly controller = new AbortController();
  /** Looks a response up on this connection first, then in the server's store. */
  private readonly lookup: Pick<ResponseStore, "get">;
  /** Whether this connection holds a response (a shared store need not be asked for it). */
  private readonly holds = (id: string) => this.cache.has(id);
  /** Calls `fn` when the connection goes (a turn waiting for a slot leaves the queue). */
  private readonly onGone = (fn: () => void): (() => void) => {
    const { signal } = this.controller;
    if (signal.aborted) {
      fn();
      return () => undefined;
    }
    signal.addEventListener("abort", fn, { once: true });
    return () => signal.removeEventListener("abort", fn);
  };

  constructor(
    private readonly ws: WebSocket,
    private readonly socket: Duplex,
    private readonly deps: AppDeps,
    private readonly settings: ConnectionSettings,
  ) {
    this.cache = new BoundedRecords(CONNECTION_CACHE_LIMIT, deps.store.byteLimit ?? DEFAULT_STORE_BYTES);
    const stored = sessionStore(deps.store, settings.session);
    this.lookup = { get: (id) => this.cache.get(id) ?? stored.get(id) };
    ws.on("message", (data, isBinary) => {
      if (this.closed) return;
      const bytes = messageBytes(data);
      if (
        this.queue.length >= PENDING_MESSAGES_LIMIT ||
        (this.queue.length > 0 && this.queuedBytes + bytes > PENDING_BYTES_LIMIT)
      )
        return this.refuse(data, bytes);
      this.queue.push({ data, isBinary, bytes });
      this.queuedBytes += bytes;
      void this.drain();
    });
    // 'error' is followed by 'close'; without a listener it would crash the process.
    ws.on("error", () => undefined);
    ws.once("close", () => this.shutdown());
  }

  /**
   * Answers a message the full queue cannot take with a 429 error event, at
   * once (ahead of the events of the turn being played); it is in the journal
   * as a request that was answered an error. Later messages are taken again
   * as the queue empties.
   */
  /** A message's journal entry: a request with method "WS", like an HTTP create, streamed. */
  private openEntry(): JournalEntry {
    const { deps, settings } = this;
    const entry = deps.journal.open({
      at: deps.wallClock.now(),
      session: settings.session,
      method: "WS",
      path: "/v1/responses",
      query: {},
      headers: settings.raw as Record<string, string | string[]>,
    });
    entry.streamed = true;
    return entry;
  }

  private refuse(data: RawData, bytes: number): void {
    const { deps } = this;
    const error = tooManyPending(this.queue.length, this.queuedBytes);
    const entry = this.openEntry();
    if (deps.journal.holds(entry)) {
      const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const text = raw.toString("utf8");
      let parsed: unknown = null;
      try {
        // Parsed only to be kept whole when it is small; a big one is kept truncated, unparsed.
        if (bytes <= deps.journal.wholeBodyLimit) parsed = JSON.parse(text);
      } catch {
        // Not JSON: the journal keeps the text.
      }
      deps.journal.setBody(entry, text, parsed, bytes);
    }
    this.failTurn(entry, error);
    deps.journal.end(entry, 0);
  }

  /** Stops the current turn and drops what is queued; the socket is left to its owner. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.controller.abort();
    this.cache.clear();
  }

  /** Ends the connection at once (server close). */
  terminate(): void {
    this.shutdown();
    this.ws.terminate();
  }

  /**
   * Plays the queued turns in order. Between two turns the event loop gets a
   * turn of its own (setImmediate): a burst of messages answered with no
   * pacing would otherwise run every turn in one go, and hold other
   * connections, requests and `/health` until the last one.
   */
  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const { data, isBinary, bytes } = this.queue.shift()!;
        this.queuedBytes -= bytes;
        await this.turn(data, isBinary);
        if (this.queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
    }
  }

  private send(message: unknown): boolean | Promise<boolean> {
    const { ws } = this;
    if (this.closed || ws.readyState !== WebSocket.OPEN) return false;
    const text = toJson(this.settings.dialect, message);
    if (ws.bufferedAmount < HIGH_WATER_BYTES) {
      ws.send(text);
      return true;
    }
    // A slow reader: wait until this frame is written (or the socket goes).
    return new Promise<boolean>((resolve) => {
      const onClose = () => resolve(false);
      ws.once("close", onClose);
      ws.send(text, (err) => {
        ws.off("close", onClose);
        resolve(!err && !this.closed);
      });
    });
  }

  private sendError(err: unknown): void {
    let error: ApiError;
    if (err instanceof ApiError) error = err;
    else {
      this.deps.onError?.(err);
      error = new ApiError({
        status: 500,
        type: "server_error",
        code: "internal_error",
        message: `Internal error in openresponses-mock: ${(err as Error)?.message ?? String(err)}`,
      });
    }
    void this.send(webSocketErrorEvent(error, this.settings.dialect));
  }

  private remember(record: StoredResponse): void {
    this.cache.set(storedId(record), record);
  }

  /** One `response.create`: journal, validate, answer, remember, stream; its journal entry ends with it. */
  private async turn(data: RawData, isBinary: boolean): Promise<void> {
    const { deps } = this;
    const started = deps.clock.now();
    // Each turn is a request in the journal (method "WS"), like an HTTP create.
    const entry = this.openEntry();
    try {
      await this.answer(entry, data, isBinary, started);
    } finally {
      deps.journal.end(entry, deps.clock.now() - started);
    }
  }

  /** Records an error event on the turn's entry, and sends it. */
  private failTurn(entry: JournalEntry, err: unknown): void {
    entry.status = err instanceof ApiError ? err.status : 500;
    entry.errorCode = err instanceof ApiError ? (err.code ?? err.type) : "internal_error";
    entry.outcome = this.closed ? "aborted" : "error";
    if (err instanceof ApiError)
      this.deps.journal.keepAnswer(entry, { kind: "error", error: err }, 256 + 2 * err.message.length);
    this.sendError(err);
  }

  private async answer(entry: JournalEntry, data: RawData, isBinary: boolean, started: number): Promise<void> {
    const { deps, settings } = this;
    const raw =
      typeof data === "string"
        ? data
        : Buffer.isBuffer(data)
          ? data.toString("utf8")
          : Buffer.concat(data as Buffer[]).toString("utf8");
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(raw);
    } catch {
      // Not JSON: the journal keeps the raw text; the turn answers the error below.
    }
    // Kept like an HTTP body: truncated when it is big.
    deps.journal.setBody(entry, raw, parsed, Buffer.byteLength(raw));
    let request: CreateResponseBody;
    try {
      request = parseCreateMessage(data, isBinary, { strict: settings.strict });
    } catch (err) {
      // A continuation rejected as invalid is a failed continuation too: it evicts its base.
      const base = (parsed as { previous_response_id?: unknown } | null)?.previous_response_id;
      if (typeof base === "string") this.cache.delete(base);
      return this.failTurn(entry, err);
    }
    const base = request.previous_response_id ?? undefined;
    try {
      const turn = await prepareTurn(deps, {
        request,
        controls: settings.controls,
        dialect: settings.dialect,
        session: settings.session,
        key: settings.key,
        lookup: this.lookup,
        // A response of this connection is at hand: a shared store is not asked for it.
        holds: this.holds,
        entry,
        started,
        transport: "websocket",
        delivery: "stream",
        // The record the store would keep, kept on the connection whatever `store` says.
        keepRecord: true,
        onGone: this.onGone,
      });
      entry.status = 200;
      const { answer } = turn;
      // A failed answer's stream has `error` then `response.failed`: its final response is the failed one.
      const failed = answer.response.status === "failed";
      if (!failed) this.remember(turn.record!);
      // A failed continuation evicts the response it built on.
      if (failed && base) this.cache.delete(base);
      const { events, plan } = answer;
      let sent = 0;
      const sink: PaceSink = {
        event: (i) => {
          const ok = this.send(renderEvent(settings.dialect, events.at(i)!, plan));
          if (ok !== false) sent++;
          return ok;
        },
        // Heartbeats are WebSocket pings, never a JSON frame.
        heartbeat: () => {
          if (this.closed || this.ws.readyState !== WebSocket.OPEN) return false;
          this.ws.ping();
          return true;
        },
        end: () => undefined,
        // A drop fault: what was sent goes out, then the connection ends without a close frame.
        destroy: () => {
          this.shutdown();
          const { socket } = this;
          socket.end();
          const timer = setTimeout(() => socket.destroy(), 1_000).unref();
          socket.once("close", () => clearTimeout(timer));
        },
      };
      // WebSocket messages are the events, pings the heartbeats; no [DONE].
      await playTurn(deps, turn, sink, { signal: () => this.controller.signal, done: false, sent: () => sent });
    } catch (err) {
      if (base) this.cache.delete(base);
      if (entry.status !== 0) {
        // The turn had begun: the socket went, or something broke mid-stream.
        entry.outcome ??= "aborted";
        return this.sendError(err);
      }
      this.failTurn(entry, err);
    }
  }
}

/**
 * Serves WebSocket mode on `server`'s `upgrade` event for `/v1/responses`
 * (other paths get a 404). `close()` refuses new upgrades, stops every turn
 * and terminates every open WebSocket; it is idempotent.
 */
export function attachWebSocket(server: Server, deps: AppDeps): { close(): void } {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.bodyLimit,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const connections = new Set<Connection>();
  const check = deps.apiKey ? bearerChecker(deps.apiKey) : undefined;
  let closed = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const dialect = answerDialect(req.headers, deps.dialect);
    let path: string;
    try {
      path = new URL(req.url ?? "/", "http://localhost").pathname;
    } catch {
      path = "";
    }
    if (path !== WEBSOCKET_PATH) {
      return refuseUpgrade(
        socket,
        new ApiError({
          status: 404,
          type: "not_found",
          code: "not_found",
          message: `No WebSocket endpoint at ${(req.url ?? "").slice(0, 80)}. WebSocket mode lives at ${WEBSOCKET_PATH}.`,
        }),
        dialect,
      );
    }
    if (closed) {
      return refuseUpgrade(
        socket,
        new ApiError({
          status: 503,
          type: "server_error",
          code: "server_closing",
          message: "The server is shutting down.",
        }),
        dialect,
      );
    }
    let settings: ConnectionSettings;
    try {
      settings = checkUpgrade(req, deps, check);
    } catch (err) {
      if (!(err instanceof ApiError)) deps.onError?.(err);
      return refuseUpgrade(
        socket,
        err instanceof ApiError
          ? err
          : new ApiError({
              status: 500,
              type: "server_error",
              code: "internal_error",
              message: "Internal error in openresponses-mock.",
            }),
        dialect,
      );
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (closed) return void ws.terminate();
      const connection = new Connection(ws, socket, deps, settings);
      connections.add(connection);
      ws.once("close", () => connections.delete(connection));
    });
  };
  server.on("upgrade", onUpgrade);

  return {
    close() {
      if (closed) return;
      closed = true;
      for (const connection of connections) connection.terminate();
      connections.clear();
      wss.close();
    },
  };
}
