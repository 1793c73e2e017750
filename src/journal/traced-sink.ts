/**
 * The hook that puts a paced answer on its timeline: a wrapper around the
 * pacer's sink that marks each event, heartbeat, `[DONE]`, end and drop as it
 * is delivered. Two numbers per mark; with no timeline (a journal of 0
 * entries) the sink is returned as it is and nothing costs.
 *
 * Events and heartbeats are marked at the time the pacer read as it
 * delivered them (it reads the clock for each slot anyway). Other marks, and
 * a sink driven without that time, read the clock once per burst: marks made
 * in one synchronous run share the time of the first, and the next run reads
 * it afresh (a microtask forgets it). A clock read costs ~80 ns on a small VM,
 * many times the rest of a mark.
 */
import type { PaceSink, PlayResult } from "../timing/pacer.js";
import type { Timeline } from "./timeline.js";

export interface TraceOptions {
  /** The clock the marks are read from (the one the pacer plays on). */
  now: () => number;
  /** Whether the answer ends with `data: [DONE]` (the dialect's choice). */
  done: boolean;
  /** A JSON answer: nothing is sent per event, so events and heartbeats are not marked; its end is the body sent. */
  json?: boolean;
}

/** `sink` with each delivery marked on `timeline` (the sink itself when there is no timeline). */
export function tracedSink(sink: PaceSink, timeline: Timeline | undefined, options: TraceOptions): PaceSink {
  if (!timeline) return sink;
  const { done, json = false } = options;
  let burst: number | undefined;
  const forget = () => void (burst = undefined);
  /** The time of this burst: read on its first mark, forgotten once it is over. */
  const now = () => {
    if (burst === undefined) {
      burst = options.now();
      queueMicrotask(forget);
    }
    return burst;
  };
  return {
    event(index, at) {
      const ok = sink.event(index, at);
      if (json) return ok;
      if (ok === true) timeline.event(index, at ?? now());
      else if (ok !== false)
        return ok.then((delivered) => {
          // Delivered once the socket drained: marked then.
          if (delivered) timeline.event(index, now());
          return delivered;
        });
      return ok;
    },
    heartbeat(at) {
      const ok = sink.heartbeat(at);
      if (json) return ok;
      if (ok === true) timeline.mark("heartbeat", at ?? now());
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
    hang() {
      // The pacer reached a hang fault: marked where the stream stops (a hung JSON answer too).
      timeline.mark("hang", now());
      sink.hang?.();
    },
    flush: sink.flush ? () => sink.flush!() : undefined,
  };
}

/** Marks how a play that did not end by itself ended: the client went away (or the server closed). */
export function markPlayEnd(timeline: Timeline | undefined, result: PlayResult, now: number): void {
  if (timeline && result === "aborted") timeline.mark("abort", now);
}
