/**
 * Clients that honour a service that says no (issue 26), against a real
 * server: the `openai` SDK retries a 429 after the `retry-after-ms` the mock
 * sent and succeeds once the bucket has room (the timing read from the
 * journal's arrival times, not from timers in the test); the Agents SDK runs
 * tool loops side by side against a server that plays one answer at a time
 * and queues the rest.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool, type OpenAIClient } from "@openai/agents";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startMockServer, type MockServer } from "../../src/server.js";

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

describe("the openai SDK against a token-per-minute limit", () => {
  it("waits the retry-after-ms of the 429, then succeeds: the retry arrives no sooner than the mock said", async () => {
    mock = await startMockServer({ port: 0, seed: 3 });
    const session = mock.session();
    const client = new OpenAI({
      baseURL: mock.baseURL,
      apiKey: "sk-retry",
      maxRetries: 2,
      defaultHeaders: session.headers,
    });
    const body = { model: "mock-retry-model", input: "Say something short." } as const;

    // What one answer costs: its input plus its output tokens.
    const probe = await client.responses.create(body);
    const tokens = probe.usage!.input_tokens + probe.usage!.output_tokens;
    // A bucket that holds a bit less than two answers: the second waits ~800 ms for room.
    const tpm = Math.floor((2 * tokens) / (1 + 800 / 60_000));
    await session.reset();
    await session.limits({ tpm });

    const first = await client.responses.create(body);
    expect(first.status).toBe("completed");
    const second = await client.responses.create(body);
    expect(second.status).toBe("completed");

    const entries = session.requests;
    expect(entries.map((e) => e.status)).toEqual([200, 429, 200]);
    const [, refused, retried] = entries;
    expect(refused.errorCode).toBe("rate_limit_exceeded");
    expect(refused.limits?.verdict).toBe("rate_limited");
    expect(refused.limits?.limit).toBe("tokens");
    const retryAfterMs = Number(refused.limits!.headers["retry-after-ms"]);
    // The deficit (two answers' tokens less the bucket, tpm rounded down), refilled at tpm per minute, less
    // what came back between the two requests.
    const deficitMs = ((2 * tokens - tpm) * 60_000) / tpm;
    expect(retryAfterMs).toBeGreaterThan(deficitMs - 200);
    expect(retryAfterMs).toBeLessThanOrEqual(Math.ceil(deficitMs));
    expect(refused.limits!.headers["retry-after"]).toBe(String(Math.ceil(retryAfterMs / 1000)));
    // The SDK slept what the mock said (arrival times in the journal, ms since the epoch).
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(retryAfterMs - 2);
    expect(retried.limits?.verdict).toBe("passed");
    expect(Number(retried.limits!.headers["x-ratelimit-remaining-tokens"])).toBeLessThan(tokens);
  });
});

describe("the Agents SDK against one answer at a time", () => {
  type OpenAIConstructor = new (options: {
    baseURL: string;
    apiKey: string;
    maxRetries?: number;
    defaultHeaders?: Record<string, string>;
  }) => OpenAIClient;
  let OpenAIv7: OpenAIConstructor;
  beforeAll(async () => {
    setTracingDisabled(true);
    // The openai the Agents SDK resolves itself (see agents-sdk.test.ts).
    const sdk = createRequire(import.meta.url).resolve("@openai/agents-openai");
    const cjs = createRequire(sdk).resolve("openai");
    OpenAIv7 = (await import(pathToFileURL(cjs.replace(/\.js$/, ".mjs")).href)).default as OpenAIConstructor;
  });

  it("three tool loops at once all finish; the answers played one at a time, the others waited in the queue", async () => {
    // Each answer takes 60 ms to its first byte, so the loops' turns overlap and queue.
    mock = await startMockServer({ port: 0, seed: 5, maxConcurrent: 1, queue: 10, latencyMs: 60 });
    const client = new OpenAIv7({ baseURL: mock.baseURL, apiKey: "sk-agents", maxRetries: 0 });
    const weather = tool({
      name: "get_weather",
      description: "Current weather for a city.",
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const cities = ["Lisbon", "Porto", "Faro"];
    const results = await Promise.all(
      cities.map((city) =>
        run(
          new Agent({
            name: "Weather",
            instructions: "Use the tool for weather questions.",
            model: new OpenAIResponsesModel(client, "mock-agent-model"),
            tools: [weather],
          }),
          `What's the weather in ${city}?`,
        ),
      ),
    );
    results.forEach((r, i) => expect(r.finalOutput).toContain(`sunny in ${cities[i]}`));

    const turns = mock.requests.filter((e) => e.path === "/v1/responses");
    expect(turns).toHaveLength(6);
    for (const e of turns) expect(e.status).toBe(200);
    // Some waited; none played beside another: each answer plays 60 ms, one at a time, so
    // the answers end at least ~60 ms apart (two playing together would end within a few ms).
    expect(turns.some((e) => e.waitMs! > 0)).toBe(true);
    const ends = turns.map((e) => e.endedAt!).sort((a, b) => a - b);
    for (let i = 1; i < ends.length; i++) expect(ends[i] - ends[i - 1]).toBeGreaterThanOrEqual(55);
  });
});
