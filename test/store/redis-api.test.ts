/**
 * The `store` option of startMockServer: two servers of one test process
 * sharing a real Redis, with the programmatic controls; and what the API
 * says of `workers` and of a Redis that is not there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OptionsError } from "../../src/options.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { freePort, startRedis, type RedisServer } from "./redis-support.js";

let redis: RedisServer;
let a: MockServer;
let b: MockServer;

beforeAll(async () => {
  redis = await startRedis();
  a = await startMockServer({ port: 0, store: redis.url });
  b = await startMockServer({ port: 0, store: redis.url });
}, 20_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

const create = async (mock: MockServer, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", ...body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

describe("startMockServer({ store: 'redis://…' })", () => {
  it("shares controls set through the API: enqueue on one server, taken by the other", async () => {
    const session = a.session();
    session.enqueue({ steps: [{ type: "message", text: "queued through the API" }] });
    // The API returns at once and its write goes out then (the admin route waits for it): another process sees it moments later.
    await new Promise((r) => setTimeout(r, 50));
    const res = await create(b, { input: "hi" }, session.headers);
    expect(res.json.output[0].content[0].text).toBe("queued through the API");
    expect((await create(b, { input: "hi" }, session.headers)).json.output[0].content[0].text).not.toBe(
      "queued through the API",
    );
  });

  it("throws a bad scenario at once, as in memory", () => {
    expect(() => a.use({ name: "bad", turns: "none" } as never)).toThrow(/bad|turns/);
    expect(() => a.use("no-such-scenario")).toThrow(/no loaded scenario is named 'no-such-scenario'/);
  });

  it("continues on one server a response stored by the other", async () => {
    const first = await create(a, { input: "one" });
    const second = await create(b, { input: "two", previous_response_id: first.json.id });
    expect(second.status).toBe(200);
    expect(second.json.previous_response_id).toBe(first.json.id);
    // No worker header outside --workers.
    const res = await fetch(`${a.baseURL}/responses/${second.json.id}`);
    expect(res.headers.get("x-mock-worker")).toBeNull();
  });

  it("refuses workers above 1 (the CLI runs workers) and an unreachable Redis, naming the option", async () => {
    await expect(startMockServer({ workers: 2 })).rejects.toThrow(OptionsError);
    await expect(startMockServer({ workers: 2 })).rejects.toThrow(/workers: startMockServer serves from this process/);
    const port = await freePort();
    await expect(startMockServer({ store: `redis://127.0.0.1:${port}` })).rejects.toThrow(
      `store: cannot connect to Redis at redis://127.0.0.1:${port} (ECONNREFUSED)`,
    );
    await expect(startMockServer({ store: "memcached://x:1" })).rejects.toThrow(
      /store: 'memcached:' is not a store this server knows/,
    );
  });
});
