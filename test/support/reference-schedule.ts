/**
 * The schedule as it was built before it became a cursor: every event's time
 * first, then the cuts, then the heartbeats, all in arrays. Kept as the
 * reference the cursor (src/timing/schedule.ts) is checked against.
 */
import { countTokens } from "../../src/generate/tokens.js";
import type { StreamEvent } from "../../src/spec/index.js";
import type { Faults, TimingProfile } from "../../src/timing/profile.js";
import type { JitterSource, Schedule, Slot } from "../../src/timing/schedule.js";

const isTextDelta = (type: string) => type.endsWith(".delta");

function deltaText(event: StreamEvent): string {
  const d = (event as { delta?: unknown }).delta;
  return typeof d === "string" ? d : "";
}

export function referenceSchedule(
  events: readonly StreamEvent[],
  profile: TimingProfile,
  rng: JitterSource,
  options: { pauses?: ReadonlyMap<number, number>; faults?: Faults } = {},
): Schedule {
  const { pauses, faults = {} } = options;
  const jitter = () => (profile.jitterMs > 0 ? (rng.next() * 2 - 1) * profile.jitterMs : 0);

  // 1. Ideal times of every event, then [DONE].
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < events.length; i++) {
    let gap: number;
    if (i === 0) gap = profile.latencyMs;
    else if (profile.tokensPerSecond && isTextDelta(events[i].type))
      gap = (countTokens(deltaText(events[i])) / profile.tokensPerSecond) * 1000;
    else gap = profile.chunkMs;
    gap = Math.max(0, gap + (i === 0 && profile.latencyMs === 0 ? 0 : jitter()));
    gap += pauses?.get(i) ?? 0;
    if (faults.stall && faults.stall.afterEvents === i) gap += faults.stall.ms;
    t += gap;
    times.push(t);
  }

  // 2. Cut by faults: the events before the cut are written, then drop or hang.
  let count = events.length;
  let end: Slot = { kind: "done", at: times.at(-1) ?? profile.latencyMs };
  if (faults.hangAfterEvents !== undefined && faults.hangAfterEvents < count) {
    count = faults.hangAfterEvents;
    end = { kind: "hang", at: count > 0 ? times[count - 1] : 0 };
  }
  if (faults.dropAfterEvents !== undefined && faults.dropAfterEvents <= count) {
    count = faults.dropAfterEvents;
    end = { kind: "drop", at: count > 0 ? times[count - 1] : 0 };
  }
  if (faults.dropAfterMs !== undefined && (end.kind === "hang" || faults.dropAfterMs < end.at)) {
    const before = times.slice(0, count).filter((x) => x <= faults.dropAfterMs!).length;
    count = before;
    end = { kind: "drop", at: faults.dropAfterMs };
  }

  // 3. Heartbeats wherever the stream would sit idle for a whole interval (never during a stall).
  const slots: Slot[] = [];
  let last = 0;
  const stallFrom = faults.stall
    ? faults.stall.afterEvents > 0
      ? (times[faults.stall.afterEvents - 1] ?? Infinity)
      : 0
    : Infinity;
  const stallTo = faults.stall ? stallFrom + faults.stall.ms : -Infinity;
  const heartbeatsUntil = (next: number) => {
    if (profile.heartbeatMs <= 0) return;
    for (let h = last + profile.heartbeatMs; h < next; h += profile.heartbeatMs) {
      if (h > stallFrom && h < stallTo) {
        h = stallTo; // silent during the stall; idle ever since, so one comes as it ends
        if (h >= next) break;
      }
      slots.push({ kind: "heartbeat", at: h });
    }
  };
  for (let i = 0; i < count; i++) {
    heartbeatsUntil(times[i]);
    slots.push({ kind: "event", at: times[i], index: i });
    last = times[i];
  }
  if (end.kind !== "hang") heartbeatsUntil(end.at);
  slots.push(end);
  return { slots, heartbeatMs: profile.heartbeatMs, durationMs: end.at };
}
