/**
 * A bounded soak: for ORM_SOAK_MS (default 5 s), a pool of clients sends mixed
 * streamed and non-streamed requests over the library's scenarios with small
 * random pacing (chunk, jitter, latency, heartbeats); about 20% are aborted by
 * the client at a random moment, some carry faults (drop after N events or T
 * ms, hang, stall). Every answer that was not aborted or cut by a fault must
 * be whole and conformant.
 *
 * Afterwards, with a short settle: the server holds no connection, the
 * process holds no more `Timeout` handles or TCP sockets than before, the
 * server logged no internal error, and the heap (after two full GCs) grew by
 * less than a bound — skipped when no GC can be had. One summary line is
 * printed. ORM_SOAK_SEED fixes the random choices.
 */
import vm from "node:vm";
import v8 from "node:v8";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import {
  activeResources,
  connectionsOf,
  expectSaneAnswer,
  health,
  plainRequest,
  settle,
  soakMs,
  watchInternalErrors,
  type InternalErrors,
  type PlainResult,
} from "../support/robust.js";
import { parseSseStrict } from "../support/sse-parser.js";

const SOAK_MS = soakMs(5_000);
const WORKERS = 16;
const SEED = Number(process.env.ORM_SOAK_SEED) || Date.now() % 1_000_000;
/** Heap growth allowed across the soak, after GC (store and journal are capped small). */
const HEAP_BOUND_MB = 24;

/** mulberry32: a small seeded PRNG, so a failing soak can be replayed with ORM_SOAK_SEED. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)],
    chance: (p: number) => next() < p,
  };
}

/** A full GC, if one can be had: --expose-gc, or the V8 flag set at run time. */
function findGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === "function") return existing;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

const SCENARIOS = [
  "auto",
  "auto",
  "auto",
  "text",
  "reasoning",
  "tool-call",
  "parallel-tool-calls",
  "refusal",
  "incomplete",
  "content-filter",
  "failure-mid-stream",
  "vendor",
  "annotations",
  "random",
  "random-chaos",
  "streamed-arguments",
  "error-429",
  "error-400",
];
const SCRIPTED_STATUS: Record<string, number> = { "error-429": 429, "error-400": 400 };
const TOOLS = [
  {
    type: "function",
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    type: "function",
    name: "get_time",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
];

type Outcome = "complete" | "aborted" | "cut by fault" | "scripted error";

let mock: MockServer;
let internal: InternalErrors;

beforeAll(async () => {
  internal = watchInternalErrors();
  mock = await startMockServer({ port: 0, seed: 11, storeLimit: 50, journalLimit: 50 });
});

afterAll(async () => {
  await mock?.close();
  internal?.restore();
});

interface Plan {
  scenario: string;
  stream: boolean;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  abortAfterMs?: number;
  fault?: "drop" | "drop-ms" | "hang" | "stall";
}

function planRequest(rng: ReturnType<typeof prng>): Plan {
  const scenario = rng.pick(SCENARIOS);
  const stream = rng.chance(0.5);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-mock-scenario": scenario,
    "x-mock-seed": String(rng.int(0, 1_000)),
  };
  if (rng.chance(0.7)) headers["x-mock-chunk-ms"] = String(rng.int(0, 3));
  if (rng.chance(0.3)) headers["x-mock-jitter-ms"] = String(rng.int(0, 2));
  if (rng.chance(0.2)) headers["x-mock-latency-ms"] = String(rng.int(0, 20));
  if (rng.chance(0.2)) headers["x-mock-heartbeat-ms"] = String(rng.int(2, 10));
  const plan: Plan = {
    scenario,
    stream,
    headers,
    body: {
      model: "mock-model-1",
      input: rng.pick(["Hi!", "Weather in Paris and the time in Tokyo?", "Tell me a story.", "Think first."]),
      stream,
      store: rng.chance(0.5),
    },
  };
  if (rng.chance(0.5)) plan.body.tools = TOOLS;
  if (rng.chance(0.2)) plan.body.reasoning = { effort: "low", summary: "auto" };
  const f = rng.next();
  if (f < 0.1) {
    plan.fault = "drop";
    headers["x-mock-fault"] = `drop-after-events=${rng.int(0, 15)}`;
  } else if (f < 0.13) {
    plan.fault = "drop-ms";
    headers["x-mock-fault"] = `drop-after-ms=${rng.int(0, 30)}`;
  } else if (f < 0.16) {
    plan.fault = "hang";
    headers["x-mock-fault"] = `hang-after-events=${rng.int(0, 10)}`;
    plan.abortAfterMs = rng.int(10, 80); // a hang lasts until the client gives up
  } else if (f < 0.19) {
    plan.fault = "stall";
    headers["x-mock-fault"] = `stall-after-events=${rng.int(0, 10)}; stall-ms=${rng.int(1, 30)}`;
  }
  if (plan.abortAfterMs === undefined && rng.chance(0.2)) plan.abortAfterMs = rng.int(0, 60);
  return plan;
}

/** Sends one planned request and judges its answer. */
async function run(plan: Plan): Promise<{ outcome: Outcome; problem?: string }> {
  const controller = new AbortController();
  const timer = plan.abortAfterMs !== undefined ? setTimeout(() => controller.abort(), plan.abortAfterMs) : undefined;
  let res: PlainResult;
  try {
    res = await plainRequest(`${mock.baseURL}/responses`, {
      headers: plan.headers,
      body: JSON.stringify(plan.body),
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
  const describe = () =>
    `${plan.scenario} stream=${plan.stream} ${JSON.stringify(plan.headers)} → ${res.status} ${res.end} ${res.error ?? ""}: ${res.text.slice(-200)}`;
  if (res.end === "aborted") return { outcome: "aborted" };
  const scripted = SCRIPTED_STATUS[plan.scenario];
  if (res.end === "cut") {
    // Only a drop (or a hang the client gave up on) may cut an answer; what came before the cut must be well framed.
    if (plan.fault !== "drop" && plan.fault !== "drop-ms")
      return { outcome: "cut by fault", problem: `cut without a fault: ${describe()}` };
    if (res.status === 200 && plan.stream) {
      try {
        parseSseStrict(res.text, { requireDone: false });
      } catch (err) {
        return {
          outcome: "cut by fault",
          problem: `badly framed before the cut (${(err as Error).message}): ${describe()}`,
        };
      }
    }
    return { outcome: "cut by fault" };
  }
  try {
    if (scripted) {
      expectSaneAnswer(
        { status: res.status, contentType: String(res.headers["content-type"] ?? ""), text: res.text },
        { expectedStatus: scripted },
      );
      return { outcome: "scripted error" };
    }
    // A drop timed after the whole answer was sent leaves it whole.
    expectSaneAnswer(
      { status: res.status, contentType: String(res.headers["content-type"] ?? ""), text: res.text },
      { expectedStatus: 200 },
    );
    return { outcome: "complete" };
  } catch (err) {
    return { outcome: "complete", problem: `${(err as Error).message.split("\n")[0]}: ${describe()}` };
  }
}

/** Runs WORKERS clients until the deadline; returns the tallies. */
async function soak(ms: number, rng: ReturnType<typeof prng>) {
  const tally: Record<Outcome, number> = { complete: 0, aborted: 0, "cut by fault": 0, "scripted error": 0 };
  const problems: string[] = [];
  let streamed = 0;
  const deadline = Date.now() + ms;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (Date.now() < deadline) {
        const plan = planRequest(rng);
        if (plan.stream) streamed++;
        const { outcome, problem } = await run(plan);
        tally[outcome]++;
        if (problem) problems.push(problem);
      }
    }),
  );
  const total = Object.values(tally).reduce((a, b) => a + b, 0);
  return { tally, problems, streamed, total };
}

const heapMb = () => process.memoryUsage().heapUsed / 1e6;

it(
  "mixed, aborted and faulted requests leave no connection, timer or memory behind",
  async () => {
    const rng = prng(SEED);
    const gc = findGc();
    const fullGc = () => {
      gc?.();
      gc?.();
    };

    // Warm up (JIT, capped store and journal filled), then let everything settle and take the baseline.
    const warm = await soak(Math.min(1_000, SOAK_MS / 4), rng);
    expect(warm.problems).toEqual([]);
    expect(await settle(async () => (await connectionsOf(mock.server)) === 0, 3_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    const before = activeResources();
    fullGc();
    const heapBefore = heapMb();

    const { tally, problems, streamed, total } = await soak(SOAK_MS, rng);

    // Settle: no connection, no extra timer, no extra socket.
    const connectionsGone = await settle(async () => (await connectionsOf(mock.server)) === 0, 3_000);
    const timersBack = await settle(() => (activeResources().Timeout ?? 0) <= (before.Timeout ?? 0), 3_000);
    const socketsBack = await settle(
      () => (activeResources().TCPSocketWrap ?? 0) <= (before.TCPSocketWrap ?? 0),
      3_000,
    );
    const after = activeResources();
    fullGc();
    const heapAfter = heapMb();
    const growth = heapAfter - heapBefore;
    const leaked = internal.take();

    console.log(
      `soak: ${(SOAK_MS / 1000).toFixed(1)} s, seed ${SEED}: ${total} requests (${streamed} streamed): ${tally.complete} complete, ${tally["scripted error"]} scripted errors, ` +
        `${tally.aborted} aborted, ${tally["cut by fault"]} cut by faults, ${problems.length} problems, ${leaked.length} internal errors; ` +
        `connections ${await connectionsOf(mock.server)}, Timeout ${before.Timeout ?? 0}→${after.Timeout ?? 0}, TCP sockets ${before.TCPSocketWrap ?? 0}→${after.TCPSocketWrap ?? 0}, ` +
        (gc
          ? `heap ${heapBefore.toFixed(1)}→${heapAfter.toFixed(1)} MB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)})`
          : "heap not checked (no gc)"),
    );

    expect(problems.slice(0, 5)).toEqual([]);
    expect(leaked).toEqual([]);
    expect(total).toBeGreaterThan(50);
    expect(tally.aborted).toBeGreaterThan(0);
    expect(tally.complete).toBeGreaterThan(0);
    expect(connectionsGone, "the server still holds connections").toBe(true);
    expect(timersBack, `Timeout handles: ${before.Timeout ?? 0} before, ${after.Timeout ?? 0} after`).toBe(true);
    expect(socketsBack, `TCP sockets: ${before.TCPSocketWrap ?? 0} before, ${after.TCPSocketWrap ?? 0} after`).toBe(
      true,
    );
    if (gc) expect(growth, `heap grew by ${growth.toFixed(1)} MB`).toBeLessThan(HEAP_BOUND_MB);
    expect(await health(mock.url)).toBe(200);
  },
  SOAK_MS + 60_000,
);
