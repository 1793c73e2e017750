/**
 * The answer on its timeline (`GET /__mock/requests/{seq}/answer`) against a
 * real server on port 0: a paced stream's marks follow the schedule the pure
 * core computes (on a ManualClock, so no wall-clock time is measured), the
 * events are the bytes the client got, a drop fault, a hang and a client
 * abort show where they happened, non-streamed and error answers, the
 * timeline's bound with a 10,000-event stream, and a journal of 0 entries.
 */
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildSchedule } from "../../src/timing/schedule.js";
import { ManualClock, fixedClock, type TimerHandle } from "../../src/timing/clock.js";
import { tracedSink } from "../../src/journal/traced-sink.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import type { StreamEvent } from "../../src/spec/index.js";
import type { PaceSink } from "../../src/timing/pacer.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { TEST_NOW_MS, lastEnded as ended, rawPost } from "../support/server.js";
import { WsClient } from "../compliance/ws-client.js";

/** An error answer's body. */
type ErrorBody = { error: { type: string; code: string | null; param: string | null; message: string } };

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const mock = await startMockServer({ port: 0, seed: 5, clock: fixedClock(TEST_NOW_MS), log: "off", ...options });
  servers.push(mock);
  return mock;
}

const adminUrl = (mock: MockServer, path: string) => `${mock.url}/__mock${path}`;

interface Mark {
  t: number;
  kind: string;
  index?: number;
  type?: string;
  event?: Record<string, unknown>;
}
interface AnswerView {
  seq: number;
  kind: string;
  status: number;
  dialect: string;
  timeline: Mark[];
  truncated: boolean;
  dropped: number;
  response: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  upstream: unknown;
}

async function answerOf(mock: MockServer, seq: number): Promise<AnswerView> {
  const res = await fetch(adminUrl(mock, `/requests/${seq}/answer`));
  expect(res.status).toBe(200);
  return (await res.json()) as AnswerView;
}

/** A ManualClock that logs the length of every wait asked of it. */
class WaitLog extends ManualClock {
  readonly waits: number[] = [];
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.waits.push(ms);
    return super.setTimeout(fn, ms);
  }
}

/** Sends one request and moves the clock through each wait the pacer asks for, until the answer has come. */
async function paced(mock: MockServer, clock: WaitLog, body: object, headers: Record<string, string>) {
  let done = false;
  const answer = fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  })
    .then(async (res) => ({ status: res.status, text: await res.text() }))
    .finally(() => (done = true));
  answer.catch(() => undefined);
  while (!done) {
    if (clock.pending > 0) await clock.advance(clock.waits.at(-1)!);
    else await new Promise((resolve) => setImmediate(resolve));
  }
  return answer;
}

const STREAM = { model: "m", input: "Tell me about timelines", stream: true };

describe("a paced stream's timeline", () => {
  it("has its events, heartbeats, [DONE] and end in order, at the times of the pure schedule, and the events as sent", async () => {
    const clock = new WaitLog(1_000);
    const mock = await start({ timers: clock });
    const profile = { latencyMs: 120, chunkMs: 40, jitterMs: 0, tokensPerSecond: null, heartbeatMs: 25 };
    const { status, text } = await paced(mock, clock, STREAM, {
      "x-mock-latency-ms": "120",
      "x-mock-chunk-ms": "40",
      "x-mock-heartbeat-ms": "25",
    });
    expect(status).toBe(200);
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    expect(view).toMatchObject({
      seq: entry.seq,
      kind: "stream",
      status: 200,
      dialect: "open-responses",
      truncated: false,
      dropped: 0,
      error: null,
      upstream: null,
    });

    // The schedule the pure core computes for the events the client got.
    const wire = parseSseStrict(text);
    const events = wire.events as StreamEvent[];
    const schedule = buildSchedule(events, profile, { next: () => 0.5 });
    const expected = schedule.slots.flatMap((slot) =>
      slot.kind === "event"
        ? [{ t: slot.at, kind: "event", index: slot.index }]
        : slot.kind === "done"
          ? [
              { t: slot.at, kind: "done" },
              { t: slot.at, kind: "end" },
            ]
          : [{ t: slot.at, kind: slot.kind }],
    );
    expect(expected.filter((m) => m.kind === "heartbeat").length).toBeGreaterThan(0);
    expect(view.timeline.map(({ t, kind, index }) => (index === undefined ? { t, kind } : { t, kind, index }))).toEqual(
      expected,
    );

    // Each event is what went over the wire, in order.
    const marked = view.timeline.filter((m) => m.kind === "event");
    expect(marked.map((m) => m.event)).toEqual(wire.events);
    expect(marked.map((m) => m.type)).toEqual(events.map((e) => e.type));
    expect(wire.done).toBe(true);
    expect(view.response).toEqual(wire.events.at(-1)!.response);
    expect(wire.events.at(-1)!.type).toBe("response.completed");
  });

  it("in the openai dialect: no [DONE] mark, events as OpenAI spells them", async () => {
    const mock = await start();
    const res = await rawPost(
      mock,
      { model: "m", input: "Think, then answer", reasoning: { effort: "low" }, stream: true },
      { "x-mock-dialect": "openai" },
    );
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    expect(view.dialect).toBe("openai");
    expect(view.timeline.map((m) => m.kind)).not.toContain("done");
    expect(view.timeline.at(-1)!.kind).toBe("end");
    expect(view.timeline.filter((m) => m.kind === "event").map((m) => m.event)).toEqual(
      parseSseStrict(res.text, { requireDone: false }).events,
    );
  });
});

describe("faults and aborts on the timeline", () => {
  it("a drop fault shows `drop` right after the events it let through", async () => {
    const mock = await start();
    const res = await rawPost(mock, STREAM, { "x-mock-fault": "drop-after-events=4" });
    expect(res.complete).toBe(false);
    const entry = await ended(mock);
    expect(entry.outcome).toBe("dropped");
    const view = await answerOf(mock, entry.seq);
    expect(view.timeline.map((m) => m.kind)).toEqual(["event", "event", "event", "event", "drop"]);
    expect(view.timeline.filter((m) => m.kind === "event").map((m) => m.index)).toEqual([0, 1, 2, 3]);
    expect(view.response).toBeNull();
    const check = (await (await fetch(adminUrl(mock, `/requests/${entry.seq}/check`))).json()) as {
      checked: boolean;
      ok: boolean;
      note?: string;
    };
    expect(check).toMatchObject({ checked: true, ok: false });
    expect(check.note).toMatch(/drop fault/);
  });

  it("a hang shows `hang` after its events, then `abort` when the client leaves", async () => {
    const mock = await start();
    const got = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        new URL(`${mock.baseURL}/responses`),
        { method: "POST", headers: { "content-type": "application/json", "x-mock-fault": "hang-after-events=3" } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => {
            text += d;
            if (text.endsWith("\n\n") && parseSseStrict(text, { requireDone: false }).events.length === 3) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on("error", () => undefined);
      req.on("close", () => reject(new Error("closed before three events")));
      req.end(JSON.stringify(STREAM));
    });
    expect(parseSseStrict(got, { requireDone: false }).events).toHaveLength(3);
    const entry = await ended(mock);
    expect(entry.outcome).toBe("hung");
    const kinds = (await answerOf(mock, entry.seq)).timeline.map((m) => m.kind);
    expect(kinds.slice(0, 4)).toEqual(["event", "event", "event", "hang"]);
    expect(kinds.at(-1)).toBe("abort");
    expect(kinds.slice(4, -1).every((k) => k === "heartbeat")).toBe(true);
  });

  it("a client that goes away mid-stream shows `abort` after the last event sent", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ timers: clock });
    const controller = new AbortController();
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-chunk-ms": "50" },
      body: JSON.stringify(STREAM),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    // The first event comes at once; then the pacer waits 50 ms (on the manual clock) for the next.
    await reader.read();
    await vi.waitFor(() => expect(clock.pending).toBeGreaterThan(0));
    await clock.advance(50);
    controller.abort();
    const entry = await ended(mock);
    expect(entry.outcome).toBe("aborted");
    const view = await answerOf(mock, entry.seq);
    const kinds = view.timeline.map((m) => m.kind);
    expect(kinds.at(-1)).toBe("abort");
    expect(kinds.slice(0, -1).every((k) => k === "event")).toBe(true);
    expect(kinds.length - 1).toBe(entry.events);
    const check = (await (await fetch(adminUrl(mock, `/requests/${entry.seq}/check`))).json()) as {
      checked: boolean;
      ok: boolean;
      note?: string;
    };
    expect(check).toMatchObject({ checked: false });
  });
});

describe("answers that are not streamed", () => {
  it("a JSON answer has one `end` mark and the body as sent", async () => {
    const mock = await start();
    const res = await rawPost(mock, { model: "m", input: "hello" });
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    expect(view.kind).toBe("json");
    expect(view.timeline.map((m) => m.kind)).toEqual(["end"]);
    expect(view.timeline[0].t).toBeGreaterThanOrEqual(0);
    expect(view.response).toEqual(JSON.parse(res.text));
  });

  it("an error answer has its error object, as sent", async () => {
    const mock = await start();
    const res = await rawPost(mock, { model: "m" });
    expect(res.status).toBe(400);
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    expect(view).toMatchObject({ kind: "error", status: 400, response: null });
    expect(view.error).toEqual(JSON.parse(res.text).error);
    expect(view.timeline.map((m) => m.kind)).toEqual(["end"]);
    const check = (await (await fetch(adminUrl(mock, `/requests/${entry.seq}/check`))).json()) as {
      checked: boolean;
      ok: boolean;
      note?: string;
    };
    expect(check).toEqual({ checked: true, ok: true, violations: [] });
  });

  it("an unknown seq is a 404 error object", async () => {
    const mock = await start();
    for (const what of ["answer", "check", "scenario", "curl"]) {
      const res = await fetch(adminUrl(mock, `/requests/99/${what}`));
      expect(res.status).toBe(404);
      expect(((await res.json()) as ErrorBody).error).toMatchObject({
        type: "not_found",
        code: "not_found",
        param: "seq",
      });
    }
    const bad = await fetch(adminUrl(mock, "/requests/x1/answer"));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error).toMatchObject({ param: "seq" });
  });
});

/** A turn that streams `n` one-character deltas. */
const longTurn = (n: number) => ({ steps: [{ type: "message", text: "x".repeat(n), chunk: { chars: 1 } }] });

describe("the timeline's bound", () => {
  it("a 10,000-event stream under a tiny byte budget keeps counting, keeps its end, and says how many marks it dropped", async () => {
    const mock = await start({ journalBytes: 64 * 1024 });
    expect(
      (
        await fetch(adminUrl(mock, "/queue"), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ turns: [longTurn(10_000)] }),
        })
      ).status,
    ).toBe(201);
    const res = await rawPost(mock, STREAM);
    const sent = parseSseStrict(res.text).events.length;
    expect(sent).toBeGreaterThan(10_000);
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    // 64 KiB / 16 = 4 KiB of marks at 16 bytes each: 256, and the end marks past them.
    const cap = Math.floor((64 * 1024) / 16 / 16);
    const events = view.timeline.filter((m) => m.kind === "event");
    expect(events).toHaveLength(cap);
    expect(events.map((m) => m.index)).toEqual([...Array(cap).keys()]);
    expect(view.timeline.slice(-2).map((m) => m.kind)).toEqual(["done", "end"]);
    expect(view.truncated).toBe(true);
    expect(view.dropped).toBe(sent - cap);
    // The entry itself says how many events went out.
    expect(entry.events).toBe(sent);
  });

  it("with the default budget the same stream is kept whole", async () => {
    const mock = await start();
    await fetch(adminUrl(mock, "/queue"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ turns: [longTurn(10_000)] }),
    });
    const res = await rawPost(mock, STREAM);
    const wire = parseSseStrict(res.text).events;
    const entry = await ended(mock);
    const view = await answerOf(mock, entry.seq);
    expect(view.truncated).toBe(false);
    expect(view.timeline.filter((m) => m.kind === "event").map((m) => m.event)).toEqual(wire);
  });

  it("with journalLimit 0 nothing is kept, and the sink is not even wrapped", async () => {
    const mock = await start({ journalLimit: 0 });
    await rawPost(mock, STREAM);
    const res = await fetch(adminUrl(mock, "/requests/0/answer"));
    expect(res.status).toBe(404);
    const sink: PaceSink = { event: () => true, heartbeat: () => true, end: () => undefined, destroy: () => undefined };
    expect(tracedSink(sink, undefined, { now: () => 0, done: true })).toBe(sink);
  });
});

describe("a WebSocket turn's timeline", () => {
  it("has each message as sent, then its end (no [DONE]); its check judges messages without SSE framing", async () => {
    const mock = await start();
    const ws = await WsClient.connect(mock.baseURL, {});
    try {
      ws.send({ type: "response.create", model: "m", input: "over a socket" });
      const turn = await ws.readTurn();
      expect(turn.errors).toEqual([]);
      const entry = await ended(mock);
      expect(entry.method).toBe("WS");
      const view = await answerOf(mock, entry.seq);
      expect(view.kind).toBe("stream");
      expect(view.timeline.filter((m) => m.kind === "event").map((m) => m.event)).toEqual(turn.frames);
      expect(view.timeline.at(-1)!.kind).toBe("end");
      expect(view.timeline.map((m) => m.kind)).not.toContain("done");
      const check = (await (await fetch(adminUrl(mock, `/requests/${entry.seq}/check`))).json()) as {
        checked: boolean;
        ok: boolean;
      };
      expect(check).toEqual({ checked: true, ok: true, violations: [] });
    } finally {
      await ws.close();
    }
  });
});
