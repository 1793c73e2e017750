/**
 * The service model (issue 26): what a real, metered service is besides its
 * protocol. Models with prices, limits, capacity and a latency profile; limits
 * per API key; named latency profiles. Pure data and arithmetic: the service
 * file is read by service/load.ts, the limiter and the queue live in the
 * turn's steps (src/turn/), and pacing reads a profile through the timing
 * schedule.
 */

/** Prices in USD per 1M tokens. Reasoning tokens are output tokens priced on their own; cached input tokens likewise. */
export interface Prices {
  input: number;
  cachedInput: number;
  output: number;
  reasoning: number;
}

/** What one key (or one session, or a model's default) may spend. Each is absent when unlimited. */
export interface Limits {
  /** Requests per minute (a token bucket refilled continuously). */
  rpm?: number;
  /** Tokens per minute: input plus output tokens of each answer. */
  tpm?: number;
  /** Once the cost of what was answered reaches this, requests get 429 `insufficient_quota`. */
  budgetUsd?: number;
}

/** How many answers a model (or the server) plays at once, and how many wait. */
export interface Capacity {
  /** Answers playing at once; more wait in the queue. Absent: no cap. */
  maxConcurrent?: number;
  /** Answers that may wait for a slot (default 0: beyond maxConcurrent is a 503 at once). */
  queue?: number;
  /** The longest an answer waits in the queue before it gets a 503 (default: no limit). */
  queueTimeoutMs?: number;
}

/** A latency distribution: log-normal with this median and 99th percentile (p99 ≥ median). */
export interface Distribution {
  medianMs: number;
  p99Ms: number;
}

/**
 * A latency profile: time to first token and inter-token latency, each a
 * distribution drawn from the request's seed, and how inter-token latency
 * grows with load: `itl × (1 + k × (active − 1) / capacity)`, where
 * `active` is how many answers of the model are playing at once.
 */
export interface LatencyProfile {
  name: string;
  description: string;
  ttft: Distribution;
  itl: Distribution;
  slowdown: { k: number; capacity: number };
}

/** One model the service answers as. */
export interface ModelSpec {
  id: string;
  prices: Prices;
  limits: Limits;
  capacity: Capacity;
  /** The name of its latency profile; absent: the server's (`--profile`), else `instant`. */
  profile?: string;
  /** `owned_by` in `/v1/models`. */
  ownedBy: string;
  /** `created` in `/v1/models` (Unix seconds). */
  created: number;
}

/** The service a server plays: from `--service FILE` and the flags, or the defaults. */
export interface Service {
  /** The file it was read from; undefined when there was none. */
  source: string | undefined;
  /** The models the file lists, by id. */
  models: ReadonlyMap<string, ModelSpec>;
  /** What a model the file does not list gets (its `id` is the model asked for). */
  defaults: Omit<ModelSpec, "id">;
  /** Limits per API key (the bearer token), over the model's. */
  keys: ReadonlyMap<string, Limits>;
  /** Every named profile: the built-in ones and the file's. */
  profiles: ReadonlyMap<string, LatencyProfile>;
  /** The server's profile (`--profile`, or the file's default); undefined: none (no latency, as without a service). */
  profile: string | undefined;
  /** Server-wide capacity (`--max-concurrent`, `--queue`), for models without their own. */
  capacity: Capacity;
}

/** The example file's prices (illustrative, not any provider's): what every model costs without a service file. */
export const DEFAULT_PRICES: Prices = Object.freeze({ input: 2.5, cachedInput: 1.25, output: 10, reasoning: 10 });

/** The built-in profiles. `instant` is what the mock always did: no latency at all. */
export const BUILTIN_PROFILES: readonly LatencyProfile[] = Object.freeze([
  {
    name: "instant",
    description: "no latency: every event at once (what the mock does without a profile)",
    ttft: { medianMs: 0, p99Ms: 0 },
    itl: { medianMs: 0, p99Ms: 0 },
    slowdown: { k: 0, capacity: 1 },
  },
  {
    name: "fast",
    description: "a small, fast model on an idle service",
    ttft: { medianMs: 150, p99Ms: 450 },
    itl: { medianMs: 8, p99Ms: 20 },
    slowdown: { k: 0.25, capacity: 64 },
  },
  {
    name: "typical",
    description: "a mid-sized model on a busy service",
    ttft: { medianMs: 500, p99Ms: 2000 },
    itl: { medianMs: 25, p99Ms: 80 },
    slowdown: { k: 0.5, capacity: 32 },
  },
  {
    name: "slow-reasoning",
    description: "a reasoning model: long thought before the first token",
    ttft: { medianMs: 4000, p99Ms: 15000 },
    itl: { medianMs: 40, p99Ms: 120 },
    slowdown: { k: 1, capacity: 16 },
  },
]);

/** The service of a server without a service file: nothing limited, nothing slow, the default prices. */
export function defaultService(): Service {
  return {
    source: undefined,
    models: new Map(),
    defaults: { prices: DEFAULT_PRICES, limits: {}, capacity: {}, ownedBy: "openresponses-mock", created: 0 },
    keys: new Map(),
    profiles: new Map(BUILTIN_PROFILES.map((p) => [p.name, p])),
    profile: undefined,
    capacity: {},
  };
}

/** The model a request names, as the service knows it (a model not listed gets the defaults). */
export function modelOf(service: Service, model: string | null | undefined): ModelSpec {
  const id = model ?? "";
  const listed = service.models.get(id);
  if (listed) return listed;
  return { id, ...service.defaults };
}

/** An answer's token counts, as its response's `usage` gives them. */
export interface TokenUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

/**
 * What an answer costs in USD: uncached input at `input`, cached input at
 * `cachedInput`, output other than reasoning at `output`, reasoning at
 * `reasoning` (reasoning tokens are part of the output tokens).
 */
export function costUsd(usage: TokenUsage, prices: Prices): number {
  const cached = Math.min(usage.cached, usage.input);
  const reasoning = Math.min(usage.reasoning, usage.output);
  return (
    ((usage.input - cached) * prices.input +
      cached * prices.cachedInput +
      (usage.output - reasoning) * prices.output +
      reasoning * prices.reasoning) /
    1_000_000
  );
}

/** The API key a request carries: its `Authorization: Bearer KEY` (or a bare key), else null (every request without one shares one bucket). */
export function apiKeyOf(authorization: string | undefined): string | null {
  const value = authorization?.trim();
  if (!value) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value);
  if (match) return match[1];
  return /\s/.test(value) ? null : value;
}
