/**
 * When an answer ends, for the journal and for expectations: the time its
 * last write began, read before the write. Writing to the socket wakes the
 * client, which may run (and start timing a `retry-after`, or its wait before
 * the next turn) before the server's process runs again; a time read after
 * the write is then late by as long as the server waited, and a client that
 * waited the whole second looks early to the exam's `retry-429` lesson and to
 * a `waits_ms` expectation.
 *
 * The wait is made on purpose: the server's clock jumps 500 ms as soon as a
 * response has been ended, as if the process had been descheduled right
 * after its write.
 */
import { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ManualClock, fixedClock, type Clock } from "../../src/timing/clock.js";

const WALL_MS = 1_800_000_000_000;
const DESCHEDULED_MS = 500;

const timers = new ManualClock();
let skew = 0;
const clock: Clock = {
  now: () => timers.now() + skew,
  setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
  clearTimeout: (h) => timers.clearTimeout(h),
};
const end = ServerResponse.prototype.end;
let mock: MockServer;

beforeAll(async () => {
  ServerResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    const result = (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    skew += DESCHEDULED_MS;
    return result;
  } as typeof end;
  mock = await startMockServer({
    port: 0,
    timers: clock,
    clock: fixedClock(WALL_MS),
    library: false,
    scenarios: [
      {
        name: "limited",
        turns: [
          {
            end: {
              type: "http_error",
              status: 429,
              headers: { "retry-after": "1" },
              error: { type: "too_many_requests", code: "rate_limit_exceeded", message: "Slow down." },
            },
          },
        ],
      },
      { name: "text", turns: [{ steps: [{ type: "message", text: "Hello there." }] }] },
      {
        name: "patient",
        turns: [
          { steps: [{ type: "message", text: "first" }], expect: { continues: true, waits_ms: 1000 } },
          { steps: [{ type: "message", text: "second" }] },
        ],
      },
    ] as never,
  });
});
afterEach(() => {
  skew = 0;
});
afterAll(async () => {
  ServerResponse.prototype.end = end;
  await mock?.close();
});

/** Sends one request and reads its whole answer; the journal entry it made. */
async function answered(path: string, scenario: string, body: Record<string, unknown>, status: number) {
  const before = skew;
  const res = await fetch(`${mock.baseURL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-mock-scenario": scenario },
    body: JSON.stringify({ model: "mock-model-1", ...body }),
  });
  expect(res.status).toBe(status);
  await res.text();
  // The clock did jump once the response was ended (the premise of every case here).
  expect(skew - before).toBe(DESCHEDULED_MS);
  const entry = mock.requests.at(-1)!;
  expect(entry.status).toBe(status);
  expect(entry.endedAt).toBe(WALL_MS + entry.durationMs!);
  return entry;
}

describe("the end time of an answer is read before its last write", () => {
  it("a 429 (the retry-after a client times from it)", async () => {
    const entry = await answered("/responses", "limited", { input: "hi" }, 429);
    expect(entry.outcome).toBe("error");
    expect(entry.durationMs!).toBeLessThan(DESCHEDULED_MS);
  });

  it("a JSON answer, and a streamed one", async () => {
    const json = await answered("/responses", "text", { input: "hi" }, 200);
    expect(json.outcome).toBe("completed");
    expect(json.durationMs!).toBeLessThan(DESCHEDULED_MS);
    const sse = await answered("/responses", "text", { input: "hi", stream: true }, 200);
    expect(sse.outcome).toBe("completed");
    expect(sse.durationMs!).toBeLessThan(DESCHEDULED_MS);
  });

  it("Chat Completions: a 429, a JSON answer, a streamed one", async () => {
    const messages = [{ role: "user", content: "hi" }];
    for (const [scenario, stream, status] of [
      ["limited", false, 429],
      ["text", false, 200],
      ["text", true, 200],
    ] as const) {
      const entry = await answered("/chat/completions", scenario, { messages, stream }, status);
      expect(entry.durationMs!, `${scenario} stream: ${stream}`).toBeLessThan(DESCHEDULED_MS);
    }
  });

  it("waits_ms counts from the write: a client that waited the whole second is not early", async () => {
    const session = mock.session("patient-client");
    const post = (body: Record<string, unknown>) =>
      fetch(`${mock.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-scenario": "patient", "x-mock-session": session.id },
        body: JSON.stringify({ model: "mock-model-1", ...body }),
      });
    const first = (await (await post({ input: "hi" })).json()) as { id: string };
    // The client had the answer at the write; the server ran again 500 ms later. The client waits its 1000 ms.
    expect(skew).toBe(DESCHEDULED_MS);
    await timers.advance(1000 - DESCHEDULED_MS);
    await (await post({ previous_response_id: first.id, input: "again" })).text();
    const report = (await (await fetch(`${mock.url}/__mock/verify?session=${session.id}`)).json()) as {
      expectations: { rule: string; status: string; message: string }[];
    };
    const waits = report.expectations.find((e) => e.rule === "waits_ms")!;
    expect(waits.status, waits.message).toBe("met");
  });
});
