import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { DONE_FRAME, sseFrame, sseSink } from "../../src/http/sse.js";
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
  writeHead(_status: number, headers: Record<string, string>) {
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  write(chunk: string) {
    this.writes.push(chunk);
    return !this.full;
  }
  end() {
    this.writableEnded = true;
  }
  destroy() {
    this.destroyed = true;
  }
  corks = 0;
  cork() {
    this.corks++;
  }
  uncork() {
    this.corks--;
  }
}

/** Streams a whole event list with no pacing, as the server does at zero delay. */
const writeEventStream = (res: ServerResponse, events: StreamEvent[]) =>
  playSchedule(buildSchedule(events, ZERO_PROFILE, { next: () => 0 }), sseSink(res, events), { clock: systemClock, start: systemClock.now() });

describe("SSE writer", () => {
  it("writes each event in exactly one write, then [DONE]", async () => {
    const events = emitEvents(makePlan(ITEMS.mixed));
    const res = new FakeResponse();
    await writeEventStream(res as unknown as ServerResponse, events);
    expect(res.writes).toHaveLength(events.length + 1);
    res.writes.slice(0, -1).forEach((w, i) => {
      expect(w).toBe(sseFrame(events[i]));
      expect(w).toMatch(/^event: [^\n]+\ndata: [^\n]+\n\n$/);
    });
    expect(res.writes.at(-1)).toBe(DONE_FRAME);
    expect(res.writableEnded).toBe(true);
    expect(res.corks).toBe(0); // frames due together were corked, and uncorked before the end
  });

  it("waits for drain when the socket buffer is full, and stops when the client leaves", async () => {
    const events = emitEvents(makePlan(ITEMS.text));
    const res = new FakeResponse();
    res.full = true;
    const done = writeEventStream(res as unknown as ServerResponse, events);
    await new Promise((r) => setImmediate(r));
    expect(res.writes).toHaveLength(1); // paused after the first write
    res.emit("drain");
    await new Promise((r) => setImmediate(r));
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
});
