/**
 * The conformance result of one journaled answer, as
 * `GET /__mock/requests/{seq}/check` shows it: the same checks `check` and
 * the proxy's live check run (src/check), on the answer as it was sent.
 * Computed when asked, never on the hot path. Pure.
 */
import {
  checkAnswer,
  checkErrorBody,
  checkStream,
  isCheckDialect,
  StreamChecker,
  type CheckDialect,
  type Violation,
} from "../check/index.js";
import { DONE_FRAME, eventFrame, renderError, responseBody, type Dialect } from "../dialect/index.js";
import { finalResponse } from "../emit/final.js";
import type { JournalEntry } from "../journal/journal.js";
import type { Trace } from "../journal/trace.js";
import { wireEvents } from "./answer.js";

export interface CheckViolationView {
  /** The event's index in the answer (`[DONE]` counts as one), or null for a body. */
  index: number | null;
  type: string | null;
  path: string | null;
  message: string;
}

export interface CheckView {
  checked: boolean;
  ok: boolean;
  violations: CheckViolationView[];
  /** Why the answer was not checked, or what to keep in mind reading the result. */
  note?: string;
}

const JSON_TYPE = "application/json";

const notChecked = (note: string): CheckView => ({ checked: false, ok: false, violations: [], note });

const views = (violations: readonly Violation[]): CheckViolationView[] =>
  violations.map((v) => ({ index: v.event ?? null, type: v.eventType ?? null, path: v.path, message: v.message }));

const checkDialect = (dialect: Dialect): CheckDialect =>
  isCheckDialect(dialect.name) ? dialect.name : "open-responses";

/** Final statuses of a response: an answer that ended with one was sent whole. */
const FINISHED: ReadonlySet<string> = new Set([
  "completed",
  "incomplete",
  "failed",
  "cancelled",
  "queued",
  "in_progress",
]);

/**
 * Checks what an entry's answer was. `dialect` is the one it was sent in when
 * the trace does not say (the request's `x-mock-dialect`, or the server's).
 */
export function checkEntry(entry: JournalEntry, trace: Trace | undefined, dialect: Dialect): CheckView {
  if (entry.outcome === null) return notChecked("The request is still in progress: ask again once it has ended.");
  const source = trace?.source ?? null;
  const request = entry.body ?? undefined;
  // Its trace holds the Responses events it was rendered from, not the chunks sent: the checker judges Responses answers only.
  if (entry.path === "/v1/chat/completions")
    return notChecked(
      "A Chat Completions answer: the checker judges Responses answers only (the chunks were rendered from the Responses events shown).",
    );
  if (!source) {
    if (entry.violations !== null)
      return {
        checked: true,
        ok: entry.violations.length === 0,
        violations: entry.violations.map((v) => ({ index: v.index, type: null, path: v.path, message: v.message })),
      };
    return notChecked(
      "Nothing of this answer was kept to check: only answers of POST /v1/responses are (and none while the journal keeps no entries).",
    );
  }
  switch (source.kind) {
    case "forwarded":
    case "forwarded-json":
      if (entry.violations === null)
        return notChecked("The proxy did not check this answer (the live check was off, or it could not read it).");
      return {
        checked: true,
        ok: entry.violations.length === 0,
        violations: entry.violations.map((v) => ({ index: v.index, type: null, path: v.path, message: v.message })),
      };
    case "error": {
      const rendered = renderError(dialect, source.error);
      const verdict = checkErrorBody({
        status: rendered.status,
        contentType: JSON_TYPE,
        body: JSON.stringify(rendered.body),
        dialect: checkDialect(dialect),
        request,
      });
      return { checked: true, ok: verdict.ok, violations: views(verdict.violations) };
    }
    case "mock": {
      const d = source.dialect;
      if (entry.outcome === "aborted" || entry.outcome === "hung") {
        return notChecked(
          `The client went away before the answer ended (${entry.outcome}): what was sent is not a whole answer, so it is not judged.`,
        );
      }
      if (!source.streamed) {
        if (entry.outcome === "dropped")
          return notChecked("A drop fault cut the connection before the body was sent: there is no answer to judge.");
        const body = responseBody(d, finalResponse(source.plan), source.plan);
        const verdict = checkAnswer({
          status: entry.status || 200,
          contentType: JSON_TYPE,
          body,
          dialect: checkDialect(d),
          request,
          stream: false,
        });
        return { checked: true, ok: verdict.ok, violations: views(verdict.violations) };
      }
      const wire = wireEvents(source);
      const { events } = wire;
      const sent = Math.min(entry.events ?? events.length, events.length);
      if (source.websocket) {
        // WebSocket messages: events with no SSE framing, and no [DONE].
        const checker = new StreamChecker({ request, dialect: checkDialect(d) });
        for (let i = 0; i < sent; i++) checker.event(wire.json(i));
        const verdict = checker.end({ framing: "none" });
        return { checked: true, ok: verdict.ok, violations: views(verdict.violations) };
      }
      let text = "";
      for (let i = 0; i < sent; i++) text += eventFrame(d, events[i], source.plan);
      const whole = entry.outcome !== null && FINISHED.has(entry.outcome);
      if (whole && d.sse.done) text += DONE_FRAME;
      const verdict = checkStream(text, {
        request,
        dialect: checkDialect(d),
        status: 200,
        contentType: "text/event-stream",
      });
      const view: CheckView = { checked: true, ok: verdict.ok, violations: views(verdict.violations) };
      if (entry.outcome === "dropped")
        view.note = `A drop fault cut the stream after ${sent} events, as asked: the violations are what a client saw of it.`;
      return view;
    }
  }
}
