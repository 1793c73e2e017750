/** The pure bucket arithmetic (src/service/bucket.ts) and the limiter's memory store and its bound (src/store/limits-memory.ts). */
import { describe, expect, it } from "vitest";
import { goDuration, levelAt, resetMs, retryAfterMs, take } from "../../src/service/bucket.js";
import { baseLimits, parseLimitsPatch, rateLimitHeaders, type LimitCharge } from "../../src/service/limits.js";
import { defaultService } from "../../src/service/service.js";
import { MAX_BUCKETS, MAX_ROWS, MemoryLimits } from "../../src/store/limits-memory.js";
import { ManualClock } from "../../src/timing/clock.js";

describe("goDuration: OpenAI's spelling of a duration (Go's time.Duration, to the ms)", () => {
  it.each([
    [0, "0s"],
    [-5, "0s"],
    [0.2, "1ms"],
    [17, "17ms"],
    [120, "120ms"],
    [999, "999ms"],
    [1000, "1s"],
    [1500, "1.5s"],
    [1898, "1.898s"],
    [20_000, "20s"],
    [60_000, "1m0s"],
    [172_800, "2m52.8s"],
    [360_000, "6m0s"],
    [3_600_000, "1h0m0s"],
    [3_723_004, "1h2m3.004s"],
  ])("%s ms → %s", (ms, text) => expect(goDuration(ms)).toBe(text));
});

describe("a bucket", () => {
  it("refills continuously at limit/60000 per ms, up to its limit", () => {
    expect(levelAt(undefined, 3, 0)).toBe(3);
    expect(levelAt({ level: 0, at: 0 }, 3, 20_000)).toBeCloseTo(1, 12);
    expect(levelAt({ level: 0, at: 0 }, 3, 600_000)).toBe(3);
    // A clock that went back does not drain it.
    expect(levelAt({ level: 1, at: 100 }, 3, 50)).toBe(1);
  });

  it("says the exact whole ms until a cost fits, and that a cost over the limit never does", () => {
    expect(retryAfterMs(0, 3, 1)).toBe(20_000);
    expect(retryAfterMs(0.5, 3, 1)).toBe(10_000);
    expect(retryAfterMs(1, 3, 1)).toBe(0);
    expect(retryAfterMs(0, 3, 4)).toBe(Infinity);
    // At the very ms it names, the level is enough (no floating point refusal).
    for (const [level, cap, cost] of [
      [0.1, 7, 1],
      [13.37, 90_000, 4_321],
      [0, 1, 1],
    ]) {
      const wait = retryAfterMs(level, cap, cost);
      expect(retryAfterMs(levelAt({ level, at: 0 }, cap, wait), cap, cost)).toBe(0);
      expect(retryAfterMs(levelAt({ level, at: 0 }, cap, wait - 1), cap, cost)).toBeGreaterThan(0);
    }
  });

  it("says when it is full again", () => {
    expect(resetMs(2, 3)).toBe(20_000);
    expect(resetMs(3, 3)).toBe(0);
    expect(resetMs(59, 60)).toBe(1000);
  });

  it("take is all or nothing, and names the bucket that holds a request back longest", () => {
    expect(
      take([
        { capacity: 3, level: 1, cost: 1 },
        { capacity: 100, level: 50, cost: 10 },
      ]),
    ).toEqual({ index: -1, waitMs: 0 });
    expect(
      take([
        { capacity: 3, level: 1, cost: 1 },
        { capacity: 100, level: 5, cost: 10 },
      ]),
    ).toEqual({ index: 1, waitMs: 3000 });
    expect(
      take([
        { capacity: 3, level: 0, cost: 1 },
        { capacity: 100, level: 5, cost: 10 },
      ]),
    ).toEqual({ index: 0, waitMs: 20_000 });
  });
});

describe("limits", () => {
  it("lowest to highest: the service's defaults, the model's, the key's (the session's are laid over by the store)", () => {
    const base = defaultService();
    const service = {
      ...base,
      defaults: { ...base.defaults, limits: { rpm: 10, tpm: 1000 } },
      models: new Map([["big", { id: "big", ...base.defaults, limits: { rpm: 5 } }]]),
      keys: new Map([["k1", { tpm: 50 }]]),
    };
    expect(baseLimits(service, "small", null)).toEqual({ rpm: 10, tpm: 1000, budgetUsd: undefined });
    expect(baseLimits(service, "big", null)).toEqual({ rpm: 5, tpm: 1000, budgetUsd: undefined });
    expect(baseLimits(service, "big", "k1")).toEqual({ rpm: 5, tpm: 50, budgetUsd: undefined });
  });

  it("headers only for the limits that exist; a refusal adds retry-after rounded up and retry-after-ms", () => {
    const v = {
      verdict: "rate_limited" as const,
      limit: "requests" as const,
      retryMs: 1200,
      requests: { limit: 3, remaining: 0, resetMs: 60_000 },
      tokens: null,
      used: 3,
      requested: 1,
      limits: { rpm: 3 },
    };
    expect(rateLimitHeaders(v)).toEqual({
      "x-ratelimit-limit-requests": "3",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1m0s",
      "retry-after": "2",
      "retry-after-ms": "1200",
    });
  });

  it("a limits body: each field a number or null; every problem listed", () => {
    expect(parseLimitsPatch({ rpm: 3, tpm: null }, "x")).toEqual({ rpm: 3, tpm: null });
    expect(() => parseLimitsPatch({ rpm: 0, budgetUsd: -1 }, "x")).toThrow(/^x: 2 problems: rpm: .*; budgetUsd: /);
    expect(() => parseLimitsPatch(null, "x")).toThrow(/send a JSON object/);
  });
});

describe("the memory store's bound", () => {
  const charge = (key: string, model = "m"): LimitCharge => ({
    session: null,
    key,
    model,
    limits: { rpm: 60, tpm: 100_000 },
    tokens: 20,
    usage: { input: 10, cached: 0, output: 10, reasoning: 0 },
    costUsd: 0.0001,
  });

  it("100,000 distinct keys within a minute: buckets stay at the cap, usage rows too, and memory is bounded", () => {
    const clock = new ManualClock();
    const store = new MemoryLimits(clock);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 100_000; i++) {
      expect(store.charge(charge(`sk-key-number-${i}`)).verdict).toBe("passed");
      if (i % 1000 === 0) void clock.advance(1);
    }
    const sizes = store.sizes;
    expect(sizes.buckets).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(sizes.rows).toBeLessThanOrEqual(2 * MAX_ROWS + 1);
    global.gc?.();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(64 * 1024 * 1024);
    // The totals still count every request (the keys past MAX_ROWS together on one row).
    const usage = store.usage(undefined);
    expect(usage.total.requests).toBe(100_000);
    expect(usage.keys.reduce((n, k) => n + k.requests, 0)).toBe(100_000);
    expect(usage.keys.some((k) => k.key === "(other keys)")).toBe(true);
  });

  it("a bucket back at full is dropped: idle keys leave nothing behind", async () => {
    const clock = new ManualClock();
    const store = new MemoryLimits(clock);
    for (let i = 0; i < 1000; i++) store.charge(charge(`k${i}`));
    expect(store.sizes.buckets).toBe(1000);
    // A minute later every one of them is full: the next charges drop the oldest ones as they go.
    await clock.advance(60_000);
    for (let i = 0; i < 300; i++) store.charge(charge(`again${i}`));
    expect(store.sizes.buckets).toBe(300);
    // And a key charged again keeps its level (it is the newest, not dropped).
    for (let i = 0; i < 60; i++) store.charge(charge("busy"));
    expect(store.charge(charge("busy")).verdict).toBe("rate_limited");
  });
});
