/**
 * Replaying a recording: `serve --scenarios DIR` plays a file as `proxy
 * --record` writes it (turn timing `recorded: true`, a delay before a step)
 * with its recorded pacing, and at once with `latencyMs: 0, chunkMs: 0` (the
 * option, the CLI flags `--latency-ms 0 --chunk-ms 0`, or the headers),
 * while a hand-written scenario keeps its own timing over the server's
 * options, and faults still apply. Time is a ManualClock that logs each wait
 * the pacer asks for: no wall-clock time is measured.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ManualClock, fixedClock, type TimerHandle } from "../../src/timing/clock.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { expectConformantStream } from "../support/conformance.js";
import { TEST_NOW_MS } from "../support/server.js";

const BIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const QUESTION = "Weather in Paris?";
const body = { model: "gpt-test", input: QUESTION, stream: true };

/** A turn as src/record writes it: latency, mean gap, a delay before the tool call (300 ms late), chunk sizes as recorded. */
const recordedTurn = (timing: { latencyMs: number; chunkMs: number }, delayMs: number) => ({
  steps: [
    { type: "message", text: "Let me check the weather.", chunk: { sizes: [4, 7, 3, 11] } },
    {
      type: "function_call",
      delayMs,
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      call_id: "call_rec",
      chunk: { chars: 5 },
    },
  ],
  timing: { recorded: true, ...timing },
  end: { type: "completed" },
});
const recording = (name: string, timing: { latencyMs: number; chunkMs: number }, delayMs: number) => ({
  name,
  description: `Recorded by openresponses-mock proxy from responses http://127.0.0.1:1/v1 on 2026-01-01T00:00:00.000Z: "${QUESTION}" (1 turn).`,
  match: { matches: "^Weather in Paris\\?$" },
  turns: [recordedTurn(timing, delayMs)],
});

const LATENCY = 120;
const CHUNK = 5;
const DELAY = 300;

let dir: string;
let slowDir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "orm-replay-"));
  writeFileSync(
    join(dir, "weather-in-paris-0a1b2c3d.json"),
    JSON.stringify(recording("weather-in-paris-0a1b2c3d", { latencyMs: LATENCY, chunkMs: CHUNK }, DELAY), null, 2),
  );
  // For the CLI, which runs on the real clock: an hour's latency and delay, so only an instant replay can finish.
  slowDir = mkdtempSync(join(tmpdir(), "orm-replay-slow-"));
  writeFileSync(
    join(slowDir, "weather-in-paris-0a1b2c3d.json"),
    JSON.stringify(recording("weather-in-paris-0a1b2c3d", { latencyMs: 3_600_000, chunkMs: 60_000 }, 3_600_000)),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(slowDir, { recursive: true, force: true });
});

/** A ManualClock that logs the length of every wait asked of it. */
class WaitLog extends ManualClock {
  readonly waits: number[] = [];
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.waits.push(ms);
    return super.setTimeout(fn, ms);
  }
}

/**
 * Streams one request, moving the clock through each wait the pacer asks for
 * (exactly its length) until the answer ends; the times the waits ended at
 * are when the paced events went out.
 */
async function replay(mock: MockServer, clock: WaitLog, headers: Record<string, string> = {}) {
  let done = false;
  const sent = fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  }).then(async (res) => ({
    status: res.status,
    scenario: res.headers.get("x-mock-scenario"),
    text: await res.text(),
  }));
  const answer = sent.finally(() => (done = true));
  answer.catch(() => undefined); // awaited below, once the clock has stopped

  const from = clock.waits.length;
  const wokeAt: number[] = [];
  while (!done) {
    if (clock.pending > 0) {
      await clock.advance(clock.waits.at(-1)!);
      wokeAt.push(clock.now());
    } else await new Promise((resolve) => setImmediate(resolve)); // real I/O in between, no time measured
  }
  const res = await answer;
  const entry = mock.requests.at(-1)!;
  return { ...res, waits: clock.waits.slice(from), wokeAt, durationMs: entry.durationMs };
}

/** When each event of this answer is due at the recorded pace: latency, then CHUNK apart, DELAY more from the tool call on. */
function recordedTimes(text: string): number[] {
  const events = parseSseStrict(text).events as { type: string; item?: { type: string } }[];
  const callStart = events.findIndex(
    (e) => e.type === "response.output_item.added" && e.item?.type === "function_call",
  );
  expect(callStart).toBeGreaterThan(0);
  return events.map((_, i) => LATENCY + CHUNK * i + (i >= callStart ? DELAY : 0));
}

/** What the client saw, without ids: types and deltas, in order. */
const said = (text: string) =>
  parseSseStrict(text).events.map((e) => [e.type, (e as { delta?: string }).delta ?? null]);

describe("serve --scenarios DIR replays a recording", () => {
  const servers: MockServer[] = [];
  const start = async (options: Parameters<typeof startMockServer>[0]) => {
    const mock = await startMockServer({
      port: 0,
      library: false,
      seed: 7,
      clock: fixedClock(TEST_NOW_MS),
      ...options,
    });
    servers.push(mock);
    return mock;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  let paced: Awaited<ReturnType<typeof replay>>;

  it("with its recorded pacing by default: the latency, the gaps and the delay before the tool call", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: dir, timers: clock });
    paced = await replay(mock, clock);
    expect(paced.status).toBe(200);
    expect(paced.scenario).toBe("weather-in-paris-0a1b2c3d");
    expectConformantStream(parseSseStrict(paced.text).events);
    const due = recordedTimes(paced.text);
    expect(paced.wokeAt).toEqual(due);
    expect(paced.waits).toEqual(due.map((t, i) => t - (i === 0 ? 0 : due[i - 1])));
    expect(paced.durationMs).toBe(due.at(-1));
  });

  it("at once with latencyMs: 0 and chunkMs: 0 (options): no wait at all, the same items, text and chunks", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: dir, timers: clock, latencyMs: 0, chunkMs: 0 });
    const instant = await replay(mock, clock);
    expect(instant.status).toBe(200);
    expect(instant.waits).toEqual([]);
    expect(instant.durationMs).toBe(0);
    expect(said(instant.text)).toEqual(said(paced.text));
  });

  it("at once with the headers x-mock-latency-ms: 0 and x-mock-chunk-ms: 0", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: dir, timers: clock });
    const instant = await replay(mock, clock, { "x-mock-latency-ms": "0", "x-mock-chunk-ms": "0" });
    expect(instant.waits).toEqual([]);
    expect(instant.durationMs).toBe(0);
    expect(said(instant.text)).toEqual(said(paced.text));
  });

  it("with only latencyMs: 0, the recorded gaps and delay stay", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: dir, timers: clock, latencyMs: 0 });
    const res = await replay(mock, clock);
    expect(res.wokeAt).toEqual(
      recordedTimes(res.text)
        .map((t) => t - LATENCY)
        .filter((t) => t > 0),
    );
  });

  it("faults still apply to an instant replay", async () => {
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: dir, timers: clock, latencyMs: 0, chunkMs: 0 });
    // A dropped stream: the client's read fails.
    await expect(replay(mock, clock, { "x-mock-fault": "drop-after-events=3" })).rejects.toThrow();
    expect(clock.waits).toEqual([]);
    expect(mock.requests.at(-1)!.outcome).toBe("dropped");
    expect(mock.requests.at(-1)!.events).toBe(3);
  });

  it("a hand-written scenario keeps its timing and step delay over the server's latencyMs: 0 and chunkMs: 0", async () => {
    const handWritten = recording("hand-written", { latencyMs: LATENCY, chunkMs: CHUNK }, DELAY);
    delete (handWritten.turns[0].timing as { recorded?: boolean }).recorded;
    const clock = new WaitLog(0);
    const mock = await start({ scenarios: [handWritten], timers: clock, latencyMs: 0, chunkMs: 0 });
    const res = await replay(mock, clock);
    expect(res.scenario).toBe("hand-written");
    expect(res.wokeAt).toEqual(recordedTimes(res.text));
  });
});

describe("serve --scenarios DIR --latency-ms 0 --chunk-ms 0 (the CLI)", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("replays a recording of an hour's latency and delays at once", async () => {
    child = spawn(
      process.execPath,
      [
        BIN,
        "serve",
        "--port",
        "0",
        "--no-library",
        "--log",
        "json",
        "--scenarios",
        slowDir,
        "--latency-ms",
        "0",
        "--chunk-ms",
        "0",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const [first] = await new Promise<string[]>((resolve, reject) => {
      child!.stdout!.setEncoding("utf8").on("data", (d: string) => {
        out += d;
        if (out.includes("\n")) resolve(out.split("\n"));
      });
      child!.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
    });
    const { baseURL } = JSON.parse(first) as { baseURL: string };
    const res = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.headers.get("x-mock-scenario")).toBe("weather-in-paris-0a1b2c3d");
    const parsed = parseSseStrict(await res.text());
    expectConformantStream(parsed.events);
    expect(parsed.done).toBe(true);
    child.kill("SIGTERM");
    await once(child, "exit");
  });
});
