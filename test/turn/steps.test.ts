/**
 * One home for every turn: a step added to the turn (src/turn/turn.ts) acts
 * on HTTP JSON, HTTP SSE, background runs, WebSocket turns and the proxy's
 * Chat Completions translation alike — begun, planned (the mock's own
 * answers) and ended once each, with the outcome the journal records; and a
 * step that refuses a turn is answered in each transport's error framing.
 * The steps here exist in this test only: they stand for limits, queues and
 * expectations to come.
 */
import { startChatUpstream, type ChatUpstream } from "../support/chat-upstream.js";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startServer, type MockServer } from "../../src/server.js";
import { ApiError } from "../../src/spec/index.js";
import type { TurnContext, TurnOutcome, TurnStep } from "../../src/turn/turn.js";
import { expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";

interface Mark {
  hook: "begin" | "planned" | "end";
  transport: TurnContext["transport"];
  delivery: TurnContext["delivery"];
  model: string;
  outcome?: TurnOutcome;
  note?: unknown;
}

/** A step that marks every turn it sees, and keeps a note from `begin` to `end`. */
function marker(): TurnStep & { marks: Mark[] } {
  const marks: Mark[] = [];
  const mark = (hook: Mark["hook"], turn: TurnContext, outcome?: TurnOutcome) =>
    marks.push({
      hook,
      transport: turn.transport,
      delivery: turn.delivery,
      model: turn.request.model,
      ...(outcome === undefined ? {} : { outcome, note: turn.notes?.marker }),
    });
  return {
    name: "marker",
    marks,
    begin(turn) {
      (turn.notes ??= {}).marker = `began ${turn.request.model}`;
      mark("begin", turn);
    },
    planned: (turn) => void mark("planned", turn),
    end: (turn, outcome) => void mark("end", turn, outcome),
  };
}

/** A step that refuses the turns whose model is `refused`, as a limit would. */
const refuser: TurnStep = {
  name: "refuser",
  begin(turn) {
    if (turn.request.model === "refused")
      throw new ApiError({
        status: 429,
        type: "too_many_requests",
        code: "rate_limit_exceeded",
        message: "Refused by a test step.",
        headers: { "retry-after": "1" },
      });
  },
};

const post = (base: string, body: object) =>
  fetch(`${base}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Sends one response.create on a new WebSocket and collects its messages up to the terminal one (or the error). */
async function wsTurn(base: string, body: object): Promise<{ type: string; [k: string]: unknown }[]> {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/responses`);
  await once(ws, "open");
  const messages: { type: string; [k: string]: unknown }[] = [];
  const done = new Promise<void>((resolve) =>
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { type: string };
      messages.push(message);
      if (["response.completed", "response.failed", "response.incomplete", "error"].includes(message.type)) resolve();
    }),
  );
  ws.send(JSON.stringify({ type: "response.create", ...body }));
  await done;
  ws.close();
  await once(ws, "close");
  return messages;
}

/** Waits until `marks` holds an `end` for `model` (a background run ends after its answer was sent). */
async function ended(marks: Mark[], model: string): Promise<void> {
  for (let i = 0; i < 200 && !marks.some((m) => m.hook === "end" && m.model === model); i++)
    await new Promise((r) => setImmediate(r));
}

describe("a turn step", () => {
  const step = marker();
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startServer({ port: 0, log: "off", seed: 7 }, { steps: [step, refuser] });
  });
  afterAll(() => mock.close());
  afterEach(() => void (step.marks.length = 0));

  it("marks an HTTP JSON turn: begun, planned, ended with its status", async () => {
    const res = await post(mock.baseURL, { model: "json-turn", input: "Hello" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    expect(step.marks).toEqual([
      { hook: "begin", transport: "http", delivery: "json", model: "json-turn" },
      { hook: "planned", transport: "http", delivery: "json", model: "json-turn" },
      {
        hook: "end",
        transport: "http",
        delivery: "json",
        model: "json-turn",
        outcome: "completed",
        note: "began json-turn",
      },
    ]);
  });

  it("marks an HTTP SSE turn once its stream has been written", async () => {
    const res = await post(mock.baseURL, { model: "sse-turn", input: "Hello", stream: true });
    const { events, done } = parseSseStrict(await res.text());
    expect(done).toBe(true);
    expect(events.at(-1)?.type).toBe("response.completed");
    expect(step.marks.map((m) => [m.hook, m.transport, m.delivery, m.outcome])).toEqual([
      ["begin", "http", "stream", undefined],
      ["planned", "http", "stream", undefined],
      ["end", "http", "stream", "completed"],
    ]);
    // The journal's outcome and the step's agree.
    expect(mock.requests.at(-1)?.outcome).toBe("completed");
  });

  it("marks a background turn, and ends it when its run ends", async () => {
    const res = await post(mock.baseURL, { model: "bg-turn", input: "Hello", background: true });
    expect(((await res.json()) as { status: string }).status).toBe("queued");
    await ended(step.marks, "bg-turn");
    expect(step.marks.map((m) => [m.hook, m.transport, m.delivery, m.outcome])).toEqual([
      ["begin", "http", "background", undefined],
      ["planned", "http", "background", undefined],
      ["end", "http", "background", "completed"],
    ]);
  });

  it("marks a WebSocket turn", async () => {
    const messages = await wsTurn(mock.baseURL, { model: "ws-turn", input: "Hello" });
    expect(messages.at(-1)?.type).toBe("response.completed");
    expect(step.marks.map((m) => [m.hook, m.transport, m.delivery, m.outcome])).toEqual([
      ["begin", "websocket", "stream", undefined],
      ["planned", "websocket", "stream", undefined],
      ["end", "websocket", "stream", "completed"],
    ]);
  });

  it("ends a turn that fails after it began (an unknown scenario) as an error, once", async () => {
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-scenario": "no-such-scenario" },
      body: JSON.stringify({ model: "unknown-turn", input: "Hello" }),
    });
    expect(res.status).toBe(400);
    expect(step.marks.map((m) => [m.hook, m.outcome])).toEqual([
      ["begin", undefined],
      ["end", "error"],
    ]);
  });

  it("refuses a turn in each transport's own framing: an HTTP error body, a WebSocket error event", async () => {
    const res = await post(mock.baseURL, { model: "refused", input: "Hello", stream: true });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    const body = await res.json();
    expectErrorBody(body);
    expect(body).toMatchObject({ error: { type: "too_many_requests", code: "rate_limit_exceeded" } });

    const messages = await wsTurn(mock.baseURL, { model: "refused", input: "Hello" });
    expect(messages).toEqual([
      {
        type: "error",
        status: 429,
        error: expect.objectContaining({ type: "too_many_requests", code: "rate_limit_exceeded" }),
      },
    ]);
    // Refused at begin: never planned; each ended once, as an error.
    expect(step.marks.map((m) => [m.hook, m.transport, m.outcome])).toEqual([
      ["begin", "http", undefined],
      ["end", "http", "error"],
      ["begin", "websocket", undefined],
      ["end", "websocket", "error"],
    ]);
  });
});

describe("a turn step in the proxy's Chat Completions translation", () => {
  const step = marker();
  let upstream: ChatUpstream;
  let proxy: MockServer;
  beforeAll(async () => {
    upstream = await startChatUpstream();
    proxy = await startServer(
      { port: 0, log: "off", upstream: upstream.baseURL, upstreamApi: "chat" },
      { steps: [step, refuser] },
    );
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it("marks a translated turn: begun and ended (there is no mock plan to mark)", async () => {
    const res = await post(proxy.baseURL, { model: "proxied", input: "Hello" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; output_text?: string; output: unknown[] };
    expect(body.status).toBe("completed");
    expect(upstream.requests).toBe(1);
    expect(step.marks.map((m) => [m.hook, m.transport, m.delivery, m.outcome, m.note])).toEqual([
      ["begin", "proxy", "json", undefined, undefined],
      ["end", "proxy", "json", "completed", "began proxied"],
    ]);
  });

  it("refuses a proxied turn before anything goes upstream", async () => {
    step.marks.length = 0;
    const res = await post(proxy.baseURL, { model: "refused", input: "Hello" });
    expect(res.status).toBe(429);
    expectErrorBody(await res.json());
    expect(upstream.requests).toBe(1);
    expect(step.marks.map((m) => [m.hook, m.outcome])).toEqual([
      ["begin", undefined],
      ["end", "error"],
    ]);
  });
});
