/**
 * When the upstream fails, the client gets a spec error, never a hang: an
 * upstream that is down is a 502, one that says nothing past the timeout a
 * 504, and a stream cut short (or left silent) mid-way ends with an `error`
 * event then `response.failed`, numbered after the upstream's last event.
 * The upstream here is a second mock, told to fail by the `x-mock-*` headers
 * the proxy passes on; both upstream APIs.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { expectConformantStream, expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";

type Ev = { type: string; sequence_number: number; [k: string]: unknown };

const post = (base: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${base}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(["responses", "chat"] as const)("an upstream that is down (%s)", (upstreamApi) => {
  let proxy: MockServer;
  beforeAll(async () => {
    proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${await deadPort()}/v1`, upstreamApi });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it.each([false, true])("is a 502 error object (stream: %s), journaled with the upstream's error", async (stream) => {
    const res = await post(proxy.baseURL, { model: "m", input: "hi", stream });
    expect(res.status).toBe(502);
    const body = await res.json();
    expectErrorBody(body);
    expect(body.error).toMatchObject({ type: "server_error", code: "upstream_unreachable" });
    expect(body.error.message).toMatch(/could not be reached: ECONNREFUSED/);
    const entry = proxy.requests.at(-1)!;
    expect(entry.status).toBe(502);
    expect(entry.upstream).toMatchObject({ api: upstreamApi, status: null });
    expect(entry.upstream!.error).toMatch(/ECONNREFUSED/);
  });
});

describe("a Responses upstream that is slow or cuts the stream", () => {
  let upstream: MockServer;
  let proxy: MockServer;
  beforeAll(async () => {
    upstream = await startMockServer({ port: 0, seed: 3 });
    proxy = await startMockServer({ port: 0, upstream: upstream.baseURL, upstreamTimeoutMs: 300 });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it.each([false, true])("answers 504 when the upstream says nothing for the timeout (stream: %s)", async (stream) => {
    const res = await post(proxy.baseURL, { model: "m", input: "hi", stream }, { "x-mock-latency-ms": "3000" });
    expect(res.status).toBe(504);
    const body = await res.json();
    expectErrorBody(body);
    expect(body.error).toMatchObject({ type: "server_error", code: "upstream_timeout" });
    expect(body.error.message).toMatch(/sent nothing for 300 ms \(--upstream-timeout-ms\)/);
  });

  it("ends a stream cut mid-way with error then response.failed, numbered on from the upstream's events", async () => {
    const res = await post(
      proxy.baseURL,
      { model: "m", input: "Tell me a long story about the sea.", stream: true },
      { "x-mock-fault": "drop-after-events=6" },
    );
    expect(res.status).toBe(200);
    const { events, done } = parseSseStrict(await res.text());
    expect(done).toBe(true);
    expectConformantStream(events as never);
    const evs = events as Ev[];
    expect(evs.length).toBe(8);
    expect(evs.slice(-2).map((e) => e.type)).toEqual(["error", "response.failed"]);
    expect(evs.at(-2)!.error).toMatchObject({ type: "server_error", code: "upstream_disconnected" });
    // The failed response is the upstream's (its id), with the item it had begun, now incomplete.
    const failed = evs.at(-1)!.response as { id: string; status: string; output: { status: string }[] };
    expect(failed.id).toBe(evs[0].response && (evs[0].response as { id: string }).id);
    expect(failed.status).toBe("failed");
    expect(failed.output.at(-1)!.status).toBe("incomplete");
    const entry = proxy.requests.at(-1)!;
    expect(entry.status).toBe(200);
    expect(entry.upstream!.error).toMatch(/closed the connection/);
  });

  it("ends a stream that stalls past the timeout the same way", async () => {
    const res = await post(
      proxy.baseURL,
      { model: "m", input: "hi", stream: true },
      { "x-mock-fault": "stall-after-events=4; stall-ms=5000" },
    );
    const { events } = parseSseStrict(await res.text());
    expectConformantStream(events as never);
    expect((events as Ev[]).length).toBe(6);
    expect((events as Ev[]).at(-2)!.error).toMatchObject({ code: "upstream_timeout" });
  });

  it("passes the upstream's own errors on as they are", async () => {
    const res = await post(proxy.baseURL, { model: "m", input: "hi" }, { "x-mock-scenario": "no-such-scenario" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: unknown };
    expect(body.error).toMatchObject({ code: "unknown_scenario", param: "x-mock-scenario" });
  });
});

describe("a Responses upstream that opens a stream and sends no event", () => {
  it("gets a whole failed stream of the proxy's own", async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      setTimeout(() => res.socket?.destroy(), 50);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const proxy = await startMockServer({
      port: 0,
      upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    });
    try {
      const res = await post(proxy.baseURL, { model: "m", input: "hi", stream: true });
      expect(res.status).toBe(200);
      const { events } = parseSseStrict(await res.text());
      expectConformantStream(events as never);
      expect((events as Ev[]).map((e) => e.type)).toEqual([
        "response.created",
        "response.in_progress",
        "error",
        "response.failed",
      ]);
      expect(((events as Ev[])[0].response as { model: string }).model).toBe("m");
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("a Chat Completions upstream that never answers", () => {
  let proxy: MockServer;
  const server = createServer(() => {
    // Reads the request and never answers.
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    proxy = await startMockServer({
      port: 0,
      upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      upstreamApi: "chat",
      upstreamTimeoutMs: 300,
    });
  });
  afterAll(async () => {
    await proxy.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("is a 504 error object", async () => {
    const res = await post(proxy.baseURL, { model: "m", input: "hi", stream: true });
    expect(res.status).toBe(504);
    expectErrorBody(await res.json());
  });
});

describe("WebSocket mode on a proxy", () => {
  it("is refused with an error object that says the proxy passes on HTTP only", async () => {
    const upstream = await startMockServer({ port: 0 });
    const proxy = await startMockServer({ port: 0, upstream: upstream.baseURL });
    try {
      const { WebSocket } = await import("ws");
      const ws = new WebSocket(`${proxy.baseURL.replace("http", "ws")}/responses`);
      const status = await new Promise<number>((resolve) =>
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)),
      );
      expect(status).toBe(501);
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});

describe("a client that goes away", () => {
  it("closes the upstream request too, mid-stream, and records nothing", async () => {
    const { mkdtempSync, readdirSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "orm-gone-"));
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_1", object: "response", status: "in_progress", output: [] } })}\n\n`,
      );
      res.on("close", () => {
        if (!res.writableFinished) upstreamClosed();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const proxy = await startMockServer({
      port: 0,
      upstream: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      record: dir,
    });
    try {
      const res = await post(proxy.baseURL, { model: "m", input: "hi", stream: true });
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain("response.created");
      await reader.cancel();
      await closed; // the upstream saw its client (the proxy) leave
      await proxy.close();
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await proxy.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
