/**
 * The hook that puts a paced answer on its timeline: a wrapper around the
 * pacer's sink that marks each event, heartbeat, `[DONE]`, end and drop as it
 * is delivered. One clock read and two numbers per mark; with no timeline
 * (a journal of 0 entries) the sink is returned as it is and nothing costs.
 */
import type { PaceSink, PlayResult } from "../timing/pacer.js";
import type { Schedule } from "../timing/schedule.js";
import type { Timeline } from "./timeline.js";

export interface TraceOptions {
  /** The clock the marks are read from (the one the pacer plays on). */
  now: () => number;
  /** Whether the answer ends with `data: [DONE]` (the dialect's choice). */
  done: boolean;
  /** The events before a hang fault, when the schedule ends in one: the hang is marked after the last of them. */
  hangAfter?: number;
  /** A JSON answer: nothing is sent per event, so events and heartbeats are not marked; its end is the body sent. */
  json?: boolean;
}

/** The events a schedule sends before it hangs, or undefined when it does not end in a hang. */
export function eventsBeforeHang(schedule: Schedule): number | undefined {
  if (schedule.slots.at(-1)?.kind !== "hang") return undefined;
  let n = 0;
  for (const slot of schedule.slots) if (slot.kind === "event") n++;
  return n;
}

/** `sink` with each delivery marked on `timeline` (the sink itself when there is no timeline). */
export function tracedSink(sink: PaceSink, timeline: Timeline | undefined, options: TraceOptions): PaceSink {
  if (!timeline) return sink;
  const { now, done, hangAfter, json = false } = options;
  if (hangAfter === 0) timeline.mark("hang", now());
  const sent = (index: number) => {
    timeline.event(index, now());
    if (hangAfter !== undefined && index === hangAfter - 1) timeline.mark("hang", now());
  };
  return {
    event(index) {
      const ok = sink.event(index);
      if (json) return ok;
      if (ok === true) sent(index);
      else if (ok !== false)
        return ok.then((delivered) => {
          if (delivered) sent(index);
          return delivered;
        });
      return ok;
    },
    heartbeat() {
      const ok = sink.heartbeat();
      if (json) return ok;
      if (ok === true) timeline.mark("heartbeat", now());
      else if (ok !== false)
        return ok.then((delivered) => {
          if (delivered) timeline.mark("heartbeat", now());
          return delivered;
        });
      return ok;
    },
    end() {
      const t = now();
      sink.end();
      if (done && !json) timeline.mark("done", t);
      timeline.mark("end", t);
    },
    destroy() {
      timeline.mark("drop", now());
      sink.destroy();
    },
    flush: sink.flush ? () => sink.flush!() : undefined,
  };
}

/** Marks how a play that did not end by itself ended: the client went away (or the server closed). */
export function markPlayEnd(timeline: Timeline | undefined, result: PlayResult, now: number): void {
  if (timeline && result === "aborted") timeline.mark("abort", now);
}
