/**
 * `POST /v1/responses` over HTTP: read and validate the body, then the turn
 * (src/turn/turn.ts) prepares the answer, and this transport writes it: SSE
 * through the pacer, the JSON body once the answer's time is up, or a
 * background run (its JSON, or its stream followed live).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { dialectHeaders, responseBody } from "../dialect/index.js";
import type { JournalEntry } from "../journal/journal.js";
import { ApiError } from "../spec/index.js";
import type { AbortLike, PaceSink } from "../timing/pacer.js";
import { playTurn, prepareTurn, startRun, type PreparedTurn } from "../turn/turn.js";
import { readCreateRequest } from "./create-request.js";
import type { AppDeps } from "./deps.js";
import { followRun } from "./follow-run.js";
import { sendJson } from "./raw.js";
import { sseSink } from "./sse.js";

/**
 * Aborts when the client goes away before the response finished (or the
 * server closes it). A one-listener stand-in for an AbortSignal: one is made
 * per stream, and an AbortController costs more than the rest of a short one.
 */
export function disconnectSignal(res: ServerResponse): AbortLike {
  let listener: (() => void) | undefined;
  const signal = {
    aborted: false,
    addEventListener: (_type: "abort", fn: () => void) => void (listener = fn),
    removeEventListener: (_type: "abort", fn: () => void) => void (listener === fn && (listener = undefined)),
  };
  res.once("close", () => {
    if (res.writableFinished) return;
    signal.aborted = true;
    listener?.();
  });
  return signal;
}

/**
 * Answers one `POST /v1/responses` on Node's request and response. It throws
 * (an ApiError, before anything was sent) for a bad request; the caller
 * renders that. Otherwise it writes the whole answer itself, in the request's
 * dialect, and resolves when the answer has been played.
 */
export async function handleCreateResponse(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AppDeps,
  entry: JournalEntry | undefined,
): Promise<number | undefined> {
  const { input } = await readCreateRequest(req, deps, entry, "http", res);
  const { request, dialect, started } = input;
  if (request.background && request.store === false) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_value",
      param: "store",
      message: "A background response must be stored: drop store: false, or background: true.",
    });
  }
  const turn = await prepareTurn(deps, input);
  const { answer } = turn;
  const { plan } = answer;
  // With the headers the turn's steps added (the limiter's x-ratelimit-*).
  const answerHeaders = () => ({
    "x-mock-scenario": answer.scenario.name,
    ...dialectHeaders(dialect, plan.base.id, deps.clock.now() - started),
    ...turn.headers,
  });

  if (request.background) {
    const record = turn.record!;
    // The answer is the response as it starts (queued), whatever the run does before it is written.
    const body = responseBody(dialect, record.response, plan);
    const run = startRun(deps, turn);
    if (request.stream) {
      await followRun(res, run, -1, dialect, answerHeaders());
      if (entry)
        entry.outcome = !res.writableEnded
          ? "aborted"
          : run.state === "cancelled"
            ? "cancelled"
            : answer.response.status;
      return;
    }
    if (entry) entry.outcome = record.response.status;
    const headers = answerHeaders();
    const sentAt = deps.clock.now();
    sendJson(res, 200, body, headers);
    return sentAt;
  }

  if (request.stream) {
    const sink = sseSink(
      res,
      answer.events,
      dialect,
      plan,
      answerHeaders(),
      turn.timing.faults.splitUtf8 === true,
      deps.clock,
    );
    await playTurn(deps, turn, sink, {
      signal: () => disconnectSignal(res),
      done: dialect.sse.done,
      sent: () => sink.sent,
    });
    return sink.endedAt;
  }

  // Not streamed: the whole answer arrives when its stream would have ended (at once when it is not paced); faults apply alike.
  const body = responseBody(dialect, answer.response, plan);
  return playAsJson(deps, turn, res, () => sendJson(res, 200, body, answerHeaders()));
}

/**
 * Plays a turn whose answer is one JSON body (`send` writes it), sent when its
 * stream would have ended: nothing goes out per event, and faults apply alike.
 * Resolves with the clock time `send` was called (undefined if it never was).
 */
export async function playAsJson(
  deps: AppDeps,
  turn: PreparedTurn,
  res: ServerResponse,
  send: () => void,
): Promise<number | undefined> {
  let reached = 0;
  const jsonSink: PaceSink & { endedAt: number | undefined } = {
    // Nothing is sent per event; counted only to tell a hang from a client that left before it.
    event: () => !res.destroyed && ++reached > 0,
    heartbeat: () => !res.destroyed,
    end: () => {
      jsonSink.endedAt = deps.clock.now();
      send();
    },
    destroy: () => res.destroy(),
    endedAt: undefined,
  };
  await playTurn(deps, turn, jsonSink, {
    signal: () => disconnectSignal(res),
    done: false,
    json: true,
    sent: () => reached,
  });
  return jsonSink.endedAt;
}
