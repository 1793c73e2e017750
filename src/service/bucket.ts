/**
 * Token buckets, as OpenAI's rate limits behave: a bucket holds at most its
 * per-minute limit (its capacity), refills continuously at `limit / 60000`
 * per ms, and a request takes its cost out of every bucket it is charged
 * to, all or nothing. Pure arithmetic on numbers given in: no clock, no
 * state of its own (the memory store keeps the levels, and the Redis store
 * runs the same rules in Lua: src/store/redis-limits.ts).
 *
 * A bucket nobody has charged is full, and a full bucket is the same as no
 * bucket: stores may forget a bucket once it is back at full.
 */

/** How long a bucket takes to refill from empty: its limit is per minute. */
export const WINDOW_MS = 60_000;

/**
 * A level compared with a cost is let pass this much short of it: floating
 * point must not refuse a request at the very ms `retryAfterMs` named.
 */
const EPSILON = 1e-9;

/** What a bucket held (`level`) at a time (`at`, ms on the limiter's clock). */
export interface BucketState {
  level: number;
  at: number;
}

/** A bucket's level at `now`: what it held, plus the refill since, at most its capacity (a missing state is full). */
export function levelAt(state: BucketState | undefined, capacity: number, now: number): number {
  if (state === undefined) return capacity;
  const level = state.level + (Math.max(0, now - state.at) * capacity) / WINDOW_MS;
  return level >= capacity ? capacity : level;
}

/** Whether a bucket at `level` has room for `cost`. */
export const fits = (level: number, cost: number): boolean => level + EPSILON >= cost;

/**
 * The whole ms until a bucket at `level` has room for `cost`: 0 when it has
 * room now, Infinity when the cost is over its capacity (it never will).
 */
export function retryAfterMs(level: number, capacity: number, cost: number): number {
  if (fits(level, cost)) return 0;
  if (cost > capacity) return Infinity;
  return Math.max(1, Math.ceil(((cost - level) * WINDOW_MS) / capacity - EPSILON));
}

/** The whole ms until a bucket at `level` is full again (OpenAI's `x-ratelimit-reset-*`: back to its initial state). */
export function resetMs(level: number, capacity: number): number {
  if (level >= capacity) return 0;
  return Math.ceil(((capacity - level) * WINDOW_MS) / capacity - EPSILON);
}

/** What a bucket says in the `x-ratelimit-*` headers after a request: its limit, what remains (whole), and when it is full. */
export interface BucketReport {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** A bucket's report at `level` (after the charge, if one was made). */
export const reportOf = (level: number, capacity: number): BucketReport => ({
  limit: capacity,
  remaining: Math.max(0, Math.floor(level + EPSILON)),
  resetMs: resetMs(level, capacity),
});

/** One bucket of a request: its capacity (limit per minute), its level now, and what the request costs it. */
export interface BucketCharge {
  capacity: number;
  level: number;
  cost: number;
}

/**
 * Whether a request fits every one of its buckets, and if not, which one
 * holds it back longest (its index) and how long (`Infinity`: the cost is
 * over that bucket's capacity, so it never fits). All or nothing: the caller
 * takes the costs from every bucket only when `index` is -1.
 */
export function take(buckets: readonly BucketCharge[]): { index: number; waitMs: number } {
  let index = -1;
  let waitMs = 0;
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i];
    const wait = retryAfterMs(b.level, b.capacity, b.cost);
    if (wait > waitMs) {
      waitMs = wait;
      index = i;
    }
  }
  return { index, waitMs };
}

/**
 * A duration as OpenAI spells it in `x-ratelimit-reset-*` and in its
 * messages ("Please try again in 1.2s"): Go's `time.Duration` spelling, to
 * the ms: `0s`, `17ms`, `120ms`, `1s`, `1.5s`, `6m0s`, `1h0m0s`.
 */
export function goDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "0s";
  const whole = Math.ceil(ms - EPSILON);
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const millis = whole % 60_000;
  const seconds = Math.floor(millis / 1000);
  const fraction = millis % 1000;
  const s = fraction === 0 ? `${seconds}s` : `${seconds}.${String(fraction).padStart(3, "0").replace(/0+$/, "")}s`;
  if (hours > 0) return `${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${minutes}m${s}`;
  return s;
}
