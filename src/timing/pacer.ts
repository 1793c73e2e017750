/**
 * The pacer plays a schedule through a Clock into a sink: each frame at its
 * absolute time from the start (so lateness never accumulates), heartbeats
 * while idle, [DONE], or a drop/hang fault. It stops at once when the client
 * goes away and leaves no timer behind. Tests drive it with a ManualClock.
 */
import type { Clock, TimerHandle } from "./clock.js";
import { slotsOf, type Schedule, type SlotSequence } from "./schedule.js";

export const HEARTBEAT_FRAME = ": keep-alive\n\n";

/** Where a paced stream goes: an SSE response, a JSON response, a WebSocket, a background run, a test double. */
export interface PaceSink {
  /** Delivers event `index`; resolves false if the client has gone (may wait for the socket to drain). */
  event(index: number): boolean | Promise<boolean>;
  /** Delivers a heartbeat; resolves false if the client has gone. */
  heartbeat(): boolean | Promise<boolean>;
  /** The stream ended normally, after its last event. */
  end(): void;
  /** Closes the connection abruptly, without ending the stream (a drop fault). */
  destroy(): void;
  /**
   * Sends what was delivered so far. Called before every real wait: frames due
   * at the same moment may be sent together, never held back past their time.
   */
  flush?(): void;
}

/** What the pacer needs of an AbortSignal (one fits; so does the lighter one `disconnectSignal` makes per stream). */
export interface AbortLike {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A stream this many ms behind its schedule is late: it yields the event loop every BURST frames. */
const LATE_MS = 10;
export const BURST = 8;

export type PlayResult = "done" | "dropped" | "aborted";

export interface PlayOptions {
  clock: Clock;
  /** Clock time (ms) the schedule's offsets count from: when the answer was ready. */
  start: number;
  /** Aborts the play (client disconnect, server close, cancel). */
  signal?: AbortLike;
}

/** Plays a schedule (whole, or slot by slot as a cursor produces it) into a sink. */
export async function playSchedule(schedule: Schedule | SlotSequence, sink: PaceSink, options: PlayOptions): Promise<PlayResult> {
  const { clock, start, signal } = options;
  let timer: TimerHandle | undefined;
  let wake: (() => void) | undefined;
  const onAbort = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    wake?.();
  };
  signal?.addEventListener("abort", onAbort, { once: true });

  /** Resolves at `target` (clock ms), or at once on abort. Never early. */
  const waitUntil = (target: number) =>
    new Promise<void>((resolve) => {
      const ms = target - clock.now();
      if (ms <= 0 || signal?.aborted) return resolve();
      sink.flush?.();
      wake = resolve;
      timer = clock.setTimeout(() => {
        timer = undefined;
        wake = undefined;
        resolve();
      }, Math.ceil(ms));
    });

  let lastWrite = start;
  const written = (ok: boolean) => {
    lastWrite = clock.now();
    return ok;
  };
  const heartbeat = async () => written(await sink.heartbeat());

  try {
    const slots = slotsOf(schedule);
    /** Frames delivered since the last wait or yield. */
    let burst = 0;
    for (let slot = slots.next(); slot !== undefined; slot = slots.next()) {
      const due = start + slot.at;
      const now = clock.now();
      if (due > now) {
        await waitUntil(due);
        burst = 0;
      } else if (now - due > LATE_MS && ++burst > BURST && clock.yieldTurn) {
        // Behind schedule (an overloaded server): send what is due, let other streams and
        // requests have a turn, then go on. Frames just due go out together without yielding.
        sink.flush?.();
        await clock.yieldTurn();
        burst = 0;
      }
      if (signal?.aborted) return "aborted";
      switch (slot.kind) {
        case "heartbeat": {
          // A late write moves the idle interval: send the heartbeat once the stream has really
          // been idle that long, unless the next frame comes first.
          const due = lastWrite + schedule.heartbeatMs;
          if (clock.now() < due) {
            const next = slots.peek();
            if (next && start + next.at <= due) break;
            await waitUntil(due);
            if (signal?.aborted) return "aborted";
          }
          if (!(await heartbeat())) return "aborted";
          break;
        }
        case "event": {
          const ok = sink.event(slot.index);
          if (!written(typeof ok === "boolean" ? ok : await ok)) return "aborted";
          break;
        }
        case "done":
          sink.end();
          return "done";
        case "drop":
          sink.destroy();
          return "dropped";
        case "hang":
          // Never finish: keep the connection alive until the client gives up.
          for (;;) {
            if (schedule.heartbeatMs > 0) await waitUntil(lastWrite + schedule.heartbeatMs);
            else {
              sink.flush?.();
              await new Promise<void>((resolve) => (signal?.aborted ? resolve() : (wake = resolve)));
            }
            if (signal?.aborted) return "aborted";
            if (!(await heartbeat())) return "aborted";
          }
      }
    }
    return "done";
  } finally {
    sink.flush?.();
    signal?.removeEventListener("abort", onAbort);
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}
