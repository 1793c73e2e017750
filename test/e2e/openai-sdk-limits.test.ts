/**
 * The `openai` Node SDK against the limiter: with `maxRetries` it retries a
 * 429 after the `retry-after-ms` the mock sent, and the retry succeeds. The
 * SDK waits on real timers, so the server runs on the real clock with a
 * small window (120 rpm: a request every 500 ms), and the timing is read
 * from the journal's arrival times, not from timers in the test.
 */
import OpenAI, { RateLimitError } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, rpm: 120 });
});
afterAll(async () => {
  await mock?.close();
});

describe("openai SDK and the limiter", () => {
  it("retries a 429 after the mock's retry-after-ms and succeeds", async () => {
    const session = mock.session();
    const client = new OpenAI({
      baseURL: mock.baseURL,
      apiKey: "sk-test",
      maxRetries: 2,
      defaultHeaders: session.headers,
    });
    // Spend the bucket (120 per minute, full): the next request is refused.
    await session.limits({ rpm: 1 });
    await client.responses.create({ model: "gpt-test", input: "first" });
    await session.limits({ rpm: 120 });
    const { data, response } = await client.responses.create({ model: "gpt-test", input: "second" }).withResponse();
    expect(data.status).toBe("completed");
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("120");

    const entries = session.requests;
    expect(entries.map((e) => e.status)).toEqual([200, 429, 200]);
    const refused = entries[1];
    const retryMs = Number(refused.limits!.headers["retry-after-ms"]);
    expect(retryMs).toBeGreaterThan(0);
    expect(retryMs).toBeLessThanOrEqual(500);
    // The retry arrived once the mock said it would fit (the clocks' ms rounding aside), and not long after.
    const waited = entries[2].at - refused.at;
    expect(waited).toBeGreaterThanOrEqual(retryMs - 2);
    expect(waited).toBeLessThan(retryMs + 400);
    // The retry carries the SDK's retry count: it is the same request, retried.
    expect(entries[2].headers["x-stainless-retry-count"]).toBe("1");
  });

  it("without retries the SDK raises RateLimitError with the mock's headers and OpenAI's body in the openai dialect", async () => {
    const session = mock.session();
    const client = new OpenAI({
      baseURL: mock.baseURL,
      apiKey: "sk-test",
      maxRetries: 0,
      defaultHeaders: { ...session.headers, "x-mock-dialect": "openai" },
    });
    await session.limits({ rpm: 1 });
    await client.responses.create({ model: "gpt-test", input: "first" });
    const err = await client.responses.create({ model: "gpt-test", input: "second" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    const e = err as RateLimitError;
    expect(e.status).toBe(429);
    expect(e.type).toBe("requests");
    expect(e.code).toBe("rate_limit_exceeded");
    expect(e.headers?.get("retry-after")).toBe("60");
    expect(e.message).toContain(
      "Rate limit reached for gpt-test in organization org-mock on requests per min (RPM): Limit 1, Used 1, Requested 1.",
    );
  });
});
