/**
 * One timer for all paced streams of a clock. Each stream registers the time
 * it is next due; the scheduler keeps them in a min-heap and holds a single
 * clock timer for the earliest. When it fires, every stream due by then runs
 * in the same tick, earliest first, so frames due together go out together
 * and thousands of streams cost one wake-up per tick, not one timer each. A
 * stream that asks to run again at once (it is behind and yields) runs after
 * one turn of the event loop (`Clock.yieldTurn`), not within the same tick.
 * A tick has a budget of time (`TICK_BUDGET_MS`): once it has run that long,
 * the streams still due run after a turn of the loop, so that new requests
 * and other I/O are served between ticks however far behind the streams are
 * (each stream checks the same deadline between its own frames). With nothing
 * registered, no timer is left.
 */
import type { Clock, TimerHandle } from "./clock.js";

/** Something the scheduler runs when it is due. */
export interface Task {
  /** Runs the task; it registers itself again if it has more to do. */
  run(now: number): void;
  /** Clock time (ms) it is due; set by `schedule`. */
  due: number;
  /** Its place in the heap, -1 when not registered. Owned by the scheduler. */
  slot: number;
}

/**
 * How long one tick (or one stream's run outside a tick) may deliver frames
 * before it hands the event loop back. Short enough that a request arriving
 * under overload gets its response head within a few turns; long enough that
 * the turns cost little.
 */
export const TICK_BUDGET_MS = 8;

/** A tick reads the clock before every CLOCK_EVERY-th task it runs (a read costs ~80 ns, a task ~2–10 µs). */
const CLOCK_EVERY = 4;

export class TickScheduler {
  private readonly heap: Task[] = [];
  private timer: TimerHandle | undefined;
  /** When the timer fires (clock ms); Infinity with no timer. */
  private timerAt = Infinity;
  /** A turn of the event loop has been asked for (yieldTurn). */
  private turnPending = false;
  /** Clock time by which the running tick should hand the loop back (its start plus TICK_BUDGET_MS). */
  deadline = Infinity;

  constructor(private readonly clock: Clock) {}

  /** Number of registered tasks. */
  get size(): number {
    return this.heap.length;
  }

  /** Registers `task` to run at `due` (clock ms), or moves it there if it is registered already. */
  schedule(task: Task, due: number): void {
    if (task.slot >= 0) this.remove(task);
    this.insert(task, due);
    this.arm();
  }

  private insert(task: Task, due: number): void {
    task.due = due;
    task.slot = this.heap.length;
    this.heap.push(task);
    this.up(task.slot);
  }

  /** Unregisters `task` (harmless if it is not registered); leaves no timer when none is left. */
  cancel(task: Task): void {
    if (task.slot < 0) return;
    this.remove(task);
    if (this.heap.length === 0) this.disarm();
  }

  /**
   * Runs the tasks due by now, earliest first, for at most TICK_BUDGET_MS; those it did not reach
   * keep their place and run after a turn, as do tasks that register again for now.
   */
  private readonly tick = (): void => {
    const real = this.clock.now();
    // A timer that fired is on time even if the clock reads a hair before it: Node fires timers by
    // the loop's cached time, which lags the clock. Re-arming for the last fraction of a ms would cost
    // a whole further turn of a busy loop (and a stream late by it), so the tick counts as its time.
    const now = Math.max(real, this.timer !== undefined ? this.timerAt : -Infinity);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.turnPending = false;
    this.deadline = real + TICK_BUDGET_MS;
    const due: Task[] = [];
    while (this.heap.length > 0 && this.heap[0].due <= now) {
      const task = this.heap[0];
      this.remove(task);
      due.push(task);
    }
    let i = 0;
    // At least one task runs each tick, however slow: the streams always move on. The clock is read
    // every few tasks (each stream checks the deadline between its own frames too).
    for (; i < due.length && (i % CLOCK_EVERY !== 0 || i === 0 || this.clock.now() <= this.deadline); i++)
      due[i].run(now);
    for (; i < due.length; i++) if (due[i].slot < 0) this.insert(due[i], due[i].due);
    this.deadline = Infinity;
    this.arm();
  };

  /** Keeps the one timer (or turn) set for the earliest task. */
  private arm(): void {
    if (this.heap.length === 0) return this.disarm();
    const next = this.heap[0].due;
    if (this.turnPending) return;
    const now = this.clock.now();
    if (next <= now && this.clock.yieldTurn) {
      // Due already (a stream behind its schedule yielded): run after one turn of the loop.
      this.disarm();
      this.turnPending = true;
      void this.clock.yieldTurn().then(this.tick);
      return;
    }
    if (next >= this.timerAt) return;
    this.disarm();
    this.timerAt = next;
    // Timers count whole ms: round up so a tick never comes before its earliest task is due.
    this.timer = this.clock.setTimeout(this.tick, Math.max(0, Math.ceil(next - now)));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private remove(task: Task): void {
    const i = task.slot;
    const last = this.heap.pop()!;
    task.slot = -1;
    if (last === task) return;
    this.heap[i] = last;
    last.slot = i;
    this.down(i);
    this.up(last.slot);
  }

  private up(i: number): void {
    const { heap } = this;
    const task = heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p].due <= task.due) break;
      heap[i] = heap[p];
      heap[i].slot = i;
      i = p;
    }
    heap[i] = task;
    task.slot = i;
  }

  private down(i: number): void {
    const { heap } = this;
    const task = heap[i];
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r].due < heap[l].due ? r : l;
      if (heap[c].due >= task.due) break;
      heap[i] = heap[c];
      heap[i].slot = i;
      i = c;
    }
    heap[i] = task;
    task.slot = i;
  }
}

const schedulers = new WeakMap<Clock, TickScheduler>();

/** The scheduler of a clock: one per clock, so every stream paced by it shares one timer. */
export function schedulerOf(clock: Clock): TickScheduler {
  let scheduler = schedulers.get(clock);
  if (!scheduler) {
    scheduler = new TickScheduler(clock);
    schedulers.set(clock, scheduler);
  }
  return scheduler;
}
