/**
 * The limiter's state in one process: token buckets per session × key ×
 * model, session limits, and usage totals (which hold each session × key's
 * spend, the budget's measure). Bounded, whatever the traffic:
 *
 * - buckets: at most MAX_BUCKETS, least recently used first out. A bucket
 *   back at full is the same as no bucket, so the oldest ones are dropped as
 *   soon as they are full; past the cap the oldest goes even if it is not
 *   (its key gets a full bucket again: the only way the bound bends a limit);
 * - usage: at most MAX_SESSIONS sessions (least recently used first out,
 *   their totals and spend forgotten), and in each at most MAX_ROWS keys and
 *   MAX_ROWS models; more are counted together in one "(other keys)" or
 *   "(other models)" row (those keys then share one spend);
 * - session limits: one entry per session that set some (a reset clears it).
 *
 * Times are the server's clock (`timers`: a ManualClock in tests).
 */
import { levelAt, reportOf, resetMs, retryAfterMs, WINDOW_MS, type BucketReport } from "../service/bucket.js";
import {
  addAnswer,
  emptyTotals,
  hasLimits,
  maskKey,
  NO_LIMITS,
  patched,
  removeAnswer,
  usageReport,
  withSession,
  type LimitCharge,
  type LimitKind,
  type LimitsPatch,
  type LimitsStore,
  type LimitVerdict,
  type RefusalReason,
  type UsageReport,
  type UsageTotals,
} from "../service/limits.js";
import type { Limits } from "../service/service.js";
import type { Clock } from "../timing/clock.js";
import { OldestKeys } from "../util/oldest-keys.js";

/** The most buckets kept (a bucket pair is ~200 bytes: ~10 MB at most). */
export const MAX_BUCKETS = 50_000;
/** The most sessions whose usage totals are kept. */
export const MAX_SESSIONS = 10_000;
/** The most keys, and models, one session's totals list on their own rows. */
export const MAX_ROWS = 1_000;
/** The row of a session's keys past MAX_ROWS (and of its models). */
export const OTHER_KEYS = "(other keys)";
export const OTHER_MODELS = "(other models)";

/** The RPM and TPM buckets of one session × key × model: levels at `at`; a level with no limit is Infinity (full). */
interface Pair {
  r: number;
  t: number;
  at: number;
  /** When both are full again (as of their last charge): past it, the pair is the same as none. */
  fullAt: number;
  session: string | null;
}

/** One session's totals, each key's (its spend) and each model's. */
interface Book {
  session: string | null;
  total: UsageTotals;
  keys: Map<string, { label: string | null; totals: UsageTotals }>;
  models: Map<string, UsageTotals>;
}

const NO_KEY = "\u0000";
const sessionId = (session: string | null) => session ?? "";

export class MemoryLimits implements LimitsStore {
  private readonly buckets = new Map<string, Pair>();
  /** Walks the buckets oldest first (kept for good: see util/oldest-keys.ts), and the one it stands on. */
  private cursor: Iterator<[string, Pair]> | undefined;
  private head: [string, Pair] | undefined;
  private readonly books = new Map<string, Book>();
  private readonly oldestBook = new OldestKeys(this.books);
  private readonly limits = new Map<string, Limits>();

  constructor(private readonly clock: Pick<Clock, "now">) {}

  get anySessionLimits(): boolean {
    return this.limits.size > 0;
  }

  /** How many buckets and sessions are kept (tests of the bound). */
  get sizes(): { buckets: number; sessions: number; rows: number } {
    let rows = 0;
    for (const b of this.books.values()) rows += b.keys.size + b.models.size;
    return { buckets: this.buckets.size, sessions: this.books.size, rows };
  }

  sessionLimits(session: string | null): Limits | undefined {
    return this.limits.get(sessionId(session));
  }

  setSessionLimits(session: string | null, patch: LimitsPatch): Limits {
    const next = patched(this.limits.get(sessionId(session)), patch);
    if (hasLimits(next)) this.limits.set(sessionId(session), next);
    else this.limits.delete(sessionId(session));
    return next;
  }

  check(charge: LimitCharge): LimitVerdict | null {
    return this.decide(charge, false);
  }

  charge(charge: LimitCharge): LimitVerdict {
    return this.decide(charge, true)!;
  }

  /** Checks a request against its limits; charges it (buckets and totals) when `charge` and it passes. */
  private decide(c: LimitCharge, charge: boolean): LimitVerdict | null {
    const limits = withSession(c.limits, this.limits.get(sessionId(c.session)));
    const { rpm, tpm, budgetUsd } = limits;
    if (rpm === undefined && tpm === undefined && budgetUsd === undefined) {
      if (!charge) return null;
      this.count(c);
      return NO_LIMITS;
    }
    const now = this.clock.now();
    const id = `${sessionId(c.session)}\n${c.key ?? NO_KEY}\n${c.model}`;
    const pair = rpm !== undefined || tpm !== undefined ? this.buckets.get(id) : undefined;
    const rLevel = rpm === undefined ? 0 : levelAt(pair && { level: pair.r, at: pair.at }, rpm, now);
    const tLevel = tpm === undefined ? 0 : levelAt(pair && { level: pair.t, at: pair.at }, tpm, now);
    const report = (level: number, cap: number | undefined): BucketReport | null =>
      cap === undefined ? null : reportOf(level, cap);

    if (budgetUsd !== undefined && this.spent(c.session, c.key) >= budgetUsd)
      return verdictOf(limits, report(rLevel, rpm), report(tLevel, tpm), "budget", "insufficient_quota", null, 0, 0);

    let limit: LimitKind | null = null;
    let wait = 0;
    if (rpm !== undefined) {
      const w = retryAfterMs(rLevel, rpm, 1);
      if (w > wait) [wait, limit] = [w, "requests"];
    }
    if (tpm !== undefined) {
      const w = retryAfterMs(tLevel, tpm, c.tokens);
      if (w > wait) [wait, limit] = [w, "tokens"];
    }
    if (limit !== null) {
      const [level, cap, cost] = limit === "requests" ? [rLevel, rpm!, 1] : [tLevel, tpm!, c.tokens];
      return verdictOf(
        limits,
        report(rLevel, rpm),
        report(tLevel, tpm),
        limit,
        "rate_limited",
        Number.isFinite(wait) ? wait : null,
        Math.min(cap, Math.ceil(cap - level - 1e-9)),
        cost,
      );
    }
    if (!charge) return verdictOf(limits, report(rLevel, rpm), report(tLevel, tpm), null, "passed", null, 0, 0);

    const r = rpm === undefined ? Infinity : rLevel - 1;
    const t = tpm === undefined ? Infinity : tLevel - c.tokens;
    if (rpm !== undefined || tpm !== undefined) {
      const full = Math.max(rpm === undefined ? 0 : resetMs(r, rpm), tpm === undefined ? 0 : resetMs(t, tpm));
      if (pair) this.buckets.delete(id);
      this.buckets.set(id, { r, t, at: now, fullAt: now + full, session: c.session });
      this.trimBuckets(now);
    }
    this.count(c);
    return verdictOf(limits, report(r, rpm), report(t, tpm), null, "passed", null, 0, 0);
  }

  /** Drops the oldest buckets that are full again (at most a few per charge), and any past the cap. */
  private trimBuckets(now: number): void {
    for (let i = 0; i < 4 || this.buckets.size > MAX_BUCKETS; i++) {
      const oldest = this.oldestBucketEntry();
      if (oldest === undefined) return;
      if (this.buckets.size <= MAX_BUCKETS && oldest[1].fullAt > now) return;
      this.buckets.delete(oldest[0]);
      this.head = undefined;
    }
  }

  /** The least recently charged bucket (a charge sets its pair again, so it moves to the end). */
  private oldestBucketEntry(): [string, Pair] | undefined {
    const head = this.head;
    if (head !== undefined && this.buckets.get(head[0]) === head[1]) return head;
    let step = this.cursor?.next();
    // A pair set again since is met again further on: skip the entries that are no longer in the map as they are.
    while (step !== undefined && !step.done && this.buckets.get(step.value[0]) !== step.value[1])
      step = this.cursor!.next();
    if (step === undefined || step.done) {
      this.cursor = this.buckets.entries();
      step = this.cursor.next();
    }
    return (this.head = step.done ? undefined : step.value);
  }

  /** What a session × key has spent (its totals' cost). */
  private spent(session: string | null, key: string | null): number {
    const book = this.books.get(sessionId(session));
    if (!book) return 0;
    const row = book.keys.get(key ?? NO_KEY) ?? (book.keys.size >= MAX_ROWS ? book.keys.get(OTHER_KEYS) : undefined);
    return row?.totals.costUsd ?? 0;
  }

  /** The session's book, made most recent (the least recent goes past MAX_SESSIONS). */
  private book(session: string | null): Book {
    const id = sessionId(session);
    let book = this.books.get(id);
    if (book) {
      this.books.delete(id);
      this.books.set(id, book);
      return book;
    }
    book = { session, total: emptyTotals(), keys: new Map(), models: new Map() };
    this.books.set(id, book);
    while (this.books.size > MAX_SESSIONS) this.books.delete(this.oldestBook.next()!);
    return book;
  }

  /** The rows a request adds to: its session's, its key's and its model's totals. */
  private rows(session: string | null, key: string | null, model: string): [UsageTotals, UsageTotals, UsageTotals] {
    const book = this.book(session);
    const keyId = key ?? NO_KEY;
    let k = book.keys.get(keyId);
    if (!k) {
      k =
        book.keys.size < MAX_ROWS
          ? { label: key === null ? null : maskKey(key), totals: emptyTotals() }
          : (book.keys.get(OTHER_KEYS) ?? { label: OTHER_KEYS, totals: emptyTotals() });
      book.keys.set(book.keys.size < MAX_ROWS ? keyId : OTHER_KEYS, k);
    }
    let m = book.models.get(model);
    if (!m) {
      const name = book.models.size < MAX_ROWS ? model : OTHER_MODELS;
      m = book.models.get(name) ?? emptyTotals();
      book.models.set(name, m);
    }
    return [book.total, k.totals, m];
  }

  private count(c: LimitCharge): void {
    for (const t of this.rows(c.session, c.key, c.model)) addAnswer(t, c.usage, c.tokens, c.costUsd);
  }

  refund(c: LimitCharge, verdict: LimitVerdict): void {
    const { rpm, tpm } = verdict.limits;
    const id = `${sessionId(c.session)}\n${c.key ?? NO_KEY}\n${c.model}`;
    const pair = this.buckets.get(id);
    if (pair && (rpm !== undefined || tpm !== undefined)) {
      const now = this.clock.now();
      const r = rpm === undefined ? Infinity : Math.min(rpm, levelAt({ level: pair.r, at: pair.at }, rpm, now) + 1);
      const t =
        tpm === undefined ? Infinity : Math.min(tpm, levelAt({ level: pair.t, at: pair.at }, tpm, now) + c.tokens);
      const full = Math.max(rpm === undefined ? 0 : resetMs(r, rpm), tpm === undefined ? 0 : resetMs(t, tpm));
      this.buckets.set(id, { r, t, at: now, fullAt: now + full, session: c.session });
    }
    if (this.books.has(sessionId(c.session)))
      for (const t of this.rows(c.session, c.key, c.model)) removeAnswer(t, c.usage, c.tokens, c.costUsd);
  }

  refused(session: string | null, key: string | null, model: string, reason: RefusalReason): void {
    for (const t of this.rows(session, key, model)) t.refused[reason]++;
  }

  usage(session: string | null | undefined): UsageReport {
    const books =
      session === undefined
        ? [...this.books.values()]
        : [this.books.get(sessionId(session)) ?? { session, total: emptyTotals(), keys: new Map(), models: new Map() }];
    return usageReport(session ?? null, books);
  }

  reset(session: string | null | undefined): void {
    if (session === undefined) {
      this.buckets.clear();
      this.books.clear();
      this.limits.clear();
      return;
    }
    for (const [id, pair] of this.buckets) if (pair.session === session) this.buckets.delete(id);
    this.books.delete(sessionId(session));
    this.limits.delete(sessionId(session));
  }
}

/** A verdict, built as one literal. */
function verdictOf(
  limits: Limits,
  requests: BucketReport | null,
  tokens: BucketReport | null,
  limit: LimitKind | null,
  verdict: LimitVerdict["verdict"],
  retryMs: number | null,
  used: number,
  requested: number,
): LimitVerdict {
  return { verdict, limit, retryMs, requests, tokens, used, requested, limits };
}

/** For tests: how long a bucket takes to refill from empty. */
export const REFILL_MS = WINDOW_MS;
