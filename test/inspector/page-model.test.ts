/**
 * The inspector page's pure parts, in Node: the entry list and its filters,
 * the SSE parser that reads the journal stream, and the timeline's geometry.
 */
import { describe, expect, it } from "vitest";
import {
  EMPTY_FILTER,
  EntryList,
  NO_SESSION,
  costText,
  limitsText,
  matches,
  rowCells,
  type Entry,
} from "../../src/inspector/page/model.js";
import { SseParser } from "../../src/inspector/page/sse.js";
import { AXIS_MARGIN, layoutTimeline, tickStep } from "../../src/inspector/page/timeline.js";

const entry = (seq: number, over: Partial<Entry> = {}): Entry => ({
  seq,
  at: 1_767_225_600_000 + seq,
  session: null,
  method: "POST",
  path: "/v1/responses",
  query: {},
  headers: {},
  rawBody: '{"model":"m","input":"hello apples"}',
  body: { model: "m", input: "hello apples" },
  bodyBytes: 36,
  truncated: false,
  scenario: "auto",
  reason: "default",
  responseId: null,
  status: 200,
  streamed: false,
  outcome: "completed",
  errorCode: null,
  events: null,
  endedAt: null,
  durationMs: 12,
  upstream: null,
  violations: null,
  ...over,
});

describe("the entry list", () => {
  it("keeps one entry per seq (the ended one replaces the running one), newest first, within its limit", () => {
    const list = new EntryList(3);
    expect(list.upsert(entry(1, { outcome: null }))).toBe(true);
    expect(list.upsert(entry(1))).toBe(false);
    expect(list.get(1)?.outcome).toBe("completed");
    for (const seq of [3, 2, 4]) list.upsert(entry(seq));
    expect(list.list().map((e) => e.seq)).toEqual([4, 3, 2]);
  });

  it("clears one session, those without one, or all", () => {
    const list = new EntryList();
    list.upsert(entry(1, { session: "a" }));
    list.upsert(entry(2));
    list.upsert(entry(3, { session: "b" }));
    expect(list.clear("a")).toEqual([1]);
    expect(list.clear(null)).toEqual([2]);
    expect(list.clear()).toEqual([3]);
    expect(list.size).toBe(0);
  });
});

describe("filters", () => {
  const f = (over: Partial<typeof EMPTY_FILTER>) => ({ ...EMPTY_FILTER, ...over });

  it("by session, the requests sent without one, scenario, status class, running and outcome", () => {
    expect(matches(entry(1, { session: "a" }), f({ session: "a" }))).toBe(true);
    expect(matches(entry(1, { session: "a" }), f({ session: "b" }))).toBe(false);
    expect(matches(entry(1), f({ session: NO_SESSION }))).toBe(true);
    expect(matches(entry(1, { session: "a" }), f({ session: NO_SESSION }))).toBe(false);
    expect(matches(entry(1), f({ scenario: "text" }))).toBe(false);
    expect(matches(entry(1, { status: 429, outcome: "error" }), f({ status: "4xx" }))).toBe(true);
    expect(matches(entry(1), f({ status: "4xx" }))).toBe(false);
    expect(matches(entry(1, { outcome: null }), f({ status: "pending" }))).toBe(true);
    expect(matches(entry(1, { outcome: null }), f({ status: "2xx" }))).toBe(false);
    expect(matches(entry(1, { outcome: "dropped" }), f({ status: "dropped" }))).toBe(true);
  });

  it("by text: every word, anywhere in the request's fields or body, case-insensitive", () => {
    expect(matches(entry(1), f({ text: "APPLES hello" }))).toBe(true);
    expect(matches(entry(1), f({ text: "apples pears" }))).toBe(false);
    expect(matches(entry(1, { errorCode: "rate_limit_exceeded" }), f({ text: "rate_limit" }))).toBe(true);
  });
});

describe("row cells", () => {
  it("say what a person scans for", () => {
    const cells = rowCells(
      entry(1, { query: { stream: "true" }, streamed: true, events: 18, durationMs: 1534, session: "s" }),
    );
    expect(cells).toMatchObject({
      request: "POST /v1/responses?stream=true",
      model: "m",
      scenario: "auto (default)",
      status: "200",
      outcome: "completed",
      streamed: "stream · 18",
      duration: "1.53 s",
      session: "s",
    });
    expect(rowCells(entry(2, { outcome: null, status: 0, durationMs: null }))).toMatchObject({
      status: "…",
      outcome: "running",
      duration: "…",
      streamed: "JSON",
    });
    expect(rowCells(entry(3, { outcome: "error", status: 429, errorCode: "rate_limit_exceeded" })).outcome).toBe(
      "error rate_limit_exceeded",
    );
  });
});

describe("the SSE parser", () => {
  it("joins events split anywhere, counts comments, and handles CRLF", () => {
    const parser = new SseParser();
    const text = ': keep-alive\n\nevent: entry\ndata: {"seq":1}\n\nevent: clear\r\ndata: {"session":null}\r\n\r\n';
    const events = [];
    for (let i = 0; i < text.length; i += 3) events.push(...parser.push(text.slice(i, i + 3)));
    expect(events).toEqual([
      { event: "entry", data: '{"seq":1}' },
      { event: "clear", data: '{"session":null}' },
    ]);
    expect(parser.comments).toBe(1);
  });
});

describe("the timeline's geometry", () => {
  it("places marks to scale from the arrival, with the latency and the long pauses", () => {
    const items = [
      { t: 100, kind: "event" as const, index: 0, type: "response.created" },
      { t: 110, kind: "event" as const, index: 1, type: "response.in_progress" },
      { t: 150, kind: "heartbeat" as const },
      { t: 320, kind: "event" as const, index: 2, type: "response.completed" },
      { t: 330, kind: "done" as const },
    ];
    const layout = layoutTimeline(items, 1000);
    for (const m of layout.marks) expect(m.x).toBeCloseTo(AXIS_MARGIN + m.t * layout.scale, 9);
    expect(layout.marks.map((m) => m.kind)).toEqual(["event", "event", "heartbeat", "terminal", "done"]);
    expect(layout.latency).toMatchObject({ from: 0, to: 100, label: "latency 100 ms" });
    // An answer that waited for a slot: its latency says how much of it was the queue.
    expect(layoutTimeline(items, 1000, 60).latency).toMatchObject({ to: 100, label: "latency 100 ms (queued 60 ms)" });
    expect(layout.pauses.map((p) => [p.from, p.to])).toEqual([[110, 320]]);
    expect(layout.span).toBeGreaterThanOrEqual(330);
    expect(layout.ticks[0]).toMatchObject({ t: 0, x: AXIS_MARGIN, label: "0 ms" });
  });

  it("marks a cut, and has no latency when nothing was sent", () => {
    const layout = layoutTimeline([{ t: 40, kind: "drop" }], 600);
    expect(layout.marks[0]).toMatchObject({ kind: "cut", source: "drop", label: "connection dropped (fault)" });
    expect(layout.latency).toBeNull();
  });

  it("picks round tick steps", () => {
    expect(tickStep(1000, 10)).toBe(100);
    expect(tickStep(1300, 10)).toBe(200);
    expect(tickStep(37, 10)).toBe(5);
  });
});

describe("an entry's cost and limiter verdict", () => {
  it("a cost to the millionth of a dollar; the verdict with what refused it; nothing when there is none", () => {
    expect(costText(0.000125)).toBe("$0.000125");
    expect(costText(2)).toBe("$2");
    expect(costText(null)).toBeNull();
    expect(costText(undefined)).toBeNull();
    expect(limitsText({ verdict: "passed", limit: null, headers: {} })).toBe("passed");
    expect(limitsText({ verdict: "insufficient_quota", limit: "budget", headers: {} })).toBe(
      "insufficient_quota (budget)",
    );
    expect(limitsText(null)).toBeNull();
  });
});
