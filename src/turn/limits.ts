/**
 * The limiter, as a turn step (issue 26): token buckets per session × API
 * key × model (RPM and TPM), budgets, and the usage totals and cost of every
 * answer. First in `deps.steps`, so that a refused request waits in no queue.
 *
 * - `begin`: checks without charging (the request's input tokens against the
 *   tokens bucket): a request that cannot pass is refused before its answer is
 *   chosen, so it takes no queued answer (`enqueue`, `use`). A proxied turn is
 *   checked and charged here: 1 request and its input tokens (the mock does
 *   not know the upstream's answer before it comes).
 * - `planned`: the answer is known: charges 1 request and its input plus
 *   output tokens (its `usage`), all or nothing, adds it to the totals and
 *   sets the journal's `costUsd` and `limits` and the `x-ratelimit-*` headers.
 *   A request the buckets have no room for is refused with a 429 whose
 *   `retry-after-ms` is when it fits; refusals are not charged.
 * - `end`: counts a refusal (its own, or a later step's `overloaded`).
 *
 * With no limit configured (no flag, file or session limit), a turn costs a
 * few map lookups: its usage totals.
 */
import type { JournalLimits } from "../journal/journal.js";
import { countInputTokens } from "../generate/input-tokens.js";
import { goDuration } from "../service/bucket.js";
import {
  baseLimits,
  MODEL_CHARS,
  rateLimitHeaders,
  serviceHasLimits,
  type LimitCharge,
  type LimitsStore,
  type LimitVerdict,
} from "../service/limits.js";
import { costUsd, modelOf, type Service, type TokenUsage } from "../service/service.js";
import { hasCapacity } from "../service/slots.js";
import { ApiError } from "../spec/index.js";
import type { PreparedTurn, TurnContext, TurnStep } from "./turn.js";

/** The step's name (and its key in `turn.notes`). */
export const LIMITS_STEP = "limits";

/** The model a turn's buckets and totals are kept under. */
const modelName = (turn: TurnContext): string => {
  const model = turn.request.model ?? "";
  return model.length > MODEL_CHARS ? model.slice(0, MODEL_CHARS) : model;
};

/** An answer's token counts, from its response's `usage` (none: a failed answer counts no tokens). */
function tokensOf(usage: unknown): TokenUsage {
  const u = usage as {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number } | null;
    output_tokens_details?: { reasoning_tokens?: number } | null;
  } | null;
  return {
    input: u?.input_tokens ?? 0,
    cached: u?.input_tokens_details?.cached_tokens ?? 0,
    output: u?.output_tokens ?? 0,
    reasoning: u?.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** The 429 of a refusal: the spec's error (too_many_requests), with OpenAI's spelling at hand for its dialect. */
function refusal(verdict: LimitVerdict, model: string, headers: Record<string, string>): ApiError {
  const { limit, retryMs, used, requested, limits } = verdict;
  if (limit === "budget") {
    return new ApiError({
      status: 429,
      type: "too_many_requests",
      code: "insufficient_quota",
      message: `The budget is spent: the answers so far cost ${limits.budgetUsd} USD or more (budgetUsd ${limits.budgetUsd}). POST /__mock/reset (mock.reset(), session.reset()) refills it.`,
      headers,
      rateLimit: { kind: "budget", model, limit: limits.budgetUsd ?? 0, used, requested, retryMs: null },
    });
  }
  const kind = limit === "requests" ? "requests" : "tokens";
  const per = kind === "requests" ? "requests per minute (RPM)" : "tokens per minute (TPM)";
  const cap = (kind === "requests" ? limits.rpm : limits.tpm) ?? 0;
  const message =
    retryMs === null
      ? `Request too large for ${model} on ${per}: limit ${cap}, requested ${requested}. It can never fit: send fewer input tokens, ask for fewer output tokens, or raise the limit.`
      : `Rate limit reached for ${model} on ${per}: limit ${cap}, used ${used}, requested ${requested}. Try again in ${goDuration(retryMs)} (retry-after-ms).`;
  return new ApiError({
    status: 429,
    type: "too_many_requests",
    code: "rate_limit_exceeded",
    message,
    headers,
    rateLimit: { kind, model, limit: cap, used, requested, retryMs },
  });
}

/** What a passed turn was charged, kept until its end. */
interface Charged {
  charged: LimitCharge;
  verdict: LimitVerdict;
}

/** The limits of a request when the service sets none (the session's may still apply). */
const NONE = Object.freeze({});

/**
 * The limiter step over a store (memory or Redis). `service` gives the
 * defaults, models, keys and prices.
 */
export function limitsStep(service: Service, store: LimitsStore): TurnStep {
  const configured = serviceHasLimits(service);
  // Whether a step after this one may refuse a turn it passed (a capacity cap: its 503 comes after the charge).
  const refusedLater = hasCapacity(service);
  const pricesOf = (model: string) => modelOf(service, model).prices;

  const charge = (turn: TurnContext, model: string, tokens: number, usage: TokenUsage | null, cost: number) => {
    const c: LimitCharge = {
      session: turn.session,
      key: turn.key,
      model,
      limits: configured ? baseLimits(service, model, turn.key) : NONE,
      tokens,
      usage,
      costUsd: cost,
    };
    return c;
  };

  const refuse = (turn: TurnContext, verdict: LimitVerdict, model: string): never => {
    const headers = rateLimitHeaders(verdict);
    turn.refused = verdict.verdict === "insufficient_quota" ? "insufficient_quota" : "rate_limited";
    if (turn.entry) turn.entry.limits = { verdict: turn.refused, limit: verdict.limit, headers };
    throw refusal(verdict, model, headers);
  };

  const passed = (turn: TurnContext, verdict: LimitVerdict, charged: LimitCharge): void => {
    // Kept until `end` when a later step (the capacity step's 503) may still refuse the turn: refusals are free.
    if (refusedLater) (turn.notes ??= {})[LIMITS_STEP] = { charged, verdict } satisfies Charged;
    if (verdict.requests === null && verdict.tokens === null) {
      if (turn.entry && verdict.limits.budgetUsd !== undefined)
        turn.entry.limits = { verdict: "passed", limit: null, headers: {} };
      return;
    }
    const headers = rateLimitHeaders(verdict);
    if (turn.headers) Object.assign(turn.headers, headers);
    else turn.headers = headers;
    if (turn.entry) turn.entry.limits = { verdict: "passed", limit: null, headers: { ...headers } };
  };

  // A shared store that cannot be reached (Redis gone: a 503 ApiError) fails the request only when the service
  // sets limits: without any, the answer needs nothing of the store, and goes uncounted (the store says so on stderr).
  const settle = <T>(value: T | Promise<T>, then: (value: T) => void, unreachable: T): void | Promise<void> =>
    value instanceof Promise
      ? value.then(then, (err: unknown) => {
          if (configured) throw err;
          then(unreachable);
        })
      : then(value);

  return {
    name: LIMITS_STEP,

    begin(turn) {
      const model = modelName(turn);
      if (turn.transport === "proxy") {
        // The upstream's answer is not known yet: 1 request and the input tokens, charged now.
        const tokens = countInputTokens(turn.request, turn.items);
        const c = charge(turn, model, tokens, null, 0);
        return settle(
          store.charge(c) as LimitVerdict | null | Promise<LimitVerdict | null>,
          (verdict) => {
            if (verdict === null) return; // the shared store is out of reach, no limit configured: uncounted
            if (verdict.verdict === "passed") passed(turn, verdict, c);
            else refuse(turn, verdict, model);
          },
          null,
        );
      }
      if (!configured && !store.anySessionLimits) return;
      // Checked, not charged: a request that cannot pass is refused before it takes a queued answer.
      const tokens = countInputTokens(turn.request, turn.items);
      return settle(
        store.check(charge(turn, model, tokens, null, 0)),
        (verdict) => {
          if (verdict && verdict.verdict !== "passed") refuse(turn, verdict, model);
        },
        null,
      );
    },

    planned(turn: PreparedTurn) {
      const model = modelName(turn);
      const usage = tokensOf(turn.answer.response.usage);
      const cost = costUsd(usage, pricesOf(model));
      const c = charge(turn, model, usage.input + usage.output, usage, cost);
      return settle(
        store.charge(c) as LimitVerdict | null | Promise<LimitVerdict | null>,
        (verdict) => {
          if (verdict === null) {
            // The shared store is out of reach and no limit is configured: answered, uncounted.
            if (turn.entry) turn.entry.costUsd = cost;
            return;
          }
          if (verdict.verdict !== "passed") refuse(turn, verdict, model);
          // Only an answer that passed costs anything (a refusal is free).
          if (turn.entry) turn.entry.costUsd = cost;
          passed(turn, verdict, c);
        },
        null,
      );
    },

    end(turn) {
      const reason = turn.refused;
      if (reason === undefined) return;
      const model = modelName(turn);
      // Refused by a later step after the limiter charged it: the charge is given back, and there was no answer.
      const charged = turn.notes?.[LIMITS_STEP] as Charged | undefined;
      if (charged !== undefined) {
        store.refund(charged.charged, charged.verdict);
        if (turn.entry) turn.entry.costUsd = null;
      }
      store.refused(turn.session, turn.key, model, reason);
      if (turn.entry && turn.entry.limits === null && reason === "overloaded")
        turn.entry.limits = { verdict: "overloaded", limit: null, headers: {} } satisfies JournalLimits;
    },
  };
}
