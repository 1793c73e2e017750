/**
 * `POST /v1/chat/completions` over HTTP, answered from the same scenarios as
 * `POST /v1/responses`: the chat body is validated and mapped onto the
 * Responses request that asks the same (src/dialect/chat-request.ts), the
 * turn (src/turn/turn.ts) selects, plans and times the answer, and this
 * transport renders it as Chat Completions (src/dialect/chat.ts): chunks on
 * the turn's schedule, cut where its faults cut the events, or the whole
 * `chat.completion` once the answer's time is up. Errors are OpenAI's shapes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { DIALECTS, type Dialect } from "../dialect/index.js";
import { chatCompletion, chatError, chatId, ChatChunker, type ChatOut } from "../dialect/chat.js";
import { readChatRequest } from "../dialect/chat-request.js";
import type { JournalEntry } from "../journal/journal.js";
import { apiKeyOf } from "../service/service.js";
import { sessionOf, sessionStore } from "../session/session.js";
import type { ResponseResource } from "../spec/index.js";
import type { Clock } from "../timing/clock.js";
import { HEARTBEAT_FRAME, type PaceSink } from "../timing/pacer.js";
import { fromHeaders, readControls } from "../turn/control-headers.js";
import { playTurn, prepareTurn, type TurnInput } from "../turn/turn.js";
import { readObjectBody } from "./body.js";
import type { AppDeps } from "./deps.js";
import { onClientGone, sendJson } from "./raw.js";
import { disconnectSignal, playAsJson } from "./responses.js";
import { drained } from "./sse.js";
import { parseCreateRequest } from "./validate.js";

/** Errors of this route are spelled as OpenAI spells them (`invalid_request_error`, …), whatever the server's dialect. */
export const CHAT_ERROR_DIALECT: Dialect = DIALECTS.get("openai")!;

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/**
 * The pacer's sink for a chat stream: each Responses event the schedule
 * reaches is rendered into the chunks it completes (none for most), each a
 * `data:` line; heartbeats are SSE comments; the stream ends with `data:
 * [DONE]`, or, for a failed answer, right after its `error` data line.
 */
class ChatSseSink implements PaceSink {
  private count = 0;
  private blocked: Promise<boolean> | undefined;
  /** The clock time the stream's last write began (read before it; see RequestHandler), once it was ended. */
  endedAt: number | undefined = undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly events: { at(index: number): unknown },
    private readonly chunker: ChatChunker,
    private readonly headers: Record<string, string>,
    private readonly clock: Pick<Clock, "now">,
  ) {}

  get sent(): number {
    return this.count;
  }

  private gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  private write(text: string): boolean | Promise<boolean> {
    if (this.gone()) return false;
    if (!this.res.headersSent) this.res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
    if (text === "") return true;
    if (this.blocked) return this.blocked.then((ok) => (ok ? this.write(text) : false));
    if (this.res.write(text)) return true;
    this.blocked = drained(this.res).then((ok) => {
      this.blocked = undefined;
      return ok;
    });
    return this.blocked;
  }

  event(index: number): boolean | Promise<boolean> {
    if (this.gone()) return false;
    this.count++;
    const out = this.chunker.event(this.events.at(index) as never);
    return this.write(out.map(frameOf).join(""));
  }

  heartbeat(): boolean | Promise<boolean> {
    return this.write(HEARTBEAT_FRAME);
  }

  end(): void {
    if (this.gone()) return;
    if (!this.res.headersSent) this.res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
    this.endedAt = this.clock.now();
    this.res.end(this.chunker.errored ? "" : "data: [DONE]\n\n");
  }

  destroy(): void {
    const socket = this.res.socket;
    if (!socket) return void this.res.destroy();
    if (!this.res.headersSent) this.res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
    this.res.flushHeaders();
    // end() sends what is buffered, then FIN: the client sees a stream cut short, not an empty reply.
    socket.end();
    socket.setTimeout(1_000, () => socket.destroy());
  }
}

/** One chunk, or the error that ends a failed stream, as an SSE `data:` line. */
const frameOf = (out: ChatOut): string =>
  `data: ${JSON.stringify(out.kind === "chunk" ? out.chunk : { error: out.error })}\n\n`;

/**
 * Answers one `POST /v1/chat/completions`. Throws the ApiError of a bad
 * request (before anything is sent); the caller renders it in OpenAI's shape.
 */
export async function handleChatCompletion(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AppDeps,
  entry: JournalEntry | undefined,
): Promise<number | undefined> {
  const started = deps.clock.now();
  const { json } = await readObjectBody(req, deps, entry);
  const headers = fromHeaders(req.headers);
  const controls = readControls(headers, deps.service.profiles);
  const ask = readChatRequest(json);
  // The request's `seed` seeds the answer as `x-mock-seed` does (the header wins).
  if (ask.seed !== null && controls.seed === undefined) controls.seed = ask.seed;
  const request = parseCreateRequest(ask.body, { strict: false });
  // Chat Completions takes limits under the Responses minimum (16): set past the Responses schema.
  if (ask.maxTokens !== null) request.max_output_tokens = ask.maxTokens;
  const session = sessionOf(headers.get("x-mock-session") || undefined);
  const input: TurnInput = {
    request,
    controls,
    dialect: controls.dialect ?? deps.dialect,
    session,
    key: apiKeyOf(req.headers.authorization),
    lookup: sessionStore(deps.store, session),
    entry,
    started,
    transport: "http",
    delivery: ask.stream ? "stream" : "json",
    onGone: (fn: () => void) => onClientGone(res, fn),
  };
  const turn = await prepareTurn(deps, input);
  const { answer } = turn;
  const frame = {
    id: chatId(answer.plan.base.id),
    created: turn.createdAt,
    model: ask.model,
    includeUsage: ask.includeUsage,
  };
  const answerHeaders = { "x-mock-scenario": answer.scenario.name, ...turn.headers };

  if (ask.stream) {
    const sink = new ChatSseSink(res, answer.events, new ChatChunker(frame), answerHeaders, deps.clock);
    await playTurn(deps, turn, sink, {
      signal: () => disconnectSignal(res),
      done: true,
      sent: () => sink.sent,
    });
    return sink.endedAt;
  }

  // Not streamed: the whole completion when its stream would have ended; a failed answer is its error, with its status.
  const response = answer.response as ResponseResource;
  const failed = response.status === "failed";
  const body = JSON.stringify(failed ? { error: chatError(response.error) } : chatCompletion(frame, response));
  return playAsJson(deps, turn, res, () => sendJson(res, failed ? 500 : 200, body, answerHeaders));
}
