/**
 * Issue 26's "past one process", as a user runs it: `serve --workers 2
 * --store redis://… --rpm 20`, and 40 requests at once, each on a new
 * connection, so that both workers answer. The two processes enforce one
 * bucket between them: exactly 20 answers and 20 429s.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { killStarted, startCli, startRedis, type CliServer, type RedisServer } from "./redis-support.js";

let redis: RedisServer;
let cli: CliServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
}, 20_000);
afterEach(async () => {
  await cli?.stop();
  cli = undefined;
  killStarted();
});
afterAll(async () => {
  await redis?.stop();
});

describe("serve --workers 2 --store redis://… --rpm 20", () => {
  it("40 requests at once on new connections: exactly 20 answers and 20 429s, from both workers", async () => {
    cli = await startCli([
      "serve",
      "--port",
      "0",
      "--log",
      "off",
      "--workers",
      "2",
      "--store",
      redis.url,
      "--rpm",
      "20",
    ]);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${cli!.baseURL}/responses`, {
          method: "POST",
          // A new connection for each: the workers share the port, so both take some.
          headers: { "content-type": "application/json", connection: "close", authorization: "Bearer sk-shared" },
          body: JSON.stringify({ model: "mock-model", input: `request ${i}` }),
        }).then(async (res) => ({
          status: res.status,
          worker: res.headers.get("x-mock-worker"),
          remaining: res.headers.get("x-ratelimit-remaining-requests"),
          retryAfterMs: res.headers.get("retry-after-ms"),
          body: (await res.json()) as { error?: { code?: string } },
        })),
      ),
    );
    const answered = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(answered).toHaveLength(20);
    expect(refused).toHaveLength(20);
    // Both processes answered, and between them counted one bucket down: 19 … 0, each once.
    expect(new Set(results.map((r) => r.worker)).size).toBe(2);
    expect(answered.map((r) => Number(r.remaining)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    for (const r of refused) {
      expect(r.body.error?.code).toBe("rate_limit_exceeded");
      // One request's room comes back in 60 s / 20 = 3 s at most.
      expect(Number(r.retryAfterMs)).toBeGreaterThan(0);
      expect(Number(r.retryAfterMs)).toBeLessThanOrEqual(3_000);
    }
  }, 30_000);
});
