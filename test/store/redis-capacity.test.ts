/**
 * Capacity shared in Redis (`--store redis://…`): two servers on one real
 * `redis-server` enforce one `maxConcurrent` and one queue between them — a
 * slot freed on one wakes a request waiting on the other, first come first
 * served — and the slots of a process that dies do not leak: once its lease is
 * gone, the next script drops them and wakes the waiters. On a ManualClock
 * (the pacing) and a pinned wall clock (the due times in Redis).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startServer, type MockServer } from "../../src/server.js";
import type { Holder, Pool } from "../../src/service/slots.js";
import { RedisLink } from "../../src/store/redis-client.js";
import { RedisSlots } from "../../src/store/redis-capacity.js";
import { ManualClock, fixedClock, type TimerHandle } from "../../src/timing/clock.js";
import { TEST_NOW_MS } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { startRedis, type RedisServer } from "./redis-support.js";

const LATENCY = 100;

/** A manual clock that remembers when each timer asked of it falls due. */
class TimerLog extends ManualClock {
  readonly dues: number[] = [];
  override setTimeout(fn: () => void, ms: number): TimerHandle {
    this.dues.push(this.now() + ms);
    return super.setTimeout(fn, ms);
  }
}

/** Waits until an answer has started playing and asked for its first event at `at` (its start is then known), and moves the clock there. */
async function playUntil(clock: TimerLog, at: number): Promise<void> {
  await vi.waitFor(() => expect(clock.dues).toContain(at), { timeout: 5_000, interval: 2 });
  await clock.advance(at - clock.now());
}
let redis: RedisServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  await adminLink?.close();
  await redis?.stop();
});

/** Two servers on the Redis, with their own pool settings (the same ones), on one manual clock. */
async function pair(capacity: { maxConcurrent: number; queue: number }, clock: TimerLog) {
  // A fresh Redis for each test: the counts of one do not leak into the next.
  await (await admin()).run((c) => c.flushAll());
  const start = () =>
    startServer({
      port: 0,
      seed: 3,
      log: "off",
      store: redis.url,
      clock: fixedClock(TEST_NOW_MS),
      timers: clock,
      latencyMs: LATENCY,
      ...capacity,
    });
  const servers = await Promise.all([start(), start()]);
  for (const s of servers) closers.push(() => s.close());
  return servers;
}

async function link(): Promise<RedisLink> {
  const l = await RedisLink.connect(redis.url, redis.url, () => undefined);
  closers.push(() => l.close());
  return l;
}

function send(server: MockServer, body: Record<string, unknown> = {}) {
  return fetch(`${server.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", input: "hi", stream: true, ...body }),
  }).then(async (res) => ({ status: res.status, headers: res.headers, text: await res.text() }));
}

const waitFor = <T>(fn: () => T | Promise<T>) => vi.waitFor(fn, { timeout: 5_000, interval: 5 });

/** How many play and wait in the server pool, as Redis holds them. */
async function counts(): Promise<{ active: number; queued: number }> {
  const l = await admin();
  const [active, queued] = await l.run((c) =>
    Promise.all([c.hLen("openresponses-mock:slots:server:active"), c.zCard("openresponses-mock:slots:server:queue")]),
  );
  return { active, queued };
}

let adminLink: RedisLink | undefined;
async function admin(): Promise<RedisLink> {
  return (adminLink ??= await RedisLink.connect(redis.url, redis.url, () => undefined));
}
const creates = (s: MockServer) => s.requests.filter((e) => e.path === "/v1/responses");

describe("two servers on one Redis", () => {
  it("share one maxConcurrent and one queue: a slot freed on one goes to the request waiting on the other", async () => {
    const clock = new TimerLog(1_000);
    const [a, b] = await pair({ maxConcurrent: 1, queue: 1 }, clock);
    const first = send(a, { input: "first" });
    await waitFor(async () => expect(await counts()).toEqual({ active: 1, queued: 0 }));
    const second = send(b, { input: "second" });
    await waitFor(async () => expect(await counts()).toEqual({ active: 1, queued: 1 }));
    // The one slot plays on a, the one place waits on b: a third request, on either, is refused.
    for (const server of [a, b]) {
      const refused = await send(server, { input: "third" });
      expect(refused.status).toBe(503);
      // The answer on a is due to end 100 ms after it started (wall clock pinned: 100 ms from now).
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(refused.headers.get("retry-after-ms")).toBe(String(LATENCY));
      expect(JSON.parse(refused.text).error.code).toBe("server_is_overloaded");
    }
    expect(creates(b)[0].waitMs).toBeNull();
    await playUntil(clock, 1_100);
    expect((await first).status).toBe(200);
    // a's release is published; b's waiter takes the slot after the 100 ms it waited.
    await waitFor(() => expect(creates(b)[0].waitMs).toBe(LATENCY));
    await playUntil(clock, 1_200);
    const played = await second;
    expect(played.status).toBe(200);
    expect(parseSseStrict(played.text).events.at(-1)!.type).toBe("response.completed");
    // Everything released: the next request on either plays at once.
    await waitFor(async () => expect(await counts()).toEqual({ active: 0, queued: 0 }));
    const next = send(b);
    await playUntil(clock, 1_300);
    expect((await next).status).toBe(200);
  });

  it("keep the queue first come first served across processes", async () => {
    const clock = new TimerLog(1_000);
    const [a, b] = await pair({ maxConcurrent: 1, queue: 3 }, clock);
    const playing = send(a, { input: "playing" });
    await waitFor(async () => expect(await counts()).toEqual({ active: 1, queued: 0 }));
    // Queued in this order: b, a, b.
    const order = [b, a, b];
    const waiting: Promise<unknown>[] = [];
    for (const [i, server] of order.entries()) {
      waiting.push(send(server, { input: `waiting ${i}` }));
      await waitFor(async () => expect(await counts()).toEqual({ active: 1, queued: i + 1 }));
    }
    const waitOf = (i: number) => {
      const server = order[i];
      const own = order.slice(0, i + 1).filter((s) => s === server).length;
      return creates(server).filter((e) => e.body && String((e.body as { input: string }).input).startsWith("waiting"))[
        own - 1
      ].waitMs;
    };
    for (let turn = 0; turn < order.length; turn++) {
      await playUntil(clock, 1_100 + turn * LATENCY);
      // The next in line (and only it) has its slot now.
      await waitFor(() => expect(waitOf(turn)).toBe((turn + 1) * LATENCY));
      for (let later = turn + 1; later < order.length; later++) expect(waitOf(later)).toBeNull();
    }
    await playUntil(clock, 1_100 + order.length * LATENCY);
    await Promise.all([playing, ...waiting]);
  });

  it("drop the slots of a process whose lease has run out, and wake the waiters", async () => {
    const clock = new TimerLog(1_000);
    const [a, b] = await pair({ maxConcurrent: 1, queue: 1 }, clock);
    // A process that takes the only slot, then dies: its lease is no longer renewed and runs out.
    const dead = new RedisSlots(await link(), () => TEST_NOW_MS);
    const pool: Pool = { key: "server", max: 1, queue: 1, timeoutMs: undefined };
    const holder: Holder = { id: "1", playMs: () => 60_000, state: "new", granted: undefined };
    expect(await dead.enter(pool, holder)).toEqual({ kind: "slot" });
    clearInterval((dead as unknown as { timer: NodeJS.Timeout }).timer);
    const waiting = send(a, { input: "waits for the dead one" });
    await waitFor(async () => expect(await counts()).toEqual({ active: 1, queued: 1 }));
    expect(creates(a)[0].waitMs).toBeNull();
    // While the lease lives, its slot counts: the queue is full.
    const refused = await send(b);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after-ms")).toBe("60000");
    // The lease runs out (as its TTL would): the next script drops the dead slot and wakes the waiter.
    await (await admin()).run((c) => c.del(`openresponses-mock:slots:live:${dead.process}`));
    const after = await send(b);
    expect(after.status).toBe(503);
    await waitFor(() => expect(creates(a)[0].waitMs).toBe(0));
    await playUntil(clock, 1_100);
    expect((await waiting).status).toBe(200);
  });
});
