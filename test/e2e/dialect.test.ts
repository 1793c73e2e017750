/**
 * Dialects over the wire: `x-mock-dialect` and the `dialect` option on a real
 * server, for SSE, JSON, errors, stored responses and WebSocket turns; and
 * the fixes that hold in both dialects (background answers queued, an
 * http_error names its scenario).
 */
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startMockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { expectConformantStream } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { postResponses, TEST_NOW_MS, useServer } from "../support/server.js";

const server = useServer({ seed: 3 });
const OPENAI = { "x-mock-dialect": "openai" };

describe("x-mock-dialect: openai", () => {
  it("streams with OpenAI's content-type and headers, no [DONE], reasoning_text events and OpenAI ids", async () => {
    const res = await postResponses(
      server(),
      { model: "m", input: "think", stream: true },
      { ...OPENAI, "x-mock-scenario": "reasoning" },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers.get("openai-processing-ms")).toMatch(/^\d+$/);
    expect(res.headers.get("x-mock-scenario")).toBe("reasoning");
    expect(res.text).not.toContain("[DONE]");
    expect(res.text.endsWith("\n\n")).toBe(true);
    const { events } = parseSseStrict(res.text, { requireDone: false });
    const types = events.map((e) => e.type);
    expect(types).toContain("response.reasoning_text.delta");
    expect(types).not.toContain("response.reasoning.delta");
    expect(types.at(-1)).toBe("response.completed");
    const final = events.at(-1)!.response as Record<string, any>;
    expect(final.id).toMatch(/^resp_[0-9a-f]{50}$/);
    expect(final.service_tier).toBe("default");
    expect((events[0].response as Record<string, unknown>).service_tier).toBe("auto");
    expect(res.text).toContain('"temperature":1.0');
  });

  it("answers JSON, stored retrieval and replay in the dialect of each request", async () => {
    const created = await postResponses(server(), { model: "m", input: "store me" }, OPENAI);
    const body = JSON.parse(created.text);
    expect(body.reasoning).toEqual({ effort: null, summary: null });
    expect(body.user).toBeNull();
    expect(created.headers.get("x-request-id")).toMatch(/^req_/);
    const get = (headers: Record<string, string>, query = "") =>
      fetch(`${server().baseURL}/responses/${body.id}${query}`, { headers });
    const asOpenAI = await (await get(OPENAI)).json();
    expect(asOpenAI).toEqual(body);
    const asSpec = (await (await get({})).json()) as Record<string, unknown>;
    expect(asSpec.reasoning).toBeNull();
    expect(asSpec).not.toHaveProperty("user");
    const replay = await (await get(OPENAI, "?stream=true")).text();
    expect(replay).not.toContain("[DONE]");
    const specReplay = await (await get({}, "?stream=true")).text();
    expect(specReplay.endsWith("data: [DONE]\n\n")).toBe(true);
    expectConformantStream(parseSseStrict(specReplay).events);
  });

  it("spells validation errors as OpenAI does, with x-request-id", async () => {
    const res = await postResponses(server(), { model: "m", input: "x", temperature: -1 }, OPENAI);
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
        type: "invalid_request_error",
        param: "temperature",
        code: "decimal_below_min_value",
      },
    });
    const spec = JSON.parse((await postResponses(server(), { model: "m", input: "x", max_output_tokens: 3 })).text);
    expect(spec.error).toMatchObject({
      type: "invalid_request",
      code: "value_below_minimum",
      param: "max_output_tokens",
    });
    const missing = await fetch(`${server().baseURL}/responses/resp_nope`, { headers: OPENAI });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: unknown }).error).toMatchObject({
      type: "invalid_request_error",
      code: null,
    });
  });

  it("an unknown dialect is a 400 naming the header and the known dialects", async () => {
    const res = await postResponses(server(), { model: "m", input: "x" }, { "x-mock-dialect": "klingon" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({
      type: "invalid_request",
      code: "invalid_header",
      param: "x-mock-dialect",
      message: expect.stringContaining("open-responses, openai"),
    });
  });

  it("holds for every turn of a WebSocket whose upgrade request names it", async () => {
    const ws = new WebSocket(`${server().baseURL.replace("http", "ws")}/responses`, {
      headers: { ...OPENAI, "x-mock-scenario": "reasoning" },
    });
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    const events: Record<string, any>[] = [];
    const done = new Promise<void>((resolve) =>
      ws.on("message", (data) => {
        const e = JSON.parse(String(data));
        events.push(e);
        if (e.type === "response.completed" || e.type === "error") resolve();
      }),
    );
    ws.send(JSON.stringify({ type: "response.create", model: "m", input: "think" }));
    await done;
    ws.close();
    expect(events.map((e) => e.type)).toContain("response.reasoning_text.delta");
    expect(events.at(-1)!.response.id).toMatch(/^resp_[0-9a-f]{50}$/);
  });
});

describe("the dialect option", () => {
  it("sets the server's dialect; x-mock-dialect still picks per request", async () => {
    const mock = await startMockServer({ port: 0, dialect: "openai", clock: fixedClock(TEST_NOW_MS) });
    try {
      const a = await postResponses(mock, { model: "m", input: "x", stream: true });
      expect(a.text).not.toContain("[DONE]");
      const b = await postResponses(
        mock,
        { model: "m", input: "x", stream: true },
        { "x-mock-dialect": "open-responses" },
      );
      expect(b.text.endsWith("data: [DONE]\n\n")).toBe(true);
    } finally {
      await mock.close();
    }
    await expect(startMockServer({ dialect: "nope" })).rejects.toThrow(
      /dialect: unknown dialect 'nope'; known dialects: open-responses, openai/,
    );
  });
});

describe("in both dialects", () => {
  for (const headers of [{}, OPENAI]) {
    const name = Object.keys(headers).length ? "openai" : "open-responses";

    it(`a non-streamed background POST answers queued at once, with zero timing (${name})`, async () => {
      const res = await postResponses(server(), { model: "m", input: "later", background: true }, headers);
      const body = JSON.parse(res.text);
      expect(body).toMatchObject({ status: "queued", output: [], usage: null, background: true });
      if (name === "openai") expect(body.service_tier).toBe("auto");
      // It ends on its own.
      for (let i = 0; i < 50; i++) {
        const now = (await (await fetch(`${server().baseURL}/responses/${body.id}`, { headers })).json()) as {
          status: string;
        };
        if (now.status === "completed") return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("the background response never completed");
    });

    it(`an http_error answer carries x-mock-scenario (${name})`, async () => {
      const res = await postResponses(
        server(),
        { model: "m", input: "x" },
        { ...headers, "x-mock-scenario": "error-429" },
      );
      expect(res.status).toBe(429);
      expect(res.headers.get("x-mock-scenario")).toBe("error-429");
      expect(res.headers.get("retry-after")).toBe("2");
    });

    it(`a failed response's error carries type, code and message (${name})`, async () => {
      const res = await postResponses(
        server(),
        { model: "m", input: "x" },
        { ...headers, "x-mock-scenario": "failure-mid-stream" },
      );
      const body = JSON.parse(res.text);
      expect(body.status).toBe("failed");
      expect(body.error).toEqual({ type: expect.any(String), code: expect.any(String), message: expect.any(String) });
    });
  }
});
