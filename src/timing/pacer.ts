/**
 * The pacer plays a schedule through a Clock into a sink: each frame at its
 * absolute time from the start (so lateness never accumulates), heartbeats
 * while idle, [DONE], or a drop/hang fault. It stops at once when the client
 * goes away and leaves no timer behind. Tests drive it with a ManualClock.
 *
 * Streams do not hold a timer each: a stream waiting for its next frame is
 * registered with its clock's scheduler (scheduler.ts), which wakes every
 * stream due in one tick of one timer. A stream is a small state machine
 * rather than an async loop, so a frame costs no promise and no timer; it
 * awaits only a sink that has to wait (a full socket buffer), and then only
 * that stream waits.
 */
import type { Clock } from "./clock.js";
import { slotsOf, type Schedule, type Slot, type SlotSequence } from "./schedule.js";
import { schedulerOf, TICK_BUDGET_MS, type Task, type TickScheduler } from "./scheduler.js";

export const HEARTBEAT_FRAME = ": keep-alive\n\n";

/** Where a paced stream goes: an SSE response, a JSON response, a WebSocket, a background run, a test double. */
export interface PaceSink {
  /**
   * Delivers event `index`; resolves false if the client has gone (may wait for the socket to drain).
   * `at` is the clock time the pacer read as it delivered it (a sink that marks times need not read the clock again).
   */
  event(index: number, at?: number): boolean | Promise<boolean>;
  /** Delivers a heartbeat (`at` as for event); resolves false if the client has gone. */
  heartbeat(at?: number): boolean | Promise<boolean>;
  /** The stream ended normally, after its last event. */
  end(): void;
  /** Closes the connection abruptly, without ending the stream (a drop fault). */
  destroy(): void;
  /**
   * Sends what was delivered so far. Called before every real wait: frames due
   * at the same moment may be sent together, never held back past their time.
   */
  flush?(): void;
  /** The stream now hangs (a hang fault): nothing comes after this but heartbeats. Called once. */
  hang?(): void;
  /**
   * The clock time `end` began the stream's last write, read before the write (the write wakes the client, which may
   * run before this process does again); undefined until then. A sink that does not keep it leaves it out.
   */
  readonly endedAt?: number | undefined;
}

/** What the pacer needs of an AbortSignal (one fits; so does the lighter one `disconnectSignal` makes per stream). */
export interface AbortLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

export type PlayResult = "done" | "dropped" | "aborted";

export interface PlayOptions {
  clock: Clock;
  /** Clock time (ms) the schedule's offsets count from: when the answer was ready. */
  start: number;
  /** Aborts the play (client disconnect, server close, cancel). */
  signal?: AbortLike;
}

/**
 * Plays a schedule (whole, or slot by slot as a cursor produces it) into a
 * sink. Frames already due are delivered before it returns; the rest at their
 * times. Resolves how the stream ended.
 */
export function playSchedule(
  schedule: Schedule | SlotSequence,
  sink: PaceSink,
  options: PlayOptions,
): Promise<PlayResult> {
  return new Promise<PlayResult>((resolve, reject) => new Player(schedule, sink, options, resolve, reject).begin());
}

/** Hanging: the slot stays current after each heartbeat. */
const stay = (): void => undefined;

/**
 * One paced stream. `step` delivers every slot due by now, then either
 * registers with the scheduler for the next one, waits for a sink that has to
 * wait, or finishes. The state is where it stands in the schedule: the
 * current slot (taken from the cursor, not yet delivered).
 */
class Player implements Task {
  due = 0;
  slot = -1;
  private readonly scheduler: TickScheduler;
  private readonly cursor: SlotSequence;
  private current: Slot | undefined;
  /** When the last frame was written (the idle interval of heartbeats counts from it). */
  private lastWrite: number;
  /** Frames delivered in this run (since the last wait or yield). */
  private sentThisRun = 0;
  /** Clock time by which this run hands the event loop back (a tick's deadline, shared by the streams it runs). */
  private deadline = Infinity;
  /** Waiting for a sink's promise (a full socket buffer). */
  private writing = false;
  private finished = false;
  /** The hang slot has been reached (the sink was told). */
  private hanging = false;

  constructor(
    schedule: Schedule | SlotSequence,
    private readonly sink: PaceSink,
    private readonly options: PlayOptions,
    private readonly resolve: (result: PlayResult) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.scheduler = schedulerOf(options.clock);
    this.cursor = slotsOf(schedule);
    this.lastWrite = options.start;
  }

  begin(): void {
    const { signal } = this.options;
    signal?.addEventListener("abort", this.onAbort, { once: true });
    this.current = this.cursor.next();
    this.deadline = this.options.clock.now() + TICK_BUDGET_MS;
    this.safeStep();
  }

  private readonly onAbort = (): void => this.finish("aborted");

  /** The tick's time while it runs this stream: a fired timer counts as on time (see TickScheduler). */
  private tickNow = -Infinity;

  run(now: number): void {
    this.sentThisRun = 0;
    this.deadline = this.scheduler.deadline;
    this.tickNow = now;
    this.safeStep();
    this.tickNow = -Infinity;
  }

  /**
   * Steps, and turns a sink that throws into this play's rejection: the shared tick
   * goes on for every other stream.
   */
  private safeStep(): void {
    try {
      this.step();
    } catch (err) {
      if (this.finished) return;
      this.finished = true;
      this.scheduler.cancel(this);
      this.options.signal?.removeEventListener("abort", this.onAbort);
      this.reject(err);
    }
  }

  /** Registers to run at `due`, sending what is pending first (never held past its time). */
  private waitUntil(due: number): void {
    this.sink.flush?.();
    this.scheduler.schedule(this, due);
  }

  /** Awaits a sink that has to wait; the stream goes on when it resolves (and stops if the client went). */
  private await(pending: Promise<boolean>, then: () => void): void {
    this.writing = true;
    pending.then(
      (ok) => {
        this.writing = false;
        if (this.finished) return;
        if (!ok) return this.finish("aborted");
        this.lastWrite = this.options.clock.now();
        // A run of its own, outside any tick: a fresh budget.
        this.sentThisRun = 0;
        this.deadline = this.lastWrite + TICK_BUDGET_MS;
        then();
        this.safeStep();
      },
      () => this.finish("aborted"),
    );
  }

  /** Delivers what is due; returns once the stream waits or has finished. */
  private step(): void {
    const { clock, start, signal } = this.options;
    const { sink } = this;
    while (!this.finished && !this.writing) {
      if (signal?.aborted) return this.finish("aborted");
      const slot = this.current;
      if (slot === undefined) return this.finish("done");
      const due = start + slot.at;
      const real = clock.now();
      const now = Math.max(real, this.tickNow);
      if (due > now) return this.waitUntil(due);
      if (this.sentThisRun > 0 && real > this.deadline && clock.yieldTurn) {
        // This run has had its time (an overloaded server, or a long answer due at once): send what
        // was delivered in one write, let other streams and new requests have a turn, then go on.
        return this.waitUntil(now);
      }
      switch (slot.kind) {
        case "heartbeat": {
          // A late write moves the idle interval: send the heartbeat once the stream has really
          // been idle that long, unless the next frame comes first.
          const idleDue = this.lastWrite + this.cursor.heartbeatMs;
          if (now < idleDue) {
            const next = this.cursor.peek();
            if (next && start + next.at <= idleDue) {
              this.current = this.cursor.next();
              break;
            }
            return this.waitUntil(idleDue);
          }
          this.sentThisRun++;
          this.write(sink.heartbeat(real), now, this.advance);
          break;
        }
        case "event":
          this.sentThisRun++;
          this.write(sink.event(slot.index, real), now, this.advance);
          break;
        case "done":
          sink.end();
          return this.finish("done");
        case "drop":
          sink.destroy();
          return this.finish("dropped");
        case "hang": {
          // Never finish: keep the connection alive with heartbeats until the client gives up.
          if (!this.hanging) {
            this.hanging = true;
            sink.hang?.();
          }
          if (this.cursor.heartbeatMs <= 0) return void sink.flush?.();
          const idleDue = this.lastWrite + this.cursor.heartbeatMs;
          if (now < idleDue) return this.waitUntil(idleDue);
          this.write(sink.heartbeat(real), now, stay);
          break;
        }
      }
    }
  }

  /** Moves on to the next slot, once the current one is delivered. */
  private readonly advance = (): void => {
    this.current = this.cursor.next();
  };

  /** Takes a sink's answer to a write made at `now`: goes on at once, waits for it, or stops. */
  private write(ok: boolean | Promise<boolean>, now: number, then: () => void): void {
    if (ok === true) {
      this.lastWrite = now;
      then();
    } else if (ok === false) this.finish("aborted");
    else this.await(ok, then);
  }

  private finish(result: PlayResult): void {
    if (this.finished) return;
    this.finished = true;
    this.scheduler.cancel(this);
    this.sink.flush?.();
    this.options.signal?.removeEventListener("abort", this.onAbort);
    this.resolve(result);
  }
}
