/**
 * `--store redis://…`: two separate `serve` processes sharing one real Redis
 * ("more than one machine") answer for each other — previous_response_id
 * chains, stored responses, background runs (cancel included), the session
 * controls and the journal — and say so clearly when Redis is not there.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run.js";
import {
  call,
  freePort,
  killStarted,
  startCli,
  startRedis,
  type CliServer,
  type RedisServer,
} from "./redis-support.js";

let redis: RedisServer;
let a: CliServer;
let b: CliServer;
let serial = 0;
/** A session of its own for each test: the journal and the controls are shared by every process. */
const freshSession = () => `redis-test-${process.pid}-${++serial}`;

beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([
    startCli(["serve", "--port", "0", "--log", "off", "--store", redis.url]),
    startCli(["serve", "--port", "0", "--log", "off", "--store", redis.url]),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  killStarted();
  await redis?.stop();
});

const create = (server: CliServer, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call(`${server.baseURL}/responses`, { body: { model: "m", ...body }, headers });

describe("two processes sharing one Redis", () => {
  it("continue each other's conversations: a previous_response_id chain alternating between them", async () => {
    const session = { "x-mock-session": freshSession() };
    const servers = [a, b, a, b];
    let previous: string | null = null;
    const ids: string[] = [];
    for (const [i, server] of servers.entries()) {
      const res = await create(server, { input: `turn ${i}: my name is Ada`, previous_response_id: previous }, session);
      expect(res.status, res.text).toBe(200);
      expect(res.json!.previous_response_id).toBe(previous);
      previous = res.json!.id as string;
      ids.push(previous);
    }
    // The last response's conversation holds every turn, whichever process answered each.
    const tokens = await call(`${a.baseURL}/responses/input_tokens`, {
      body: { model: "m", previous_response_id: previous, input: "and now?" },
      headers: session,
    });
    expect(tokens.status, tokens.text).toBe(200);
    const alone = await call(`${a.baseURL}/responses/input_tokens`, {
      body: { model: "m", input: "and now?" },
      headers: session,
    });
    expect(tokens.json!.input_tokens).toBeGreaterThan(alone.json!.input_tokens + 4 * 5);
    // An id that was never stored is still refused as it is in memory.
    const unknown = await create(b, { input: "x", previous_response_id: "resp_nope" }, session);
    expect(unknown.status).toBe(400);
    expect(unknown.json!.error.code).toBe("previous_response_not_found");
  }, 20_000);

  it("serve each other's stored responses: retrieve, the replayed stream byte for byte, input_items, delete", async () => {
    const created = await create(a, { input: [{ role: "user", content: "tell me about the sea" }], stream: false });
    const id = created.json!.id as string;
    const [fromA, fromB] = await Promise.all([
      call(`${a.baseURL}/responses/${id}`),
      call(`${b.baseURL}/responses/${id}`),
    ]);
    expect(fromB.status).toBe(200);
    expect(fromB.text).toBe(fromA.text);
    expect(fromB.json).toEqual(created.json);
    const [streamA, streamB] = await Promise.all([
      call(`${a.baseURL}/responses/${id}?stream=true`),
      call(`${b.baseURL}/responses/${id}?stream=true`),
    ]);
    expect(streamB.text).toContain("event: response.completed");
    expect(streamB.text).toBe(streamA.text);
    const items = await call(`${b.baseURL}/responses/${id}/input_items`);
    expect(items.status).toBe(200);
    expect(items.json!.data).toHaveLength(1);
    expect(items.json!.data[0]).toMatchObject({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "tell me about the sea" }],
    });
    const deleted = await call(`${b.baseURL}/responses/${id}`, { method: "DELETE" });
    expect(deleted.json).toEqual({ id, object: "response.deleted", deleted: true });
    expect((await call(`${a.baseURL}/responses/${id}`)).status).toBe(404);
    const continued = await create(a, { input: "more", previous_response_id: id });
    expect(continued.json!.error.code).toBe("previous_response_not_found");
  }, 20_000);

  it("replay a streamed answer from the other process byte for byte, in both dialects", async () => {
    for (const dialect of ["open-responses", "openai"]) {
      const res = await fetch(`${a.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-dialect": dialect, "x-mock-scenario": "reasoning" },
        body: JSON.stringify({ model: "m", input: "why?", stream: true }),
      });
      const live = await res.text();
      const id = /"id":"(resp_[^"]+)"/.exec(live)![1];
      const replayed = await (
        await fetch(`${b.baseURL}/responses/${id}?stream=true`, { headers: { "x-mock-dialect": dialect } })
      ).text();
      expect(replayed).toBe(live);
    }
  }, 20_000);

  it("share background runs: the other process sees it running, cancels it, and both see it cancelled", async () => {
    const created = await create(
      a,
      { input: "a long story", background: true },
      { "x-mock-chunk-ms": "200", "x-mock-scenario": "long-text" },
    );
    expect(created.status, created.text).toBe(200);
    const id = created.json!.id as string;
    const running = await call(`${b.baseURL}/responses/${id}`);
    expect(["queued", "in_progress"]).toContain(running.json!.status);
    const cancelled = await call(`${b.baseURL}/responses/${id}/cancel`, { method: "POST" });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json!.status).toBe("cancelled");
    const [onA, onB] = await Promise.all([call(`${a.baseURL}/responses/${id}`), call(`${b.baseURL}/responses/${id}`)]);
    expect(onA.json!.status).toBe("cancelled");
    expect(onB.text).toBe(onA.text);
    // The replay shows what was delivered before the cancel, on either process, with no [DONE] after a cancel.
    const [replayA, replayB] = await Promise.all([
      call(`${a.baseURL}/responses/${id}?stream=true`),
      call(`${b.baseURL}/responses/${id}?stream=true`),
    ]);
    expect(replayB.text).toBe(replayA.text);
    expect(replayB.text).not.toContain("response.completed");
    const items = await call(`${b.baseURL}/responses/${id}/input_items`);
    expect(items.json!.data[0].content[0].text).toBe("a long story");
  }, 20_000);

  it("share background runs: a delete on the other process stops the run and removes it everywhere", async () => {
    const created = await create(
      b,
      { input: "another long story", background: true },
      { "x-mock-chunk-ms": "200", "x-mock-scenario": "long-text" },
    );
    const id = created.json!.id as string;
    const deleted = await call(`${a.baseURL}/responses/${id}`, { method: "DELETE" });
    expect(deleted.json).toEqual({ id, object: "response.deleted", deleted: true });
    // The run, stopped where it plays, does not write its record back.
    await new Promise((r) => setTimeout(r, 500));
    expect((await call(`${b.baseURL}/responses/${id}`)).status).toBe(404);
    expect((await call(`${a.baseURL}/responses/${id}`)).status).toBe(404);
  }, 20_000);

  it("share a background run's stream: a stream asked of the other process ends with the run", async () => {
    const created = await create(
      a,
      { input: "short", background: true },
      { "x-mock-chunk-ms": "20", "x-mock-scenario": "text" },
    );
    const id = created.json!.id as string;
    const followed = await call(`${b.baseURL}/responses/${id}?stream=true`);
    expect(followed.text).toContain("event: response.completed");
    expect(followed.text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(followed.text).toBe((await call(`${a.baseURL}/responses/${id}?stream=true`)).text);
  }, 20_000);

  it("share the session controls: queued on one, taken once on the other; use() with times; reset", async () => {
    const session = freshSession();
    const h = { "x-mock-session": session };
    const queued = await call(`${a.origin}/__mock/queue`, {
      body: {
        turns: [
          { steps: [{ type: "message", text: "first queued" }] },
          { steps: [{ type: "message", text: "second queued" }] },
        ],
      },
      headers: h,
    });
    expect(queued.status, queued.text).toBe(201);
    expect(queued.json).toEqual({ pending: 2 });
    const first = await create(b, { input: "hi" }, h);
    expect(first.json!.output[0].content[0].text).toBe("first queued");
    const second = await create(a, { input: "hi" }, h);
    expect(second.json!.output[0].content[0].text).toBe("second queued");
    const used = await call(`${b.origin}/__mock/scenarios`, {
      body: { scenario: { name: "shared-use", turns: [{ steps: [{ type: "message", text: "from use" }] }] }, times: 2 },
      headers: h,
    });
    expect(used.status, used.text).toBe(201);
    expect((await create(a, { input: "hi" }, h)).json!.output[0].content[0].text).toBe("from use");
    expect((await create(b, { input: "hi" }, h)).json!.output[0].content[0].text).toBe("from use");
    expect((await create(a, { input: "hi" }, h)).json!.output[0].content[0].text).not.toBe("from use");
    await call(`${a.origin}/__mock/queue`, {
      body: { turns: [{ steps: [{ type: "message", text: "never taken" }] }] },
      headers: h,
    });
    expect((await call(`${b.origin}/__mock/reset`, { method: "POST", headers: h })).status).toBe(204);
    expect((await create(a, { input: "hi" }, h)).json!.output[0].content[0].text).not.toBe("never taken");
    // Bad input is refused as in memory: an unknown name, a bad scenario.
    const bad = await call(`${a.origin}/__mock/scenarios`, { body: { scenario: "no-such-scenario" }, headers: h });
    expect(bad.status).toBe(400);
    expect(bad.json!.error.code).toBe("invalid_scenario");
    const broken = await call(`${a.origin}/__mock/scenarios`, { body: { scenario: { name: "x" } }, headers: h });
    expect(broken.status).toBe(400);
    expect(broken.json!.error.code).toBe("invalid_scenario");
  }, 20_000);

  it("share the journal: each process lists every process's requests, and a delete clears them all", async () => {
    const session = freshSession();
    const h = { "x-mock-session": session };
    await create(a, { input: "to a" }, h);
    await create(b, { input: "to b" }, h);
    await call(`${b.baseURL}/responses/resp_missing`, { headers: h });
    // Entries are pushed as requests end: give the last one a moment.
    await new Promise((r) => setTimeout(r, 100));
    for (const server of [a, b]) {
      const page = await call(`${server.origin}/__mock/requests?session=${session}`);
      expect(page.status).toBe(200);
      expect(page.json!.object).toBe("list");
      expect(page.json!.data.map((e: { rawBody: string | null; path: string }) => e.rawBody ?? e.path)).toEqual([
        JSON.stringify({ model: "m", input: "to a" }),
        JSON.stringify({ model: "m", input: "to b" }),
        "/v1/responses/resp_missing",
      ]);
      const seqs = page.json!.data.map((e: { seq: number }) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      const one = await call(`${server.origin}/__mock/requests/${seqs[1]}`);
      expect(one.json!.body).toEqual({ model: "m", input: "to b" });
    }
    const desc = await call(`${a.origin}/__mock/requests?session=${session}&order=desc&limit=1`);
    expect(desc.json!.data).toHaveLength(1);
    expect(desc.json!.data[0].path).toBe("/v1/responses/resp_missing");
    expect(desc.json!.has_more).toBe(true);
    expect((await call(`${b.origin}/__mock/requests?session=${session}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`${a.origin}/__mock/requests?session=${session}`)).json!.data).toEqual([]);
  }, 20_000);
});

describe("--store values and an unreachable Redis", () => {
  afterEach(killStarted);

  it.each([["redis:/x"], ["memcached://127.0.0.1:11211"], ["redis://"], ["127.0.0.1:6379"]])(
    "refuses --store %s, naming the flag",
    async (value) => {
      const run = await runCli(["serve", "--port", "0", "--store", value]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^openresponses-mock: --store: /);
      expect(run.stderr).toContain(`'${value}'`);
      expect(run.stderr).toContain("redis://HOST:PORT");
    },
  );

  it("refuses to start when Redis does not answer, naming the flag", async () => {
    const port = await freePort();
    const run = await runCli(["serve", "--port", "0", "--store", `redis://127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      `openresponses-mock: --store: cannot connect to Redis at redis://127.0.0.1:${port} (ECONNREFUSED); start redis-server there, or name another store\n`,
    );
  });

  it("answers 503 store_unavailable while Redis is gone, keeps serving what needs no store, and recovers", async () => {
    const own = await startRedis();
    let again: RedisServer | undefined;
    try {
      const server = await startCli(["serve", "--port", "0", "--log", "off", "--store", own.url]);
      expect((await create(server, { input: "hi" })).status).toBe(200);
      await own.stop();
      const down = await create(server, { input: "hi" });
      expect(down.status).toBe(503);
      expect(down.json!.error).toMatchObject({ type: "server_error", code: "store_unavailable", param: null });
      expect(down.json!.error.message).toContain(`Redis at ${own.url}`);
      expect((await call(`${server.baseURL}/responses/resp_x`)).status).toBe(503);
      expect((await call(`${server.origin}/__mock/requests`)).status).toBe(503);
      // Nothing stored, nothing shared: still answered.
      expect((await create(server, { input: "hi", store: false }, { "x-mock-scenario": "text" })).status).toBe(200);
      expect((await call(`${server.origin}/health`)).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toContain("is unreachable");
      // Redis back on its port: the server reconnects by itself.
      again = await startRedis(own.port);
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await create(server, { input: "hi" })).status;
      }
      expect(status).toBe(200);
      expect(await server.stop()).toBe(0);
    } finally {
      await own.stop();
      await again?.stop();
    }
  }, 20_000);
});
