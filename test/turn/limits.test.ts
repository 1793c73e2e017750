/**
 * The limiter (src/turn/limits.ts) against a real server on port 0, on a
 * ManualClock (both `timers` and `clock`, so that the journal's arrival
 * times are the limiter's): RPM and TPM buckets with their headers and
 * 429s, budgets, usage totals and cost, dialect bodies, session isolation,
 * reset, and the admin routes' bad bodies.
 */
import { startChatUpstream } from "../support/chat-upstream.js";
import { afterEach, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import type { ServerOptionsInput } from "../../src/options.js";
import { ManualClock } from "../../src/timing/clock.js";
import { ErrorBody } from "../../src/spec/errors.js";
import { expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server on a ManualClock that starts at a round wall time. */
async function start(options: ServerOptionsInput = {}) {
  const clock = new ManualClock(1_767_225_600_000);
  const mock = await startMockServer({ port: 0, timers: clock, clock, ...options });
  servers.push(mock);
  return { mock, clock };
}

async function create(mock: MockServer, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "gpt-test", input: "hello", ...body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Record<string, any> };
}

async function admin(
  mock: MockServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${mock.url}/__mock${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : (JSON.parse(text) as Record<string, any>) };
}

const ratelimit = (h: Headers) =>
  Object.fromEntries([...h].filter(([name]) => name.startsWith("x-ratelimit-") || name.startsWith("retry-after")));

describe("rpm: the Done-when case", () => {
  it("three pass counting 2, 1, 0; the fourth's retry-after-ms is when a fifth first succeeds (from the journal)", async () => {
    const { mock, clock } = await start({ rpm: 3 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await create(mock);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("x-ratelimit-remaining-requests")!);
      expect(res.headers.get("x-ratelimit-limit-requests")).toBe("3");
      // No TPM limit: no tokens headers.
      expect(res.headers.get("x-ratelimit-limit-tokens")).toBeNull();
      await clock.advance(1);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await create(mock);
    expect(refused.status).toBe(429);
    expectErrorBody(refused.json);
    expect(refused.json.error).toMatchObject({ type: "too_many_requests", code: "rate_limit_exceeded" });
    const retryMs = Number(refused.headers.get("retry-after-ms"));
    expect(retryMs).toBeGreaterThan(0);
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil(retryMs / 1000)));
    expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    // No static stand-ins from the openai dialect's scripted 429s.
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("3");

    // The fifth: tried every 10 ms of the manual clock until it passes, from 15 s on (earlier tries are 429s too).
    expect((await create(mock)).status).toBe(429);
    await clock.advance(15_000);
    expect((await create(mock)).status).toBe(429);
    let fifth;
    for (let tries = 0; tries < 10_000; tries++) {
      await clock.advance(10);
      fifth = await create(mock);
      if (fifth.status === 200) break;
      expect(fifth.status).toBe(429);
    }
    expect(fifth!.status).toBe(200);
    const entries = mock.requests.filter((e) => e.path === "/v1/responses");
    const fourth = entries[3];
    const firstSuccess = entries.slice(4).find((e) => e.status === 200)!;
    expect(fourth.status).toBe(429);
    expect(Math.abs(firstSuccess.at - fourth.at - retryMs)).toBeLessThanOrEqual(50);
    // The journal keeps the verdict and its headers; refusals cost nothing.
    expect(fourth.limits).toMatchObject({ verdict: "rate_limited", limit: "requests" });
    expect(fourth.limits!.headers["retry-after-ms"]).toBe(String(retryMs));
    expect(fourth.costUsd).toBeNull();
    expect(entries[0].limits).toMatchObject({ verdict: "passed", limit: null });
    expect(entries[0].limits!.headers["x-ratelimit-remaining-requests"]).toBe("2");
  });

  it("refill is continuous: the reset header says when the bucket is full again, in OpenAI's spelling", async () => {
    const { mock, clock } = await start({ rpm: 60 });
    const first = await create(mock);
    // 60 rpm: one request per second; one used is full again in 1s.
    expect(ratelimit(first.headers)).toEqual({
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-reset-requests": "1s",
    });
    await create(mock);
    await clock.advance(500);
    const third = await create(mock);
    // 2 used, 0.5 back, 1 more: 2.5 short of 60 → 2.5s.
    expect(third.headers.get("x-ratelimit-reset-requests")).toBe("2.5s");
    expect(third.headers.get("x-ratelimit-remaining-requests")).toBe("57");
  });
});

describe("tpm: charged with the exact tokens of the answer", () => {
  it("each answer takes its usage's input + output tokens from the bucket", async () => {
    const { mock } = await start({ tpm: 10_000 });
    const a = await create(mock, { input: "tell me something" });
    expect(a.status).toBe(200);
    const used = a.json.usage.input_tokens + a.json.usage.output_tokens;
    expect(used).toBeGreaterThan(0);
    expect(a.headers.get("x-ratelimit-remaining-tokens")).toBe(String(10_000 - used));
    const b = await create(mock, { input: "and something else, longer this time" });
    const usedB = b.json.usage.input_tokens + b.json.usage.output_tokens;
    expect(b.headers.get("x-ratelimit-remaining-tokens")).toBe(String(10_000 - used - usedB));
    expect(b.headers.get("x-ratelimit-limit-tokens")).toBe("10000");
    expect(b.headers.get("x-ratelimit-limit-requests")).toBeNull();
  });

  it("a streamed answer carries the headers on its head too", async () => {
    const { mock } = await start({ tpm: 10_000, rpm: 100 });
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    });
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("99");
    const { events } = parseSseStrict(await res.text());
    const done = events.at(-1) as unknown as { response: { usage: { total_tokens: number } } };
    expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe(String(10_000 - done.response.usage.total_tokens));
  });

  it("a bucket short of tokens refuses with the wait until it has them; a request over the limit itself never fits", async () => {
    const { mock, clock } = await start({ tpm: 200 });
    const first = await create(mock, { input: "a" });
    const cost = first.json.usage.input_tokens + first.json.usage.output_tokens;
    let refused;
    for (let i = 0; i < 20; i++) {
      refused = await create(mock, { input: "a" });
      if (refused.status === 429) break;
    }
    expect(refused!.status).toBe(429);
    expect(refused!.json.error.code).toBe("rate_limit_exceeded");
    const retryMs = Number(refused!.headers.get("retry-after-ms"));
    await clock.advance(retryMs - 1);
    // Checked at `begin` with the input tokens, then at `planned` with the whole answer: still short 1 ms before.
    expect((await create(mock, { input: "a" })).status).toBe(429);
    await clock.advance(1);
    expect((await create(mock, { input: "a" })).status).toBe(200);
    expect(cost).toBeGreaterThan(0);

    // Far more input than the whole limit: 429, no retry-after (it can never fit).
    const huge = await create(mock, { input: "word ".repeat(2_000) });
    expect(huge.status).toBe(429);
    expect(huge.headers.get("retry-after")).toBeNull();
    expect(huge.json.error.message).toMatch(/^Request too large for gpt-test on tokens per minute \(TPM\): limit 200/);
  });
});

describe("dialects", () => {
  it("openai: type requests/tokens, code rate_limit_exceeded, OpenAI's message; the spec's error by default", async () => {
    const { mock } = await start({ rpm: 1 });
    await create(mock);
    const spec = await create(mock);
    expect(ErrorBody.parse(spec.json).error).toMatchObject({
      type: "too_many_requests",
      code: "rate_limit_exceeded",
      param: null,
    });
    expect(spec.json.error.message).toMatch(
      /^Rate limit reached for gpt-test on requests per minute \(RPM\): limit 1, used 1, requested 1\. Try again in 1m0s/,
    );
    const openai = await create(mock, {}, { "x-mock-dialect": "openai" });
    expect(openai.status).toBe(429);
    expect(openai.json.error).toEqual({
      type: "requests",
      code: "rate_limit_exceeded",
      param: null,
      message:
        "Rate limit reached for gpt-test in organization org-mock on requests per min (RPM): Limit 1, Used 1, Requested 1. Please try again in 1m0s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    });
    expect(openai.headers.get("x-ratelimit-limit-requests")).toBe("1");
    expect(openai.headers.get("retry-after")).toBe("60");
    expect(openai.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("openai: a TPM refusal is type tokens", async () => {
    const { mock } = await start({ tpm: 50 });
    let res;
    for (let i = 0; i < 10; i++) {
      res = await create(mock, {}, { "x-mock-dialect": "openai" });
      if (res.status === 429) break;
    }
    expect(res!.json.error).toMatchObject({ type: "tokens", code: "rate_limit_exceeded" });
    expect(res!.json.error.message).toMatch(
      /^Rate limit reached for gpt-test in organization org-mock on tokens per min \(TPM\): Limit 50, Used \d+, Requested \d+\. Please try again in [\d.]+m?s\./,
    );
  });
});

describe("budgets", () => {
  it("refused with insufficient_quota exactly after the answer that spends the budget; usage sums to the journal's costs", async () => {
    const { mock } = await start();
    const session = mock.session();
    const headers = session.headers;
    // One answer's cost, measured first in another session.
    const probe = await create(mock, {}, { "x-mock-session": "probe" });
    expect(probe.status).toBe(200);
    const one = mock.requests.at(-1)!.costUsd!;
    expect(one).toBeGreaterThan(0);
    // A budget a little over two answers: the third is answered (it crosses), the fourth refused.
    await session.limits({ budgetUsd: one * 2.5 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await create(mock, {}, headers)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await create(mock, {}, headers);
    expect(refused.json.error).toMatchObject({ type: "too_many_requests", code: "insufficient_quota" });
    expect(refused.headers.get("retry-after")).toBeNull();
    const openai = await create(mock, {}, { ...headers, "x-mock-dialect": "openai" });
    expect(openai.json.error).toEqual({
      type: "insufficient_quota",
      code: "insufficient_quota",
      param: null,
      message:
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    });
    // No stand-in x-ratelimit headers on a quota refusal (no RPM/TPM limit here).
    expect(openai.headers.get("x-ratelimit-limit-requests")).toBeNull();

    const entries = session.requests;
    expect(entries.map((e) => e.limits?.verdict)).toEqual([
      "passed",
      "passed",
      "passed",
      "insufficient_quota",
      "insufficient_quota",
      "insufficient_quota",
    ]);
    const usage = await session.usage();
    const journalCost = entries.reduce((sum, e) => sum + (e.costUsd ?? 0), 0);
    expect(usage.total.costUsd).toBeCloseTo(journalCost, 12);
    expect(usage.total.requests).toBe(3);
    expect(usage.total.refused).toEqual({ rate_limited: 0, insufficient_quota: 3, overloaded: 0 });
    const route = await admin(mock, "GET", `/usage?session=${session.id}`);
    expect(route.json!.total.costUsd).toBeCloseTo(journalCost, 12);
    expect(route.json!.sessions).toHaveLength(1);

    // Reset refills it, and forgets the session's totals and limits.
    session.reset();
    expect((await create(mock, {}, headers)).status).toBe(200);
    expect((await session.usage()).total.requests).toBe(1);
    expect((await admin(mock, "GET", "/limits", undefined, headers)).json!.limits).toEqual({
      rpm: null,
      tpm: null,
      budgetUsd: null,
    });
  });
});

describe("usage totals", () => {
  it("per session, per key (masked), per model: tokens, cost and refusals; the whole server's without a session", async () => {
    const { mock } = await start({ rpm: 2 });
    const key = "sk-test-abcdefghijklmnop";
    const auth = { authorization: `Bearer ${key}` };
    const answers: Record<string, any>[] = [];
    const send = async (model: string, headers: Record<string, string>) => {
      const res = await create(mock, { model }, headers);
      if (res.status === 200) answers.push(res.json);
      return res.status;
    };
    const a = { ...auth, "x-mock-session": "s-a" };
    expect(await send("m-one", a)).toBe(200);
    expect(await send("m-two", a)).toBe(200);
    expect(await send("m-one", a)).toBe(200);
    // rpm 2 per session × key × model: the third of m-one is refused.
    expect(await send("m-one", a)).toBe(429);
    expect(await send("m-one", { "x-mock-session": "s-b" })).toBe(200);

    const all = (await admin(mock, "GET", "/usage")).json!;
    expect(all.object).toBe("mock.usage");
    expect(all.session).toBeNull();
    expect(all.total.requests).toBe(4);
    expect(all.total.refused.rate_limited).toBe(1);
    expect(all.total.inputTokens).toBe(answers.reduce((n, r) => n + r.usage.input_tokens, 0));
    expect(all.total.outputTokens).toBe(answers.reduce((n, r) => n + r.usage.output_tokens, 0));
    expect(all.sessions.map((s: { session: string }) => s.session).sort()).toEqual(["s-a", "s-b"]);
    expect(JSON.stringify(all)).not.toContain(key);
    expect(all.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: "***mnop", requests: 3 }),
        expect.objectContaining({ key: null, requests: 1 }),
      ]),
    );
    const one = all.models.find((m: { model: string }) => m.model === "m-one");
    expect(one.requests).toBe(3);
    expect(one.refused.rate_limited).toBe(1);
    const sum = mock.requests.reduce((n, e) => n + (e.costUsd ?? 0), 0);
    expect(all.total.costUsd).toBeCloseTo(sum, 12);
    const onlyA = (await admin(mock, "GET", "/usage", undefined, { "x-mock-session": "s-a" })).json!;
    expect(onlyA.session).toBe("s-a");
    expect(onlyA.total.requests).toBe(3);
    expect(await mock.usage()).toEqual(all);
  });
});

describe("sessions", () => {
  it("never share buckets; a session's limits apply to it alone, and reset forgets them", async () => {
    const { mock } = await start({ rpm: 2 });
    const s1 = mock.session();
    const s2 = mock.session();
    await create(mock, {}, s1.headers);
    await create(mock, {}, s1.headers);
    expect((await create(mock, {}, s1.headers)).status).toBe(429);
    // s2 has its own bucket.
    expect((await create(mock, {}, s2.headers)).headers.get("x-ratelimit-remaining-requests")).toBe("1");
    // s2 raises its own limit; s1 still has the server's.
    const view = await s2.limits({ rpm: 10 });
    expect(view).toMatchObject({ object: "mock.limits", session: s2.id, limits: { rpm: 10, tpm: null } });
    expect(view.defaults.rpm).toBe(2);
    expect((await create(mock, {}, s2.headers)).headers.get("x-ratelimit-limit-requests")).toBe("10");
    expect((await create(mock, {}, s1.headers)).status).toBe(429);
    // The route sets one too, scoped by the header, and null clears it.
    const set = await admin(mock, "POST", "/limits", { tpm: 5000 }, s1.headers);
    expect(set.status).toBe(200);
    expect(set.json!.limits).toEqual({ rpm: null, tpm: 5000, budgetUsd: null });
    const cleared = await admin(mock, "POST", `/limits?session=${s2.id}`, { rpm: null });
    expect(cleared.json!.limits.rpm).toBeNull();
    // A reset refills s1's bucket (and forgets its tpm); s2's stays as it was.
    s1.reset();
    const after = await create(mock, {}, s1.headers);
    expect(after.status).toBe(200);
    expect(after.headers.get("x-ratelimit-limit-tokens")).toBeNull();
    expect((await create(mock, {}, s2.headers)).status).toBe(429);
    // POST /__mock/reset does it for a session too.
    expect((await admin(mock, "POST", `/reset?session=${s2.id}`)).status).toBe(204);
    expect((await create(mock, {}, s2.headers)).status).toBe(200);
  });

  it("keys have buckets of their own; requests without a key share one", async () => {
    const { mock } = await start({ rpm: 1 });
    expect((await create(mock, {}, { authorization: "Bearer key-one" })).status).toBe(200);
    expect((await create(mock, {}, { authorization: "Bearer key-two" })).status).toBe(200);
    expect((await create(mock, {}, { authorization: "Bearer key-one" })).status).toBe(429);
    expect((await create(mock)).status).toBe(200);
    expect((await create(mock)).status).toBe(429);
  });

  it("a refused request takes no queued answer", async () => {
    const { mock } = await start({ rpm: 1 });
    await create(mock);
    mock.enqueue({ steps: [{ type: "message", text: "queued answer" }] });
    expect((await create(mock)).status).toBe(429);
    mock.reset();
    mock.enqueue({ steps: [{ type: "message", text: "queued answer" }] });
    const res = await create(mock);
    expect(res.json.output[0].content[0].text).toBe("queued answer");
  });
});

describe("bad input", () => {
  it("a bad POST /__mock/limits body is a 400 listing each problem", async () => {
    const { mock } = await start();
    const bad = await admin(mock, "POST", "/limits", { rpm: -1, tpm: 1.5, budgetUsd: "5", colour: "red" });
    expect(bad.status).toBe(400);
    expectErrorBody(bad.json);
    expect(bad.json.error).toMatchObject({ type: "invalid_request", code: "invalid_value", param: "rpm" });
    const message = bad.json.error.message as string;
    expect(message).toMatch(/^POST \/__mock\/limits: 4 problems: /);
    for (const part of [
      "rpm: must be a whole number of requests per minute, 1 or more (or null to clear it), got -1",
      "tpm: must be a whole number of tokens per minute, 1 or more (or null to clear it), got 1.5",
      'budgetUsd: must be a number of USD, 0 or more (or null to clear it), got "5"',
      "colour: unknown field: the fields are rpm, tpm and budgetUsd",
    ])
      expect(message).toContain(part);
    const notObject = await admin(mock, "POST", "/limits", [1, 2]);
    expect(notObject.status).toBe(400);
    expect(notObject.json!.error.message).toContain("send a JSON object");
    const notJson = await admin(mock, "POST", "/limits", "{nope");
    expect(notJson.status).toBe(400);
    // Nothing was set.
    expect((await admin(mock, "GET", "/limits")).json!.limits).toEqual({ rpm: null, tpm: null, budgetUsd: null });
    expect(() => mock.limits({ rpm: 0 })).toThrow(/^mock\.limits\(\): rpm: must be a whole number/);
  });
});

describe("no limits", () => {
  it("answers carry no x-ratelimit headers and no verdict, but a cost", async () => {
    const { mock } = await start();
    const res = await create(mock);
    expect(ratelimit(res.headers)).toEqual({});
    const entry = mock.requests.at(-1)!;
    expect(entry.limits).toBeNull();
    expect(entry.costUsd).toBeGreaterThan(0);
    // The openai dialect's stand-in headers are for scripted 429s only.
    const openai = await create(mock, {}, { "x-mock-dialect": "openai" });
    expect(ratelimit(openai.headers)).toEqual({});
  });
});

describe("a proxied turn (Chat Completions upstream)", () => {
  it("is charged 1 request and its input tokens at begin; a refused one never reaches the upstream", async () => {
    const upstream = await startChatUpstream({ content: "Hi." });
    try {
      const { mock } = await start({ upstream: upstream.baseURL, upstreamApi: "chat", rpm: 1, tpm: 1000 });
      const first = await create(mock);
      expect(first.status).toBe(200);
      expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      const input = Number(1000) - Number(first.headers.get("x-ratelimit-remaining-tokens"));
      expect(input).toBeGreaterThan(0);
      expect(input).toBeLessThan(first.json.usage.input_tokens + first.json.usage.output_tokens + 1);
      const second = await create(mock);
      expect(second.status).toBe(429);
      expect(upstream.requests).toBe(1);
      const usage = await mock.usage();
      expect(usage.total).toMatchObject({ requests: 1, inputTokens: input, outputTokens: 0, costUsd: 0 });
      expect(mock.requests[0].costUsd).toBeNull();
    } finally {
      await upstream.close();
    }
  });
});

describe("with the capacity step after it", () => {
  it("a request the capacity step refuses (503 overloaded) is not charged: its charge is given back, and counted as refused", async () => {
    const { mock, clock } = await start({ rpm: 10, maxConcurrent: 1, queue: 0, latencyMs: 1000 });
    const first = fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    });
    // The first holds the one slot once it plays: its first byte is 1 s away on the manual clock (a timer waits).
    for (let i = 0; i < 1000 && clock.pending === 0; i++) await new Promise((r) => setImmediate(r));
    expect(clock.pending).toBeGreaterThan(0);
    const second = await create(mock, { model: "m" });
    expect(second.status).toBe(503);
    await clock.advance(2000);
    const head = await first;
    expect(head.headers.get("x-ratelimit-remaining-requests")).toBe("9");
    /** Waits for a paced answer, moving the manual clock on until it has come. */
    const driven = async <T>(promise: Promise<T>): Promise<T> => {
      let done = false;
      void promise.finally(() => (done = true));
      for (let i = 0; i < 1000 && !done; i++) {
        await clock.advance(100);
        await new Promise((r) => setImmediate(r));
      }
      return promise;
    };
    await driven(head.text());
    const third = await driven(create(mock, { model: "m" }));
    expect(third.status).toBe(200);
    // 10 − the first − the third: the refused second took nothing.
    expect(third.headers.get("x-ratelimit-remaining-requests")).toBe("8");
    const usage = await mock.usage();
    expect(usage.total.requests).toBe(2);
    expect(usage.total.refused).toEqual({ rate_limited: 0, insufficient_quota: 0, overloaded: 1 });
    const refused = mock.requests[1];
    expect(refused.status).toBe(503);
    expect(refused.costUsd).toBeNull();
    expect(refused.limits?.verdict).toBe("overloaded");
    expect(usage.total.costUsd).toBeCloseTo(
      mock.requests.reduce((n, e) => n + (e.costUsd ?? 0), 0),
      12,
    );
  });
});
