/**
 * `POST /v1/responses` is answered on Node's request and response, outside
 * Koa; the Koa app's route answers the same way (for users of createApp).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, createRequestListener, type AppDeps } from "../../src/http/app.js";
import { resolveOptions } from "../../src/options.js";
import { createDeps, loadRegistry } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { expectConformantStream, expectErrorBody, expectValidResponse } from "../support/conformance.js";
import { postResponses, rawPost, TEST_NOW_MS, useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";

async function serve(listener: Parameters<typeof createServer>[1], servers: Server[]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the direct path and the Koa app", () => {
  // Two servers with the same options and fresh state: ids are unique per answer of one server, so each path gets its own.
  let directDeps: AppDeps;
  let koaDeps: AppDeps;
  let direct: string;
  let koa: string;
  const servers: Server[] = [];
  beforeAll(async () => {
    const options = resolveOptions({ clock: fixedClock(TEST_NOW_MS), apiKey: "sk-direct-key-123" });
    const registry = await loadRegistry(options);
    directDeps = createDeps(options, registry);
    koaDeps = createDeps(options, registry);
    direct = await serve(createRequestListener(directDeps), servers);
    koa = await serve(createApp(koaDeps).callback(), servers);
  });
  afterAll(() => servers.forEach((s) => s.close()));

  const post = (origin: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-direct-key-123", ...headers },
      body: JSON.stringify(body),
    });

  it("answer alike: the same bytes, headers, errors and journal entries", async () => {
    for (const [body, headers] of [
      [{ model: "m", input: "alike" }, {}],
      [{ model: "m", input: "alike", stream: true }, {}],
      [{ model: "m", input: 3 }, {}],
      [{ model: "m", input: "x" }, { authorization: "Bearer wrong" }],
      [{ model: "m", input: "x" }, { "x-mock-scenario": "no-such-scenario" }],
    ] as const) {
      const a = await post(direct, body, headers);
      const b = await post(koa, body, headers);
      expect(a.status).toBe(b.status);
      for (const h of ["content-type", "x-mock-scenario", "cache-control"])
        expect(a.headers.get(h)).toBe(b.headers.get(h));
      expect(await a.text()).toBe(await b.text());
      const [ea] = directDeps.journal.list().slice(-1);
      const [eb] = koaDeps.journal.list().slice(-1);
      // How each ended (outcome, error code, events) alike too; only the times differ.
      const same = { seq: 0, at: 0, headers: {}, endedAt: 0, durationMs: 0 };
      expect({ ...ea, ...same }).toEqual({ ...eb, ...same });
      for (const e of [ea, eb]) {
        expect(e.outcome).not.toBeNull();
        expect(e.durationMs).toBeGreaterThanOrEqual(0);
        expect(e.endedAt).toBe(e.at + e.durationMs!);
      }
    }
  });
});
