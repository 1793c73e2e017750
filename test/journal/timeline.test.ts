/**
 * The timeline of an answer and what the journal charges for it: marks in
 * order relative to the request's arrival, the cap (counting on, keeping the
 * end), growth charged to the byte budget (older entries go first; a
 * timeline whose entry went keeps nothing more), and the open and clear
 * listeners.
 */
import { describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/journal.js";
import { MARK_BYTES, Timeline } from "../../src/journal/timeline.js";

const open = (journal: Journal, session: string | null = null) =>
  journal.open({ at: 0, session, method: "POST", path: "/v1/responses", query: {}, headers: {} });

describe("Timeline", () => {
  it("keeps marks in order, in ms since the origin", () => {
    const t = new Timeline(1000, 100, { grow: () => true });
    t.mark("heartbeat", 1010.5);
    t.event(0, 1020.25);
    t.event(1, 1020.25);
    t.mark("done", 1030);
    t.mark("end", 1030);
    expect(t.marks()).toEqual([
      { t: 10.5, kind: "heartbeat" },
      { t: 20.25, kind: "event", index: 0 },
      { t: 20.25, kind: "event", index: 1 },
      { t: 30, kind: "done" },
      { t: 30, kind: "end" },
    ]);
    expect(t.truncated).toBe(false);
  });

  it("an answer sent in one write: its events as one run, the same marks as one by one, charged as one mark", () => {
    let charged = 0;
    const bulk = new Timeline(1000, 100, { grow: (bytes: number) => ((charged += bytes), true) });
    bulk.events(23, 1002.5);
    bulk.mark("done", 1002.5);
    bulk.mark("end", 1002.5);
    const single = new Timeline(1000, 100, { grow: () => true });
    for (let i = 0; i < 23; i++) single.event(i, 1002.5);
    single.mark("done", 1002.5);
    single.mark("end", 1002.5);
    expect(bulk.marks()).toEqual(single.marks());
    expect(bulk.length).toBe(25);
    expect(charged).toBe(MARK_BYTES + 8 * MARK_BYTES);

    // Past the cap: the events after it are dropped and counted, the end is kept.
    const capped = new Timeline(0, 10, { grow: () => true });
    capped.events(1000, 5);
    capped.mark("end", 6);
    expect(
      capped
        .marks()
        .filter((m) => m.kind === "event")
        .map((m) => m.index),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(capped.marks().at(-1)).toEqual({ t: 6, kind: "end" });
    expect(capped.dropped).toBe(990);

    // A journal that no longer holds the entry: nothing is kept, everything counted as dropped.
    const gone = new Timeline(0, 100, { grow: () => false });
    gone.events(5, 1);
    gone.mark("end", 1);
    expect(gone.marks()).toEqual([]);
    expect(gone.dropped).toBe(6);

    // After other marks, events go one by one.
    const after = new Timeline(0, 100, { grow: () => true });
    after.mark("heartbeat", 1);
    after.events(2, 3);
    expect(after.marks()).toEqual([
      { t: 1, kind: "heartbeat" },
      { t: 3, kind: "event", index: 0 },
      { t: 3, kind: "event", index: 1 },
    ]);
  });

  it("past its cap, counts what it drops and still keeps how the answer ended", () => {
    const t = new Timeline(0, 10, { grow: () => true });
    for (let i = 0; i < 1000; i++) t.event(i, i);
    t.mark("heartbeat", 1000);
    t.mark("done", 1001);
    t.mark("end", 1001);
    const marks = t.marks();
    expect(marks.slice(0, 10).map((m) => m.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(marks.slice(10).map((m) => m.kind)).toEqual(["done", "end"]);
    expect(t.dropped).toBe(991);
    expect(t.truncated).toBe(true);
  });

  it("charges each growth, and stops (keeping nothing) once the journal says no", () => {
    const charged: number[] = [];
    let room = 3;
    const t = new Timeline(0, 1000, { grow: (bytes: number) => (charged.push(bytes), --room >= 0) });
    for (let i = 0; i < 100; i++) t.event(i, i);
    expect(charged.slice(0, 3)).toEqual([8 * MARK_BYTES, 8 * MARK_BYTES, 16 * MARK_BYTES]);
    expect(t.length).toBe(0);
    expect(t.dropped).toBe(100);
  });
});

describe("the journal's timelines", () => {
  it("charge their marks and plan to the byte budget: older entries go first", () => {
    const journal = new Journal(100, 64 * 1024);
    const first = open(journal);
    const before = journal.bytes;
    const timeline = journal.timeline(first, 0)!;
    for (let i = 0; i < 1000; i++) timeline.event(i, i);
    // 64 KiB / 16 / 16 bytes: at most 256 marks (and 4 end marks) for one entry.
    expect(journal.timelineCap).toBe(256);
    expect(journal.bytes - before).toBeGreaterThanOrEqual(256 * MARK_BYTES);
    const second = open(journal);
    journal.keepAnswer(second, { kind: "forwarded-json", body: {}, at: 0 }, 62 * 1024);
    // The first entry went to make room: its timeline keeps nothing more.
    expect(journal.get(first.seq)).toBeUndefined();
    timeline.event(0, 1);
    expect(timeline.length).toBe(0);
    expect(journal.answer(second)?.source?.kind).toBe("forwarded-json");
    expect(journal.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it("are not kept when the journal keeps no entries", () => {
    const journal = new Journal(0);
    const entry = open(journal);
    expect(journal.timeline(entry, 0)).toBeUndefined();
    journal.keepAnswer(entry, { kind: "forwarded-json", body: {}, at: 0 }, 10);
    expect(journal.answer(entry)).toBeUndefined();
    expect(journal.bytes).toBe(0);
  });
});

describe("the journal's listeners", () => {
  it("tell of entries as they open and of clears, and remove themselves", () => {
    const journal = new Journal();
    const opened: number[] = [];
    const cleared: (string | null | undefined)[] = [];
    const offOpen = journal.onOpen((e) => opened.push(e.seq));
    const offClear = journal.onClear((s) => cleared.push(s));
    const offEnd = journal.onEnd(() => {
      throw new Error("a listener's failure does not break the journal");
    });
    expect(journal.listenerCount).toBe(3);
    const entry = open(journal, "a");
    journal.end(entry, 1);
    journal.clear("a");
    journal.clear();
    expect(opened).toEqual([0]);
    expect(cleared).toEqual(["a", undefined]);
    offOpen();
    offClear();
    offEnd();
    expect(journal.listenerCount).toBe(0);
  });

  it("records the request body's model, cut to 200 characters", () => {
    const journal = new Journal();
    const entry = open(journal);
    journal.setBody(entry, '{"model":"m"}', { model: "gpt-x" });
    expect(entry.model).toBe("gpt-x");
    const long = open(journal);
    journal.setBody(long, "{}", { model: "m".repeat(1000) });
    expect(long.model).toHaveLength(200);
  });
});
