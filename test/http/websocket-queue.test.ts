/**
 * A WebSocket connection's queue of pending `response.create` messages is
 * bounded (PENDING_MESSAGES_LIMIT): with a paced turn playing on a manual
 * clock, 66 messages sent at once are one turn playing, 64 waiting and one
 * refused with a 429 `too_many_pending_requests` error event; every waiting
 * turn is then played, and the connection takes later messages.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { useServer } from "../support/server.js";
import { ManualClock } from "../../src/timing/clock.js";
import { PENDING_MESSAGES_LIMIT } from "../../src/http/websocket.js";

type Msg = { type: string; [k: string]: any };
const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);

const timers = new ManualClock(0);
const server = useServer({ timers });

/** Lets the server's event loop run (its turns yield with setImmediate between them). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Advances the manual clock until `done()` holds (at most `rounds` steps of `ms`). */
async function driveUntil(done: () => boolean, ms = 1000, rounds = 20_000): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) {
    await timers.advance(ms);
    await tick();
  }
  expect(done()).toBe(true);
}

describe("WebSocket: the queue of pending messages is bounded", () => {
  it("refuses the message past the bound with an error event, plays the others, and stays usable", async () => {
    expect(PENDING_MESSAGES_LIMIT).toBe(64);
    const mock = server();
    const ws = new WebSocket(`${mock.url.replace(/^http/, "ws")}/v1/responses`, {
      headers: { "x-mock-chunk-ms": "1000", "x-mock-scenario": "text" },
    });
    const messages: Msg[] = [];
    ws.on("message", (data) => messages.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));

    const count = PENDING_MESSAGES_LIMIT + 2;
    for (let i = 0; i < count; i++)
      ws.send(JSON.stringify({ type: "response.create", model: "mock-model-1", input: `turn ${i}` }));

    const errors = () => messages.filter((m) => m.type === "error" && "status" in m);
    const terminals = () => messages.filter((m) => TERMINAL.has(m.type));
    // The refused one is answered at once, before the first turn (paced at 1 s an event) has ended.
    await driveUntil(() => errors().length === 1, 0, 1000);
    expect(terminals()).toHaveLength(0);
    const [refused] = errors();
    expect(refused.status).toBe(429);
    expect(refused.error.type).toBe("too_many_requests");
    expect(refused.error.code).toBe("too_many_pending_requests");
    expect(refused.error.param).toBeNull();
    expect(refused.error.message).toContain(`${PENDING_MESSAGES_LIMIT} messages`);

    // Every other message is played, in order, each to its end.
    await driveUntil(() => terminals().length === count - 1);
    expect(terminals().every((m) => m.type === "response.completed")).toBe(true);
    expect(errors()).toHaveLength(1);

    // The journal has the refused message as a request answered an error: the last one sent.
    const page = (await (await fetch(`${mock.url}/__mock/requests?limit=1000`)).json()) as { data: Msg[] };
    const turns = page.data.filter((e) => e.method === "WS");
    expect(turns).toHaveLength(count);
    const failed = turns.filter((e: Msg) => e.errorCode === "too_many_pending_requests");
    expect(failed).toHaveLength(1);
    expect(failed[0].status).toBe(429);
    expect(failed[0].body.input).toBe(`turn ${count - 1}`);

    // The connection takes later messages.
    ws.send(JSON.stringify({ type: "response.create", model: "mock-model-1", input: "one more" }));
    await driveUntil(() => terminals().length === count);
    expect(errors()).toHaveLength(1);
    ws.close();
  });
});
