/**
 * A stream builds its events as they are sent: a client that leaves after a
 * few events of a 1,008-event answer costs the server those events (and the
 * one the schedule reads ahead to time), not the whole answer. Over SSE and
 * over WebSocket, on a real server.
 */
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { EventSource } from "../../src/emit/emit-events.js";
import { useServer } from "../support/server.js";

const LONG = fileURLToPath(new URL("../../bench/scenarios/long-1000.json", import.meta.url));
const TOTAL = 1008;
const CUT_AFTER = 12;
const server = useServer({ scenarios: [LONG] });

/** Counts the events the server's event sources build while `run` goes. */
async function built(run: () => Promise<void>): Promise<number> {
  let count = 0;
  const next = EventSource.prototype.next;
  const spy = vi.spyOn(EventSource.prototype, "next").mockImplementation(function (this: EventSource) {
    const event = next.call(this);
    if (event !== undefined) count++;
    return event;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return count;
}

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe("a stream cut by its client", () => {
  it("over SSE builds no more events than it sent, plus the one read ahead", async () => {
    const mock = server();
    let received = 0;
    const count = await built(async () => {
      await new Promise<void>((resolve) => {
        const req = httpRequest(
          new URL(`${mock.baseURL}/responses`),
          {
            method: "POST",
            headers: { "content-type": "application/json", "x-mock-scenario": "long-1000", "x-mock-chunk-ms": "5" },
          },
          (res) => {
            res.setEncoding("utf8");
            res.on("data", (text: string) => {
              received += text.split("\nevent: ").length - 1 + (text.startsWith("event: ") ? 1 : 0);
              if (received >= CUT_AFTER) {
                req.destroy();
                resolve();
              }
            });
          },
        );
        // Destroying the request ends it with an error on our side: expected.
        req.on("error", () => resolve());
        req.once("close", () => resolve());
        req.end(JSON.stringify({ model: "m", input: "hello", stream: true }));
      });
      await waitFor(() => mock.requests.at(-1)?.outcome === "aborted");
    });
    const sent = mock.requests.at(-1)!.events!;
    expect(received).toBeGreaterThanOrEqual(CUT_AFTER);
    expect(sent).toBeGreaterThanOrEqual(received);
    expect(sent).toBeLessThan(TOTAL / 4);
    expect(count).toBeGreaterThanOrEqual(sent);
    expect(count).toBeLessThanOrEqual(sent + 1);
  });

  it("over WebSocket too", async () => {
    const mock = server();
    let received = 0;
    const count = await built(async () => {
      const ws = new WebSocket(`${mock.baseURL.replace(/^http/, "ws")}/responses`, {
        headers: { "x-mock-scenario": "long-1000", "x-mock-chunk-ms": "5" },
      });
      await new Promise<void>((resolve, reject) => {
        ws.once("open", () => ws.send(JSON.stringify({ type: "response.create", model: "m", input: "hello" })));
        ws.on("message", () => {
          if (++received === CUT_AFTER) {
            ws.terminate();
            resolve();
          }
        });
        ws.once("error", reject);
      });
      await waitFor(() => mock.requests.at(-1)?.outcome === "aborted");
    });
    const sent = mock.requests.at(-1)!.events!;
    expect(sent).toBeGreaterThanOrEqual(CUT_AFTER);
    expect(sent).toBeLessThan(TOTAL / 4);
    expect(count).toBeGreaterThanOrEqual(sent);
    expect(count).toBeLessThanOrEqual(sent + 1);
  });

  it("played to the end, builds every event once", async () => {
    const mock = server();
    let text = "";
    const count = await built(async () => {
      const res = await fetch(`${mock.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-scenario": "long-1000" },
        body: JSON.stringify({ model: "m", input: "hello", stream: true }),
      });
      text = await res.text();
    });
    expect(text.split("\n\n").filter((f) => f.startsWith("event: ")).length).toBe(TOTAL);
    expect(count).toBe(TOTAL);
  });
});
