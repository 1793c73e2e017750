/**
 * The limiter in Redis (src/store/redis-limits.ts): two servers (replicas)
 * on one real redis-server enforce one limit between them, atomically, and
 * share session limits, budgets, usage totals and resets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { startRedis, type RedisServer } from "./redis-support.js";

let redis: RedisServer;
let a: MockServer;
let b: MockServer;
let serial = 0;
const fresh = () => `redis-limits-${process.pid}-${++serial}`;

beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([
    startMockServer({ port: 0, store: redis.url, rpm: 20 }),
    startMockServer({ port: 0, store: redis.url, rpm: 20 }),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await redis?.stop();
});

/** A create request on a new connection (no keep-alive). */
async function create(server: MockServer, headers: Record<string, string>, body: Record<string, unknown> = {}) {
  const res = await fetch(`${server.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close", ...headers },
    body: JSON.stringify({ model: "gpt-test", input: "hello", ...body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as Record<string, any> };
}

describe("two replicas on one Redis", () => {
  it("rpm 20: 40 requests at once across new connections give exactly 20 answers and 20 429s", async () => {
    const session = { "x-mock-session": fresh() };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i % 2 ? a : b, session)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    // Each answer's remaining count is distinct: 19 … 0, whichever process answered.
    const remaining = results
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get("x-ratelimit-remaining-requests")))
      .sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (const r of results.filter((r) => r.status === 429)) {
      expect(r.json.error.code).toBe("rate_limit_exceeded");
      const ms = Number(r.headers.get("retry-after-ms"));
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(3000);
    }
    // The totals are shared: both processes answer the same.
    const [fromA, fromB] = await Promise.all([
      fetch(`${a.url}/__mock/usage`, { headers: session }).then((r) => r.json() as Promise<any>),
      fetch(`${b.url}/__mock/usage`, { headers: session }).then((r) => r.json() as Promise<any>),
    ]);
    expect(fromA).toEqual(fromB);
    expect(fromA.total.requests).toBe(20);
    expect(fromA.total.refused.rate_limited).toBe(20);
    const cost = [...a.requests, ...b.requests]
      .filter((e) => e.session === session["x-mock-session"])
      .reduce((n, e) => n + (e.costUsd ?? 0), 0);
    expect(fromA.total.costUsd).toBeCloseTo(cost, 12);
  }, 30_000);

  it("session limits set through one apply on the other; a budget is spent across both; reset refills it", async () => {
    const s = a.session(fresh());
    const onB = b.session(s.id);
    await s.limits({ rpm: 1000, budgetUsd: 0.0000001 });
    expect((await onB.usage()).total.requests).toBe(0);
    const first = await create(b, s.headers);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("1000");
    const second = await create(a, s.headers, {});
    expect(second.status).toBe(429);
    expect(second.json.error.code).toBe("insufficient_quota");
    const openai = await create(b, { ...s.headers, "x-mock-dialect": "openai" });
    expect(openai.json.error.type).toBe("insufficient_quota");
    // A reset through B (awaited: the route answers once Redis has it) forgets it for A too, the limits as well.
    expect((await fetch(`${b.url}/__mock/reset`, { method: "POST", headers: onB.headers })).status).toBe(204);
    const again = await create(a, s.headers);
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-limit-requests")).toBe("20");
    const view = await fetch(`${a.url}/__mock/limits`, { headers: s.headers }).then((r) => r.json() as Promise<any>);
    expect(view.limits).toEqual({ rpm: null, tpm: null, budgetUsd: null });
  });

  it("keys are never written whole; buckets expire once full", async () => {
    const session = { "x-mock-session": fresh() };
    const key = "sk-secret-redis-key-0123456789";
    await create(a, { ...session, authorization: `Bearer ${key}` });
    const usage = await a.usage();
    expect(JSON.stringify(usage)).not.toContain(key);
    expect(usage.keys.some((k) => k.key === "***6789")).toBe(true);
    const { createClient } = await import("redis");
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = await client.keys("openresponses-mock:*");
      const values = await Promise.all(
        keys
          .filter((k) => k.includes(session["x-mock-session"]))
          .map((k) => client.type(k).then(async (t) => (t === "hash" ? JSON.stringify(await client.hGetAll(k)) : ""))),
      );
      expect(keys.join(" ") + values.join(" ")).not.toContain(key);
      const bucket = keys.find((k) => k.startsWith(`openresponses-mock:bucket:${session["x-mock-session"]}|`))!;
      expect(bucket).toBeDefined();
      // One request of 20 per minute: full again in 3 s, plus a second.
      const ttl = await client.pTTL(bucket);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(4000);
    } finally {
      await client.close();
    }
  });
});

describe("the Redis store alone", () => {
  it("a refund gives a passed request's charge back: its bucket and its totals", async () => {
    const { RedisLink } = await import("../../src/store/redis-client.js");
    const { RedisLimits } = await import("../../src/store/redis-limits.js");
    const link = await RedisLink.connect(redis.url, redis.url, () => undefined);
    try {
      const store = new RedisLimits(link);
      const session = fresh();
      const c = {
        session,
        key: "sk-refund",
        model: "m",
        limits: { rpm: 10, tpm: 1000 },
        tokens: 100,
        usage: { input: 40, cached: 0, output: 60, reasoning: 0 },
        costUsd: 0.001,
      };
      const first = await store.charge(c);
      expect(first.requests?.remaining).toBe(9);
      expect(first.tokens?.remaining).toBe(900);
      store.refund(c, first);
      const second = await store.charge(c);
      // The refund came first (one connection, in order): the bucket is back to 10, less this one.
      expect(second.requests?.remaining).toBe(9);
      expect(second.tokens?.remaining).toBe(900);
      const usage = await store.usage(session);
      expect(usage.total).toMatchObject({ requests: 1, inputTokens: 40, outputTokens: 60 });
      expect(usage.total.costUsd).toBeCloseTo(0.001, 12);
    } finally {
      await link.close();
    }
  });
});
