import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { DEFAULT_DIALECT } from "../../src/dialect/index.js";
import { DONE_FRAME, headerList, sseFrame, sseSink } from "../../src/http/sse.js";
import { systemClock } from "../../src/timing/clock.js";
import { playSchedule } from "../../src/timing/pacer.js";
import { ZERO_PROFILE } from "../../src/timing/profile.js";
import { buildSchedule } from "../../src/timing/schedule.js";
import type { StreamEvent } from "../../src/spec/index.js";
import { ITEMS, makePlan } from "../support/plans.js";

/** A ServerResponse stand-in that records each write and can simulate a full buffer. */
class FakeResponse extends EventEmitter {
  writes: string[] = [];
  headers: Record<string, string> = {};
  headersSent = false;
  socket = null;
  destroyed = false;
  writableEnded = false;
  full = false;
  writeHead(_status: number, headers: Record<string, string> | string[]) {
    // Node takes headers as an object or as a flat [name, value, …] list; the sink sends the list.
    this.headers = Array.isArray(headers)
      ? Object.fromEntries(headers.flatMap((v, i) => (i % 2 === 0 ? [[v, headers[i + 1]]] : [])))
      : headers;
    this.headersSent = true;
    return this;
  }
  write(chunk: string) {
    this.writes.push(chunk);
    return !this.full;
  }
  end(chunk?: string) {
    if (chunk !== undefined) this.writes.push(chunk);
    this.writableEnded = true;
  }
  destroy() {
    this.destroyed = true;
  }
}

/** Streams a whole event list, with no pacing as the server does at zero delay, or `chunkMs` apart. */
const writeEventStream = (res: ServerResponse, events: StreamEvent[], chunkMs = 0) =>
  playSchedule(
    buildSchedule(events, { ...ZERO_PROFILE, chunkMs }, { next: () => 0 }),
    sseSink(res, events, DEFAULT_DIALECT, undefined),
    { clock: systemClock, start: systemClock.now() },
  );

/** Splits written text back into SSE frames (each ends with a blank line). */
const framesOf = (text: string) => text.split(/(?<=\n\n)/);

describe("SSE writer", () => {
  it("writes every event whole, frames due together joined in one write, ended with [DONE]", async () => {
    const events = emitEvents(makePlan(ITEMS.mixed));
    const res = new FakeResponse();
    await writeEventStream(res as unknown as ServerResponse, events);
    // Nothing was paced: the whole stream is one write, the end of the response.
    expect(res.writes).toHaveLength(1);
    expect(framesOf(res.writes[0])).toEqual([...events.map((e) => sseFrame(e)), DONE_FRAME]);
    for (const frame of framesOf(res.writes[0]).slice(0, -1))
      expect(frame).toMatch(/^event: [^\n]+\ndata: [^\n]+\n\n$/);
    expect(res.writableEnded).toBe(true);
    expect(res.headers["content-type"]).toBe("text/event-stream");
  });

  it("sends paced frames before each wait, and never splits a frame", async () => {
    const events = emitEvents(makePlan(ITEMS.text));
    const res = new FakeResponse();
    await writeEventStream(res as unknown as ServerResponse, events, 20);
    // Frames 20 ms apart go out one by one (a late timer may join some that are due by then).
    expect(res.writes.length).toBeGreaterThan(events.length / 2);
    const frames = [...events.map((e) => sseFrame(e)), DONE_FRAME];
    let at = 0;
    for (const write of res.writes) {
      const parts = framesOf(write);
      expect(parts).toEqual(frames.slice(at, at + parts.length));
      at += parts.length;
    }
    expect(at).toBe(frames.length);
  });

  it("waits for drain when the socket buffer is full, and stops when the client leaves", async () => {
    const events = emitEvents(makePlan(ITEMS.text));
    const res = new FakeResponse();
    res.full = true;
    const done = writeEventStream(res as unknown as ServerResponse, events, 20);
    await new Promise((r) => setTimeout(r, 30));
    expect(res.writes).toHaveLength(1); // the next frame waits for the buffer to drain
    res.emit("drain");
    await new Promise((r) => setTimeout(r, 30));
    expect(res.writes).toHaveLength(2);
    res.destroyed = true;
    res.emit("close");
    expect(await done).toBe("aborted");
    expect(res.writes).toHaveLength(2);
    expect(res.writableEnded).toBe(false);
    expect(res.listenerCount("drain") + res.listenerCount("close")).toBe(0);
  });

  it("refuses an event type with a line break", () => {
    expect(() => sseFrame({ type: "acme:x\nevent: y", sequence_number: 0 } as never)).toThrow(/line break/);
  });

  it("sends the headers as Node's flat list, the same names, order and values as { ...base, ...more }", () => {
    const base = { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" };
    const cases: Record<string, string>[] = [
      {},
      { "x-mock-scenario": "text" },
      { "cache-control": "no-store", "x-request-id": "r1" },
      { "content-type": "a", "cache-control": "b", "x-accel-buffering": "c" },
    ];
    for (const more of cases) {
      const merged: Record<string, string> = { ...base, ...more };
      expect(headerList(base, more)).toEqual(Object.entries(merged).flat());
    }
  });
});
