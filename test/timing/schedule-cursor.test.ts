/**
 * The schedule as a cursor: slot by slot, the same slots as the array
 * schedule built the old way (test/support/reference-schedule.ts), for random
 * profiles, pauses and faults; it reads each event only when it times it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { createRng } from "../../src/generate/rng.js";
import { mergeProfiles, type Faults } from "../../src/timing/profile.js";
import { buildSchedule, filterSlots, scheduleCursor, slotsOf, type Slot } from "../../src/timing/schedule.js";
import { ITEMS, makePlan } from "../support/plans.js";
import { referenceSchedule } from "../support/reference-schedule.js";

const EVENT_LISTS = [ITEMS.text, ITEMS.reasoningThenText, ITEMS.emptyText, ITEMS.refusal].map((items) =>
  emitEvents(makePlan(items)),
);

const arbProfile = fc.record({
  latencyMs: fc.constantFrom(0, 5, 100, 250),
  chunkMs: fc.constantFrom(0, 1, 10, 20, 100),
  jitterMs: fc.constantFrom(0, 3, 30),
  tokensPerSecond: fc.constantFrom(null, 5, 40),
  heartbeatMs: fc.constantFrom(0, 7, 25, 60),
});

const arbFaults: fc.Arbitrary<Faults> = fc.record(
  {
    dropAfterEvents: fc.integer({ min: 0, max: 16 }),
    dropAfterMs: fc.integer({ min: 0, max: 1500 }),
    stall: fc.record({ afterEvents: fc.integer({ min: 0, max: 16 }), ms: fc.integer({ min: 0, max: 500 }) }),
    hangAfterEvents: fc.integer({ min: 0, max: 16 }),
  },
  { requiredKeys: [] },
);

describe("SlotCursor", () => {
  it("gives the same slots as the array schedule, for any profile, pauses and faults", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_LISTS),
        arbProfile,
        arbFaults,
        fc.array(fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 1, max: 400 })), { maxLength: 3 }),
        fc.string(),
        (events, profile, faults, pauseList, seed) => {
          const pauses = new Map(pauseList);
          const expected = referenceSchedule(events, mergeProfiles(profile), createRng(seed), { pauses, faults });
          expect(buildSchedule(events, mergeProfiles(profile), createRng(seed), { pauses, faults })).toEqual(expected);
          // Pauses as a function, as a lazy stream gives them.
          const cursor = scheduleCursor(events, mergeProfiles(profile), createRng(seed), {
            pauses: (i) => pauses.get(i) ?? 0,
            faults,
          });
          const slots: Slot[] = [];
          for (let s = cursor.peek(); s !== undefined; s = cursor.peek()) {
            expect(cursor.next()).toBe(s);
            slots.push(s);
          }
          expect(slots).toEqual(expected.slots);
          expect(cursor.end).toEqual(expected.slots.at(-1));
          expect(cursor.eventCount).toBe(expected.slots.filter((x) => x.kind === "event").length);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("reads event i only when it times it: at most one past the last event slot it gave", () => {
    const events = EVENT_LISTS[1];
    let read = -1;
    const feed = { at: (i: number) => ((read = Math.max(read, i)), events[i]) };
    const cursor = scheduleCursor(feed, mergeProfiles({ chunkMs: 10, heartbeatMs: 4 }), createRng("x"));
    let lastEvent = -1;
    for (let s = cursor.next(); s !== undefined; s = cursor.next()) {
      if (s.kind === "event") lastEvent = s.index;
      expect(read).toBeLessThanOrEqual(lastEvent + 1);
    }
    expect(lastEvent).toBe(events.length - 1);
  });

  it("has no end before it reaches it", () => {
    const cursor = scheduleCursor(EVENT_LISTS[0], mergeProfiles({}), createRng("x"), {
      faults: { hangAfterEvents: 2 },
    });
    expect(cursor.end).toBeUndefined();
    expect(cursor.eventCount).toBeUndefined();
    expect([cursor.next(), cursor.next(), cursor.next()].map((s) => s?.kind)).toEqual(["event", "event", "hang"]);
    expect(cursor.end).toEqual({ kind: "hang", at: 0 });
    expect(cursor.eventCount).toBe(2);
    expect(cursor.next()).toBeUndefined();
  });

  it("filterSlots and slotsOf keep order and peek", () => {
    const schedule = buildSchedule(EVENT_LISTS[0], mergeProfiles({ chunkMs: 30, heartbeatMs: 20 }), createRng("x"));
    const kept = filterSlots(slotsOf(schedule), (s) => s.kind !== "heartbeat");
    const out: Slot[] = [];
    for (let s = kept.peek(); s !== undefined; s = kept.peek()) out.push(kept.next()!);
    expect(out).toEqual(schedule.slots.filter((s) => s.kind !== "heartbeat"));
    expect(schedule.slots.some((s) => s.kind === "heartbeat")).toBe(true);
  });
});
