/**
 * `--upstream-api chat`: a Responses request is translated into a Chat
 * Completions request (chat-request.ts), sent to `{upstream}/chat/completions`,
 * and the chunks that come back are translated into Responses events
 * (chat-stream.ts) as they arrive, rendered in the client's dialect. The
 * proxy is the Responses server here: it validates the request as the mock
 * does, answers with ids of its own, stores what it answered (so
 * `previous_response_id` and `GET /v1/responses/{id}` work), and fails the
 * spec's way when the upstream does.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { dialectHeaders, renderEvent, responseBody, toJson } from "../dialect/index.js";
import {
  answerIds,
  buildBaseResponse,
  countInputTokens,
  createRng,
  planOptions,
  type Plan,
} from "../generate/index.js";
import { requestEcho } from "../generate/assemble.js";
import { readCreateRequest } from "../http/create-request.js";
import { renderedError, sendJson } from "../http/raw.js";
import { beginTurn, countRepeat, endTurn, type TurnContext } from "../turn/turn.js";
import { doneFrame, sseHeaders, writeFrame } from "../http/sse.js";
import type { JournalEntry } from "../journal/journal.js";
import type { RecordedAnswer, RecordedEvent } from "../record/from-exchange.js";
import { inputItems } from "../scenario/conversation.js";
import { ApiError, type CreateResponseBody, type StreamEvent } from "../spec/index.js";
import { withItemIds } from "../store/conversation.js";
import { buildChatRequest } from "./chat-request.js";
import { ChatTranslator, completionAsChunks, upstreamError } from "./chat-stream.js";
import {
  keepForwarded,
  keepForwardedJson,
  noteAnswer,
  recordExchange,
  secretsOf,
  type ProxyContext,
} from "./context.js";
import { redact } from "../record/writer.js";
import { guardedCheck } from "./live-check.js";
import { SseReader } from "./sse-reader.js";
import { clientWatch, readAll, UpstreamFailure } from "./upstream.js";

const isSse = (headers: IncomingMessage["headers"]) =>
  String(headers["content-type"] ?? "")
    .toLowerCase()
    .startsWith("text/event-stream");

/** The headers of a request to the Chat Completions upstream: JSON, and a key (the upstream's, or the client's own). */
function chatHeaders(req: IncomingMessage, upstreamKey: string | undefined, stream: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
    "accept-encoding": "identity",
  };
  if (upstreamKey !== undefined) headers.authorization = `Bearer ${upstreamKey}`;
  else if (typeof req.headers.authorization === "string") headers.authorization = req.headers.authorization;
  for (const name of ["openai-organization", "openai-project", "user-agent"]) {
    const v = req.headers[name];
    if (typeof v === "string") headers[name] = v;
  }
  return headers;
}

/** The spec error type of an HTTP status. */
const errorTypeOf = (status: number) =>
  status === 404
    ? "not_found"
    : status === 429
      ? "too_many_requests"
      : status >= 500
        ? "server_error"
        : "invalid_request";

/**
 * A Chat Completions server's error answer as the spec error the client
 * gets: its status (a status that is not an error becomes 502), its code and
 * param when it gave them, its message. Ollama (`{"error": "…"}`), vLLM
 * (`{"object":"error","message":…}`) and OpenAI-style (`{"error": {…}}`)
 * bodies are read alike.
 */
export function chatErrorOf(status: number, text: string, where: string, retryAfter?: string): ApiError {
  let e: Record<string, unknown> = {};
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (typeof body.error === "object" && body.error !== null) e = body.error as Record<string, unknown>;
    else if (typeof body.error === "string") e = { message: body.error };
    else if (typeof body.message === "string") e = body;
    else if (typeof body.detail === "string") e = { message: body.detail };
  } catch {
    e = { message: text.trim().slice(0, 500) };
  }
  const code = typeof e.code === "string" && e.code !== "" ? e.code : "upstream_error";
  const message = typeof e.message === "string" && e.message !== "" ? e.message : `HTTP ${status} with no message`;
  const out = status >= 400 && status <= 599 ? status : 502;
  return new ApiError({
    status: out,
    type: errorTypeOf(out),
    code,
    param: typeof e.param === "string" ? e.param : null,
    message: `The upstream (${where}) answered ${status}: ${message}`,
    // A 429's retry-after is the upstream's to give, and the client's to obey.
    ...(out === 429 && retryAfter !== undefined ? { headers: { "retry-after": retryAfter } } : {}),
  });
}

/** The plan a translated answer is rendered and stored with: the request's echoes, no scripted items. */
function translatedPlan(request: CreateResponseBody, base: Plan["base"], inputTokens: number): Plan {
  return {
    base,
    items: [],
    outcome: { kind: "completed" },
    budget: null,
    inputTokens,
    completedAt: base.created_at,
    options: planOptions(request),
    echo: requestEcho(request),
  };
}

export async function forwardChatCreate(
  p: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  entry: JournalEntry | undefined,
): Promise<void> {
  const { deps } = p;
  const { json, input } = await readCreateRequest(req, deps, entry, "proxy", res);
  // Answered as it arrives from the upstream, never as a background run.
  input.delivery = input.request.stream === true ? "stream" : "json";
  // The turn's first steps are the mock's: the chain (a shared store fetches it first), the conversation, the seed.
  const turn = await beginTurn(deps, input);
  try {
    await translateTurn(p, req, res, turn, json);
  } finally {
    endTurn(deps, turn, turn.outcome ?? "error");
  }
}

/**
 * The proxy's part of a turn: the request translated for the upstream, its
 * answer translated back as it arrives, stored and recorded. Sets the turn's
 * outcome (`error` when an error was answered).
 */
async function translateTurn(
  p: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  turn: TurnContext,
  json: Record<string, unknown>,
): Promise<void> {
  const { deps } = p;
  const { request, dialect, session, entry, started, items } = turn;
  const stream = request.stream === true;
  const chat = buildChatRequest(request, items, stream);

  const seed = turn.seedString;
  const repeat = countRepeat(deps, turn);
  const ids = answerIds(createRng(seed), dialect.ids, seed, session, repeat);
  const id = ids.response();
  const base = buildBaseResponse(request, { id, createdAt: turn.createdAt });
  const inputTokens = countInputTokens(request, items);
  const plan = translatedPlan(request, base, inputTokens);
  const translator = new ChatTranslator({ base, ids, logprobs: plan.options.logprobs !== null, inputTokens });
  const where = `${p.upstream.display}/chat/completions`;
  if (entry) {
    entry.streamed = stream;
    entry.responseId = id;
    entry.upstream = { api: "chat", url: where, status: null, error: null };
  }
  const check = guardedCheck(p.checker, { body: json, dialect: dialect.name, stream });
  const at = () => deps.clock.now() - started;
  const now = () => Math.floor(deps.wallClock.now() / 1000);
  // With the headers the turn's steps added (the limiter's x-ratelimit-*).
  const answerHeaders = () => ({ ...dialectHeaders(dialect, id, deps.clock.now() - started), ...turn.headers });
  /** Every event sent, for the store (a stored response replays them) and the recorder. */
  const sent: RecordedEvent[] = [];
  let recorded: RecordedAnswer | null = null;

  const store = () => {
    const response = translator.response;
    if (!response || request.store === false) return;
    deps.store.put({
      response,
      input: withItemIds(inputItems(request.input), id),
      plan,
      events: sent.map((e) => e.event as unknown as StreamEvent),
      session,
    });
  };

  /** Writes events as SSE in the dialect (the head first); resolves false when the client is gone. */
  const write = (events: StreamEvent[], end = false): boolean | Promise<boolean> => {
    if (!res.headersSent) res.writeHead(200, { ...sseHeaders(dialect), ...answerHeaders() });
    let text = "";
    for (const event of events) {
      const data = toJson(dialect, renderEvent(dialect, event, plan));
      const type = (JSON.parse(data) as { type: string }).type;
      check.event({ event: type, data });
      sent.push({ at: at(), event: event as unknown as RecordedEvent["event"] });
      text += `event: ${type}\ndata: ${data}\n\n`;
    }
    if (end) {
      const done = doneFrame(dialect);
      if (done !== "") check.event({ data: "[DONE]" });
      if (!res.destroyed && !res.writableEnded) res.end(text + done);
      return true;
    }
    return text === "" ? !res.destroyed : writeFrame(res, text);
  };

  const fail = (error: ApiError) => {
    failed = true;
    const { status, headers: errorHeaders, body } = renderedError(error, dialect);
    check.json(status, body);
    if (entry?.upstream) entry.upstream.error = error.message;
    noteAnswer(entry, { error });
    sendJson(res, status, body, errorHeaders);
    if (entry) deps.journal.keepAnswer(entry, { kind: "error", error }, 256 + 2 * error.message.length);
  };

  /** Whether an error was answered (the turn's outcome). */
  let failed = false;
  const client = clientWatch(res);
  /** What the upstream says goes to the client and the journal: never with a key in it, should it echo one. */
  const secrets = secretsOf(p, req);
  const scrub = (text: string) => redact(text, secrets);
  try {
    let answer;
    try {
      answer = await p.upstream.send({
        method: "POST",
        route: "/chat/completions",
        headers: chatHeaders(req, p.upstreamKey, stream),
        body: JSON.stringify(chat),
        signal: client.signal,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (client.gone()) return;
      return fail(err);
    }
    if (entry?.upstream) entry.upstream.status = answer.status;

    if (!stream || answer.status < 200 || answer.status > 299 || !isSse(answer.headers)) {
      let text: string;
      try {
        text = await readAll(answer.body);
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err;
        if (client.gone()) return;
        return fail(
          new ApiError({
            status: err.kind === "timeout" ? 504 : 502,
            type: "server_error",
            code: err.kind === "timeout" ? "upstream_timeout" : "upstream_disconnected",
            message: err.message,
          }),
        );
      }
      if (answer.status < 200 || answer.status > 299) {
        const retry = answer.headers["retry-after"];
        const error = chatErrorOf(answer.status, scrub(text), where, typeof retry === "string" ? retry : undefined);
        if (answer.status !== 401 && answer.status !== 403)
          recorded = {
            kind: "http_error",
            status: error.status,
            error: { type: error.type, code: error.code, message: error.message, param: error.param },
            retryAfter: error.headers["retry-after"],
          };
        return fail(error);
      }
      let completion: unknown;
      try {
        completion = JSON.parse(text);
      } catch {
        return fail(
          new ApiError({
            status: 502,
            type: "server_error",
            code: "upstream_invalid_body",
            message: `The upstream (${where}) answered 200 with a body that is not JSON: ${scrub(text.slice(0, 200))}`,
          }),
        );
      }
      const events: StreamEvent[] = [];
      for (const chunk of completionAsChunks(completion)) events.push(...translator.chunk(chunk));
      events.push(...translator.end(now()));
      if (stream) {
        // Asked to stream, the upstream answered whole: the events go out together.
        write(events, true);
        recorded = { kind: "stream", events: sent };
        keepForwarded(deps.journal, entry, sent, dialect.sse.done, { dialect, plan });
      } else {
        for (const event of events) sent.push({ at: at(), event: event as unknown as RecordedEvent["event"] });
        const body = responseBody(dialect, translator.response!, plan);
        check.json(200, body);
        sendJson(res, 200, body, answerHeaders());
        keepForwardedJson(deps.journal, entry, body, at());
        recorded = { kind: "json", response: translator.response as unknown as Record<string, unknown>, at: at() };
      }
      store();
      return;
    }

    // A stream: chunks in, events out, as they come.
    const reader = new SseReader();
    const decoder = new TextDecoder();
    let failure: UpstreamFailure | null = null;
    try {
      read: for await (const piece of answer.body) {
        const events: StreamEvent[] = [];
        for (const frame of reader.push(decoder.decode(piece, { stream: true })).frames) {
          if (frame.data === "[DONE]") events.push(...translator.end(now()));
          else {
            let chunk: unknown;
            try {
              chunk = JSON.parse(frame.data.includes('"error"') ? scrub(frame.data) : frame.data);
            } catch {
              chunk = null;
            }
            events.push(
              ...(chunk === null
                ? translator.fail(
                    upstreamError(
                      "upstream_invalid_chunk",
                      `The upstream (${where}) sent a chunk that is not JSON: ${scrub(frame.data.slice(0, 120))}`,
                    ),
                  )
                : translator.chunk(chunk)),
            );
          }
          if (translator.ended) {
            answer.abort();
            if (!(await write(events))) return;
            break read;
          }
        }
        if (!(await write(events))) {
          answer.abort();
          return; // the client went away
        }
      }
    } catch (err) {
      if (!(err instanceof UpstreamFailure)) throw err;
      failure = err;
    }
    if (client.gone()) return; // nothing more to say, nothing to record
    let last: StreamEvent[] = [];
    if (!translator.ended) {
      if (failure === null && translator.finished) last = translator.end(now());
      else {
        const message = failure?.message ?? `The upstream (${where}) ended the stream before it finished.`;
        if (entry?.upstream) entry.upstream.error = message;
        last = translator.fail(
          upstreamError(failure?.kind === "timeout" ? "upstream_timeout" : "upstream_disconnected", message),
        );
      }
    }
    write(last, true);
    recorded = { kind: "stream", events: sent };
    keepForwarded(deps.journal, entry, sent, dialect.sse.done, { dialect, plan });
    store();
  } finally {
    if (entry) entry.violations = check.end();
    noteAnswer(entry, { response: translator.response, events: stream && res.headersSent ? sent.length : null });
    if (recorded) recordExchange(p, req, { request, items, answer: recorded });
    const status = translator.response?.status;
    turn.outcome = failed ? "error" : typeof status === "string" ? (status as TurnContext["outcome"]) : "aborted";
  }
}
