/**
 * The request log's lines, as pure functions: what a server says when it
 * starts, for each request as it ends, and when it stops — `pretty` (for a
 * person, coloured or not) or `json` (one object per line, each with an
 * `event` field: `start`, `request` or `stop`). No I/O and no clock: times
 * come in as numbers, and the writer decides where lines go.
 *
 * A line never holds a header, a body or the API key: only whether a key is
 * required.
 */
import type { JournalEntry, JournalOutcome } from "../journal/journal.js";

export type LogFormat = "pretty" | "json";

/** What a server tells at start. */
export interface StartSummary {
  /** The API's base URL, e.g. `http://127.0.0.1:4010/v1`. */
  baseURL: string;
  scenarios: ScenarioCounts;
  /** The scenario answered when no header, session control, model name or match rule picks one. */
  defaultScenario: string;
  dialect: string;
  seed: number;
  /** Whether requests must send the API key (never the key itself). */
  apiKey: boolean;
  /** Whether the `/__mock/` admin routes are served. */
  admin: boolean;
  /** Proxy mode: what the upstream speaks, its base URL (no credentials) and the folder recorded into; null for `serve`. */
  upstream: { api: string; url: string; record: string | null } | null;
}

/** How many scenarios a server loaded, and from where. */
export interface ScenarioCounts {
  /** Every scenario it can answer with (byName), the built-in `auto` included. */
  total: number;
  /** From the shipped library (those not replaced by a given one); null when the library is off. */
  library: number | null;
  /** From each path given (`--scenarios`), as given. */
  paths: { path: string; count: number }[];
  /** Given as objects (the programmatic `scenarios` option). */
  inline: number;
  /** Built into the server (`auto`, unless a given scenario replaced it). */
  builtIn: number;
}

/** What a server tells when it stops. */
export interface StopSummary {
  /** Wall-clock ms when it stopped. */
  at: number;
  /** Requests received since it started. */
  requests: number;
  /** How long it ran, in ms. */
  uptimeMs: number;
}

export interface PrettyOptions {
  /** ANSI colours (only for a terminal: the writer decides). */
  colour: boolean;
  /** Minutes east of UTC to show times in; the local zone when left out (tests pin it). */
  utcOffsetMinutes?: number;
}

/** The line that starts the pretty output, exactly: supervisors and tests read the URL from it. */
export const listeningLine = (baseURL: string): string => `openresponses-mock listening on ${baseURL}`;

// ---------------------------------------------------------------- pieces

type Paint = (text: string) => string;
const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\u001b[${open}m${text}\u001b[${close}m`;
const PAINTS = {
  dim: ansi(2, 22),
  red: ansi(31, 39),
  green: ansi(32, 39),
  yellow: ansi(33, 39),
  magenta: ansi(35, 39),
  cyan: ansi(36, 39),
};
const plain: Paint = (text) => text;
type Palette = Record<keyof typeof PAINTS, Paint>;
const NO_PAINT: Palette = { dim: plain, red: plain, green: plain, yellow: plain, magenta: plain, cyan: plain };

/** Longest piece of client-given text (path, session) a pretty line shows. */
const MAX_TEXT = 200;

/** Client-given text made safe for a terminal: control characters escaped, long text cut. */
export function safeText(text: string, max = MAX_TEXT): string {
  const clean = text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** `HH:MM:SS.mmm`, in the local zone or at a fixed offset from UTC. */
export function clockTime(ms: number, utcOffsetMinutes?: number): string {
  if (!Number.isFinite(ms)) return "--:--:--.---";
  const d = new Date(utcOffsetMinutes === undefined ? ms : ms + utcOffsetMinutes * 60_000);
  const [h, m, s, milli] =
    utcOffsetMinutes === undefined
      ? [d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()]
      : [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()];
  return `${pad2(h)}:${pad2(m)}:${pad2(s)}.${String(milli).padStart(3, "0")}`;
}

/** A duration for a person: `0.4 ms`, `38 ms`, `12.3 s`, `4m05s`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  if (ms < 9_999.5) return `${Math.round(ms)} ms`;
  if (ms < 600_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${pad2(s % 60)}s`;
}

/** A cost for a person: `$0.000125`, `$1.25` (to the millionth of a dollar, trailing zeros cut). */
export function usd(cost: number): string {
  if (!Number.isFinite(cost)) return "-";
  if (cost > 0 && cost < 0.0000005) return "<$0.000001";
  return `$${cost.toFixed(6).replace(/\.?0+$/, "")}`;
}

/** An ISO 8601 time, or null for a time that is not one. */
const isoTime = (ms: number | null): string | null =>
  ms !== null && Number.isFinite(ms) ? new Date(ms).toISOString() : null;

/** A duration for a machine: ms, to the microsecond. */
const roundMs = (ms: number | null): number | null => (ms === null ? null : Math.round(ms * 1000) / 1000);

function outcomePaint(outcome: JournalOutcome | null, p: Palette): Paint {
  switch (outcome) {
    case "completed":
    case "ok":
      return p.green;
    case "failed":
    case "error":
      return p.red;
    case "dropped":
    case "hung":
      return p.magenta;
    case "incomplete":
    case "aborted":
    case "cancelled":
      return p.yellow;
    default:
      return plain;
  }
}

const statusPaint = (status: number, p: Palette): Paint =>
  status >= 500 ? p.red : status >= 400 ? p.yellow : status >= 200 ? p.green : plain;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------- pretty

/** Where the scenarios came from, e.g. `25: 22 from the library, 2 from feat/, 1 built in`. */
export function scenarioSources(counts: ScenarioCounts): string {
  const parts: string[] = [];
  parts.push(counts.library === null ? "library off" : `${counts.library} from the library`);
  for (const { path, count } of counts.paths) parts.push(`${count} from ${safeText(path)}`);
  if (counts.inline > 0) parts.push(`${counts.inline} inline`);
  if (counts.builtIn > 0) parts.push(`${counts.builtIn} built in`);
  return `${counts.total}: ${parts.join(", ")}`;
}

/**
 * The start summary, pretty: the listening line (always plain, it is read by
 * programs), then one `label  value` line per setting.
 */
export function prettyStart(summary: StartSummary, options: PrettyOptions): string[] {
  const p = options.colour ? PAINTS : NO_PAINT;
  const row = (label: string, value: string) => `  ${p.dim(label.padEnd(10))} ${value}`;
  return [
    listeningLine(summary.baseURL),
    row("scenarios", scenarioSources(summary.scenarios)),
    row("default", summary.defaultScenario),
    row("dialect", summary.dialect),
    row("seed", String(summary.seed)),
    row("api key", summary.apiKey ? "on (requests need Authorization: Bearer KEY)" : "off"),
    row("admin", summary.admin ? "on (/__mock/)" : "off"),
    ...(summary.upstream
      ? [
          row(
            "upstream",
            `${summary.upstream.api} ${safeText(summary.upstream.url)}${summary.upstream.record !== null ? `, recording into ${safeText(summary.upstream.record)}` : ""}`,
          ),
        ]
      : []),
  ];
}

/**
 * One request, pretty:
 * `12:03:04.512  POST   /v1/responses  200 completed  greeting (header)  14 events  passed  $0.000125  38 ms  session s1`.
 * An error answer shows its code after `error`; requests that chose no scenario leave it out. The
 * limiter's verdict shows when a limit applied (`rate_limited (requests)`), the cost when an answer
 * was given; an answer that waited for a slot says how long (`waited 120 ms`) before its duration.
 */
export function prettyRequest(entry: JournalEntry, options: PrettyOptions): string {
  const p = options.colour ? PAINTS : NO_PAINT;
  const time = p.dim(clockTime(entry.endedAt ?? entry.at, options.utcOffsetMinutes));
  const status = entry.status > 0 ? statusPaint(entry.status, p)(String(entry.status)) : "-";
  const outcome = outcomePaint(entry.outcome, p)(entry.outcome ?? "in progress");
  const parts = [
    `${time}  ${entry.method.padEnd(6)} ${safeText(entry.path)}`,
    `${status} ${outcome}${entry.errorCode !== null ? ` ${safeText(entry.errorCode, 60)}` : ""}`,
  ];
  if (entry.scenario !== null)
    parts.push(`${p.cyan(safeText(entry.scenario, 80))}${entry.reason !== null ? ` (${entry.reason})` : ""}`);
  if (entry.events !== null) parts.push(plural(entry.events, "event"));
  if (entry.upstream !== null)
    parts.push(
      `upstream ${entry.upstream.status ?? "-"}${entry.upstream.error !== null ? ` ${safeText(entry.upstream.error, 80)}` : ""}`,
    );
  if (entry.violations !== null)
    parts.push(
      entry.violations.length === 0 ? p.green("conformant") : p.red(plural(entry.violations.length, "violation")),
    );
  if (entry.limits !== null) {
    const { verdict, limit } = entry.limits;
    parts.push((verdict === "passed" ? p.green : p.yellow)(limit === null ? verdict : `${verdict} (${limit})`));
  }
  if (entry.costUsd !== null) parts.push(usd(entry.costUsd));
  // The expectations this request was judged against: met/total.
  if (entry.expect !== null)
    parts.push(
      (entry.expect.met === entry.expect.total ? p.green : p.red)(`expect ${entry.expect.met}/${entry.expect.total}`),
    );
  // The time it waited for a slot (capacity), part of the duration after it.
  if (entry.waitMs !== null && entry.waitMs > 0) parts.push(p.yellow(`waited ${duration(entry.waitMs)}`));
  parts.push(entry.durationMs === null ? "-" : duration(entry.durationMs));
  if (entry.session !== null) parts.push(`session ${safeText(entry.session, 80)}`);
  return parts.join("  ");
}

/** The stop line, pretty: `12:05:00.000  openresponses-mock stopped: 42 requests, up 3.2 s`. */
export function prettyStop(stop: StopSummary, options: PrettyOptions): string {
  const p = options.colour ? PAINTS : NO_PAINT;
  return `${p.dim(clockTime(stop.at, options.utcOffsetMinutes))}  openresponses-mock stopped: ${plural(stop.requests, "request")}, up ${duration(stop.uptimeMs)}`;
}

// ---------------------------------------------------------------- json

/** The start summary as one JSON line: `{"event":"start", …}`. */
export function jsonStart(summary: StartSummary, at: number): string {
  return JSON.stringify({
    event: "start",
    time: isoTime(at),
    baseURL: summary.baseURL,
    scenarios: summary.scenarios,
    defaultScenario: summary.defaultScenario,
    dialect: summary.dialect,
    seed: summary.seed,
    apiKey: summary.apiKey,
    admin: summary.admin,
    upstream: summary.upstream,
  });
}

/**
 * One request as one JSON line: `{"event":"request", …}`, with the journal
 * entry's names (`time` is when it ended); no headers, no body.
 */
export function jsonRequest(entry: JournalEntry): string {
  return JSON.stringify({
    event: "request",
    time: isoTime(entry.endedAt ?? entry.at),
    seq: entry.seq,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    outcome: entry.outcome,
    errorCode: entry.errorCode,
    scenario: entry.scenario,
    reason: entry.reason,
    streamed: entry.streamed,
    events: entry.events,
    durationMs: roundMs(entry.durationMs),
    waitMs: roundMs(entry.waitMs),
    session: entry.session,
    responseId: entry.responseId,
    upstream: entry.upstream,
    violations: entry.violations,
    costUsd: entry.costUsd,
    limits: entry.limits === null ? null : { verdict: entry.limits.verdict, limit: entry.limits.limit },
    expect: entry.expect,
  });
}

/** The stop line as JSON: `{"event":"stop", …}`. */
export function jsonStop(stop: StopSummary): string {
  return JSON.stringify({
    event: "stop",
    time: isoTime(stop.at),
    requests: stop.requests,
    uptimeMs: roundMs(stop.uptimeMs),
  });
}

// ---------------------------------------------------------------- choice

/**
 * Whether to colour a pretty log: never when `NO_COLOR` is set (not empty) or
 * `TERM=dumb`, always when `FORCE_COLOR` is set (unless `0` or `false`),
 * which wins over both; otherwise only on a terminal.
 */
export function wantsColour(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return isTTY === true;
}
