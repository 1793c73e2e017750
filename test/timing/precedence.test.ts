/**
 * Which timing wins (resolveTiming), and the schedule that follows: a
 * hand-written scenario's timing overrides the server's and the headers
 * override both; a recorded pace (`recorded: true`) ranks under the server's
 * options given, and a chunk pace given (even 0) drops its per-step delays.
 * Faults apply either way.
 */
import { describe, expect, it } from "vitest";
import { emitStream } from "../../src/emit/emit-events.js";
import { ZERO_PROFILE, resolveTiming, type ScenarioProfile, type TimingProfile } from "../../src/timing/profile.js";
import { buildSchedule, type Faults, type Slot } from "../../src/timing/index.js";
import { call, makePlan, text } from "../support/plans.js";

const zero = { next: () => 0.5 }; // no jitter effect

// A two-item answer whose second item starts 300 ms late: what `proxy --record` writes as a step delay.
const { events, pauses } = emitStream(
  makePlan([text("msg_1", "Let", " me", " check."), { ...call("fc_1", "lookup", '{"q":', '"x"}'), delayMs: 300 }]),
);
const callStart = events.findIndex(
  (e) => e.type === "response.output_item.added" && (e as { item: { type: string } }).item.type === "function_call",
);

const RECORDED: ScenarioProfile = { recorded: true, latencyMs: 120, chunkMs: 5 };
const HAND_WRITTEN: ScenarioProfile = { latencyMs: 120, chunkMs: 5 };

/** The schedule of the answer under these layers, as the server builds it. */
function scheduleWith(
  server: Partial<TimingProfile> | undefined,
  scenario: ScenarioProfile | undefined,
  request: Partial<TimingProfile> | undefined,
  faults?: Faults,
) {
  const { profile, stepDelays } = resolveTiming(server, scenario, request);
  return buildSchedule(events, profile, zero, { pauses: stepDelays ? pauses : undefined, faults });
}
const eventTimes = (slots: Slot[]) => slots.filter((s) => s.kind === "event").map((s) => s.at);
/** The recorded pacing: latency 120, 5 ms between events, 300 ms more before the tool call. */
const recordedTimes = events.map((_, i) => 120 + 5 * i + (i >= callStart ? 300 : 0));

describe("resolveTiming", () => {
  it("hand-written: server < scenario < request headers, key by key, step delays kept", () => {
    expect(resolveTiming({ latencyMs: 50, chunkMs: 1, heartbeatMs: 10 }, HAND_WRITTEN, { chunkMs: 7 })).toEqual({
      profile: { ...ZERO_PROFILE, latencyMs: 120, chunkMs: 7, heartbeatMs: 10 },
      stepDelays: true,
    });
    expect(resolveTiming({ latencyMs: 0, chunkMs: 0 }, HAND_WRITTEN, { latencyMs: 0, chunkMs: 0 }).stepDelays).toBe(
      true,
    );
    expect(resolveTiming(undefined, undefined, undefined)).toEqual({ profile: ZERO_PROFILE, stepDelays: true });
  });

  it("recorded: the recorded pace stands when nothing else is given", () => {
    expect(resolveTiming({}, RECORDED, {})).toEqual({
      profile: { ...ZERO_PROFILE, latencyMs: 120, chunkMs: 5 },
      stepDelays: true,
    });
  });

  it("recorded: the server's options given override it, and a chunk pace given drops the step delays", () => {
    expect(resolveTiming({ latencyMs: 0, chunkMs: 0 }, RECORDED, {})).toEqual({
      profile: ZERO_PROFILE,
      stepDelays: false,
    });
    expect(resolveTiming({ latencyMs: 0 }, RECORDED, {})).toEqual({
      profile: { ...ZERO_PROFILE, chunkMs: 5 },
      stepDelays: true,
    });
    expect(resolveTiming({ chunkMs: 30 }, RECORDED, {})).toEqual({
      profile: { ...ZERO_PROFILE, latencyMs: 120, chunkMs: 30 },
      stepDelays: false,
    });
  });

  it("recorded: the request's headers override it as well, and the server's options", () => {
    expect(resolveTiming({}, RECORDED, { latencyMs: 0, chunkMs: 0 })).toEqual({
      profile: ZERO_PROFILE,
      stepDelays: false,
    });
    expect(resolveTiming({ latencyMs: 0, chunkMs: 0 }, RECORDED, { latencyMs: 40 })).toEqual({
      profile: { ...ZERO_PROFILE, latencyMs: 40 },
      stepDelays: false,
    });
  });

  it("recorded: false (a turn opting out of its scenario's mark) is hand-written", () => {
    expect(resolveTiming({ latencyMs: 0, chunkMs: 0 }, { ...RECORDED, recorded: false }, {})).toEqual({
      profile: { ...ZERO_PROFILE, latencyMs: 120, chunkMs: 5 },
      stepDelays: true,
    });
  });
});

describe("the schedule of a replay", () => {
  it("a recorded turn replays at its recorded pace by default", () => {
    const s = scheduleWith({}, RECORDED, {});
    expect(eventTimes(s.slots)).toEqual(recordedTimes);
    expect(s.slots.at(-1)).toEqual({ kind: "done", at: recordedTimes.at(-1) });
  });

  it("with latency 0 and chunk 0 from the server's options, or from the headers, it has no delay at all", () => {
    for (const s of [
      scheduleWith({ latencyMs: 0, chunkMs: 0 }, RECORDED, {}),
      scheduleWith({}, RECORDED, { latencyMs: 0, chunkMs: 0 }),
    ]) {
      expect(s.slots.every((slot) => slot.at === 0)).toBe(true);
      expect(s.durationMs).toBe(0);
    }
  });

  it("with only latency 0, the recorded gaps stay", () => {
    expect(eventTimes(scheduleWith({ latencyMs: 0 }, RECORDED, {}).slots)).toEqual(recordedTimes.map((t) => t - 120));
  });

  it("a hand-written scenario keeps its timing and step delays over the server's options, as before", () => {
    expect(eventTimes(scheduleWith({ latencyMs: 0, chunkMs: 0 }, HAND_WRITTEN, {}).slots)).toEqual(recordedTimes);
    // Headers override its profile, not its step delays.
    expect(eventTimes(scheduleWith({}, HAND_WRITTEN, { latencyMs: 0, chunkMs: 0 }).slots)).toEqual(
      events.map((_, i) => (i >= callStart ? 300 : 0)),
    );
  });

  it("faults still apply to an instant replay", () => {
    const dropped = scheduleWith({ latencyMs: 0, chunkMs: 0 }, RECORDED, {}, { dropAfterEvents: 4 });
    expect(dropped.slots.map((s) => s.kind)).toEqual(["event", "event", "event", "event", "drop"]);
    const hung = scheduleWith({ latencyMs: 0, chunkMs: 0 }, RECORDED, {}, { hangAfterEvents: 2 });
    expect(hung.slots.at(-1)).toEqual({ kind: "hang", at: 0 });
  });
});
