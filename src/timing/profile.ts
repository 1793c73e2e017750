/**
 * The timing profile of a stream, set at three levels — server options, the
 * scenario, the request's headers — each overriding the one before, and the
 * faults a stream can be told to suffer.
 */

export interface TimingProfile {
  /** Time to the first byte of the answer, in ms. */
  latencyMs: number;
  /** Pause between events, in ms. */
  chunkMs: number;
  /** Each pause varies by up to ± this many ms, drawn from the seed. */
  jitterMs: number;
  /** When set, text deltas are paced at this many tokens per second instead of chunkMs. */
  tokensPerSecond: number | null;
  /** Send an SSE comment (`: keep-alive`) after this many idle ms; 0 = never. */
  heartbeatMs: number;
}

export const ZERO_PROFILE: TimingProfile = { latencyMs: 0, chunkMs: 0, jitterMs: 0, tokensPerSecond: null, heartbeatMs: 0 };

/** Later layers override earlier ones, key by key; undefined keys fall through. */
export function mergeProfiles(...layers: (Partial<TimingProfile> | undefined)[]): TimingProfile {
  const out: TimingProfile = { ...ZERO_PROFILE };
  for (const layer of layers) {
    if (!layer) continue;
    for (const key of Object.keys(out) as (keyof TimingProfile)[]) {
      const v = layer[key];
      if (v !== undefined) (out as unknown as Record<string, unknown>)[key] = v;
    }
  }
  return out;
}

/** Ways a stream can break. */
export interface Faults {
  /** Close the connection right after this many events (flushed first). */
  dropAfterEvents?: number;
  /** Close the connection this many ms after the request. */
  dropAfterMs?: number;
  /** Send nothing at all for `ms` after `afterEvents` events (no heartbeats either). */
  stall?: { afterEvents: number; ms: number };
  /** Stop after this many events and never finish (heartbeats go on) until the client leaves. */
  hangAfterEvents?: number;
}

export const mergeFaults = (...layers: (Faults | undefined)[]): Faults => Object.assign({}, ...layers.filter(Boolean));

export const hasFaults = (f: Faults) =>
  f.dropAfterEvents !== undefined || f.dropAfterMs !== undefined || f.stall !== undefined || f.hangAfterEvents !== undefined;
