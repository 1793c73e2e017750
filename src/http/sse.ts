/**
 * SSE framing and the sink the pacer writes into: each event is one frame,
 * `event: TYPE\ndata: JSON\n\n` in the request's dialect, always written
 * whole (frames due together share a write); heartbeats are comment lines;
 * the stream ends with `data: [DONE]` where the dialect sends it. Writes wait
 * for `drain` when the socket buffer is full and report a client that went
 * away. The sink counts the events it sent, for the journal.
 */
import type { ServerResponse } from "node:http";
import { DEFAULT_DIALECT, eventFrame, type Dialect } from "../dialect/index.js";
import type { Plan } from "../generate/plan.js";
import type { StreamEvent } from "../spec/index.js";
import { HEARTBEAT_FRAME, type PaceSink } from "../timing/pacer.js";

/**
 * The headers of an SSE answer in a dialect. No `connection` header: Node
 * sends `keep-alive`, or `close` (and ends the socket after the stream) when
 * the request asked for it.
 */
export function sseHeaders(dialect: Dialect): Record<string, string> {
  return { "content-type": dialect.sse.contentType, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };
}

/** One SSE message for an event, in a dialect (the spec's by default). The event name may not hold a line break. */
export function sseFrame(event: StreamEvent, dialect: Dialect = DEFAULT_DIALECT, plan?: Plan): string {
  return eventFrame(dialect, event, plan);
}

export const DONE_FRAME = "data: [DONE]\n\n";

/** What ends a stream in a dialect: `data: [DONE]`, or nothing. */
export const doneFrame = (dialect: Dialect): string => (dialect.sse.done ? DONE_FRAME : "");

/** Writes one frame; resolves false if the client is gone. */
export function writeFrame(res: ServerResponse, frame: string): boolean | Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(frame)) return true;
  return drained(res);
}

/** Resolves true once the response's buffer has drained, false if the client goes away first. */
export function drained(res: ServerResponse): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => () => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

/**
 * A stream's events by index: an array, or an EventWindow that builds each
 * one when the pacer reaches it.
 */
export interface EventsAt {
  at(index: number): StreamEvent | undefined;
}

/** Frames due together are joined up to this many characters before they are written. */
const JOIN_LIMIT = 64 * 1024;

/**
 * A sink for the pacer over an HTTP response. The status line and headers go
 * out with the first frame (an event or a heartbeat), so a slow first byte is
 * really slow. Frames due at the same moment are joined and written together
 * at the next flush (each frame whole; never held past its time, as the pacer
 * flushes before every wait); the last ones go out with the end of the
 * response in one write. `destroy` sends what was delivered, then closes the
 * socket.
 */
export function sseSink(res: ServerResponse, events: EventsAt, dialect: Dialect, plan: Plan | undefined, headers: Record<string, string> = {}): PaceSink & { readonly sent: number } {
  let pending = "";
  /** Events handed to the response so far (the last ones may be lost in flight if the client goes). */
  let sent = 0;
  /** Set while the socket buffer is full: the next frame waits for it to drain. */
  let blocked: Promise<boolean> | undefined;
  const gone = () => res.destroyed || res.writableEnded;
  const head = () => {
    if (!res.headersSent) res.writeHead(200, { ...sseHeaders(dialect), ...headers });
  };
  /** Writes what is pending; true, false (the client is gone) or a promise of either (the buffer is full). */
  const send = (): boolean | Promise<boolean> => {
    if (gone()) return false;
    head();
    if (pending === "") return blocked ?? true;
    const chunk = pending;
    pending = "";
    if (res.write(chunk)) return true;
    blocked = drained(res).then((ok) => {
      blocked = undefined;
      return ok;
    });
    return blocked;
  };
  const add = (frame: string): boolean | Promise<boolean> => {
    if (gone()) return false;
    if (blocked) return blocked.then((ok) => (ok ? add(frame) : false));
    pending += frame;
    return pending.length >= JOIN_LIMIT ? send() : true;
  };
  return {
    get sent() {
      return sent;
    },
    event(i) {
      if (gone()) return false;
      sent++;
      return add(eventFrame(dialect, events.at(i)!, plan));
    },
    heartbeat: () => add(HEARTBEAT_FRAME),
    flush: () => void send(),
    end() {
      if (gone()) return;
      head();
      const rest = pending + doneFrame(dialect);
      pending = "";
      res.end(rest);
    },
    destroy() {
      void send();
      const socket = res.socket;
      if (!socket) return void res.destroy();
      // end() sends what is buffered, then FIN: the client sees a stream cut short, not an empty reply.
      socket.end();
      socket.setTimeout(1_000, () => socket.destroy());
    },
  };
}
