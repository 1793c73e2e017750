/**
 * Rate limits, budgets and usage, as data and rules (issue 26): which limits
 * apply to a request, what a limiter's verdict says, the `x-ratelimit-*`
 * headers, the usage totals, and the body of `POST /__mock/limits`. Pure:
 * the levels and totals are kept by a `LimitsStore` (in memory,
 * src/store/limits-memory.ts, or in Redis, src/store/redis-limits.ts) and
 * the limiter that asks it is a turn step (src/turn/limits.ts).
 */
import { goDuration, type BucketReport } from "./bucket.js";
import { modelOf, type Limits, type Service, type TokenUsage } from "./service.js";

/** Why a request was refused: by the limiter (a bucket, the budget) or by the capacity step (a full queue). */
export type RefusalReason = "rate_limited" | "insufficient_quota" | "overloaded";

/** Which limit refused a request: a bucket, or the budget. */
export type LimitKind = "requests" | "tokens" | "budget";

/** A model's name as usage totals and buckets keep it: at most this many characters. */
export const MODEL_CHARS = 200;

/** The limits of a request before the session's: the service's defaults, then its model's, then its key's (each field over the one before). */
export function baseLimits(service: Service, model: string, key: string | null): Limits {
  const d = service.defaults.limits;
  const m = service.models.size > 0 ? modelOf(service, model).limits : d;
  const k = key !== null && service.keys.size > 0 ? service.keys.get(key) : undefined;
  return {
    rpm: k?.rpm ?? m.rpm ?? d.rpm,
    tpm: k?.tpm ?? m.tpm ?? d.tpm,
    budgetUsd: k?.budgetUsd ?? m.budgetUsd ?? d.budgetUsd,
  };
}

/** Whether a service sets any limit anywhere (else the limiter skips every request that has no session limits). */
export function serviceHasLimits(service: Service): boolean {
  const any = (l: Limits) => l.rpm !== undefined || l.tpm !== undefined || l.budgetUsd !== undefined;
  if (any(service.defaults.limits)) return true;
  for (const m of service.models.values()) if (any(m.limits)) return true;
  for (const l of service.keys.values()) if (any(l)) return true;
  return false;
}

/** The session's limits laid over a request's others (a field the session does not set keeps the other's). */
export const withSession = (base: Limits, session: Limits | undefined): Limits =>
  session === undefined
    ? base
    : {
        rpm: session.rpm ?? base.rpm,
        tpm: session.tpm ?? base.tpm,
        budgetUsd: session.budgetUsd ?? base.budgetUsd,
      };

/** Whether any limit is set. */
export const hasLimits = (l: Limits): boolean =>
  l.rpm !== undefined || l.tpm !== undefined || l.budgetUsd !== undefined;

/** One request as the store checks and charges it. */
export interface LimitCharge {
  /** Its session (null: requests without one). Sessions never share buckets, spend or totals. */
  session: string | null;
  /** Its API key (null: no key; all such requests share one bucket). */
  key: string | null;
  /** Its model (cut to MODEL_CHARS). */
  model: string;
  /** Its limits before the session's (baseLimits); the store lays the session's over them. */
  limits: Limits;
  /** Tokens it costs the tokens bucket: input plus output (a proxied request: its input). */
  tokens: number;
  /** Its usage for the totals (null: a proxied request, whose usage the mock does not know: only its input counts). */
  usage: TokenUsage | null;
  /** Its cost in USD (0 when unknown). */
  costUsd: number;
}

/** What the limiter decided. */
export interface LimitVerdict {
  verdict: "passed" | "rate_limited" | "insufficient_quota";
  /** What refused it (null when it passed). */
  limit: LimitKind | null;
  /** When the refused request fits (ms, whole); null when it passed, for the budget, or when it never fits (over the limit itself). */
  retryMs: number | null;
  /** The requests bucket after the charge (as it stands, when refused); null without an RPM limit. */
  requests: BucketReport | null;
  /** The tokens bucket, likewise; null without a TPM limit. */
  tokens: BucketReport | null;
  /** For the refusing bucket: what it has used of its limit (limit − level, whole) and what the request asked. */
  used: number;
  requested: number;
  /** The limits that applied (the session's over the others). */
  limits: Limits;
}

/** A verdict for a request no limit applies to (shared: never changed). */
export const NO_LIMITS: LimitVerdict = Object.freeze({
  verdict: "passed",
  limit: null,
  retryMs: null,
  requests: null,
  tokens: null,
  used: 0,
  requested: 0,
  limits: Object.freeze({}),
}) as LimitVerdict;

/**
 * The `x-ratelimit-*` headers of a verdict, only for the limits that exist,
 * in the order OpenAI sends them; a refusal by a bucket adds `retry-after`
 * (whole seconds, rounded up) and `retry-after-ms`.
 */
export function rateLimitHeaders(v: LimitVerdict): Record<string, string> {
  const h: Record<string, string> = {};
  const { requests: r, tokens: t } = v;
  if (r) h["x-ratelimit-limit-requests"] = String(r.limit);
  if (t) h["x-ratelimit-limit-tokens"] = String(t.limit);
  if (r) h["x-ratelimit-remaining-requests"] = String(r.remaining);
  if (t) h["x-ratelimit-remaining-tokens"] = String(t.remaining);
  if (r) h["x-ratelimit-reset-requests"] = goDuration(r.resetMs);
  if (t) h["x-ratelimit-reset-tokens"] = goDuration(t.resetMs);
  if (v.retryMs !== null) {
    h["retry-after"] = String(Math.ceil(v.retryMs / 1000));
    h["retry-after-ms"] = String(v.retryMs);
  }
  return h;
}

// ---------------------------------------------------------------- usage

/** Requests answered, their tokens and cost, and the requests refused by reason. */
export interface UsageTotals {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  costUsd: number;
  refused: Record<RefusalReason, number>;
}

export const emptyTotals = (): UsageTotals => ({
  requests: 0,
  inputTokens: 0,
  cachedTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  refused: { rate_limited: 0, insufficient_quota: 0, overloaded: 0 },
});

/** Adds one answered request (a proxied one: its input tokens only). */
export function addAnswer(t: UsageTotals, usage: TokenUsage | null, tokens: number, costUsd: number): void {
  t.requests++;
  if (usage) {
    t.inputTokens += usage.input;
    t.cachedTokens += usage.cached;
    t.outputTokens += usage.output;
    t.reasoningTokens += usage.reasoning;
  } else t.inputTokens += tokens;
  t.costUsd += costUsd;
}

/** Takes one answered request back out (a refund). */
export function removeAnswer(t: UsageTotals, usage: TokenUsage | null, tokens: number, costUsd: number): void {
  t.requests--;
  if (usage) {
    t.inputTokens -= usage.input;
    t.cachedTokens -= usage.cached;
    t.outputTokens -= usage.output;
    t.reasoningTokens -= usage.reasoning;
  } else t.inputTokens -= tokens;
  t.costUsd -= costUsd;
}

/** Adds `from` into `into`. */
export function addTotals(into: UsageTotals, from: UsageTotals): void {
  into.requests += from.requests;
  into.inputTokens += from.inputTokens;
  into.cachedTokens += from.cachedTokens;
  into.outputTokens += from.outputTokens;
  into.reasoningTokens += from.reasoningTokens;
  into.costUsd += from.costUsd;
  into.refused.rate_limited += from.refused.rate_limited;
  into.refused.insufficient_quota += from.refused.insufficient_quota;
  into.refused.overloaded += from.refused.overloaded;
}

/** `GET /__mock/usage` and `mock.usage()`: totals of one session, or of every session. */
export interface UsageReport {
  object: "mock.usage";
  /** The session it covers; null: every session (`sessions` lists each). */
  session: string | null;
  total: UsageTotals;
  /** Per session (null: requests without one). */
  sessions: (UsageTotals & { session: string | null })[];
  /** Per API key, masked as the journal masks `authorization` (`***` and its last four characters); null: no key. */
  keys: (UsageTotals & { key: string | null })[];
  /** Per model. */
  models: (UsageTotals & { model: string })[];
}

/** An API key as usage totals show it: never whole (the journal's mask of `authorization`). */
export const maskKey = (key: string): string => (key.length > 8 ? `***${key.slice(-4)}` : "***");

/** The report of per-session rows: the total, and the keys and models of every row merged. */
export function usageReport(
  scope: string | null,
  rows: readonly {
    session: string | null;
    total: UsageTotals;
    keys: Iterable<[string, { label: string | null; totals: UsageTotals }]>;
    models: Iterable<[string, UsageTotals]>;
  }[],
): UsageReport {
  const total = emptyTotals();
  const keys = new Map<string, UsageTotals & { key: string | null }>();
  const models = new Map<string, UsageTotals & { model: string }>();
  const sessions: UsageReport["sessions"] = [];
  for (const row of rows) {
    addTotals(total, row.total);
    sessions.push({ session: row.session, ...copy(row.total) });
    for (const [id, { label, totals }] of row.keys) {
      let k = keys.get(id);
      if (!k) keys.set(id, (k = { key: label, ...emptyTotals() }));
      addTotals(k, totals);
    }
    for (const [model, totals] of row.models) {
      let m = models.get(model);
      if (!m) models.set(model, (m = { model, ...emptyTotals() }));
      addTotals(m, totals);
    }
  }
  return {
    object: "mock.usage",
    session: scope,
    total,
    sessions,
    keys: [...keys.values()],
    models: [...models.values()],
  };
}

const copy = (t: UsageTotals): UsageTotals => ({ ...t, refused: { ...t.refused } });

// ---------------------------------------------------------------- the store

/** The session's own limits (what `POST /__mock/limits` set), and the server's defaults under them. */
export interface LimitsView {
  object: "mock.limits";
  session: string | null;
  /** What the session set (null: not set, the server's applies). */
  limits: { rpm: number | null; tpm: number | null; budgetUsd: number | null };
  /** The server's defaults (`--rpm`, `--tpm`, the service file's defaults); a model's or a key's may differ. */
  defaults: { rpm: number | null; tpm: number | null; budgetUsd: number | null };
}

/** Where buckets, spend, session limits and usage totals live: in memory, or in Redis (shared by every process). */
export interface LimitsStore {
  /** Whether any session has limits of its own (a memory store knows; a shared one must ask, so says true). */
  readonly anySessionLimits: boolean;
  /**
   * Checks a request without charging it (`begin`: before its answer is
   * chosen, so that a refused request takes no queued answer); null when no
   * limit applies.
   */
  check(charge: LimitCharge): LimitVerdict | null | Promise<LimitVerdict | null>;
  /** Checks and charges a request, all or nothing, and adds it to the usage totals when it passes. */
  charge(charge: LimitCharge): LimitVerdict | Promise<LimitVerdict>;
  /**
   * Gives back what a passed request was charged (buckets, totals, spend), when a later step refused it after
   * all (the capacity step's 503 `overloaded` comes after the limiter's charge): refusals are free.
   */
  refund(charge: LimitCharge, verdict: LimitVerdict): void;
  /** Counts a refusal in the usage totals. */
  refused(session: string | null, key: string | null, model: string, reason: RefusalReason): void;
  /** The session's own limits (undefined: none). */
  sessionLimits(session: string | null): Limits | undefined | Promise<Limits | undefined>;
  /** Sets or clears (null) the session's limits; a field not given is left as it is. */
  setSessionLimits(session: string | null, patch: LimitsPatch): Limits | Promise<Limits>;
  /** Usage totals of a session (a string, or null for requests without one), or of every session (undefined). */
  usage(session: string | null | undefined): UsageReport | Promise<UsageReport>;
  /** Forgets a session's buckets, spend, usage and limits (its budget is whole again), or every session's. */
  reset(session: string | null | undefined): void | Promise<void>;
}

// ---------------------------------------------------------------- POST /__mock/limits

/** What `POST /__mock/limits` and `mock.limits()` take: each field a number, or null to clear it. */
export interface LimitsPatch {
  rpm?: number | null;
  tpm?: number | null;
  budgetUsd?: number | null;
}

/** A bad limits body: every problem, each with where it is. */
export class LimitsError extends Error {
  constructor(
    readonly label: string,
    readonly issues: readonly { path: string; message: string }[],
  ) {
    super(
      `${label}: ${issues.length === 1 ? "" : `${issues.length} problems: `}${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
    this.name = "LimitsError";
  }
}

/** The largest limit accepted (well within a double's exact integers, and any real limit). */
const MAX_LIMIT = 1e12;

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
};

/** Reads a limits body; throws a LimitsError listing every problem. */
export function parseLimitsPatch(body: unknown, label: string): LimitsPatch {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new LimitsError(label, [
      {
        path: "(body)",
        message: `send a JSON object such as {"rpm": 3, "tpm": 1000, "budgetUsd": 0.05} (null clears one), got ${shown(body)}`,
      },
    ]);
  const issues: { path: string; message: string }[] = [];
  const patch: LimitsPatch = {};
  for (const [name, value] of Object.entries(body)) {
    if (name !== "rpm" && name !== "tpm" && name !== "budgetUsd") {
      issues.push({ path: name, message: "unknown field: the fields are rpm, tpm and budgetUsd" });
      continue;
    }
    if (value === null) {
      patch[name] = null;
      continue;
    }
    if (name === "budgetUsd") {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > MAX_LIMIT)
        issues.push({
          path: name,
          message: `must be a number of USD, 0 or more (or null to clear it), got ${shown(value)}`,
        });
      else patch[name] = value;
      continue;
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_LIMIT)
      issues.push({
        path: name,
        message: `must be a whole number of ${name === "rpm" ? "requests" : "tokens"} per minute, 1 or more (or null to clear it), got ${shown(value)}`,
      });
    else patch[name] = value;
  }
  if (issues.length > 0) throw new LimitsError(label, issues);
  return patch;
}

/** A session's limits with a patch applied (null clears a field). */
export function patched(current: Limits | undefined, patch: LimitsPatch): Limits {
  const next: Limits = { ...current };
  for (const name of ["rpm", "tpm", "budgetUsd"] as const) {
    const value = patch[name];
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = value;
  }
  return next;
}

/** The view `GET`/`POST /__mock/limits` answer with. */
export function limitsView(session: string | null, own: Limits | undefined, service: Service): LimitsView {
  const d = service.defaults.limits;
  return {
    object: "mock.limits",
    session,
    limits: { rpm: own?.rpm ?? null, tpm: own?.tpm ?? null, budgetUsd: own?.budgetUsd ?? null },
    defaults: { rpm: d.rpm ?? null, tpm: d.tpm ?? null, budgetUsd: d.budgetUsd ?? null },
  };
}
