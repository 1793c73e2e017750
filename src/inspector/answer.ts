/**
 * A request's answer on its timeline, as `GET /__mock/requests/{seq}/answer`
 * shows it: each mark with its time, each event's JSON as it went over the
 * wire in the request's dialect, the final response or the error object.
 * Built when the inspector asks, never on the hot path: a mock answer's
 * events are re-emitted from its plan (the engine is deterministic), a
 * proxied one's were kept as forwarded. Pure.
 */
import { eventFrame, renderErrorObject, renderResponse, responseBody, type Dialect } from "../dialect/index.js";
import { emitEvents } from "../emit/emit-events.js";
import { finalResponse } from "../emit/final.js";
import type { JournalEntry } from "../journal/journal.js";
import type { Mark, MarkKind } from "../journal/timeline.js";
import type { AnswerSource, Trace } from "../journal/trace.js";
import { TERMINAL_EVENT_TYPES, type StreamEvent } from "../spec/index.js";

type Json = Record<string, unknown>;

export type AnswerKind = "stream" | "json" | "error" | "none";

/** One mark of the timeline as the inspector sends it. */
export interface TimelineItem {
  /** Ms since the request arrived. */
  t: number;
  kind: MarkKind;
  /** The event's index in the answer (events only). */
  index?: number;
  /** The event's `type` (events only). */
  type?: string;
  /** The event as it was sent, in the request's dialect (events only; absent when it could not be rebuilt). */
  event?: Json;
}

export interface AnswerView {
  seq: number;
  kind: AnswerKind;
  status: number;
  dialect: string;
  timeline: TimelineItem[];
  /** Whether marks were dropped (the timeline's cap, or the journal's budget). */
  truncated: boolean;
  /** Marks not kept. */
  dropped: number;
  /** The final response as sent (the terminal event's, for a stream), or null. */
  response: Json | null;
  /** The error object answered (`{type, code, param, message}` in the dialect), or null. */
  error: Json | null;
  upstream: JournalEntry["upstream"];
}

/** The JSON of an SSE frame's `data:` line (a frame the dialect rendered: one `data:` line). */
export function frameData(frame: string): Json {
  const at = frame.indexOf("data: ");
  return JSON.parse(frame.slice(at + 6, frame.indexOf("\n", at))) as Json;
}

/** The wire form of a mock answer's events, in its dialect (re-emitted from the plan). */
export function wireEvents(source: Extract<AnswerSource, { kind: "mock" }>): {
  events: readonly StreamEvent[];
  json: (index: number) => Json | undefined;
} {
  const events = source.events ?? emitEvents(source.plan);
  const cache = new Map<number, Json>();
  return {
    events,
    json(index) {
      const event = events[index];
      if (event === undefined) return undefined;
      let out = cache.get(index);
      if (!out) cache.set(index, (out = frameData(eventFrame(source.dialect, event, source.plan))));
      return out;
    },
  };
}

/** The marks of an answer whose timeline was not kept as marks: a proxied stream's events, its end. */
function forwardedMarks(source: Extract<AnswerSource, { kind: "forwarded" }>, entry: JournalEntry): TimelineItem[] {
  const { render } = source;
  const out: TimelineItem[] = source.events.map(({ at, event }, index) => {
    const sent = render ? frameData(eventFrame(render.dialect, event as unknown as StreamEvent, render.plan)) : event;
    return { t: at, kind: "event" as const, index, type: sent.type as string, event: sent };
  });
  return [...out, ...endMarks(entry, source.done)];
}

/** The marks that end an answer with no timeline of its own: `end` (with `done` before it), or `abort`. */
function endMarks(entry: JournalEntry, done = false): TimelineItem[] {
  if (entry.durationMs === null) return [];
  const t = entry.durationMs;
  if (entry.outcome === "aborted") return [{ t, kind: "abort" }];
  return done
    ? [
        { t, kind: "done" },
        { t, kind: "end" },
      ]
    : [{ t, kind: "end" }];
}

/** The error object of an error answer, in its dialect. */
function errorObject(source: Extract<AnswerSource, { kind: "error" }>, dialect: Dialect): Json {
  return renderErrorObject(dialect, source.error) as unknown as Json;
}

/**
 * The answer view of an entry. `trace` is what the journal kept of it;
 * `dialect` the one its answer was sent in when the trace does not say
 * (the request's `x-mock-dialect`, or the server's).
 */
export function answerView(entry: JournalEntry, trace: Trace | undefined, dialect: Dialect): AnswerView {
  const source = trace?.source ?? null;
  const timeline = trace?.timeline ?? null;
  const view: AnswerView = {
    seq: entry.seq,
    kind: "none",
    status: entry.status,
    dialect: source?.kind === "mock" ? source.dialect.name : dialect.name,
    timeline: [],
    truncated: timeline?.truncated ?? false,
    dropped: timeline?.dropped ?? 0,
    response: null,
    error: null,
    upstream: entry.upstream,
  };
  const marks: Mark[] = timeline?.marks() ?? [];
  switch (source?.kind) {
    case "mock": {
      view.kind = source.streamed ? "stream" : "json";
      const wire = wireEvents(source);
      view.timeline = marks.map((m) => {
        if (m.kind !== "event") return m;
        const event = wire.json(m.index!);
        return { ...m, type: wire.events[m.index!]?.type, event };
      });
      if (!source.streamed) {
        if (marks.some((m) => m.kind === "end"))
          view.response = JSON.parse(responseBody(source.dialect, finalResponse(source.plan), source.plan)) as Json;
      } else {
        // The final response is the terminal event's, when it was sent.
        const terminal = [...view.timeline]
          .reverse()
          .find((m) => m.kind === "event" && m.type !== undefined && TERMINAL_EVENT_TYPES.has(m.type));
        view.response = ((terminal?.event as { response?: Json } | undefined)?.response ?? null) as Json | null;
      }
      break;
    }
    case "forwarded": {
      view.kind = "stream";
      view.timeline = forwardedMarks(source, entry);
      view.truncated = source.events.length < source.total;
      view.dropped = source.total - source.events.length;
      const terminal = [...source.events].reverse().find((e) => TERMINAL_EVENT_TYPES.has(e.event.type));
      view.response = ((terminal?.event as { response?: Json } | undefined)?.response ?? null) as Json | null;
      break;
    }
    case "forwarded-json": {
      const body = source.body as { object?: unknown; error?: unknown } | null;
      const isError = entry.status >= 400;
      view.kind = isError ? "error" : "json";
      view.timeline = [{ t: source.at, kind: "end" }];
      if (isError) view.error = body && typeof body.error === "object" ? (body.error as Json) : null;
      else view.response = body && typeof body === "object" ? (body as Json) : null;
      break;
    }
    case "error": {
      view.kind = "error";
      view.error = errorObject(source, dialect);
      view.timeline = marks.length > 0 ? marks : endMarks(entry);
      break;
    }
    default:
      view.timeline = marks;
  }
  return view;
}

/** The response of a stored mock answer rendered in its dialect (for callers that need only it). */
export const renderedResponse = (source: Extract<AnswerSource, { kind: "mock" }>): Json =>
  renderResponse(source.dialect, finalResponse(source.plan), source.plan) as Json;
