/**
 * The timing profile of a stream, set at three levels — server options, the
 * scenario, the request's headers — each overriding the one before (a
 * recorded pace ranks under the server's options instead: resolveTiming),
 * and the faults a stream can be told to suffer.
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

export const ZERO_PROFILE: TimingProfile = {
  latencyMs: 0,
  chunkMs: 0,
  jitterMs: 0,
  tokensPerSecond: null,
  heartbeatMs: 0,
};

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

/** A scenario's (and its turn's) timing as its plan carries it: `recorded` marks a pace written by `proxy --record`. */
export type ScenarioProfile = Partial<TimingProfile> & { recorded?: boolean };

export interface ResolvedTiming {
  profile: TimingProfile;
  /** Whether the scenario's per-step delays (`delayMs`) apply. */
  stepDelays: boolean;
}

/**
 * The profile of one answer from its layers. `server` holds only the server
 * options that were given (a flag or option, not a default); `request`, the
 * request's headers.
 *
 * A hand-written scenario's timing overrides the server's, and the headers
 * override both. A recorded pace (`recorded: true`, what `proxy --record`
 * writes) is only the default of its replay: it ranks under the server's
 * options given, so `serve --latency-ms 0 --chunk-ms 0` replays at once. Its
 * per-step delays are the recorded gaps between items, measured against its
 * recorded chunkMs, so a chunk pace given by the server or the request (even
 * 0) replaces them too. Faults are not timing: they apply either way.
 */
export function resolveTiming(
  server: Partial<TimingProfile> | undefined,
  scenario: ScenarioProfile | undefined,
  request: Partial<TimingProfile> | undefined,
): ResolvedTiming {
  if (!scenario?.recorded) return { profile: mergeProfiles(server, scenario, request), stepDelays: true };
  const paceGiven = server?.chunkMs !== undefined || request?.chunkMs !== undefined;
  return { profile: mergeProfiles(scenario, server, request), stepDelays: !paceGiven };
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
  /**
   * SSE only: split each write in the middle of a multi-byte UTF-8 character
   * (the sink's concern, not the schedule's: it is no reason to pace an answer).
   */
  splitUtf8?: boolean;
}

export const mergeFaults = (...layers: (Faults | undefined)[]): Faults => Object.assign({}, ...layers.filter(Boolean));

/** Whether the faults change the schedule (splitUtf8 does not: it changes how the SSE sink cuts its writes). */
export const hasFaults = (f: Faults) =>
  f.dropAfterEvents !== undefined ||
  f.dropAfterMs !== undefined ||
  f.stall !== undefined ||
  f.hangAfterEvents !== undefined;
