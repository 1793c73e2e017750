/**
 * The timeline's geometry: an answer's marks (events, heartbeats, `[DONE]`, a
 * cut) placed on a time axis from the request's arrival, to scale, with the
 * latency before the first event and the pauses worth pointing at. Pure:
 * times in, positions and labels out; the view draws them.
 */
import type { TimelineItem } from "./model.js";

/** The terminal events of a response stream. */
export const TERMINAL_TYPES = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** How a mark is drawn. */
export type MarkKind = "event" | "terminal" | "error" | "heartbeat" | "done" | "end" | "cut";

export interface Mark {
  /** Position in the answer's timeline (the event list's order). */
  position: number;
  t: number;
  x: number;
  kind: MarkKind;
  /** The answer's own kind (`event`, `heartbeat`, `drop`, …). */
  source: TimelineItem["kind"];
  index: number | null;
  label: string;
}

export interface Gap {
  from: number;
  to: number;
  x1: number;
  x2: number;
  label: string;
}

export interface Tick {
  t: number;
  x: number;
  label: string;
}

export interface TimelineLayout {
  width: number;
  /** Pixels per ms. */
  scale: number;
  /** The time at the right edge. */
  span: number;
  marks: Mark[];
  ticks: Tick[];
  /** From the request's arrival to the first event, its wait for a slot included (null when nothing was sent). */
  latency: Gap | null;
  /** Pauses between marks long enough to see: at least PAUSE_MIN_MS and PAUSE_FACTOR times the median gap. */
  pauses: Gap[];
}

/** Left and right margins of the axis, in px. */
export const AXIS_MARGIN = 16;
/** A pause is pointed at when it lasts at least this long… */
export const PAUSE_MIN_MS = 50;
/** …and this many times the median gap between events. */
export const PAUSE_FACTOR = 4;
/** At most this many pauses are labelled (the longest). */
export const MAX_PAUSES = 8;

const CUT_KINDS = new Set(["drop", "hang", "abort"]);

/** A ms value as an axis label. */
export function msLabel(ms: number): string {
  if (ms >= 1000) return `${(Math.round(ms / 10) / 100).toString()} s`;
  return `${Math.round(ms * 10) / 10} ms`;
}

/** A "nice" tick step (1, 2 or 5 × 10^k ms) giving at most `maxTicks` ticks over `span`. */
export function tickStep(span: number, maxTicks: number): number {
  const raw = span / Math.max(1, maxTicks);
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  for (const m of [1, 2, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

function markKind(item: TimelineItem): MarkKind {
  if (CUT_KINDS.has(item.kind)) return "cut";
  if (item.kind === "heartbeat" || item.kind === "done" || item.kind === "end") return item.kind;
  if (item.type !== undefined && TERMINAL_TYPES.has(item.type)) return "terminal";
  if (item.type === "error") return "error";
  return "event";
}

function markLabel(item: TimelineItem): string {
  switch (item.kind) {
    case "event":
      return `#${item.index ?? "?"} ${item.type ?? "event"}`;
    case "heartbeat":
      return "heartbeat (: keep-alive)";
    case "done":
      return "[DONE]";
    case "end":
      return "end of answer";
    case "drop":
      return "connection dropped (fault)";
    case "hang":
      return "hang: no more events (fault)";
    case "abort":
      return "client went away";
  }
}

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Places an answer's marks on an axis `width` px wide; `waitMs`, its wait for a slot, is named in its latency. */
export function layoutTimeline(items: readonly TimelineItem[], width: number, waitMs = 0): TimelineLayout {
  const last = items.reduce((m, i) => Math.max(m, i.t), 0);
  const step = tickStep(Math.max(last, 1), Math.max(2, Math.floor(width / 90)));
  const span = Math.max(step, Math.ceil(Math.max(last, 1) / step) * step);
  const inner = Math.max(1, width - 2 * AXIS_MARGIN);
  const scale = inner / span;
  const xOf = (t: number) => AXIS_MARGIN + t * scale;

  const marks: Mark[] = items.map((item, position) => ({
    position,
    t: item.t,
    x: xOf(item.t),
    kind: markKind(item),
    source: item.kind,
    index: item.index ?? null,
    label: markLabel(item),
  }));

  const ticks: Tick[] = [];
  for (let t = 0; t <= span + 1e-9; t += step) ticks.push({ t, x: xOf(t), label: msLabel(t) });

  const events = marks.filter((m) => m.source === "event");
  const first = events[0];
  const latency = first
    ? {
        from: 0,
        to: first.t,
        x1: xOf(0),
        x2: first.x,
        label: `latency ${msLabel(first.t)}${waitMs > 0 ? ` (queued ${msLabel(waitMs)})` : ""}`,
      }
    : null;

  // Pauses: gaps between consecutive sent marks (events, [DONE], a cut), heartbeats aside.
  const sent = marks.filter((m) => m.source !== "heartbeat");
  const gaps: Gap[] = [];
  for (let i = 1; i < sent.length; i++) {
    const a = sent[i - 1];
    const b = sent[i];
    gaps.push({ from: a.t, to: b.t, x1: a.x, x2: b.x, label: `pause ${msLabel(b.t - a.t)}` });
  }
  const typical = median(gaps.map((g) => g.to - g.from));
  const pauses = gaps
    .filter((g) => g.to - g.from >= PAUSE_MIN_MS && g.to - g.from >= PAUSE_FACTOR * typical)
    .sort((a, b) => b.to - b.from - (a.to - a.from))
    .slice(0, MAX_PAUSES)
    .sort((a, b) => a.from - b.from);

  return { width, scale, span, marks, ticks, latency, pauses };
}
