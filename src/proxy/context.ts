/**
 * What both kinds of proxying share: the upstream, the key, the checker, the
 * recorder, and the small things every exchange does at its end (record it,
 * report a recording problem). The handlers read it; nothing here answers a
 * request.
 */
import type { IncomingMessage } from "node:http";
import type { AppDeps } from "../http/deps.js";
import type { Journal, JournalEntry } from "../journal/journal.js";
import type { ForwardedEvent } from "../journal/trace.js";
import type { Dialect } from "../dialect/index.js";
import type { Plan } from "../generate/plan.js";
import type { Recorder } from "../record/writer.js";
import type { Exchange } from "../record/from-exchange.js";
import { ResponseStatus, type ItemParam, type ResponseResource } from "../spec/index.js";
import type { LiveChecker } from "./live-check.js";
import type { Upstream } from "./upstream.js";
import { OldestKeys } from "../util/oldest-keys.js";

export type { ProxyHandler } from "../http/deps.js";

/** What the proxy remembers of an answer it passed on (`responses`): enough to rebuild a previous_response_id chain for the recorder. */
export interface Remembered {
  response: ResponseResource;
  input: ItemParam[];
}

/** A bounded memory of passed-on answers, oldest forgotten first. */
export class AnswerMemory {
  private readonly records = new Map<string, Remembered>();
  private readonly oldest = new OldestKeys(this.records);

  constructor(readonly limit: number) {}

  get(id: string): Remembered | undefined {
    return this.records.get(id);
  }

  put(record: Remembered): void {
    this.records.delete(record.response.id);
    if (this.limit === 0) return;
    this.records.set(record.response.id, record);
    while (this.records.size > this.limit) this.records.delete(this.oldest.next()!);
  }
}

export interface ProxyContext {
  deps: AppDeps;
  upstream: Upstream;
  api: "responses" | "chat";
  /** The upstream's key (`--upstream-key-env`); without it, the client's own Authorization is passed on. */
  upstreamKey: string | undefined;
  checker: LiveChecker | undefined;
  recorder: Recorder | undefined;
  /** Answers passed on (`responses`), for the recorder's conversations. */
  memory: AnswerMemory;
  /** Reports a problem that is not the client's (a recording that could not be written). */
  warn(message: string): void;
}

/** The secrets an exchange must never write: the upstream key, the client's credential (whole, and its token). */
export function secretsOf(p: ProxyContext, req: IncomingMessage): string[] {
  const out: string[] = [];
  if (p.upstreamKey) out.push(p.upstreamKey);
  if (p.deps.apiKey) out.push(p.deps.apiKey);
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.trim() !== "") {
    out.push(auth.trim());
    const token = /^\S+\s+(\S.*)$/.exec(auth.trim())?.[1];
    if (token) out.push(token);
  }
  for (const name of ["x-api-key", "api-key"]) {
    const v = req.headers[name];
    if (typeof v === "string" && v !== "") out.push(v);
  }
  // Longest first, so that a token inside a longer secret is not blanked half-way.
  return out.sort((a, b) => b.length - a.length);
}

/** Records an exchange when recording is on; a failure is reported, never the client's problem. */
export function recordExchange(
  p: ProxyContext,
  req: IncomingMessage,
  exchange: Omit<Exchange, "upstream" | "recordedAt">,
): void {
  if (!p.recorder) return;
  const full: Exchange = {
    ...exchange,
    upstream: `${p.api} ${p.upstream.display}`,
    recordedAt: new Date(p.deps.wallClock.now()).toISOString(),
  };
  p.recorder
    .record(full, secretsOf(p, req))
    .then((done) => {
      // What the scenario format could not hold is said, not dropped in silence.
      for (const note of done.notes) p.warn(`recorded ${done.file} turn ${done.turn} without something: ${note}`);
    })
    .catch((err: unknown) =>
      p.warn(`could not record an exchange in ${p.recorder!.dir}: ${err instanceof Error ? err.message : String(err)}`),
    );
}

/**
 * Keeps a proxied stream's events in the journal, for the inspector: as
 * forwarded, with their times, up to the journal's bound for one entry (the
 * rest are counted, not kept). `render` when they are the core's events,
 * rendered in a dialect as they were sent.
 */
export function keepForwarded(
  journal: Journal,
  entry: JournalEntry | undefined,
  events: readonly ForwardedEvent[],
  done: boolean,
  render?: { dialect: Dialect; plan: Plan },
): void {
  if (!entry || !journal.holds(entry)) return;
  const budget = journal.keptEventBytes;
  let bytes = 0;
  let kept = 0;
  for (; kept < events.length; kept++) {
    const size = 2 * JSON.stringify(events[kept].event).length + 32;
    if (bytes + size > budget) break;
    bytes += size;
  }
  journal.keepAnswer(
    entry,
    {
      kind: "forwarded",
      events: kept === events.length ? events : events.slice(0, kept),
      total: events.length,
      done,
      render,
    },
    bytes,
  );
}

/** Keeps a proxied JSON answer (a response, or the upstream's error body) in the journal, and when it was sent. */
export function keepForwardedJson(journal: Journal, entry: JournalEntry | undefined, text: string, at: number): void {
  if (!entry || !journal.holds(entry) || text.length > journal.keptEventBytes) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return; // not JSON: nothing the inspector can show as a body
  }
  journal.keepAnswer(entry, { kind: "forwarded-json", body, at }, 2 * text.length);
}

const RESPONSE_STATUSES: ReadonlySet<string> = new Set(ResponseStatus.options);

/**
 * What the journal (and so the log) says of a proxied answer, as of one the
 * mock plays: the response's final status as its outcome, the events passed
 * on for a stream, and the code of an error body the upstream sent.
 */
export function noteAnswer(
  entry: JournalEntry | undefined,
  answer: {
    response?: { status?: unknown } | null;
    events?: number | null;
    error?: { code?: unknown; type?: unknown } | null;
  },
): void {
  if (!entry) return;
  const status = answer.response?.status;
  if (entry.outcome === null && typeof status === "string" && RESPONSE_STATUSES.has(status))
    entry.outcome = status as JournalEntry["outcome"];
  if (answer.events !== undefined && answer.events !== null) entry.events = answer.events;
  const code = answer.error?.code ?? answer.error?.type;
  if (entry.errorCode === null && typeof code === "string") entry.errorCode = code.slice(0, 100);
}
