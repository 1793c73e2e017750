/** The journal as JSON in pieces: the same JSON as one stringify, and no string ever holds the whole of a big journal. */
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { Journal, type JournalEntry } from "../../src/journal/journal.js";
import { entryJson, pageJson } from "../../src/journal/serialize.js";

const join = (pieces: Iterable<string>) => [...pieces].join("");

describe("pageJson", () => {
  it("writes the list object: data in order, first and last seq, has_more", () => {
    const j = new Journal();
    for (let i = 0; i < 3; i++) {
      const e = j.open({
        at: i,
        session: null,
        method: "POST",
        path: "/v1/responses",
        query: { q: ["a", "b"] },
        headers: { "x-a": "1" },
      });
      j.setBody(e, `{"n":${i},"s":"\\u00e9\\n"}`, { n: i, s: "é\n" });
    }
    const entries = j.list();
    const parsed = JSON.parse(join(pageJson(entries, true)));
    expect(parsed).toEqual({
      object: "list",
      data: JSON.parse(JSON.stringify(entries)),
      first_seq: 0,
      last_seq: 2,
      has_more: true,
    });
    expect(JSON.parse(join(pageJson([], false)))).toEqual({
      object: "list",
      data: [],
      first_seq: null,
      last_seq: null,
      has_more: false,
    });
    expect(JSON.parse(join(entryJson(entries[1])))).toEqual(JSON.parse(JSON.stringify(entries[1])));
  });

  it("serialises a journal larger than the longest string V8 can make, entry by entry", async () => {
    // 12 entries sharing one 48 MiB body: 576 MiB of JSON, more than one string can hold (about 512 MiB).
    const big = "x".repeat(48 * 1024 * 1024);
    const entry = (seq: number): JournalEntry => ({
      seq,
      at: 0,
      session: null,
      method: "POST",
      path: "/v1/responses",
      query: {},
      headers: {},
      rawBody: big,
      body: null,
      bodyBytes: big.length,
      truncated: false,
      bodySha256: null,
      model: null,
      scenario: null,
      reason: null,
      responseId: null,
      status: 200,
      streamed: false,
      upstream: null,
      violations: null,
      costUsd: null,
      limits: null,
      waitMs: null,
      expect: null,
      outcome: "completed",
      errorCode: null,
      events: null,
      endedAt: 1,
      durationMs: 1,
    });
    let produced = 0;
    const lazy = function* () {
      for (let i = 0; i < 12; i++) {
        produced++;
        yield entry(i);
      }
    };
    let bytes = 0;
    let largest = 0;
    let tail = "";
    await pipeline(
      Readable.from(pageJson(lazy(), false), { objectMode: false }),
      new Writable({
        write(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          largest = Math.max(largest, chunk.length);
          tail = (tail + chunk.subarray(-200).toString("latin1")).slice(-200);
          done();
        },
      }),
    );
    expect(produced).toBe(12);
    expect(bytes).toBeGreaterThan(12 * big.length);
    expect(() => "y".repeat(bytes)).toThrow(RangeError); // the whole would not fit in one string
    expect(largest).toBeLessThan(big.length + 1024);
    expect(tail.endsWith('],"first_seq":0,"last_seq":11,"has_more":false}')).toBe(true);
  });
});
