import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { createRng } from "../../src/generate/rng.js";
import { mergeProfiles, ZERO_PROFILE } from "../../src/timing/profile.js";
import { buildSchedule, type Slot } from "../../src/timing/schedule.js";
import { ITEMS, makePlan, text } from "../support/plans.js";

const events = emitEvents(makePlan(ITEMS.text)); // 11 events
const zero = { next: () => 0.5 }; // no jitter effect
const times = (slots: Slot[], kind: Slot["kind"]) => slots.filter((s) => s.kind === kind).map((s) => s.at);

describe("buildSchedule", () => {
  it("puts everything at 0 with the zero profile", () => {
    const s = buildSchedule(events, ZERO_PROFILE, zero);
    expect(s.slots.map((x) => x.at).every((t) => t === 0)).toBe(true);
    expect(s.slots.at(-1)).toEqual({ kind: "done", at: 0 });
    expect(s.durationMs).toBe(0);
  });

  it("adds latency before the first event and chunkMs between events, as absolute offsets", () => {
    const s = buildSchedule(events, mergeProfiles({ latencyMs: 100, chunkMs: 20 }), zero);
    expect(times(s.slots, "event")).toEqual(events.map((_, i) => 100 + 20 * i));
    expect(s.slots.at(-1)).toEqual({ kind: "done", at: 300 });
  });

  it("paces text deltas by tokens per second", () => {
    const s = buildSchedule(events, mergeProfiles({ tokensPerSecond: 10 }), zero);
    const at = times(s.slots, "event");
    // deltas "Hello", " there", "!" are one token each: 100 ms apart; other events follow at once.
    expect(at.slice(3, 8)).toEqual([0, 100, 200, 300, 300]);
  });

  it("jitters each gap within ± jitterMs, the same for the same seed", () => {
    const profile = mergeProfiles({ chunkMs: 50, jitterMs: 10 });
    const a = buildSchedule(events, profile, createRng("x"));
    const b = buildSchedule(events, profile, createRng("x"));
    const c = buildSchedule(events, profile, createRng("y"));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const at = times(a.slots, "event");
    for (let i = 1; i < at.length; i++)
      (expect(at[i] - at[i - 1]).toBeGreaterThanOrEqual(40), expect(at[i] - at[i - 1]).toBeLessThanOrEqual(60));
  });

  it("puts heartbeats into every idle interval, including the wait for the first event", () => {
    const s = buildSchedule(events.slice(0, 3), mergeProfiles({ latencyMs: 250, chunkMs: 100, heartbeatMs: 60 }), zero);
    expect(times(s.slots, "heartbeat")).toEqual([60, 120, 180, 240, 310, 410]); // events at 250, 350, 450
    expect(s.slots.map((x) => x.kind).slice(0, 5)).toEqual([
      "heartbeat",
      "heartbeat",
      "heartbeat",
      "heartbeat",
      "event",
    ]);
  });

  it("adds per-step pauses", () => {
    const s = buildSchedule(events, mergeProfiles({ chunkMs: 10 }), zero, { pauses: new Map([[2, 500]]) });
    const at = times(s.slots, "event");
    expect(at[2] - at[1]).toBe(510);
    expect(at[3] - at[2]).toBe(10);
  });

  it("drops after N events", () => {
    const s = buildSchedule(events, mergeProfiles({ chunkMs: 10 }), zero, { faults: { dropAfterEvents: 4 } });
    expect(times(s.slots, "event")).toEqual([0, 10, 20, 30]);
    expect(s.slots.at(-1)).toEqual({ kind: "drop", at: 30 });
  });

  it("drops after T ms, keeping the events due before it", () => {
    const s = buildSchedule(events, mergeProfiles({ chunkMs: 10 }), zero, { faults: { dropAfterMs: 35 } });
    expect(times(s.slots, "event")).toEqual([0, 10, 20, 30]);
    expect(s.slots.at(-1)).toEqual({ kind: "drop", at: 35 });
  });

  it("stalls silently: no heartbeat inside the stall", () => {
    const s = buildSchedule(events.slice(0, 4), mergeProfiles({ chunkMs: 10, heartbeatMs: 100 }), zero, {
      faults: { stall: { afterEvents: 2, ms: 1000 } },
    });
    expect(times(s.slots, "event")).toEqual([0, 10, 1020, 1030]);
    expect(times(s.slots, "heartbeat")).toEqual([1010]);
  });

  it("hangs after N events without [DONE]", () => {
    const s = buildSchedule(events, mergeProfiles({ chunkMs: 10, heartbeatMs: 100 }), zero, {
      faults: { hangAfterEvents: 3 },
    });
    expect(s.slots.map((x) => x.kind)).toEqual(["event", "event", "event", "hang"]);
    expect(s.heartbeatMs).toBe(100);
  });

  it("keeps a long stream's times exact: no accumulated error", () => {
    const long = emitEvents(makePlan([text("msg_1", ...Array.from({ length: 1000 }, () => " x"))]));
    const s = buildSchedule(long, mergeProfiles({ chunkMs: 0.1 }), zero);
    expect(s.durationMs).toBeCloseTo((long.length - 1) * 0.1, 6);
  });
});
