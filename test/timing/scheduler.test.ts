/**
 * The shared tick: many paced streams on one clock hold one timer between
 * them, every frame still goes out at its time and in order, frames due in
 * the same tick are written together, a stream waiting on a full socket
 * buffer holds up no other, faults and heartbeats keep their times, and
 * nothing is left registered when the streams end.
 */
import { describe, expect, it } from "vitest";
import { ManualClock, type TimerHandle } from "../../src/timing/clock.js";
import { playSchedule, type PaceSink, type PlayResult } from "../../src/timing/pacer.js";
import { TICK_BUDGET_MS } from "../../src/timing/scheduler.js";
import type { Schedule, Slot } from "../../src/timing/schedule.js";
import { TickScheduler, schedulerOf, type Task } from "../../src/timing/scheduler.js";

/** A ManualClock that counts the timers it was asked for. */
class CountingClock extends ManualClock {
  timersSet = 0;
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.timersSet++;
    return super.setTimeout(fn, ms);
  }
}

/**
 * A sink recording what it was given and what it sent: `delivered` holds each
 * frame with the clock time it was handed over; `writes` each flush (or end)
 * with the frames it sent together.
 */
class RecordingSink implements PaceSink {
  delivered: { t: number; what: string }[] = [];
  writes: { t: number; frames: string[] }[] = [];
  pending: string[] = [];
  ended = false;
  destroyed = false;
  /** When set, the next write waits for this promise (a full socket buffer). */
  block: Promise<boolean> | undefined;
  constructor(private readonly clock: ManualClock) {}
  private take(what: string): boolean | Promise<boolean> {
    this.delivered.push({ t: this.clock.now(), what });
    this.pending.push(what);
    const block = this.block;
    this.block = undefined;
    return block ?? true;
  }
  event(index: number) {
    return this.take(`e${index}`);
  }
  heartbeat() {
    return this.take("hb");
  }
  flush() {
    if (this.pending.length === 0) return;
    this.writes.push({ t: this.clock.now(), frames: this.pending });
    this.pending = [];
  }
  end() {
    this.ended = true;
    this.pending.push("DONE");
    this.flush();
  }
  destroy() {
    this.destroyed = true;
    this.flush();
  }
}

const schedule = (slots: Slot[], heartbeatMs = 0): Schedule => ({ slots, heartbeatMs, durationMs: slots.at(-1)!.at });

/** `n` events every `every` ms from `first`, then done with the last. */
function evenly(n: number, every: number, first = 0): Schedule {
  const slots: Slot[] = Array.from({ length: n }, (_, i) => ({
    kind: "event" as const,
    index: i,
    at: first + i * every,
  }));
  slots.push({ kind: "done", at: first + (n - 1) * every });
  return schedule(slots);
}

describe("TickScheduler", () => {
  const task = (log: string[], name: string): Task => ({ due: 0, slot: -1, run: () => void log.push(name) });

  it("runs tasks in due order with one clock timer, and leaves none when empty", async () => {
    const clock = new CountingClock();
    const scheduler = new TickScheduler(clock);
    const log: string[] = [];
    const [a, b, c] = [task(log, "a"), task(log, "b"), task(log, "c")];
    scheduler.schedule(c, 30);
    scheduler.schedule(a, 10);
    scheduler.schedule(b, 10);
    expect(clock.pending).toBe(1);
    await clock.advance(10);
    expect(log).toEqual(["a", "b"]);
    expect(clock.pending).toBe(1);
    scheduler.cancel(c);
    expect(clock.pending).toBe(0);
    await clock.advance(100);
    expect(log).toEqual(["a", "b"]);
  });

  it("moves a registered task when it is scheduled again; cancel is harmless twice", async () => {
    const clock = new ManualClock();
    const scheduler = new TickScheduler(clock);
    const log: string[] = [];
    const a = task(log, "a");
    const b = task(log, "b");
    scheduler.schedule(a, 50);
    scheduler.schedule(b, 20);
    scheduler.schedule(a, 10);
    expect(scheduler.size).toBe(2);
    await clock.advance(60);
    expect(log).toEqual(["a", "b"]);
    scheduler.cancel(a);
    scheduler.cancel(a);
    expect(scheduler.size).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it("keeps heap order through many random inserts and removals", async () => {
    const clock = new ManualClock();
    const scheduler = new TickScheduler(clock);
    const ran: number[] = [];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const tasks = Array.from({ length: 300 }, (_, i): Task & { at: number } => ({
      due: 0,
      slot: -1,
      at: Math.floor(rand() * 1000) + 1,
      run: () => void ran.push(i),
    }));
    for (const t of tasks) scheduler.schedule(t, t.at);
    const cancelled = new Set(tasks.filter(() => rand() < 0.3));
    for (const t of cancelled) scheduler.cancel(t);
    await clock.advance(1001);
    const expected = tasks
      .map((t, i) => [t, i] as const)
      .filter(([t]) => !cancelled.has(t))
      .sort(([x, i], [y, j]) => x.at - y.at || i - j)
      .map(([, i]) => i);
    // Tasks due at the same time may run in any order among themselves; by time they are in order.
    expect(ran.map((i) => tasks[i].at)).toEqual(expected.map((i) => tasks[i].at));
    expect(new Set(ran)).toEqual(new Set(expected));
    expect(clock.pending).toBe(0);
  });

  it("is one per clock", () => {
    const clock = new ManualClock();
    expect(schedulerOf(clock)).toBe(schedulerOf(clock));
    expect(schedulerOf(clock)).not.toBe(schedulerOf(new ManualClock()));
  });
});

describe("many streams on one shared tick", () => {
  it("delivers every frame of 200 out-of-phase streams at its time, in order, with at most one timer pending", async () => {
    const clock = new CountingClock(1000);
    const streams = Array.from({ length: 200 }, (_, i) => {
      const sink = new RecordingSink(clock);
      // Each stream starts i ms after the first; a third of them run at 20 ms, the rest at 30 ms.
      const every = i % 3 === 0 ? 20 : 30;
      const done = playSchedule(evenly(25, every), sink, { clock, start: 1000 + i });
      return { sink, every, start: 1000 + i, done };
    });
    let mostPending = 0;
    for (let t = 0; t < 1000; t += 7) {
      await clock.advance(7);
      mostPending = Math.max(mostPending, clock.pending);
    }
    expect(mostPending).toBe(1);
    for (const { sink, every, start, done } of streams) {
      expect(await done).toBe("done");
      expect(sink.delivered).toEqual(Array.from({ length: 25 }, (_, i) => ({ t: start + i * every, what: `e${i}` })));
      expect(sink.ended).toBe(true);
    }
    expect(clock.pending).toBe(0);
    // One timer per distinct due time (the ticks), not one per frame: 200 × 25 frames.
    const ticks = new Set(streams.flatMap(({ sink }) => sink.delivered.map((d) => d.t))).size;
    expect(clock.timersSet).toBeLessThanOrEqual(ticks);
  });

  it("writes the frames of a stream due in the same tick together, and every stream due in that tick", async () => {
    const clock = new CountingClock();
    // Three events due at 10, then one at 20; a second stream with two at 10.
    const a = new RecordingSink(clock);
    const b = new RecordingSink(clock);
    const pa = playSchedule(
      schedule([
        { kind: "event", at: 10, index: 0 },
        { kind: "event", at: 10, index: 1 },
        { kind: "event", at: 10, index: 2 },
        { kind: "event", at: 20, index: 3 },
        { kind: "done", at: 20 },
      ]),
      a,
      { clock, start: 0 },
    );
    const pb = playSchedule(
      schedule([
        { kind: "event", at: 10, index: 0 },
        { kind: "event", at: 10, index: 1 },
        { kind: "done", at: 10 },
      ]),
      b,
      { clock, start: 0 },
    );
    await clock.advance(10);
    expect(a.writes).toEqual([{ t: 10, frames: ["e0", "e1", "e2"] }]);
    expect(b.writes).toEqual([{ t: 10, frames: ["e0", "e1", "DONE"] }]);
    await clock.advance(10);
    expect(a.writes.at(-1)).toEqual({ t: 20, frames: ["e3", "DONE"] });
    expect(await pa).toBe("done");
    expect(await pb).toBe("done");
    // One tick at 10 for both streams, one at 20.
    expect(clock.timersSet).toBe(2);
  });

  it("a stream waiting for its socket to drain delays no other; it goes on when drained", async () => {
    const clock = new ManualClock();
    const blocked = new RecordingSink(clock);
    const others = Array.from({ length: 5 }, () => new RecordingSink(clock));
    let drain!: (ok: boolean) => void;
    const results = [blocked, ...others].map((sink) => playSchedule(evenly(10, 20), sink, { clock, start: 0 }));
    await clock.advance(20);
    // Event 2 (due at 40) finds the buffer full: the write waits for drain.
    blocked.block = new Promise<boolean>((resolve) => (drain = resolve));
    await clock.advance(50);
    for (const sink of others) expect(sink.delivered.map((d) => d.t)).toEqual([0, 20, 40, 60]);
    expect(blocked.delivered.map((d) => d.t)).toEqual([0, 20, 40]);
    drain(true);
    await clock.advance(0);
    // Drained at 70: the overdue event 3 (due at 60) goes at once, the rest on time.
    expect(blocked.delivered.map((d) => d.t)).toEqual([0, 20, 40, 70]);
    await clock.advance(200);
    expect(blocked.delivered.map((d) => d.t)).toEqual([0, 20, 40, 70, 80, 100, 120, 140, 160, 180]);
    expect(await Promise.all(results)).toEqual(Array(6).fill("done"));
    expect(clock.pending).toBe(0);
  });

  it("a client that leaves while its write waits ends the stream at once; the others go on", async () => {
    const clock = new ManualClock();
    const gone = new RecordingSink(clock);
    const other = new RecordingSink(clock);
    const abort = new AbortController();
    gone.block = new Promise<boolean>(() => {}); // never drains
    const pGone = playSchedule(evenly(5, 20), gone, { clock, start: 0, signal: abort.signal });
    const pOther = playSchedule(evenly(5, 20), other, { clock, start: 0 });
    await clock.advance(30);
    abort.abort();
    expect(await pGone).toBe("aborted");
    await clock.advance(100);
    expect(await pOther).toBe("done");
    expect(other.delivered).toHaveLength(5);
    expect(gone.delivered).toHaveLength(1);
    expect(clock.pending).toBe(0);
  });

  it("keeps heartbeats, drops and hangs exact for each stream beside the others", async () => {
    const clock = new ManualClock();
    const hb = new RecordingSink(clock);
    const drop = new RecordingSink(clock);
    const hang = new RecordingSink(clock);
    const plain = new RecordingSink(clock);
    const abort = new AbortController();
    const results = [
      playSchedule(
        schedule(
          [
            { kind: "event", at: 0, index: 0 },
            { kind: "heartbeat", at: 50 },
            { kind: "heartbeat", at: 100 },
            { kind: "event", at: 120, index: 1 },
            { kind: "done", at: 120 },
          ],
          50,
        ),
        hb,
        { clock, start: 0 },
      ),
      playSchedule(
        schedule([
          { kind: "event", at: 0, index: 0 },
          { kind: "event", at: 30, index: 1 },
          { kind: "drop", at: 45 },
        ]),
        drop,
        { clock, start: 0 },
      ),
      playSchedule(
        schedule(
          [
            { kind: "event", at: 10, index: 0 },
            { kind: "hang", at: 10 },
          ],
          40,
        ),
        hang,
        { clock, start: 0, signal: abort.signal },
      ),
      playSchedule(evenly(8, 25), plain, { clock, start: 0 }),
    ];
    await clock.advance(200);
    abort.abort();
    expect(await Promise.all(results)).toEqual(["done", "dropped", "aborted", "done"]);
    expect(hb.delivered).toEqual([
      { t: 0, what: "e0" },
      { t: 50, what: "hb" },
      { t: 100, what: "hb" },
      { t: 120, what: "e1" },
    ]);
    expect(drop.delivered).toEqual([
      { t: 0, what: "e0" },
      { t: 30, what: "e1" },
    ]);
    expect(drop.destroyed).toBe(true);
    expect(drop.ended).toBe(false);
    expect(hang.delivered).toEqual([
      { t: 10, what: "e0" },
      { t: 50, what: "hb" },
      { t: 90, what: "hb" },
      { t: 130, what: "hb" },
      { t: 170, what: "hb" },
    ]);
    expect(hang.ended).toBe(false);
    expect(plain.delivered.map((d) => d.t)).toEqual([0, 25, 50, 75, 100, 125, 150, 175]);
    expect(clock.pending).toBe(0);
  });

  it("leaves no timer when every stream is aborted mid-wait, or stops on a failed write", async () => {
    const clock = new ManualClock();
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const results = controllers.map((c, i) =>
      playSchedule(evenly(100, 20, i), new RecordingSink(clock), { clock, start: 0, signal: c.signal }),
    );
    const failing = new RecordingSink(clock);
    failing.event = (i) => i < 2;
    const failed = playSchedule(evenly(10, 20), failing, { clock, start: 0 });
    await clock.advance(55);
    expect(await failed).toBe("aborted");
    expect(clock.pending).toBe(1);
    for (const c of controllers) c.abort();
    expect(await Promise.all(results)).toEqual(Array(50).fill("aborted"));
    expect(clock.pending).toBe(0);
  });

  it("plays nothing for a stream aborted before it starts", async () => {
    const clock = new ManualClock();
    const sink = new RecordingSink(clock);
    const abort = new AbortController();
    abort.abort();
    expect(await playSchedule(evenly(3, 0), sink, { clock, start: 0, signal: abort.signal })).toBe("aborted");
    expect(sink.delivered).toEqual([]);
    expect(clock.pending).toBe(0);
  });
});

describe("fairness of late streams on the shared tick", () => {
  /** A manual clock whose turns of the event loop are taken by hand, so the test sees who ran in each; `spent` is CPU time the sinks have used. */
  class TurnClock extends ManualClock {
    turns: (() => void)[] = [];
    spent = 0;
    override now(): number {
      return super.now() + this.spent;
    }
    yieldTurn(): Promise<void> {
      return new Promise<void>((resolve) => this.turns.push(resolve));
    }
    /** Lets the loop turn once: everything that yielded goes on. */
    async turn(): Promise<void> {
      const waiting = this.turns;
      this.turns = [];
      for (const resolve of waiting) resolve();
      await this.advance(0);
    }
  }

  it("two overdue streams whose frames cost 1 ms each take turns, a budget of time each", async () => {
    const clock = new TurnClock(1000);
    const log: string[] = [];
    const sinkOf = (name: string): PaceSink => ({
      event: () => (log.push(name), (clock.spent += 1), true),
      heartbeat: () => true,
      end() {},
      destroy() {},
    });
    // Both started 1 s ago: all 40 frames of each are overdue.
    const results: Promise<PlayResult>[] = ["a", "b"].map((name) =>
      playSchedule(evenly(40, 20), sinkOf(name), { clock, start: 0 }),
    );
    // Each wrote until its run had its time (the frame that passes the budget included), then yielded the loop to the other.
    const share = TICK_BUDGET_MS + 1;
    expect(log.join("")).toBe("a".repeat(share) + "b".repeat(share));
    await clock.turn();
    // In the shared tick that follows, the budget is the tick's: the earlier-due stream goes first and uses it up.
    const second = log.join("").slice(2 * share);
    expect(second.length).toBeGreaterThan(0);
    expect(second.length).toBeLessThanOrEqual(share + 1);
    for (let i = 0; i < 40; i++) await clock.turn();
    expect(await Promise.all(results)).toEqual(["done", "done"]);
    expect(log.filter((x) => x === "a")).toHaveLength(40);
    expect(log.filter((x) => x === "b")).toHaveLength(40);
  });

  it("a tick that runs out of time leaves the streams it did not reach due, and they run after a turn", async () => {
    const clock = new TurnClock(0);
    const names = "abcdefghijkl".split("");
    const log: string[] = [];
    const sinkOf = (name: string): PaceSink => ({
      event: () => (log.push(name), (clock.spent += 5), true),
      heartbeat: () => true,
      end() {},
      destroy() {},
    });
    // Twelve streams on the same schedule: frame 0 at once, frame 1 at 100 ms. Each frame costs 5 ms.
    const results = names.map((name) => playSchedule(evenly(2, 100), sinkOf(name), { clock, start: 0 }));
    expect(log).toHaveLength(12);
    // One timer for all, set when "a" had spent 5 ms: it fires at 95 ms of the manual clock's own time.
    // At 5 ms a frame, the tick's 8 ms budget is spent long before it has run all twelve.
    await clock.advance(95);
    const first = log.length - 12;
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThan(12);
    // The ones it did not reach are still due, and run in the turns that follow, each stream once.
    for (let i = 0; i < 12 && log.length < 24; i++) await clock.turn();
    expect(log.slice(12).sort()).toEqual(names);
    for (let i = 0; i < 5; i++) await clock.turn();
    expect(await Promise.all(results)).toEqual(names.map(() => "done"));
  });
});

describe("a sink that throws", () => {
  it("rejects its own play only; the other streams on the tick go on, and no timer is left", async () => {
    const clock = new ManualClock();
    const bad = new RecordingSink(clock);
    bad.event = (i) => {
      if (i === 2) throw new Error("render failed");
      return true;
    };
    const good = new RecordingSink(clock);
    const pBad = playSchedule(evenly(5, 20), bad, { clock, start: 0 });
    const pGood = playSchedule(evenly(5, 20), good, { clock, start: 0 });
    const badResult = pBad.catch((err: Error) => err.message);
    await clock.advance(100);
    expect(await badResult).toBe("render failed");
    expect(await pGood).toBe("done");
    expect(good.delivered.map((d) => d.t)).toEqual([0, 20, 40, 60, 80]);
    expect(clock.pending).toBe(0);
  });
});
