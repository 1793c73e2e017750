/**
 * Concurrency, queueing and overload (issue 26): `maxConcurrent` answers of a
 * pool play at once, the next wait in a FIFO queue, the rest get a 503
 * `server_is_overloaded` with `retry-after`. Against a real server on port 0,
 * on a ManualClock (no sleeps, no wall-clock time): streams read with raw
 * fetch and a strict SSE parser, WebSocket turns, background runs, the
 * openai dialect's body, and a model's own capacity.
 */
import { startChatUpstream } from "../support/chat-upstream.js";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApp, createRequestListener } from "../../src/http/app.js";
import type { JournalEntry } from "../../src/journal/journal.js";
import { resolveOptions } from "../../src/options.js";
import { createDeps, loadRegistry, startMockServer, type MockServer } from "../../src/server.js";
import { defaultService, type ModelSpec, type Service } from "../../src/service/service.js";
import { LocalSlots, retryHeaders, type Holder, type Pool } from "../../src/service/slots.js";
import { ManualClock, fixedClock } from "../../src/timing/clock.js";
import { WsClient } from "../compliance/ws-client.js";
import { expectErrorBody } from "../support/conformance.js";
import { TEST_NOW_MS } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Every answer's events all come 100 ms after it starts playing (latency 100, no pause between events). */
const LATENCY = 100;
const START = 1_000;

async function start(
  options: Parameters<typeof startMockServer>[0] = {},
): Promise<{ mock: MockServer; clock: ManualClock }> {
  const clock = new ManualClock(START);
  const mock = await startMockServer({
    port: 0,
    seed: 7,
    clock: fixedClock(TEST_NOW_MS),
    log: "off",
    timers: clock,
    latencyMs: LATENCY,
    ...options,
  });
  servers.push(mock);
  return { mock, clock };
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

/** Sends a create request; resolves once the whole answer has been read (or with the error it failed with). */
function send(
  baseURL: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Reply> {
  return fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", input: "hello", ...body }),
    signal,
  }).then(async (res) => ({ status: res.status, headers: res.headers, text: await res.text() }));
}

/** Keeps a promise's outcome for a later look (a waiting request has none yet). */
function track<T>(promise: Promise<T>): {
  promise: Promise<T>;
  value: T | undefined;
  error: unknown;
  settled: boolean;
} {
  const t = { promise, value: undefined as T | undefined, error: undefined as unknown, settled: false };
  promise.then(
    (v) => Object.assign(t, { value: v, settled: true }),
    (e: unknown) => Object.assign(t, { error: e, settled: true }),
  );
  return t;
}

const waitFor = <T>(fn: () => T) => vi.waitFor(fn, { timeout: 5_000, interval: 2 });

/** The entries of create requests. */
const creates = (mock: MockServer) => mock.requests.filter((e) => e.path === "/v1/responses");

/** Splits the create entries: refused (503 sent), playing (a slot, not ended), waiting (planned, no slot yet). */
function census(mock: MockServer) {
  const all = creates(mock);
  return {
    refused: all.filter((e) => e.status === 503),
    playing: all.filter((e) => e.outcome === null && e.waitMs !== null),
    waiting: all.filter((e) => e.outcome === null && e.waitMs === null && e.scenario !== null),
  };
}

interface TimelineView {
  timeline: { t: number; kind: string }[];
}
async function firstEventAt(mock: MockServer, entry: JournalEntry): Promise<number> {
  const view = (await (await fetch(`${mock.url}/__mock/requests/${entry.seq}/answer`)).json()) as TimelineView;
  return view.timeline.find((m) => m.kind === "event")!.t;
}

function expectOverloaded(reply: Reply, retryMs: number) {
  expect(reply.status).toBe(503);
  expect(reply.headers.get("retry-after")).toBe(String(Math.max(1, Math.ceil(retryMs / 1000))));
  expect(reply.headers.get("retry-after-ms")).toBe(String(retryMs));
  const body = JSON.parse(reply.text) as { error: Record<string, unknown> };
  expectErrorBody(body);
  expect(body.error).toMatchObject({ type: "server_error", code: "server_is_overloaded", param: null });
  expect(body.error.message).toMatch(/^The server is overloaded: the server plays at most \d+ answers at once/);
}

describe("maxConcurrent: 2, queue: 2", () => {
  it("6 simultaneous streams: 2 play, 2 wait, 2 get a 503 at once; the waiting ones' time to first byte includes their wait", async () => {
    const { mock, clock } = await start({ maxConcurrent: 2, queue: 2 });
    const replies = Array.from({ length: 6 }, (_, i) =>
      track(send(mock.baseURL, { input: `stream ${i}`, stream: true })),
    );

    // Nothing moves until the clock does: two 503s come at once, two answers hold the slots, two wait.
    await waitFor(() => {
      const c = census(mock);
      expect([c.refused.length, c.playing.length, c.waiting.length]).toEqual([2, 2, 2]);
      expect(replies.filter((r) => r.settled)).toHaveLength(2);
    });
    const refused = replies.filter((r) => r.settled).map((r) => r.value!);
    // The earliest playing answer is due to end 100 ms from now (its schedule): the retry delay.
    for (const reply of refused) expectOverloaded(reply, LATENCY);
    for (const entry of census(mock).refused) {
      expect(entry.waitMs).toBe(0);
      expect(entry.outcome).toBe("error");
      expect(entry.errorCode).toBe("server_is_overloaded");
      expect(entry.limits).toEqual({
        verdict: "overloaded",
        limit: "queue",
        headers: { "retry-after": "1", "retry-after-ms": "100" },
      });
    }
    const { playing, waiting } = census(mock);
    for (const entry of playing) expect(entry.waitMs).toBe(0);

    // The first two end at 100 ms: their slots go to the two that waited, which then play for 100 ms.
    await clock.advance(LATENCY);
    await waitFor(() => expect(waiting.every((e) => e.waitMs !== null)).toBe(true));
    // Both play from now on (the pacer may time them with one timer): the clock stays put until they have started.
    await waitFor(() => expect(clock.pending).toBeGreaterThan(0));
    await new Promise((resolve) => setImmediate(resolve));
    await clock.advance(LATENCY);
    const answers = await Promise.all(replies.filter((r) => r.value?.status !== 503).map((r) => r.promise));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const stream = parseSseStrict(answer.text);
      expect(stream.events.at(-1)!.type).toBe("response.completed");
    }
    await waitFor(() => expect(creates(mock).every((e) => e.outcome !== null)).toBe(true));
    for (const entry of playing) {
      expect(entry.waitMs).toBe(0);
      expect(await firstEventAt(mock, entry)).toBe(LATENCY);
      expect(entry.durationMs).toBe(LATENCY);
    }
    for (const entry of waiting) {
      expect(entry.waitMs).toBe(LATENCY);
      // Time to first byte: the wait, then the answer's own latency.
      expect(await firstEventAt(mock, entry)).toBe(LATENCY + LATENCY);
      expect(entry.durationMs).toBe(2 * LATENCY);
      expect(entry.limits).toBeNull();
    }
  });

  it("a request past queueTimeoutMs in the queue gets a 503 (queue_timeout) saying when the earliest playing answer ends", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 1, queueTimeoutMs: 30 });
    const first = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const second = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    await clock.advance(30);
    const reply = await second.promise;
    // The playing answer is due at 100 ms; 30 ms have passed.
    expectOverloaded(reply, 70);
    expect(JSON.parse(reply.text).error.message).toContain("waited 30 ms in its queue (queueTimeoutMs)");
    const entry = creates(mock)[1];
    await waitFor(() => expect(entry.outcome).toBe("error"));
    expect(entry.waitMs).toBe(30);
    expect(entry.limits).toMatchObject({ verdict: "overloaded", limit: "queue_timeout" });
    await clock.advance(70);
    expect((await first.promise).status).toBe(200);
  });

  it("a slot freed by a client that went away goes to the next waiter, which counts its wait", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 1 });
    const abort = new AbortController();
    const first = track(send(mock.baseURL, { stream: true }, {}, abort.signal));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const second = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    await clock.advance(40);
    abort.abort();
    const [played, waited] = creates(mock);
    await waitFor(() => expect(played.outcome).toBe("aborted"));
    await waitFor(() => expect(waited.waitMs).toBe(40));
    await waitFor(() => expect(clock.pending).toBeGreaterThan(0));
    await clock.advance(LATENCY);
    const reply = await second.promise;
    expect(reply.status).toBe(200);
    parseSseStrict(reply.text);
    await waitFor(() => expect(waited.outcome).toBe("completed"));
    expect(await firstEventAt(mock, waited)).toBe(40 + LATENCY);
    await first.promise.catch(() => undefined);
  });

  it("a waiting client that goes away leaves the queue: its place goes to the next request", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 1 });
    const first = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const abort = new AbortController();
    const leaving = track(send(mock.baseURL, { stream: true }, {}, abort.signal));
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    abort.abort();
    await waitFor(() => expect(creates(mock)[1].outcome).toBe("aborted"));
    await leaving.promise.catch(() => undefined);
    // Its place is free again: the next request waits instead of getting a 503.
    const third = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    expect(third.settled).toBe(false);
    // And with the place taken, one more is refused.
    const fourth = await send(mock.baseURL, { stream: true });
    expectOverloaded(fourth, LATENCY);
    await clock.advance(LATENCY);
    await waitFor(() => expect(clock.pending).toBe(1));
    await clock.advance(LATENCY);
    expect((await first.promise).status).toBe(200);
    expect((await third.promise).status).toBe(200);
    expect(creates(mock)[2].waitMs).toBe(LATENCY);
  });

  it("a JSON answer that is not paced frees its slot at once; one that is paced holds it until its body is sent", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 0, latencyMs: undefined });
    for (let i = 0; i < 3; i++) expect((await send(mock.baseURL, {})).status).toBe(200);
    const paced = track(send(mock.baseURL, {}, { "x-mock-latency-ms": "50" }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    expectOverloaded(await send(mock.baseURL, {}), 50);
    await clock.advance(50);
    expect((await paced.promise).status).toBe(200);
    expect((await send(mock.baseURL, {})).status).toBe(200);
  });

  it("a background run holds its slot until the run ends", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 0 });
    const run = await send(mock.baseURL, { background: true });
    expect(run.status).toBe(200);
    const id = (JSON.parse(run.text) as { id: string }).id;
    expectOverloaded(await send(mock.baseURL, {}), LATENCY);
    await clock.advance(LATENCY);
    await waitFor(async () => {
      const res = await fetch(`${mock.baseURL}/responses/${id}`);
      expect(((await res.json()) as { status: string }).status).toBe("completed");
    });
    const after = track(send(mock.baseURL, {}));
    await waitFor(() => expect(clock.pending).toBe(1));
    await clock.advance(LATENCY);
    expect((await after.promise).status).toBe(200);
  });

  it("the openai dialect answers OpenAI's overloaded error", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 0 });
    const first = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const reply = await send(mock.baseURL, { stream: true }, { "x-mock-dialect": "openai" });
    expect(reply.status).toBe(503);
    expect(reply.headers.get("retry-after")).toBe("1");
    expect(reply.headers.get("retry-after-ms")).toBe("100");
    expect(JSON.parse(reply.text)).toEqual({
      error: {
        message: "Our servers are currently overloaded. Please try again later.",
        type: "service_unavailable_error",
        param: null,
        code: "server_is_overloaded",
      },
    });
    await clock.advance(LATENCY);
    await first.promise;
  });
});

describe("WebSocket turns", () => {
  it("a turn waits for its slot (its wait before its first event); an overloaded one is an error event with status 503", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 1 });
    const first = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const waiting = await WsClient.connect(mock.baseURL, {});
    const refused = await WsClient.connect(mock.baseURL, {});
    try {
      waiting.create({ model: "m", input: "wait for me" });
      await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
      refused.create({ model: "m", input: "no room" });
      const error = await refused.readTurn();
      expect(error.errors).toEqual([]);
      expect(error.errorFrame).toMatchObject({
        type: "error",
        status: 503,
        error: {
          type: "server_error",
          code: "server_is_overloaded",
          headers: { "retry-after": "1", "retry-after-ms": "100" },
        },
      });
      await clock.advance(LATENCY);
      await waitFor(() => expect(clock.pending).toBe(1));
      await clock.advance(LATENCY);
      const turn = await waiting.readTurn();
      expect(turn.errors).toEqual([]);
      expect(turn.finalResponse).toMatchObject({ status: "completed" });
      const entry = mock.requests.find((e) => e.method === "WS" && e.waitMs === LATENCY)!;
      expect(entry).toBeDefined();
      expect(await firstEventAt(mock, entry)).toBe(2 * LATENCY);
      expect((await first.promise).status).toBe(200);
    } finally {
      waiting.ws.terminate();
      refused.ws.terminate();
    }
  });

  it("a waiting turn whose connection closes leaves the queue", async () => {
    const { mock, clock } = await start({ maxConcurrent: 1, queue: 1 });
    const first = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).playing).toHaveLength(1));
    const ws = await WsClient.connect(mock.baseURL, {});
    ws.create({ model: "m", input: "gone soon" });
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    ws.ws.close();
    await waitFor(() => expect(mock.requests.find((e) => e.method === "WS")!.outcome).toBe("aborted"));
    const next = track(send(mock.baseURL, { stream: true }));
    await waitFor(() => expect(census(mock).waiting).toHaveLength(1));
    await clock.advance(LATENCY);
    await waitFor(() => expect(clock.pending).toBe(1));
    await clock.advance(LATENCY);
    expect((await first.promise).status).toBe(200);
    expect((await next.promise).status).toBe(200);
  });
});

describe("a model's own capacity", () => {
  /** A server built from a hand-made service: model `small` plays one answer at a time with no queue; the others share the server's 2. */
  async function serveService(clock: ManualClock): Promise<{ baseURL: string; requests: () => JournalEntry[] }> {
    const options = resolveOptions({ clock: fixedClock(TEST_NOW_MS), timers: clock, latencyMs: LATENCY, seed: 7 });
    const base = defaultService();
    const small: ModelSpec = { id: "small", ...base.defaults, capacity: { maxConcurrent: 1, queue: 0 } };
    const service: Service = { ...base, models: new Map([["small", small]]), capacity: { maxConcurrent: 2 } };
    const deps = createDeps(options, await loadRegistry(options), undefined, undefined, service);
    const server: Server = createServer(createRequestListener(deps, createApp(deps)));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    });
    const { port } = server.address() as AddressInfo;
    return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => deps.journal.list() };
  }

  it("is a pool of its own; other models share the server's", async () => {
    const clock = new ManualClock(START);
    const { baseURL, requests } = await serveService(clock);
    const small = track(send(baseURL, { model: "small", stream: true }));
    await waitFor(() => expect(requests().filter((e) => e.waitMs === 0)).toHaveLength(1));
    const refused = await send(baseURL, { model: "small", stream: true });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text).error.message).toMatch(
      /^The server is overloaded: model 'small' plays at most 1 answers at once, and all 1 of its slots are taken and it has no queue/,
    );
    // The server's pool is untouched by `small`: two other answers play.
    const others = [
      track(send(baseURL, { model: "big", stream: true })),
      track(send(baseURL, { model: "m", stream: true })),
    ];
    await waitFor(() => expect(requests().filter((e) => e.waitMs === 0 && e.outcome === null)).toHaveLength(3));
    expect((await send(baseURL, { model: "third" })).status).toBe(503);
    await clock.advance(LATENCY);
    for (const r of [small, ...others]) expect((await r.promise).status).toBe(200);
  });
});

describe("LocalSlots", () => {
  const pool: Pool = { key: "server", max: 1, queue: 2, timeoutMs: undefined };
  const holder = (id: string, playMs = 10): Holder => ({ id, playMs: () => playMs, state: "new", granted: undefined });

  it("hands a freed slot to the first waiter, first come first served, and says when the earliest playing answer ends", () => {
    let now = 0;
    const slots = new LocalSlots(() => now);
    const [a, b, c, d] = ["a", "b", "c", "d"].map((id) => holder(id, 50));
    const order: string[] = [];
    b.granted = () => order.push("b");
    c.granted = () => order.push("c");
    expect(slots.enter(pool, a)).toEqual({ kind: "slot" });
    expect(slots.enter(pool, b)).toEqual({ kind: "queued" });
    expect(slots.enter(pool, c)).toEqual({ kind: "queued" });
    now = 20;
    expect(slots.enter(pool, d)).toEqual({ kind: "full", retryMs: 30 });
    expect(slots.counts("server")).toEqual({ active: 1, queued: 2 });
    slots.release(pool, a);
    expect(order).toEqual(["b"]);
    expect(slots.leave(pool, c)).toEqual({ kind: "left", retryMs: 50 });
    expect(slots.leave(pool, b)).toEqual({ kind: "granted" });
    slots.release(pool, b);
    expect(order).toEqual(["b"]);
    expect(slots.counts("server")).toEqual({ active: 0, queued: 0 });
  });

  it("retry headers: whole seconds rounded up (at least 1), and the ms", () => {
    expect(retryHeaders(0)).toEqual({ "retry-after": "1", "retry-after-ms": "0" });
    expect(retryHeaders(999.2)).toEqual({ "retry-after": "1", "retry-after-ms": "1000" });
    expect(retryHeaders(2_001)).toEqual({ "retry-after": "3", "retry-after-ms": "2001" });
  });
});

describe("a proxied turn (Chat Completions upstream)", () => {
  it("takes its slot before anything goes upstream: a second request while the first is upstream is a 503, and the slot comes back", async () => {
    // An upstream that holds each answer until the test lets it go.
    const upstream = await startChatUpstream({ content: "From upstream.", hold: true });
    servers.push(upstream);
    const { held } = upstream;
    const { mock } = await start({
      upstream: upstream.baseURL,
      upstreamApi: "chat",
      maxConcurrent: 1,
      latencyMs: undefined,
    });

    const first = track(send(mock.baseURL, { input: "first" }));
    await waitFor(() => expect(held).toHaveLength(1));
    const second = await send(mock.baseURL, { input: "second" });
    expect(second.status).toBe(503);
    expect(JSON.parse(second.text).error).toMatchObject({ code: "server_is_overloaded" });
    // Refused before it went upstream.
    expect(upstream.requests).toBe(1);

    held.shift()!();
    await first.promise;
    expect(first.value!.status).toBe(200);
    expect(first.value!.text).toContain("From upstream.");
    // The slot came back when the proxied turn ended.
    const third = track(send(mock.baseURL, { input: "third" }));
    await waitFor(() => expect(held).toHaveLength(1));
    held.shift()!();
    expect((await third.promise).status).toBe(200);
    expect(upstream.requests).toBe(2);
  });
});
