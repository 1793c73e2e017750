/**
 * How many times a server has seen a request before: the k of "the k-th
 * identical request of a session gets the ids of request + k". Keys are the
 * request's seed string and its session. Memory is bounded: past `limit`
 * keys the oldest are forgotten, and each forgotten key leaves its count in a
 * fixed table of buckets (the largest count of any key that hashed there), so
 * a forgotten request that comes back resumes at or above its true count and
 * still never reuses an id. Pure: no I/O, no timers.
 */
import { fnv1a } from "../generate/hash.js";
import { OldestKeys } from "../util/oldest-keys.js";

const BUCKETS = 1 << 16;

export class RepeatCounter {
  private readonly counts = new Map<string, number>();
  private readonly floor = new Uint32Array(BUCKETS);
  /** The least recently seen key (a key seen again moves to the end). */
  private readonly oldest = new OldestKeys(this.counts);

  constructor(readonly limit = 100_000) {}

  /** Returns how many times `key` was seen before, and counts this time. */
  next(key: string): number {
    let k = this.counts.get(key);
    if (k === undefined) k = this.floor[fnv1a(key) & (BUCKETS - 1)];
    else this.counts.delete(key); // re-inserted below: the most recent keys are kept longest
    this.counts.set(key, k + 1);
    if (this.counts.size > this.limit) {
      const oldest = this.oldest.next()!;
      const count = this.counts.get(oldest)!;
      this.counts.delete(oldest);
      const b = fnv1a(oldest) & (BUCKETS - 1);
      if (count > this.floor[b]) this.floor[b] = count;
    }
    return k;
  }

  /** The key of a request: its seed string and its session. */
  static key(seed: string, session: string | null): string {
    return session === null ? seed : `${seed}\u0000${session}`;
  }
}
