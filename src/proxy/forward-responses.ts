/**
 * `--upstream-api responses`: the request goes to `{upstream}/responses` as
 * the client sent it, and the answer comes back as the upstream sent it —
 * same status, same headers (but the hop's own), same events, each frame
 * passed on the moment it is whole. A JSON answer is passed on once it has
 * all arrived, so that a cut one can still become a 502. The proxy adds
 * bytes only when the upstream fails: a stream it cuts short (or leaves
 * silent past the timeout) ends with an `error` event and `response.failed`,
 * numbered after the last event it sent; a failure before any answer is a
 * spec error object (502, 504).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { eventFrame, type Dialect } from "../dialect/index.js";
import { answerIds, buildBaseResponse, createRng, requestSeed } from "../generate/index.js";
import { dialectHeader, fromHeaders } from "../turn/control-headers.js";
import { renderedError, sendJson } from "../http/raw.js";
import { readObjectBody } from "../http/body.js";
import { conversationOf } from "../store/conversation.js";
import { doneFrame, drained, writeFrame } from "../http/sse.js";
import { parseCreateRequest } from "../http/validate.js";
import type { JournalEntry } from "../journal/journal.js";
import type { RecordedAnswer } from "../record/from-exchange.js";
import { inputItems } from "../scenario/conversation.js";
import { ApiError, type CreateResponseBody, type ItemParam, type ResponseResource } from "../spec/index.js";
import { withItemIds } from "../store/conversation.js";
import type { ResponseStore } from "../store/response-store.js";
import { keepForwarded, keepForwardedJson, noteAnswer, recordExchange, type ProxyContext } from "./context.js";
import { guardedCheck } from "./live-check.js";
import { SseReader } from "./sse-reader.js";
import { StreamWatch } from "./stream-watch.js";
import { answerHeaders, clientWatch, forwardHeaders, readAll, UpstreamFailure } from "./upstream.js";

const isSse = (headers: IncomingMessage["headers"]) =>
  String(headers["content-type"] ?? "")
    .toLowerCase()
    .startsWith("text/event-stream");

/** Upstream statuses that say the proxy's credentials are wrong, not what the model says: never recorded. */
const NOT_RECORDED = new Set([401, 403]);

/** The error a body that did not arrive whole becomes (nothing was sent to the client yet). */
const failedBody = (failure: UpstreamFailure) =>
  new ApiError({
    status: failure.kind === "timeout" ? 504 : 502,
    type: "server_error",
    code: failure.kind === "timeout" ? "upstream_timeout" : "upstream_disconnected",
    message: failure.message,
  });

/** Sends an error object in a dialect and shows it to the check. */
function answerError(
  res: ServerResponse,
  error: ApiError,
  dialect: Dialect,
  check: { json(status: number, body: string): void },
  entry: JournalEntry | undefined,
  keep?: (error: ApiError) => void,
): void {
  const { status, headers, body } = renderedError(error, dialect);
  check.json(status, body);
  if (entry?.upstream) entry.upstream.error = error.message;
  sendJson(res, status, body, headers);
  keep?.(error);
}

/** The upstream's error object, parsed from its body (for the recorder), or its text. */
function errorOf(text: string): { type?: unknown; code?: unknown; message?: unknown; param?: unknown } {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (body && typeof body.error === "object" && body.error !== null) return body.error as Record<string, unknown>;
    if (body && typeof body.error === "string") return { message: body.error };
  } catch {
    // not JSON
  }
  return { message: text.slice(0, 500) || "The upstream answered with an error and no body." };
}

export async function forwardResponsesCreate(
  p: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  entry: JournalEntry | undefined,
): Promise<void> {
  const { deps } = p;
  const started = deps.clock.now();
  const { raw, json } = await readObjectBody(req, deps, entry);
  const dialect = dialectHeader(fromHeaders(req.headers)) ?? deps.dialect;
  const stream = json.stream === true;
  // The upstream judges the request; the proxy reads it only to record it and to fail a stream the spec's way.
  let request: CreateResponseBody | null = null;
  let items: ItemParam[] | null = null;
  try {
    request = parseCreateRequest(json, { strict: false });
    items = conversationOf(p.memory as unknown as Pick<ResponseStore, "get">, request);
  } catch {
    // Not a request the proxy can read, or a chain it did not see: passed on all the same, not recorded.
  }
  if (entry) {
    entry.streamed = stream;
    entry.upstream = { api: "responses", url: `${p.upstream.display}/responses`, status: null, error: null };
  }
  const check = guardedCheck(p.checker, { body: json, dialect: dialect.name, stream });
  const at = () => deps.clock.now() - started;
  const client = clientWatch(res);
  let recorded: RecordedAnswer | null = null;
  let final: ResponseResource | null = null;
  /** An error object the proxy answered itself, kept for the inspector. */
  const keepError = (error: ApiError) =>
    entry && deps.journal.keepAnswer(entry, { kind: "error", error }, 256 + 2 * error.message.length);
  try {
    let answer;
    try {
      answer = await p.upstream.send({
        method: "POST",
        route: "/responses",
        headers: forwardHeaders(req.headers, p.upstreamKey),
        body: raw,
        signal: client.signal,
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (client.gone()) return;
      return answerError(res, err, dialect, check, entry, keepError);
    }
    if (entry?.upstream) entry.upstream.status = answer.status;

    if (!isSse(answer.headers)) {
      let body: string;
      try {
        body = await readAll(answer.body);
      } catch (err) {
        if (!(err instanceof UpstreamFailure)) throw err;
        if (client.gone()) return;
        return answerError(res, failedBody(err), dialect, check, entry, keepError);
      }
      if (client.gone()) return;
      check.json(answer.status, body);
      keepForwardedJson(deps.journal, entry, body, at());
      if (answer.status >= 400) noteAnswer(entry, { error: errorOf(body) });
      const headers = answerHeaders(answer.headers);
      res.writeHead(answer.status, { ...headers, "content-length": Buffer.byteLength(body) });
      res.end(body);
      if (answer.status >= 200 && answer.status < 300) {
        try {
          const parsed = JSON.parse(body) as ResponseResource;
          if (parsed && parsed.object === "response") {
            final = parsed;
            // A response still running (background mode) says nothing yet worth replaying.
            if (parsed.status === "completed" || parsed.status === "incomplete" || parsed.status === "failed")
              recorded = { kind: "json", response: parsed as unknown as Record<string, unknown>, at: at() };
          }
        } catch {
          // Not JSON: passed on as it is (the check says what is wrong with it).
        }
      } else if (!NOT_RECORDED.has(answer.status)) {
        const retry = answer.headers["retry-after"];
        recorded = {
          kind: "http_error",
          status: answer.status,
          error: errorOf(body),
          retryAfter: typeof retry === "string" ? retry : undefined,
        };
      }
      return;
    }

    // A stream: each whole frame goes on as it arrives.
    res.writeHead(answer.status, answerHeaders(answer.headers));
    const reader = new SseReader();
    const decoder = new TextDecoder();
    const watch = new StreamWatch();
    let failure: UpstreamFailure | null = null;
    try {
      for await (const chunk of answer.body) {
        const { frames, text } = reader.push(decoder.decode(chunk, { stream: true }));
        for (const frame of frames) {
          watch.frame(frame.data, at());
          check.event(frame);
        }
        if (text !== "" && !(await writeFrame(res, text))) {
          answer.abort();
          return; // the client went away: nothing more to say, nothing to record
        }
      }
    } catch (err) {
      if (!(err instanceof UpstreamFailure)) throw err;
      failure = err;
    }
    if (client.gone()) return; // nothing more to say, nothing to record
    /** The proxy ends the stream itself (with [DONE] where the dialect sends it). */
    const cut = !(failure === null && watch.terminal !== null);
    if (!cut) {
      res.end(reader.rest);
    } else {
      // Cut short (or ended with no terminal event): end the stream the spec's way.
      const message =
        failure?.message ??
        `The upstream (${p.upstream.display}/responses) ended the stream before its terminal event.`;
      const error = {
        type: "server_error",
        code: failure?.kind === "timeout" ? "upstream_timeout" : "upstream_disconnected",
        message,
        param: null,
      };
      if (entry?.upstream) entry.upstream.error = message;
      let out = "";
      // The upstream's own snapshot is already in its wire form: it is carried on as it is. One the proxy makes is rendered in the dialect.
      const upstreamSnapshot = watch.response !== null;
      for (const event of watch.cutEvents(error, fallbackResponse(p, request, json, dialect))) {
        const frame = upstreamSnapshot
          ? `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
          : eventFrame(dialect, event, undefined);
        const data = frame.slice(frame.indexOf("\ndata: ") + 7, -2);
        watch.frame(data, at());
        check.event({ event: event.type, data });
        out += frame;
      }
      const done = doneFrame(dialect);
      if (done !== "") check.event({ data: "[DONE]" });
      res.end(out + done);
    }
    if (watch.terminal !== null && watch.response) final = watch.response;
    noteAnswer(entry, { events: watch.count });
    keepForwarded(deps.journal, entry, watch.events, watch.done || (cut && dialect.sse.done));
    recorded = { kind: "stream", events: watch.events };
  } finally {
    if (entry) {
      entry.violations = check.end();
      if (final) entry.responseId = final.id;
      noteAnswer(entry, { response: final });
    }
    // Remembered only for the recorder: it rebuilds the conversation of a later previous_response_id from it.
    if (p.recorder && request && final && typeof final.id === "string")
      p.memory.put({ response: final, input: withItemIds(inputItems(request.input), final.id) });
    if (request && items && recorded) recordExchange(p, req, { request, items, answer: recorded });
  }
}

/** The response a stream that never sent one fails with: the request's, with an id of the proxy's. */
function fallbackResponse(
  p: ProxyContext,
  request: CreateResponseBody | null,
  json: Record<string, unknown>,
  dialect: Dialect,
): ResponseResource {
  const seed = requestSeed(p.deps.seed, (request ?? json) as CreateResponseBody);
  const id = answerIds(
    createRng(seed),
    dialect.ids,
    seed,
    null,
    p.deps.repeats.next(`proxy-failed\u0000${seed}`),
  ).response();
  const base =
    request ?? ({ model: typeof json.model === "string" ? json.model : "unknown", input: "" } as CreateResponseBody);
  return buildBaseResponse(base, { id, createdAt: Math.floor(p.deps.wallClock.now() / 1000) });
}

/** Writes bytes as they came; resolves false if the client is gone (waits for the buffer to drain). */
function writeBytes(res: ServerResponse, chunk: Buffer): boolean | Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  return res.write(chunk) ? true : drained(res);
}

/** Reads a request body of any type, up to the limit (for the routes passed on as they are). */
async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      throw new ApiError({
        status: 413,
        type: "invalid_request",
        code: "request_too_large",
        message: `The request body is larger than the limit of ${limit} bytes. Send less, or start the proxy with a larger --body-limit.`,
      });
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/**
 * The other `/v1/responses/*` routes (retrieve, delete, cancel, input items,
 * compact, input token counts): the upstream holds the responses, so they
 * are passed on as they are, and the answer back, bytes as they come.
 */
export async function forwardResponsesRoute(
  p: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
  entry: JournalEntry | undefined,
): Promise<void> {
  const { deps } = p;
  const dialect = dialectHeader(fromHeaders(req.headers)) ?? deps.dialect;
  const body = await readRaw(req, deps.bodyLimit);
  if (entry && body.length > 0) {
    const text = body.toString("utf8");
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text
    }
    deps.journal.setBody(entry, text, parsed, body.length);
  }
  const route = (req.url ?? "/").replace(/^\/v1(?=\/)/, "");
  if (entry)
    entry.upstream = {
      api: "responses",
      url: `${p.upstream.display}${route.split("?")[0]}`,
      status: null,
      error: null,
    };
  const client = clientWatch(res);
  let answer;
  try {
    answer = await p.upstream.send({
      method: req.method ?? "GET",
      route,
      headers: forwardHeaders(req.headers, p.upstreamKey),
      body: body.length > 0 ? body.toString("utf8") : undefined,
      signal: client.signal,
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (entry?.upstream) entry.upstream.error = err.message;
    if (client.gone()) return;
    const { status, headers, body: text } = renderedError(err, dialect);
    return sendJson(res, status, text, headers);
  }
  if (entry?.upstream) entry.upstream.status = answer.status;
  res.writeHead(answer.status, answerHeaders(answer.headers));
  try {
    for await (const chunk of answer.body) if (!(await writeBytes(res, chunk))) return answer.abort();
    res.end();
  } catch (err) {
    if (!(err instanceof UpstreamFailure)) throw err;
    if (entry?.upstream) entry.upstream.error = err.message;
    res.destroy();
  }
}
