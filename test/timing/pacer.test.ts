import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/timing/clock.js";
import { playSchedule, type PaceSink } from "../../src/timing/pacer.js";
import type { Schedule } from "../../src/timing/schedule.js";

/** Records what the pacer delivers: event i as "A", "B", …; heartbeats as "hb"; the end as "DONE". */
class RecordingSink implements PaceSink {
  log: { t: number; what: string }[] = [];
  ended = false;
  destroyed = false;
  constructor(private clock: ManualClock) {}
  record(what: string): boolean | Promise<boolean> {
    this.log.push({ t: this.clock.now(), what });
    return true;
  }
  event(index: number) {
    return this.record(String.fromCharCode(65 + index));
  }
  heartbeat() {
    return this.record("hb");
  }
  end() {
    this.ended = true;
    this.log.push({ t: this.clock.now(), what: "DONE" });
  }
  destroy() {
    this.destroyed = true;
  }
}

const schedule = (slots: Schedule["slots"], heartbeatMs = 0): Schedule => ({
  slots,
  heartbeatMs,
  durationMs: slots.at(-1)!.at,
});

describe("playSchedule with a manual clock", () => {
  it("writes each frame at its scheduled time, heartbeats between, then DONE", async () => {
    const clock = new ManualClock(1000);
    const sink = new RecordingSink(clock);
    const done = playSchedule(
      schedule(
        [
          { kind: "heartbeat", at: 50 },
          { kind: "event", at: 80, index: 0 },
          { kind: "event", at: 200, index: 1 },
          { kind: "done", at: 200 },
        ],
        50,
      ),
      sink,
      { clock, start: 1000 },
    );
    await clock.advance(49);
    expect(sink.log).toEqual([]);
    await clock.advance(1);
    expect(sink.log).toEqual([{ t: 1050, what: "hb" }]);
    await clock.advance(200);
    expect(await done).toBe("done");
    expect(sink.log).toEqual([
      { t: 1050, what: "hb" },
      { t: 1080, what: "A" },
      { t: 1200, what: "B" },
      { t: 1200, what: "DONE" },
    ]);
    expect(sink.ended).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it("counts from the request's start, so a late start does not shift later frames", async () => {
    const clock = new ManualClock(1000);
    const sink = new RecordingSink(clock);
    await clock.advance(30); // the request was read slowly: 30 ms already passed
    const done = playSchedule(
      schedule([
        { kind: "event", at: 20, index: 0 },
        { kind: "event", at: 100, index: 1 },
        { kind: "done", at: 100 },
      ]),
      sink,
      { clock, start: 1000 },
    );
    await clock.advance(100);
    await done;
    expect(sink.log.map((l) => `${l.what}@${l.t}`)).toEqual(["A@1030", "B@1100", "DONE@1100"]);
  });

  it("drops: writes what came before, then destroys", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    const done = playSchedule(
      schedule([
        { kind: "event", at: 0, index: 0 },
        { kind: "drop", at: 10 },
      ]),
      sink,
      { clock, start: 0 },
    );
    await clock.advance(10);
    expect(await done).toBe("dropped");
    expect(sink.log.map((l) => l.what)).toEqual(["A"]);
    expect(sink.destroyed).toBe(true);
    expect(sink.ended).toBe(false);
  });

  it("hangs with heartbeats until aborted, and leaves no timer", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    const abort = new AbortController();
    const done = playSchedule(
      schedule(
        [
          { kind: "event", at: 0, index: 0 },
          { kind: "hang", at: 0 },
        ],
        100,
      ),
      sink,
      { clock, start: 0, signal: abort.signal },
    );
    await clock.advance(350);
    expect(sink.log).toEqual([
      { t: 0, what: "A" },
      { t: 100, what: "hb" },
      { t: 200, what: "hb" },
      { t: 300, what: "hb" },
    ]);
    abort.abort();
    expect(await done).toBe("aborted");
    expect(clock.pending).toBe(0);
  });

  it("stops at once when the client goes away mid-wait, clearing its timer", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    const abort = new AbortController();
    const done = playSchedule(
      schedule([
        { kind: "event", at: 0, index: 0 },
        { kind: "event", at: 10_000, index: 1 },
        { kind: "done", at: 10_000 },
      ]),
      sink,
      { clock, start: 0, signal: abort.signal },
    );
    await clock.advance(5);
    expect(clock.pending).toBe(1);
    abort.abort();
    expect(await done).toBe("aborted");
    expect(clock.pending).toBe(0);
    expect(sink.log.map((l) => l.what)).toEqual(["A"]);
  });

  it("stops when a write reports the client gone", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    sink.event = () => false;
    const done = playSchedule(
      schedule([
        { kind: "event", at: 0, index: 0 },
        { kind: "event", at: 5, index: 1 },
        { kind: "done", at: 5 },
      ]),
      sink,
      { clock, start: 0 },
    );
    expect(await done).toBe("aborted");
    expect(clock.pending).toBe(0);
  });

  it("after a late write, waits a whole idle interval before the next heartbeat", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    let slow = true;
    // The first write takes 30 ms (a full socket buffer), so the heartbeat due at 50 comes at 80.
    const record = sink.record.bind(sink);
    sink.record = (what: string) => {
      if (slow) {
        slow = false;
        return new Promise<boolean>((resolve) => clock.setTimeout(() => resolve(record(what) as boolean), 30));
      }
      return record(what);
    };
    const done = playSchedule(
      schedule(
        [
          { kind: "event", at: 0, index: 0 },
          { kind: "heartbeat", at: 50 },
          { kind: "event", at: 200, index: 1 },
          { kind: "done", at: 200 },
        ],
        50,
      ),
      sink,
      { clock, start: 0 },
    );
    await clock.advance(300);
    await done;
    expect(sink.log).toEqual([
      { t: 30, what: "A" },
      { t: 80, what: "hb" },
      { t: 200, what: "B" },
      { t: 200, what: "DONE" },
    ]);
  });
});
