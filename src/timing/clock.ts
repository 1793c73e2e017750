/**
 * Where time comes from. The real clock uses the wall clock and Node timers;
 * the manual clock is advanced by tests, so schedules and pacing are tested
 * without real waits.
 */

export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

export interface Clock {
  /** Milliseconds since the Unix epoch (may be fractional). */
  now(): number;
  /** Calls `fn` after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; harmless for one that has fired. */
  clearTimeout(handle: TimerHandle): void;
  /**
   * Lets the rest of the process run (one turn of the event loop) before
   * resolving. The pacer uses it so a stream that has fallen behind cannot
   * hold the loop for all its overdue frames. A clock without it never yields.
   */
  yieldTurn?(): Promise<void>;
}

/** `performance.timeOrigin` is a getter into native code: read it once, not on every `now()`. */
const TIME_ORIGIN = performance.timeOrigin;

/** The wall clock with Node timers; `now()` has sub-millisecond resolution. */
export const systemClock: Clock = {
  now: () => TIME_ORIGIN + performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  yieldTurn: () => new Promise<void>((resolve) => setImmediate(resolve)),
};

/** A clock that always says `ms` (to pin `created_at`/`completed_at` in tests). */
export const fixedClock = (ms: number): Pick<Clock, "now"> => ({ now: () => ms });

/** A clock that only moves when told to. Timers fire in time order during `advance`. */
export class ManualClock implements Clock {
  private time: number;
  private nextId = 1;
  private timers: { id: number; at: number; fn: () => void }[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.time + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id: number }).id;
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Number of timers waiting. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. Awaits microtasks between timers. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
