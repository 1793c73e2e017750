import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { DONE_FRAME, sseFrame, writeEventStream } from "../../src/http/sse.js";
import { ITEMS, makePlan } from "../support/plans.js";

/** A ServerResponse stand-in that records each write and can simulate a full buffer. */
class FakeResponse extends EventEmitter {
  writes: string[] = [];
  headers: Record<string, string> = {};
  destroyed = false;
  writableEnded = false;
  full = false;
  writeHead(_status: number, headers: Record<string, string>) {
    this.headers = headers;
    return this;
  }
  write(chunk: string) {
    this.writes.push(chunk);
    return !this.full;
  }
  end() {
    this.writableEnded = true;
  }
}

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
    await done;
    expect(res.writes).toHaveLength(2);
    expect(res.writableEnded).toBe(false);
    expect(res.listenerCount("drain") + res.listenerCount("close")).toBe(0);
  });

  it("refuses an event type with a line break", () => {
    expect(() => sseFrame({ type: "acme:x\nevent: y", sequence_number: 0 } as never)).toThrow(/line break/);
  });
});
