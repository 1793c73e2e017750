/**
 * Latency profiles through a real server on port 0, on a ManualClock (no
 * wall-clock time is measured): the times each event went out are the
 * answer's timeline (`GET /__mock/requests/{seq}/answer`), on the server's
 * clock. One stream under a profile has the profile's median inter-token
 * gap; eight streams of one model at once slow down as the law says; the
 * profile an answer gets (x-mock-profile over --profile; x-mock-latency-ms
 * over its TTFT); an unknown x-mock-profile is a 400 naming the known ones,
 * over HTTP and on a WebSocket upgrade.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startMockServer, type MockServer } from "../../src/server.js";
import { BUILTIN_PROFILES } from "../../src/service/service.js";
import { ManualClock, fixedClock, type TimerHandle } from "../../src/timing/clock.js";
import { refusedUpgrade } from "../compliance/ws-client.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { TEST_NOW_MS } from "../support/server.js";

const PROFILES = new Map(BUILTIN_PROFILES.map((p) => [p.name, p]));
const KNOWN = "'instant', 'fast', 'typical', 'slow-reasoning'";

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const mock = await startMockServer({ port: 0, seed: 11, clock: fixedClock(TEST_NOW_MS), log: "off", ...options });
  servers.push(mock);
  return mock;
}

/** A ManualClock that knows when its next timer is due, so a test can step from one to the next. */
class SteppedClock extends ManualClock {
  private readonly dues = new Map<number, number>();
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = super.setTimeout(() => {
      this.dues.delete(id);
      fn();
    }, ms);
    const id = (handle as { id: number }).id;
    this.dues.set(id, this.now() + Math.max(0, ms));
    return handle;
  }
  override clearTimeout(handle: TimerHandle): void {
    this.dues.delete((handle as { id: number }).id);
    super.clearTimeout(handle);
  }
  /** Moves the clock to its next timer (and fires it). */
  async step(): Promise<void> {
    await this.advance(Math.min(...this.dues.values()) - this.now());
  }
}

/** Steps the clock from timer to timer (real I/O in between, no time measured) until `done`. */
async function drive(clock: SteppedClock, done: () => boolean): Promise<void> {
  while (!done()) {
    if (clock.pending > 0) await clock.step();
    else await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A long answer, one token per delta: every gap between deltas is one inter-token latency. */
const longTurn = (words: number) => ({
  steps: [
    {
      type: "message" as const,
      text: Array.from({ length: words }, (_, k) => `word${k}`).join(" "),
      chunk: { tokens: 1 },
    },
  ],
});

const post = (mock: MockServer, input: string, headers: Record<string, string> = {}) =>
  fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gpt-test", input, stream: true }),
  });

interface Mark {
  t: number;
  kind: string;
  type?: string;
}

/** The timeline of a request's answer: each mark's time (ms since the request arrived) and kind. */
async function timelineOf(mock: MockServer, seq: number): Promise<Mark[]> {
  const res = await fetch(`${mock.url}/__mock/requests/${seq}/answer`);
  expect(res.status).toBe(200);
  const view = (await res.json()) as { timeline: Mark[]; truncated: boolean };
  expect(view.truncated).toBe(false);
  return view.timeline;
}

/** The times the deltas went out (ms since the request arrived). */
const deltaTimes = (marks: Mark[]) =>
  marks.filter((m) => m.kind === "event" && m.type?.endsWith(".delta")).map((m) => m.t);

const gapsOf = (times: number[]) => times.slice(1).map((t, k) => t - times[k]);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Steps the clock until every request's answer has ended. With `heads`, first
 * waits for every answer's head before the clock moves at all (an answer with
 * no time to first token sends it as it starts playing): they all start
 * together.
 */
async function playAll(mock: MockServer, clock: SteppedClock, requests: Promise<Response>[], heads = false) {
  if (heads) await Promise.all(requests);
  let left = requests.length;
  const bodies = requests.map((sent) =>
    sent
      .then(async (res) => {
        expect(res.status).toBe(200);
        return res.text();
      })
      .finally(() => left--),
  );
  await drive(clock, () => left === 0);
  return Promise.all(bodies);
}

describe("one stream under a profile", () => {
  it("has the profile's median inter-token gap (within 10%) and its first token at the TTFT", async () => {
    const clock = new SteppedClock(1_000);
    const mock = await start({ timers: clock, profile: "typical" });
    mock.enqueue(longTurn(600));
    const [text] = await playAll(mock, clock, [post(mock, "Tell me a long story")]);
    const { events } = parseSseStrict(text) as { events: { type: string }[] };
    expect(events.at(-1)!.type).toBe("response.completed");

    const [entry] = mock.requests;
    const marks = await timelineOf(mock, entry.seq);
    const deltas = deltaTimes(marks);
    expect(deltas).toHaveLength(600);
    const typical = PROFILES.get("typical")!;
    const gaps = gapsOf(deltas);
    expect(Math.abs(median(gaps) / typical.itl.medianMs - 1)).toBeLessThan(0.1);
    // Not a fixed pace: the gaps vary as the log-normal does.
    expect(Math.max(...gaps)).toBeGreaterThan(typical.itl.medianMs * 2);
    expect(Math.min(...gaps)).toBeLessThan(typical.itl.medianMs / 2);
    // The first event, and the first token with it, at the TTFT draw; the rest of the stream right after the last delta.
    const events0 = marks.filter((m) => m.kind === "event");
    expect(events0[0].t).toBeGreaterThan(0);
    expect(deltas[0]).toBe(events0[0].t);
    expect(events0.at(-1)!.t).toBe(deltas.at(-1));
  });

  it("is played the same for the same seed and request", async () => {
    const runs: number[][] = [];
    for (let n = 0; n < 2; n++) {
      const clock = new SteppedClock(1_000);
      const mock = await start({ timers: clock, profile: "fast" });
      mock.enqueue(longTurn(50));
      await playAll(mock, clock, [post(mock, "Same again")]);
      runs.push(deltaTimes(await timelineOf(mock, mock.requests[0].seq)));
    }
    expect(runs[0]).toHaveLength(50);
    expect(runs[1]).toEqual(runs[0]);
  });
});

describe("eight streams of one model at once", () => {
  it("slow down as the law says: itl × (1 + k × (active − 1) / capacity), within 15%", async () => {
    const clock = new SteppedClock(1_000);
    const mock = await start({ timers: clock });
    const slow = PROFILES.get("slow-reasoning")!;
    const { k, capacity } = slow.slowdown;
    const N = 8;
    for (let n = 0; n < N; n++) mock.enqueue(longTurn(400));
    // No TTFT (x-mock-latency-ms: 0): all eight start at once and generate together.
    const headers = { "x-mock-profile": "slow-reasoning", "x-mock-latency-ms": "0" };
    await playAll(
      mock,
      clock,
      Array.from({ length: N }, (_, n) => post(mock, `Story number ${n}`, headers)),
      true,
    );

    const streams = await Promise.all(mock.requests.map(async (e) => deltaTimes(await timelineOf(mock, e.seq))));
    // Every request arrived before the clock moved (playAll): the marks of all streams are on one time line.
    const ends = streams.map((times) => times.at(-1)!);
    /** How many streams were playing at `t` (each from 0 until its last delta). */
    const activeAt = (t: number) => ends.filter((end) => end > t).length;

    const byActive = new Map<number, number[]>();
    for (const times of streams) {
      expect(times).toHaveLength(400);
      for (let j = 1; j < times.length; j++) {
        const active = activeAt(times[j - 1]);
        const gaps = byActive.get(active) ?? byActive.set(active, []).get(active)!;
        gaps.push(times[j] - times[j - 1]);
      }
    }
    const all8 = byActive.get(N)!;
    expect(all8.length).toBeGreaterThan(2_000);
    const law = slow.itl.medianMs * (1 + (k * (N - 1)) / capacity);
    expect(Math.abs(median(all8) / law - 1)).toBeLessThan(0.15);
    // Well apart from one stream alone: the law's growth here is 44%.
    expect(median(all8)).toBeGreaterThan(slow.itl.medianMs * 1.25);

    // Every gap divided by the law's factor at its load: the profile's own median.
    const normalized = [...byActive].flatMap(([active, gaps]) =>
      gaps.map((g) => g / (1 + (k * (active - 1)) / capacity)),
    );
    expect(Math.abs(median(normalized) / slow.itl.medianMs - 1)).toBeLessThan(0.1);

    // Once they have ended, they count no more: a stream alone is back at the profile's pace (nine counted would be 1.5×).
    mock.enqueue(longTurn(300));
    await playAll(mock, clock, [post(mock, "Alone again", headers)]);
    const alone = gapsOf(deltaTimes(await timelineOf(mock, mock.requests.at(-1)!.seq)));
    expect(Math.abs(median(alone) / slow.itl.medianMs - 1)).toBeLessThan(0.1);
  });
});

describe("the profile an answer gets", () => {
  it("x-mock-profile beats --profile; instant is no latency; x-mock-latency-ms replaces the TTFT", async () => {
    const clock = new SteppedClock(1_000);
    const mock = await start({ timers: clock, profile: "slow-reasoning" });
    const fast = PROFILES.get("fast")!;
    const slow = PROFILES.get("slow-reasoning")!;
    mock.enqueue(longTurn(300), longTurn(300), longTurn(300), longTurn(20));

    await playAll(mock, clock, [post(mock, "server profile")]);
    await playAll(mock, clock, [post(mock, "header profile", { "x-mock-profile": "fast" })]);
    await playAll(mock, clock, [post(mock, "header latency", { "x-mock-latency-ms": "7" })]);
    await playAll(mock, clock, [post(mock, "instant", { "x-mock-profile": "instant" })]);
    const [server, header, latency, instant] = await Promise.all(mock.requests.map((e) => timelineOf(mock, e.seq)));

    const gapMedian = (marks: Mark[]) => median(gapsOf(deltaTimes(marks)));
    expect(Math.abs(gapMedian(server) / slow.itl.medianMs - 1)).toBeLessThan(0.1);
    expect(Math.abs(gapMedian(header) / fast.itl.medianMs - 1)).toBeLessThan(0.1);
    // The TTFT: a draw of the profile's, or exactly the header's latency.
    const first = (marks: Mark[]) => marks.find((m) => m.kind === "event")!.t;
    expect(first(server)).toBeGreaterThan(slow.ttft.medianMs / 4);
    expect(first(header)).toBeLessThan(fast.ttft.p99Ms * 3);
    expect(first(latency)).toBe(7);
    expect(Math.abs(gapMedian(latency) / slow.itl.medianMs - 1)).toBeLessThan(0.1);
    // instant: every event at once, not paced.
    expect(new Set(instant.filter((m) => m.kind === "event").map((m) => m.t))).toEqual(new Set([0]));
  });

  it("x-mock-chunk-ms replaces the inter-token draws", async () => {
    const clock = new SteppedClock(1_000);
    const mock = await start({ timers: clock, profile: "typical" });
    mock.enqueue(longTurn(30));
    await playAll(mock, clock, [post(mock, "fixed pace", { "x-mock-chunk-ms": "9" })]);
    const marks = await timelineOf(mock, mock.requests[0].seq);
    expect(new Set(gapsOf(deltaTimes(marks)))).toEqual(new Set([9]));
    expect(marks.find((m) => m.kind === "event")!.t).toBeGreaterThan(0);
  });
});

describe("an unknown x-mock-profile", () => {
  const expectUnknown = (body: { error: Record<string, unknown> }) => {
    expect(body.error).toMatchObject({ type: "invalid_request", code: "invalid_header", param: "x-mock-profile" });
    expect(body.error.message).toContain("'sluggish'");
    expect(body.error.message).toContain(KNOWN);
  };

  it("is a 400 naming the known profiles over HTTP, and nothing is played", async () => {
    const mock = await start();
    const res = await post(mock, "hello", { "x-mock-profile": "sluggish" });
    expect(res.status).toBe(400);
    expectUnknown((await res.json()) as never);
    expect(mock.requests[0]).toMatchObject({ status: 400, responseId: null });
  });

  it("refuses a WebSocket upgrade with a 400 naming them", async () => {
    const mock = await start();
    const { status, body } = await refusedUpgrade(`${mock.url.replace(/^http/, "ws")}/v1/responses`, {
      "x-mock-profile": "sluggish",
    });
    expect(status).toBe(400);
    expectUnknown(body);
  });

  it("is taken on a WebSocket upgrade when known: the connection's answers are paced by it", async () => {
    const clock = new SteppedClock(1_000);
    const mock = await start({ timers: clock });
    mock.enqueue(longTurn(200));
    const ws = new WebSocket(`${mock.url.replace(/^http/, "ws")}/v1/responses`, {
      headers: { "x-mock-profile": "typical" },
    });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    let done = false;
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === "response.completed") done = true;
    });
    ws.send(JSON.stringify({ type: "response.create", model: "gpt-test", input: "over a socket" }));
    await drive(clock, () => done);
    ws.close();
    const deltas = deltaTimes(await timelineOf(mock, mock.requests.at(-1)!.seq));
    expect(deltas).toHaveLength(200);
    expect(Math.abs(median(gapsOf(deltas)) / PROFILES.get("typical")!.itl.medianMs - 1)).toBeLessThan(0.15);
  });
});
