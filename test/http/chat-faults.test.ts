/**
 * Timing and faults on `/v1/chat/completions`, on a ManualClock: the chunks
 * are paced by the turn's schedule, a stall holds them where it holds the
 * events, and a hang keeps the stream open with heartbeats until the client
 * leaves (journaled `hung`).
 */
import { request as httpRequest, type ClientRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock, ManualClock } from "../../src/timing/clock.js";
import { foldChatChunks, parseChatSse } from "../support/chat-sse.js";
import { TEST_NOW_MS } from "../support/server.js";

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(): Promise<{ mock: MockServer; clock: ManualClock }> {
  const clock = new ManualClock(1_000);
  const mock = await startMockServer({ port: 0, clock: fixedClock(TEST_NOW_MS), timers: clock });
  servers.push(mock);
  return { mock, clock };
}

/** A streamed chat request whose body is read as it comes. */
function open(mock: MockServer, headers: Record<string, string>) {
  let text = "";
  let ended = false;
  let req: ClientRequest;
  const result = new Promise<number>((resolve, reject) => {
    req = httpRequest(
      new URL(`${mock.baseURL}/chat/completions`),
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        const end = () => {
          ended = true;
          resolve(res.statusCode!);
        };
        res.on("end", end);
        res.on("error", end);
        res.on("aborted", end);
      },
    );
    req.on("error", (err) => (ended ? undefined : reject(err)));
    req.end(
      JSON.stringify({
        model: "gpt-4o",
        stream: true,
        messages: [{ role: "user", content: "Tell me something." }],
      }),
    );
  });
  return { text: () => text, ended: () => ended, result, abort: () => req.destroy() };
}

/** Advances the clock step by step, with a moment of real time for the I/O. */
async function advance(clock: ManualClock, ms: number, step = 10): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await sleep(1);
  }
}

describe("chat streams on the turn's schedule", () => {
  it("x-mock-chunk-ms paces the chunks: nothing more until the clock moves", async () => {
    const { mock, clock } = await start();
    const stream = open(mock, { "x-mock-scenario": "text", "x-mock-chunk-ms": "100" });
    await advance(clock, 20);
    const early = parseChatSse(stream.text(), { requireEnd: false }).chunks.length;
    expect(stream.ended()).toBe(false);
    await advance(clock, 10_000, 50);
    await stream.result;
    const { chunks, done } = parseChatSse(stream.text());
    expect(done).toBe(true);
    expect(chunks.length).toBeGreaterThan(early);
    expect(foldChatChunks(chunks).finish).toBe("stop");
  });

  it("a stall holds the chunks where it holds the events, then the stream goes on to [DONE]", async () => {
    const { mock, clock } = await start();
    const stream = open(mock, {
      "x-mock-scenario": "text",
      "x-mock-fault": "stall-after-events=5; stall-ms=5000",
    });
    await advance(clock, 1_000, 50);
    const held = stream.text();
    expect(stream.ended()).toBe(false);
    const before = parseChatSse(held, { requireEnd: false }).chunks.length;
    expect(before).toBeGreaterThan(0);
    await advance(clock, 2_000, 50);
    expect(parseChatSse(stream.text(), { requireEnd: false }).chunks.length).toBe(before);
    await advance(clock, 4_000, 50);
    await stream.result;
    const { done, chunks } = parseChatSse(stream.text());
    expect(done).toBe(true);
    expect(chunks.length).toBeGreaterThan(before);
    expect(mock.requests.at(-1)!.outcome).toBe("completed");
  });

  it("a hang keeps the stream open with heartbeats until the client leaves: journaled hung", async () => {
    const { mock, clock } = await start();
    const stream = open(mock, {
      "x-mock-scenario": "text",
      "x-mock-fault": "hang-after-events=4",
      "x-mock-heartbeat-ms": "5000",
    });
    await advance(clock, 60_000, 1_000);
    expect(stream.ended()).toBe(false);
    const { chunks, done, comments } = parseChatSse(stream.text(), { requireEnd: false });
    expect(done).toBe(false);
    expect(chunks.length).toBeGreaterThan(0);
    expect(foldChatChunks(chunks).finish).toBeNull();
    expect(comments.length).toBeGreaterThan(0);
    stream.abort();
    for (let i = 0; i < 100 && mock.requests.at(-1)?.outcome == null; i++) await sleep(5);
    expect(mock.requests.at(-1)!.outcome).toBe("hung");
  });
});
