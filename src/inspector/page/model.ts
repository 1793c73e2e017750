/**
 * What the inspector shows, as data: the shapes the admin routes answer, the
 * list of entries kept by seq, the filters and the text of each cell. Pure (no
 * DOM, no I/O), so it is unit-tested in Node and shared by the page's views.
 */

/** A journal entry as `GET /__mock/requests` and the entry stream give it (the fields the page reads). */
export interface Entry {
  seq: number;
  at: number;
  session: string | null;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[]>;
  rawBody: string | null;
  body: unknown;
  bodyBytes: number | null;
  truncated: boolean;
  scenario: string | null;
  reason: string | null;
  responseId: string | null;
  status: number;
  streamed: boolean;
  outcome: string | null;
  errorCode: string | null;
  events: number | null;
  endedAt: number | null;
  durationMs: number | null;
  upstream: { api: string; url: string; status: number | null; error: string | null } | null;
  violations: { index: number | null; path: string | null; message: string }[] | null;
  /** The request's `model` (the server fills it in; older servers do not). */
  model?: string | null;
  /** What the answer costs in USD (null: no answer was planned; absent on older servers). */
  costUsd?: number | null;
  /** The limiter's verdict and the headers it answered with (null: no limit applied). */
  limits?: { verdict: string; limit: string | null; headers: Record<string, string> } | null;
  /** How long it waited for a slot, in ms (0: none); null when nothing caps concurrency (older servers: absent). */
  waitMs?: number | null;
  /** How many of the expectations this request was judged against it met (null: none judged it; older servers: absent). */
  expect?: { met: number; total: number } | null;
}

/** A cost for the page: `$0.000125` (to the millionth of a dollar), or null when there is none. */
export function costText(cost: number | null | undefined): string | null {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return null;
  if (cost > 0 && cost < 0.0000005) return "<$0.000001";
  return `$${cost.toFixed(6).replace(/\.?0+$/, "")}`;
}

/** The limiter's verdict for the page: `passed`, `rate_limited (requests)`; null when no limit applied. */
export function limitsText(limits: Entry["limits"]): string | null {
  if (!limits) return null;
  return limits.limit === null ? limits.verdict : `${limits.verdict} (${limits.limit})`;
}

/** One mark of an answer's timeline: `t` is ms since the request arrived. */
export interface TimelineItem {
  t: number;
  kind: "event" | "heartbeat" | "done" | "end" | "drop" | "hang" | "abort";
  index?: number;
  type?: string;
  event?: unknown;
}

/** `GET /__mock/requests/{seq}/answer`. */
export interface Answer {
  seq: number;
  kind: "stream" | "json" | "error" | "none";
  status: number;
  dialect: string | null;
  timeline: TimelineItem[];
  truncated: boolean;
  dropped: number;
  response: unknown;
  error: unknown;
  upstream: unknown;
}

/** `GET /__mock/requests/{seq}/check`. */
/** `GET /__mock/verify`: each rule of each expectation, and its status. */
export interface Verify {
  ok: boolean;
  expectations: {
    status: "met" | "unmet" | "pending";
    rule: string;
    scenario: string | null;
    turn: number | null;
    seq: number | null;
    message: string;
  }[];
}

export interface Check {
  checked: boolean;
  ok: boolean;
  violations: { index: number | null; type: string | null; path: string | null; message: string }[];
  note?: string;
}

/** `GET /__mock/requests/{seq}/curl`. */
export interface Curl {
  curl: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string | null };
}

/** The entries the page holds, by seq; newest first when listed. */
export class EntryList {
  private readonly bySeq = new Map<number, Entry>();

  constructor(private readonly limit = 1000) {}

  get size(): number {
    return this.bySeq.size;
  }

  /** Adds an entry or replaces the one with its seq (a request that ended comes again). Returns whether it was new. */
  upsert(entry: Entry): boolean {
    const isNew = !this.bySeq.has(entry.seq);
    this.bySeq.set(entry.seq, entry);
    if (isNew && this.bySeq.size > this.limit) {
      let oldest = Infinity;
      for (const seq of this.bySeq.keys()) oldest = Math.min(oldest, seq);
      this.bySeq.delete(oldest);
    }
    return isNew;
  }

  get(seq: number): Entry | undefined {
    return this.bySeq.get(seq);
  }

  /** Forgets one session's entries (null: those sent without a session), or every entry (undefined). */
  clear(session?: string | null): number[] {
    const gone: number[] = [];
    for (const [seq, e] of this.bySeq) if (session === undefined || e.session === session) gone.push(seq);
    for (const seq of gone) this.bySeq.delete(seq);
    return gone;
  }

  /** Newest first. */
  list(): Entry[] {
    return [...this.bySeq.values()].sort((a, b) => b.seq - a.seq);
  }

  /** The distinct values of a field, sorted, for the filters' choices. */
  values(pick: (e: Entry) => string | null): string[] {
    const seen = new Set<string>();
    for (const e of this.bySeq.values()) {
      const v = pick(e);
      if (v !== null) seen.add(v);
    }
    return [...seen].sort();
  }
}

export interface Filter {
  /** A session id; "" any; NO_SESSION those sent without one. */
  session: string;
  /** A scenario name; "" any. */
  scenario: string;
  /** "" any; "2xx"/"3xx"/"4xx"/"5xx" a class of status; "pending" in progress; else an outcome (`completed`, `dropped`, …). */
  status: string;
  /** Words that must all appear (case-insensitive) in the method, path, model, scenario, session, outcome, error code or body. */
  text: string;
}

/** The session filter's value for requests sent without a session. */
export const NO_SESSION = "\u0000none";

export const EMPTY_FILTER: Filter = { session: "", scenario: "", status: "", text: "" };

/** The request's model: the server's field, else the body's. */
export function modelOf(e: Entry): string | null {
  if (typeof e.model === "string") return e.model;
  const body = e.body as { model?: unknown } | null;
  return body && typeof body === "object" && typeof body.model === "string" ? body.model : null;
}

/** Whether an entry passes the filter. */
export function matches(e: Entry, f: Filter): boolean {
  if (f.session !== "" && (f.session === NO_SESSION ? e.session !== null : e.session !== f.session)) return false;
  if (f.scenario !== "" && e.scenario !== f.scenario) return false;
  if (f.status !== "") {
    const cls = /^([1-5])xx$/.exec(f.status);
    if (cls) {
      if (e.outcome === null || Math.floor(e.status / 100) !== Number(cls[1])) return false;
    } else if (f.status === "pending") {
      if (e.outcome !== null) return false;
    } else if (e.outcome !== f.status) return false;
  }
  const words = f.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length > 0) {
    const hay = [
      e.method,
      e.path,
      modelOf(e),
      e.scenario,
      e.reason,
      e.session,
      e.outcome,
      e.errorCode,
      e.responseId,
      String(e.status),
      e.rawBody,
    ]
      .filter((x): x is string => typeof x === "string")
      .join("\n")
      .toLowerCase();
    if (!words.every((w) => hay.includes(w))) return false;
  }
  return true;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `HH:MM:SS.mmm` in local time. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A duration as a person reads it: `0.8 ms`, `42 ms`, `1.25 s`, `2 min 5 s`. */
export function duration(ms: number | null): string {
  if (ms === null) return "…";
  if (ms < 10) return `${(Math.round(ms * 10) / 10).toString()} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 10) / 100).toString()} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A byte count: `512 B`, `3.4 KiB`, `1.2 MiB`. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The tone of an outcome, for its colour: good, warn (incomplete, cancelled, …), bad, or running. */
export function outcomeTone(outcome: string | null): "good" | "warn" | "bad" | "running" {
  if (outcome === null) return "running";
  if (outcome === "completed" || outcome === "ok") return "good";
  if (
    outcome === "failed" ||
    outcome === "error" ||
    outcome === "dropped" ||
    outcome === "hung" ||
    outcome === "aborted"
  )
    return "bad";
  return "warn";
}

/** The text of each cell of an entry's row, in the table's order. */
export function rowCells(e: Entry): {
  time: string;
  request: string;
  model: string;
  scenario: string;
  status: string;
  outcome: string;
  streamed: string;
  duration: string;
  session: string;
} {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(e.query ?? {})) for (const x of Array.isArray(v) ? v : [v]) query.append(k, x);
  const qs = query.toString();
  return {
    time: clockTime(e.at),
    request: `${e.method} ${e.path}${qs ? `?${qs}` : ""}`,
    model: modelOf(e) ?? "",
    scenario: e.scenario === null ? "" : `${e.scenario}${e.reason ? ` (${e.reason})` : ""}`,
    status: e.outcome === null && e.status === 0 ? "…" : String(e.status),
    outcome: e.outcome === null ? "running" : e.errorCode ? `${e.outcome} ${e.errorCode}` : e.outcome,
    streamed: e.streamed ? (e.events === null ? "stream" : `stream · ${e.events}`) : "JSON",
    duration: duration(e.durationMs),
    session: e.session ?? "",
  };
}

/** Whether a value is an Entry (the stream's data is checked before it is shown). */
export function isEntry(x: unknown): x is Entry {
  const e = x as Partial<Entry> | null;
  return (
    !!e &&
    typeof e === "object" &&
    typeof e.seq === "number" &&
    typeof e.at === "number" &&
    typeof e.method === "string" &&
    typeof e.path === "string"
  );
}
