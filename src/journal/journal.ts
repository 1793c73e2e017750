/**
 * The request journal: every request the server received, in order — what a
 * test asserts on ("did my client send this?"). Entries carry the raw and
 * parsed body, the headers (authorization masked), the scenario chosen and
 * why, the response id, the status, whether it streamed, and the session.
 *
 * It is bounded twice: by entries (`limit`) and by an estimate of the bytes
 * they hold (`byteLimit`); the oldest entries go first when either is passed.
 * A body too big to keep whole is kept truncated: the first bytes of its text,
 * no parsed body, its full length and its SHA-256.
 */
import { createHash } from "node:crypto";
import type { SelectionReason } from "../scenario/registry.js";
import type { ResponseStatus } from "../spec/index.js";
import { utf8Length, utf8Prefix } from "../util/utf8.js";
import { MARK_BYTES, Timeline, type TimelineOwner } from "./timeline.js";
import type { AnswerSource, Trace } from "./trace.js";

/** The default byte budget of the journal (64 MiB). */
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;
/** The most of a truncated body's text an entry keeps (64 KiB, less with a small budget). */
export const TRUNCATED_BODY_BYTES = 64 * 1024;
/** A body is kept whole up to this share of the byte budget (1/16: at least 8 whole entries fit). */
const WHOLE_BODY_SHARE = 16;
/** …and never above this, whatever the budget, so that one entry always serialises. */
const MAX_WHOLE_BODY_BYTES = 64 * 1024 * 1024;
/** What an entry costs besides its body and headers (its fields, the objects), roughly. */
const ENTRY_OVERHEAD_BYTES = 256;
/** What an entry's trace costs besides its marks and source (the objects), roughly. */
const TRACE_OVERHEAD_BYTES = 128;
/** The most of a request body's `model` an entry keeps. */
const MODEL_CHARS = 200;

/**
 * How a request's answer ended:
 * - a response status (`completed`, `incomplete`, `failed`, `queued`, `cancelled`, …):
 *   a response was answered (streamed or not), and this was its final status;
 * - `ok`: any other answer that was not an error (health, retrieve, delete, …);
 * - `error`: an error object was answered (HTTP status 400 or more, or a WebSocket error event);
 * - `dropped`: a drop fault cut the connection before the answer ended;
 * - `hung`: a hang fault held the answer open until the client left (or the server closed);
 * - `aborted`: the client went away (or the server closed) before the answer ended.
 */
export type JournalOutcome = ResponseStatus | "ok" | "error" | "dropped" | "hung" | "aborted";

export interface JournalEntry {
  /** Position in the journal since the server started (0, 1, …). */
  readonly seq: number;
  /** Milliseconds since the epoch when the request arrived. */
  readonly at: number;
  /** The `x-mock-session` the request carried, if any. */
  readonly session: string | null;
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The query string parameters. */
  readonly query: Record<string, string | string[]>;
  /** Request headers, lower-cased; `authorization` is masked. */
  readonly headers: Record<string, string | string[]>;
  /**
   * The body as received (UTF-8 text), or null when there was none or it could
   * not be read. When `truncated`, only its first bytes (null with `journalBytes: 0`).
   */
  rawBody: string | null;
  /** The body parsed as JSON, or null (always null when `truncated`). */
  body: unknown;
  /** The body's full length in bytes, or null when none was read. */
  bodyBytes: number | null;
  /** True when the body was too big to keep whole: `rawBody` is a prefix and `body` is null. */
  truncated: boolean;
  /** SHA-256 (hex) of the whole body, for a truncated one; null otherwise. */
  bodySha256: string | null;
  /** The request body's `model` (its first 200 characters), or null when it has none. */
  model: string | null;
  /** The scenario that answered, and why it was chosen (header, queue, use, model, match, default). */
  scenario: string | null;
  reason: SelectionReason | null;
  /** The id of the response created, if one was. */
  responseId: string | null;
  /** HTTP status sent (101 for a WebSocket upgrade). */
  status: number;
  /** Whether the answer was streamed (SSE or WebSocket). */
  streamed: boolean;
  /** How the answer ended (see JournalOutcome); null while the request is in progress. */
  outcome: JournalOutcome | null;
  /** The `code` of the error answered (its `type` when it has no code); null when no error was. */
  errorCode: string | null;
  /** Events sent, for a streamed answer (SSE events or WebSocket messages; heartbeats not counted); null otherwise. */
  events: number | null;
  /** Milliseconds since the epoch when the answer ended (`at` + `durationMs`); null while in progress. */
  endedAt: number | null;
  /** How long the request took, from its arrival to the end of its answer, in ms; null while in progress. */
  durationMs: number | null;
  /**
   * Proxy mode: where the request went (`api`, the upstream URL without
   * credentials or query), the status the upstream answered (null when it
   * never answered) and what went wrong with it, if anything. Null otherwise.
   */
  upstream: { api: string; url: string; status: number | null; error: string | null } | null;
  /** Proxy mode: what the live conformance check found in the answer; null when it was not checked. */
  violations: { index: number | null; path: string | null; message: string }[] | null;
  /** What the answer costs in USD, from its model's prices and its usage (src/service/); null when no answer was planned. */
  costUsd: number | null;
  /**
   * What the limiter decided (src/turn/limits.ts): `passed`, or why the
   * request was refused (`rate_limited`, `insufficient_quota`, `overloaded`),
   * and the `x-ratelimit-*` / `retry-after` headers it answered with; null
   * when the request never reached it.
   */
  limits: JournalLimits | null;
  /** How long the answer waited in the model's queue for a free slot, in ms (0: none); null when it never reached the queue. */
  waitMs: number | null;
  /** How many of the expectations this request was judged against it met (src/turn/expect.ts); null when none judged it. */
  expect: { met: number; total: number } | null;
}

/** The limiter's verdict on a request, as its journal entry keeps it. */
export interface JournalLimits {
  verdict: "passed" | "rate_limited" | "insufficient_quota" | "overloaded";
  /** Which limit refused it: `requests` or `tokens` (rate_limited), `budget`, or `queue` / `queue_timeout` (overloaded); null when passed. */
  limit: string | null;
  /** The headers that came with the verdict (`x-ratelimit-*`, `retry-after`, `retry-after-ms`). */
  headers: Record<string, string>;
}

/** Called with an entry once its request has ended (`outcome`, `endedAt` and `durationMs` set). */
export type EntryListener = (entry: JournalEntry) => void;

/** Called when entries are cleared: one session's (a string, or null for requests without one), or every entry (undefined). */
export type ClearListener = (session: string | null | undefined) => void;

/** One page of the journal: `has_more` says whether entries follow it in its order. */
export interface JournalPage {
  data: JournalEntry[];
  hasMore: boolean;
}

export interface PageQuery {
  /** Only this session's entries (undefined: every entry). */
  session?: string;
  /** A seq: the page starts after it, in the page's order. */
  after?: number;
  /** At most this many entries. */
  limit: number;
  /** `asc`: oldest first (default); `desc`: newest first. */
  order?: "asc" | "desc";
}

/** Masks a credential, keeping its scheme and last four characters. */
export function maskAuthorization(value: string): string {
  const m = /^(\S+\s+)?(.*)$/.exec(value.trim())!;
  const secret = m[2];
  return `${m[1] ?? ""}${secret.length > 8 ? `***${secret.slice(-4)}` : "***"}`;
}

/** What the headers and query of an entry cost, roughly (their characters). */
function fieldsCost(fields: Record<string, string | string[]>): number {
  let n = 0;
  for (const key in fields) {
    const v = fields[key];
    n += key.length + (typeof v === "string" ? v.length : v.reduce((s, x) => s + x.length + 8, 0)) + 16;
  }
  return n;
}

/**
 * An entry and what it costs; `live` until it leaves the journal. It is
 * also the entry's trace (its answer as the inspector shows it, once the
 * shell keeps one: `traced`) and what its timeline charges its growth to:
 * one object per request kept, not a slot, a trace and a closure.
 */
class Slot implements Trace, TimelineOwner {
  cost: number;
  live = true;
  /** Whether the shell keeps its answer (a timeline or a source): until then `answer()` has nothing. */
  traced = false;
  timeline: Timeline | null = null;
  source: AnswerSource | null = null;
  sourceCost = 0;

  constructor(
    readonly entry: JournalEntry,
    cost: number,
    private readonly journal: Journal,
  ) {
    this.cost = cost;
  }

  /** Charges the journal for `bytes` more (evicting older entries); false when the entry is no longer held. */
  grow(bytes: number): boolean {
    return this.journal.charge(this, bytes);
  }
}

/** Calls each listener; a listener's failure (a log that cannot be written) must not break the answer. */
function tell<T>(listeners: ReadonlySet<(value: T) => void>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch {
      // ignored: see above
    }
  }
}

export class Journal {
  /** Slots oldest first from `start` (the ones before it are gone); seqs increase along it. */
  private slots: (Slot | undefined)[] = [];
  private start = 0;
  private total = 0;
  private next = 0;
  /** Entries opened and not yet ended. */
  private inFlight = 0;
  private readonly listeners = new Set<EntryListener>();
  private readonly openListeners = new Set<EntryListener>();
  private readonly clearListeners = new Set<ClearListener>();
  /** Waiting for every open entry to end (`settled`). */
  private idle: (() => void)[] = [];

  /**
   * @param limit most entries kept (0 keeps none)
   * @param byteLimit most bytes the entries may hold, estimated (0: keep no bodies, bound by `limit` alone)
   */
  constructor(
    readonly limit = 1000,
    readonly byteLimit = DEFAULT_JOURNAL_BYTES,
  ) {}

  /** Requests received since the server started (entries dropped or cleared included). */
  get received(): number {
    return this.next;
  }

  /** Requests still in progress (their entries opened, not yet ended). */
  get pending(): number {
    return this.inFlight;
  }

  /** Entries held. */
  get size(): number {
    return this.slots.length - this.start;
  }

  /** The bytes the entries hold, as the journal estimates them (at most `byteLimit`, bar the newest entry). */
  get bytes(): number {
    return this.total;
  }

  /** The largest body kept whole; bigger ones are kept truncated. */
  get wholeBodyLimit(): number {
    return Math.min(Math.floor(this.byteLimit / WHOLE_BODY_SHARE), MAX_WHOLE_BODY_BYTES);
  }

  /** Starts an entry for a request; it is in the journal at once and filled in as the request goes. */
  open(init: Pick<JournalEntry, "at" | "session" | "method" | "path" | "query" | "headers">): JournalEntry {
    // Node gives header names lower-cased already, in a fresh object per request; only the credential needs masking (in a copy).
    let headers = init.headers;
    if (typeof headers.authorization === "string")
      headers = { ...headers, authorization: maskAuthorization(headers.authorization) };
    const entry: JournalEntry = {
      seq: this.next++,
      at: init.at,
      session: init.session,
      method: init.method,
      path: init.path,
      query: init.query,
      headers,
      rawBody: null,
      body: null,
      bodyBytes: null,
      truncated: false,
      bodySha256: null,
      model: null,
      scenario: null,
      reason: null,
      responseId: null,
      status: 0,
      streamed: false,
      outcome: null,
      errorCode: null,
      events: null,
      endedAt: null,
      durationMs: null,
      upstream: null,
      violations: null,
      costUsd: null,
      limits: null,
      waitMs: null,
      expect: null,
    };
    this.inFlight++;
    if (this.limit === 0) return entry;
    const slot = new Slot(
      entry,
      ENTRY_OVERHEAD_BYTES + fieldsCost(headers) + fieldsCost(init.query) + init.path.length,
      this,
    );
    this.slots.push(slot);
    this.total += slot.cost;
    this.evict();
    if (this.openListeners.size > 0) tell(this.openListeners, entry);
    return entry;
  }

  /**
   * Records a request's body on its entry: whole when it fits (`wholeBodyLimit`),
   * otherwise truncated. `bytes` is its UTF-8 length when the caller knows it.
   * Both the HTTP routes and WebSocket turns go through here.
   */
  setBody(entry: JournalEntry, raw: string, parsed: unknown, bytes = utf8Length(raw)): void {
    const model = (parsed as { model?: unknown } | null)?.model;
    if (typeof model === "string") entry.model = model.length > MODEL_CHARS ? utf8Prefix(model, MODEL_CHARS) : model;
    const slot = this.slotOf(entry);
    // An entry no longer held (dropped, cleared, or a journal of 0 entries) keeps no body: nobody can read it.
    if (!slot?.live) {
      entry.bodyBytes = bytes;
      return;
    }
    const before = this.bodyCost(entry);
    entry.bodyBytes = bytes;
    if (this.byteLimit > 0 && bytes <= this.wholeBodyLimit) {
      entry.rawBody = raw;
      entry.body = parsed;
      entry.truncated = false;
      entry.bodySha256 = null;
    } else {
      const prefix = utf8Prefix(raw, Math.min(TRUNCATED_BODY_BYTES, this.wholeBodyLimit));
      entry.rawBody = prefix === "" ? null : prefix;
      entry.body = null;
      entry.truncated = true;
      entry.bodySha256 = createHash("sha256").update(raw, "utf8").digest("hex");
    }
    const delta = this.bodyCost(entry) - before;
    slot.cost += delta;
    this.total += delta;
    this.evict();
  }

  /**
   * Records that a request's answer is over, and tells the listeners. The
   * shell sets `status` (and `outcome`, `events`, `errorCode` when it knows
   * them) first; an outcome left unset is `error` for a status of 400 or more,
   * `ok` otherwise. Only the first call for an entry counts.
   */
  end(entry: JournalEntry, durationMs: number): void {
    if (entry.endedAt !== null) return;
    const ms = Math.max(0, Math.round(durationMs * 1000) / 1000);
    entry.durationMs = ms;
    entry.endedAt = entry.at + ms;
    entry.outcome ??= entry.status >= 400 ? "error" : "ok";
    if (--this.inFlight === 0 && this.idle.length > 0) for (const resolve of this.idle.splice(0)) resolve();
    if (this.listeners.size > 0) tell(this.listeners, entry);
  }

  /** Calls `listener` with each entry as its request ends. Returns the function that removes it. */
  onEnd(listener: EntryListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Calls `listener` with each entry held as its request arrives (before its body is read). Returns the function that removes it. */
  onOpen(listener: EntryListener): () => void {
    this.openListeners.add(listener);
    return () => void this.openListeners.delete(listener);
  }

  /** Calls `listener` each time entries are cleared. Returns the function that removes it. */
  onClear(listener: ClearListener): () => void {
    this.clearListeners.add(listener);
    return () => void this.clearListeners.delete(listener);
  }

  /** Listeners registered (open, end and clear): a subscriber that went away must leave none behind. */
  get listenerCount(): number {
    return this.listeners.size + this.openListeners.size + this.clearListeners.size;
  }

  // ---- answers, for the inspector --------------------------------------------------

  /** The most marks one entry's timeline keeps: like a body, at most `wholeBodyLimit` bytes of them. */
  get timelineCap(): number {
    return Math.floor(this.wholeBodyLimit / MARK_BYTES);
  }

  /** The most bytes of kept events (a proxied stream's) one entry holds. */
  get keptEventBytes(): number {
    return this.wholeBodyLimit;
  }

  /**
   * Starts the timeline of an entry's answer; `origin` is the clock time the
   * request arrived. Undefined when the journal does not hold the entry (a
   * journal of 0 entries, or one already dropped): then nothing is kept and
   * nothing costs.
   */
  timeline(entry: JournalEntry, origin: number): Timeline | undefined {
    const slot = this.slotOf(entry);
    if (!slot?.live) return undefined;
    const trace = this.traceOf(slot);
    if (trace.timeline) return trace.timeline;
    const timeline = new Timeline(origin, this.timelineCap, slot);
    trace.timeline = timeline;
    return timeline;
  }

  /** Keeps where an entry's answer comes from (replacing what was kept); `cost` is what it holds, in bytes, estimated. */
  keepAnswer(entry: JournalEntry, source: AnswerSource, cost: number): void {
    const slot = this.slotOf(entry);
    if (!slot?.live) return;
    const trace = this.traceOf(slot);
    const before = trace.sourceCost;
    trace.source = source;
    trace.sourceCost = cost;
    this.charge(slot, cost - before);
  }

  /** Whether the journal holds this entry (what is kept of it can be read). */
  holds(entry: JournalEntry): boolean {
    return this.slotOf(entry)?.live === true;
  }

  /** What the journal kept of an entry's answer (undefined when it kept nothing). */
  answer(entry: JournalEntry): Trace | undefined {
    const slot = this.slotOf(entry);
    return slot?.live && slot.traced ? slot : undefined;
  }

  /**
   * The slot of an entry this journal holds (undefined for one it dropped, cleared or never
   * held). Found by its seq, by bisection, not through a WeakMap: a WeakMap with an entry per
   * request is an ephemeron table that every scavenge of the young generation walks (with one,
   * the in-process scavenges of a run of non-streamed requests took 25–35 % longer).
   */
  private slotOf(entry: JournalEntry): Slot | undefined {
    const slot = this.slots[this.firstAfter(entry.seq - 1)];
    return slot?.entry === entry ? slot : undefined;
  }

  private traceOf(slot: Slot): Trace {
    if (!slot.traced) {
      slot.traced = true;
      this.charge(slot, TRACE_OVERHEAD_BYTES);
    }
    return slot;
  }

  /** Charges bytes to a held entry (evicting older ones); false when the entry is no longer held. Its slot's timeline calls it (through the slot). @internal */
  charge(slot: Slot, bytes: number): boolean {
    if (!slot.live) return false;
    slot.cost += bytes;
    this.total += bytes;
    this.evict();
    return slot.live;
  }

  /** Resolves once no request is in progress (at once when none is). */
  settled(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idle.push(resolve));
  }

  /** What an entry's body costs: the text kept, and the parsed value (estimated as long as the text). */
  private bodyCost(entry: JournalEntry): number {
    if (entry.rawBody === null) return 0;
    return entry.truncated ? entry.rawBody.length : 2 * (entry.bodyBytes ?? entry.rawBody.length);
  }

  /** Drops the oldest entries while there are more than `limit`, or more bytes than `byteLimit` (the newest stays). */
  private evict(): void {
    while (this.size > this.limit || (this.byteLimit > 0 && this.total > this.byteLimit && this.size > 1)) {
      const slot = this.slots[this.start]!;
      this.release(slot);
      this.total -= slot.cost;
      this.slots[this.start++] = undefined;
    }
    // Compact now and then: amortised O(1) per entry.
    if (this.start > 1024 && this.start * 2 > this.slots.length) {
      this.slots = this.slots.slice(this.start);
      this.start = 0;
    }
  }

  /** Lets a slot go: it is no longer held, and its timeline keeps nothing more. */
  private release(slot: Slot): void {
    slot.live = false;
    slot.timeline?.close();
  }

  /** The live slots, oldest first (a fresh array). */
  private live(): Slot[] {
    return this.slots.slice(this.start) as Slot[];
  }

  /** The index in `slots` of the first entry whose seq is greater than `seq`. */
  private firstAfter(seq: number): number {
    let lo = this.start;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slots[mid]!.entry.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Entries in order (a fresh array); only those of one session when `session` is given (null = requests without one). */
  list(session?: string | null): JournalEntry[] {
    const out: JournalEntry[] = [];
    for (let i = this.start; i < this.slots.length; i++) {
      const { entry } = this.slots[i]!;
      if (session === undefined || entry.session === session) out.push(entry);
    }
    return out;
  }

  /** The entry with this seq, if the journal still holds it. */
  get(seq: number): JournalEntry | undefined {
    const i = this.firstAfter(seq - 1);
    const entry = this.slots[i]?.entry;
    return i < this.slots.length && entry?.seq === seq ? entry : undefined;
  }

  /** One page: up to `limit` entries after the `after` seq, oldest first (`asc`) or newest first (`desc`). */
  page(query: PageQuery): JournalPage {
    const { session, after, limit, order = "asc" } = query;
    const matches = (e: JournalEntry) => session === undefined || e.session === session;
    const data: JournalEntry[] = [];
    if (order === "asc") {
      let i = after === undefined ? this.start : this.firstAfter(after);
      for (; i < this.slots.length && data.length < limit; i++)
        if (matches(this.slots[i]!.entry)) data.push(this.slots[i]!.entry);
      for (; i < this.slots.length; i++) if (matches(this.slots[i]!.entry)) return { data, hasMore: true };
    } else {
      let i = (after === undefined ? this.slots.length : this.firstAfter(after - 1)) - 1;
      for (; i >= this.start && data.length < limit; i--)
        if (matches(this.slots[i]!.entry)) data.push(this.slots[i]!.entry);
      for (; i >= this.start; i--) if (matches(this.slots[i]!.entry)) return { data, hasMore: true };
    }
    return { data, hasMore: false };
  }

  /** Forgets entries (only one session's when `session` is given; null = requests without one). */
  clear(session?: string | null): void {
    const kept: Slot[] = [];
    for (const slot of this.live()) {
      if (session !== undefined && slot.entry.session !== session) kept.push(slot);
      else this.release(slot);
    }
    this.slots = kept;
    this.start = 0;
    this.total = kept.reduce((n, s) => n + s.cost, 0);
    if (this.clearListeners.size > 0) tell(this.clearListeners, session);
  }
}
