/**
 * The live check seam: a checker plugged into the proxy sees each answer as
 * the client gets it (SSE frames one by one, a JSON body with its status),
 * its violations land on the journal entry, and nothing it does — finding
 * faults, or throwing — changes the bytes the client gets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveChecker, LiveCheckRequest } from "../../src/proxy/live-check.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";

/** A checker that flags every `response.completed` frame and remembers what it saw. */
function recordingChecker() {
  const seen: {
    request: LiveCheckRequest;
    frames: { event?: string; data: string }[];
    json: { status: number; body: string }[];
  }[] = [];
  const checker: LiveChecker = {
    start(request) {
      const run = {
        request,
        frames: [] as { event?: string; data: string }[],
        json: [] as { status: number; body: string }[],
      };
      seen.push(run);
      return {
        event: (frame) => void run.frames.push(frame),
        json: (status, body) => void run.json.push({ status, body }),
        end: () =>
          run.frames.flatMap((f, i) =>
            f.event === "response.completed"
              ? [{ index: i, path: "$.type", message: "flagged by the test checker" }]
              : [],
          ),
      };
    },
  };
  return { checker, seen };
}

const post = (mock: MockServer, body: object, headers: Record<string, string> = {}) =>
  fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe.each(["responses", "chat"] as const)("the live check (%s upstream)", (upstreamApi) => {
  let upstream: MockServer;
  let chat: import("node:http").Server | undefined;
  let proxy: MockServer;
  let direct: MockServer;
  const { checker, seen } = recordingChecker();
  beforeAll(async () => {
    upstream = await startMockServer({ port: 0, seed: 2, clock: fixedClock(1_767_225_600_000) });
    let base = upstream.baseURL;
    if (upstreamApi === "chat") {
      // A tiny Chat Completions server: one text answer.
      const { createServer } = await import("node:http");
      chat = createServer((req, res) => {
        let body = "";
        req.on("data", (d) => (body += d));
        req.on("end", () => {
          if (!JSON.parse(body).stream) {
            res.writeHead(200, { "content-type": "application/json" });
            return res.end(
              JSON.stringify({
                model: "m",
                choices: [{ index: 0, message: { role: "assistant", content: "Hi there." }, finish_reason: "stop" }],
              }),
            );
          }
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(
            `data: ${JSON.stringify({ model: "m", choices: [{ index: 0, delta: { content: "Hi there." }, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
          );
        });
      });
      await new Promise<void>((resolve) => chat!.listen(0, "127.0.0.1", () => resolve()));
      base = `http://127.0.0.1:${(chat.address() as import("node:net").AddressInfo).port}/v1`;
    }
    proxy = await startMockServer({
      port: 0,
      upstream: base,
      upstreamApi,
      checker,
      clock: fixedClock(1_767_225_600_000),
    });
    direct = await startMockServer({ port: 0, upstream: base, upstreamApi, clock: fixedClock(1_767_225_600_000) });
  });
  afterAll(async () => {
    await proxy.close();
    await direct.close();
    await upstream.close();
    if (chat) await new Promise<void>((resolve) => chat!.close(() => resolve()));
  });

  it("sees every frame the client gets, and its violations go on the journal entry", async () => {
    const text = await (await post(proxy, { model: "m", input: "hello", stream: true })).text();
    const run = seen.at(-1)!;
    expect(run.request).toMatchObject({
      dialect: "open-responses",
      stream: true,
      body: { model: "m", input: "hello" },
    });
    const sent = text.split("\n\n").filter((b) => b.startsWith("event:") || b.startsWith("data:"));
    expect(run.frames.length).toBe(sent.length);
    expect(run.frames.at(-1)).toEqual({ data: "[DONE]" });
    const entry = proxy.requests.at(-1)!;
    expect(entry.violations).toEqual([
      { index: run.frames.length - 2, path: "$.type", message: "flagged by the test checker" },
    ]);
  });

  it("sees a JSON answer with its status; with no checker given, the conformance checker of `check` runs and finds nothing", async () => {
    await post(proxy, { model: "m", input: "hello" });
    const run = seen.at(-1)!;
    expect(run.json).toHaveLength(1);
    expect(run.json[0].status).toBe(200);
    expect(JSON.parse(run.json[0].body)).toMatchObject({ object: "response", status: "completed" });
    expect(proxy.requests.at(-1)!.violations).toEqual([]);
    await post(direct, { model: "m", input: "hello" });
    expect(direct.requests.at(-1)!.violations).toEqual([]);
    await post(direct, { model: "m", input: "hello", stream: true });
    expect(direct.requests.at(-1)!.violations).toEqual([]);
  });

  it("sees error answers too", async () => {
    const res = await post(
      proxy,
      { model: "m", input: "hello", stream: true },
      { "x-mock-scenario": "no-such-scenario" },
    );
    if (upstreamApi === "responses") {
      expect(res.status).toBe(400);
      expect(seen.at(-1)!.json[0].status).toBe(400);
      expect(proxy.requests.at(-1)).toMatchObject({
        status: 400,
        outcome: "error",
        errorCode: "unknown_scenario",
        upstream: { status: 400 },
      });
    } else expect(res.status).toBe(200); // the chat fake knows no scenarios
  });

  it("never changes what the client gets, even when the checker throws", async () => {
    const broken = await startMockServer({
      port: 0,
      upstream:
        upstreamApi === "responses"
          ? upstream.baseURL
          : `http://127.0.0.1:${(chat!.address() as import("node:net").AddressInfo).port}/v1`,
      upstreamApi,
      clock: fixedClock(1_767_225_600_000),
      checker: {
        start: () => ({
          event: () => {
            throw new Error("checker bug");
          },
          json: () => {},
          end: () => [],
        }),
      },
    });
    try {
      const body = { model: "m", input: "same bytes", stream: true };
      const a = await (await post(broken, body, { "x-mock-seed": "4" })).text();
      const b = await (await post(direct, body, { "x-mock-seed": "4" })).text();
      // The two proxies answer alike (in chat mode the ids are the proxy's own, drawn from the same seed).
      const same = (t: string) => t.replace(/resp_\w+|msg_\w+/g, "ID").replace(/"obfuscation":"[^"]*"/g, "");
      expect(same(a)).toBe(same(b));
      expect(broken.requests.at(-1)!.violations).toEqual([
        { index: null, path: null, message: "the checker failed: checker bug" },
      ]);
    } finally {
      await broken.close();
    }
  });
});
