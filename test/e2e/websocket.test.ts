/**
 * WebSocket mode on /v1/responses with a real server and the `ws` client:
 * turns on one connection, the per-connection cache for store:false
 * continuations, previous_response_not_found after a reconnect or for an
 * unknown id, eviction after a failed continuation, WebSocketErrorEvents for
 * invalid messages, auth on the upgrade, agreement with SSE, faults,
 * heartbeats as pings, cleanup on disconnect and on server close, and a
 * compaction round trip.
 */
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { z } from "zod";
import { expectConformantStream } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { postResponses, TEST_NOW_MS, useServer } from "../support/server.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock, ManualClock } from "../../src/timing/clock.js";
import { withoutIds } from "../support/ids.js";
import { refusedUpgrade } from "../compliance/ws-client.js";

type Msg = { type: string; [k: string]: any };

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);

/** The spec's WebSocketErrorEvent (openapi.json), checked strictly where it is strict. */
const WebSocketErrorEvent = z.object({
  type: z.literal("error"),
  status: z.number().int(),
  error: z.looseObject({
    type: z.string().optional(),
    code: z.string(),
    message: z.string().min(10),
    param: z.string().nullable().optional(),
  }),
});

function expectWsError(msg: Msg, status: number, code: string, param?: string | null) {
  const r = WebSocketErrorEvent.safeParse(msg);
  if (!r.success) throw new Error(`not a WebSocketErrorEvent: ${JSON.stringify(msg)}`);
  expect(msg.status).toBe(status);
  expect(msg.error.code).toBe(code);
  if (param !== undefined) expect(msg.error.param).toBe(param);
  expect(msg).not.toHaveProperty("sequence_number");
}

const wsUrl = (mock: MockServer, path = "/v1/responses") => `${mock.url.replace(/^http/, "ws")}${path}`;

/** A `ws` client that queues what it receives and reads it turn by turn. */
class Client {
  readonly messages: Msg[] = [];
  readonly pings: number[] = [];
  readonly nonJson: string[] = [];
  private waiter: (() => void) | undefined;
  closedWith: number | undefined;
  readonly closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      const text = data.toString();
      try {
        if (isBinary) throw new Error("binary");
        this.messages.push(JSON.parse(text));
      } catch {
        this.nonJson.push(text);
      }
      this.wake();
    });
    ws.on("ping", () => this.pings.push(Date.now()));
    this.closed = new Promise((resolve) =>
      ws.on("close", (code) => {
        this.closedWith = code;
        this.wake();
        resolve(code);
      }),
    );
    ws.on("error", () => undefined);
  }

  private wake() {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  static open(mock: MockServer, headers: Record<string, string> = {}): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(wsUrl(mock), { headers });
      const client = new Client(ws);
      ws.once("open", () => resolve(client));
      ws.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      ws.once("error", reject);
    });
  }

  /** Sends `{type: "response.create", ...body}`, or a raw string as it is. */
  send(body: Record<string, unknown> | string) {
    this.ws.send(typeof body === "string" ? body : JSON.stringify({ type: "response.create", ...body }));
  }

  /** The next message, or undefined if the socket closes first (or `ms` pass). */
  async next(ms = 5_000): Promise<Msg | undefined> {
    const deadline = Date.now() + ms;
    while (this.messages.length === 0) {
      if (this.closedWith !== undefined) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.messages.shift();
  }

  /** One turn: the events up to the terminal one, or a single WebSocketErrorEvent. */
  async turn(): Promise<{ events: Msg[]; error?: Msg }> {
    const events: Msg[] = [];
    for (;;) {
      const msg = await this.next();
      if (!msg) throw new Error(`turn cut short after ${events.length} events (closed: ${this.closedWith})`);
      if (msg.type === "error" && "status" in msg) {
        expect(events).toEqual([]);
        return { events, error: msg };
      }
      events.push(msg);
      if (TERMINAL.has(msg.type)) return { events };
    }
  }

  /** A turn that must stream: checked for conformance; returns the events and the final response. */
  async streamed() {
    const { events, error } = await this.turn();
    if (error) throw new Error(`expected a stream, got ${JSON.stringify(error)}`);
    const response = expectConformantStream(events as never);
    return { events, response };
  }

  async error(): Promise<Msg> {
    const { events, error } = await this.turn();
    if (!error) throw new Error(`expected a WebSocketErrorEvent, got a stream ending ${events.at(-1)?.type}`);
    return error;
  }

  close() {
    this.ws.close();
    return this.closed;
  }
}

/** Tries an upgrade that should be refused; resolves with its status and JSON body. */
const refused = (mock: MockServer, headers: Record<string, string> = {}, path?: string) =>
  refusedUpgrade(wsUrl(mock, path), headers);

async function until(cond: () => boolean, ms = 2_000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

const weather = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

const SCENARIOS = [
  {
    name: "ws-fails-second",
    description: "Turn 2 fails.",
    turns: [
      { steps: [{ type: "message", text: "The first answer." }] },
      { steps: [{ type: "message", text: "A second answer that breaks." }], end: { type: "failed" } },
    ],
  },
  {
    name: "ws-429-second",
    description: "Turn 2 is a 429.",
    turns: [{ steps: [{ type: "message", text: "The first answer." }] }, { end: { type: "http_error", status: 429 } }],
  },
];

const server = useServer({ seed: 42, scenarios: SCENARIOS });

describe("WebSocket mode: turns", () => {
  it("answers several turns on one connection, in order, each a conformant stream", async () => {
    const client = await Client.open(server());
    // Sent back to back: the later ones wait for the earlier ones.
    for (const n of [1, 2, 3])
      client.send({
        model: "mock-model-1",
        input: `Turn number ${n}, please.`,
        metadata: { turn: String(n) },
        store: false,
      });
    const ids = new Set<string>();
    for (const n of [1, 2, 3]) {
      const { response } = await client.streamed();
      expect(response.status).toBe("completed");
      expect(response.metadata).toEqual({ turn: String(n) });
      ids.add(response.id);
    }
    expect(ids.size).toBe(3);
    expect(client.nonJson).toEqual([]);
    await client.close();
  });

  it("puts each turn in the request journal, as method WS, with its session", async () => {
    const session = server().session();
    const client = await Client.open(server(), { ...session.headers, authorization: "Bearer sk-journal-123456" });
    client.send({ model: "mock-model-1", input: "Journal this turn." });
    const { response } = await client.streamed();
    client.ws.send("not json");
    await until(() => session.requests.length === 2);
    await client.close();
    const [turn, bad] = session.requests;
    expect(turn).toMatchObject({
      method: "WS",
      path: "/v1/responses",
      session: session.id,
      status: 200,
      streamed: true,
      responseId: response.id,
      scenario: "auto",
      reason: "default",
    });
    expect(turn.body).toEqual({ type: "response.create", model: "mock-model-1", input: "Journal this turn." });
    expect(turn.headers.authorization).toBe("Bearer ***3456");
    expect(bad).toMatchObject({ method: "WS", status: 400, rawBody: "not json", body: null });
  });

  it("continues a store:false response on the same connection with previous_response_id and only the new input", async () => {
    const client = await Client.open(server(), { "x-mock-scenario": "tool-call" });
    client.send({ model: "mock-model-1", input: "What's the weather in Paris?", tools: [weather], store: false });
    const first = (await client.streamed()).response;
    const call = first.output.find((i) => i.type === "function_call") as { call_id: string; name: string } | undefined;
    expect(call?.name).toBe("get_weather");
    // Not stored: HTTP does not know it.
    expect((await fetch(`${server().baseURL}/responses/${first.id}`)).status).toBe(404);

    client.send({
      model: "mock-model-1",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call!.call_id, output: '{"temp_c":18}' }],
      tools: [weather],
      store: false,
    });
    const second = (await client.streamed()).response;
    expect(second.previous_response_id).toBe(first.id);
    const message = second.output.find((i) => i.type === "message") as
      { content: { type: string; text: string }[] } | undefined;
    expect(message?.content[0].text).toContain("Here's the latest weather for Paris");
    expect(message?.content[0].text).toContain('{"temp_c":18}');

    // The chain goes on: a third turn builds on the second.
    client.send({ model: "mock-model-1", previous_response_id: second.id, input: "Thanks!", store: false });
    expect((await client.streamed()).response.previous_response_id).toBe(second.id);
    await client.close();
  });

  it("forgets store:false responses on reconnect: previous_response_not_found, and the connection stays usable", async () => {
    const a = await Client.open(server());
    a.send({ model: "mock-model-1", input: "Remember the code word: cobalt.", store: false });
    const { response } = await a.streamed();
    await a.close();

    const b = await Client.open(server());
    b.send({
      model: "mock-model-1",
      previous_response_id: response.id,
      input: "What was the code word?",
      store: false,
    });
    const error = await b.error();
    expectWsError(error, 400, "previous_response_not_found", "previous_response_id");
    expect(error.error.type).toBe("invalid_request");
    expect(error.error.message).toContain(response.id);

    b.send({ model: "mock-model-1", input: "Start again.", store: false });
    expect((await b.streamed()).response.status).toBe("completed");
    await b.close();
  });

  it("answers an unknown previous_response_id with previous_response_not_found", async () => {
    const client = await Client.open(server());
    client.send({ model: "mock-model-1", previous_response_id: "resp_does_not_exist", input: "Hi" });
    expectWsError(await client.error(), 400, "previous_response_not_found", "previous_response_id");
    await client.close();
  });

  it("keeps store:true responses in the server store: retrievable over HTTP and continuable after a reconnect", async () => {
    const a = await Client.open(server());
    a.send({ model: "mock-model-1", input: "Store this one." });
    const { response } = await a.streamed();
    await a.close();
    const got = await fetch(`${server().baseURL}/responses/${response.id}`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as { id: string }).id).toBe(response.id);

    const b = await Client.open(server());
    b.send({ model: "mock-model-1", previous_response_id: response.id, input: "And now?" });
    expect((await b.streamed()).response.previous_response_id).toBe(response.id);
    await b.close();
  });

  it("applies the upgrade request's x-mock-session: stored responses of other sessions are not found", async () => {
    const res = await postResponses(
      server(),
      { model: "mock-model-1", input: "Stored in session A." },
      { "x-mock-session": "ws-a" },
    );
    expect(res.status).toBe(200);
    const { id } = JSON.parse(res.text) as { id: string };

    const other = await Client.open(server(), { "x-mock-session": "ws-b" });
    other.send({ model: "mock-model-1", previous_response_id: id, input: "Next." });
    expectWsError(await other.error(), 400, "previous_response_not_found", "previous_response_id");
    await other.close();

    const same = await Client.open(server(), { "x-mock-session": "ws-a" });
    same.send({ model: "mock-model-1", previous_response_id: id, input: "Next." });
    expect((await same.streamed()).response.previous_response_id).toBe(id);
    await same.close();
  });

  it("evicts the base of a continuation that ends failed", async () => {
    const client = await Client.open(server());
    client.send({ model: "ws-fails-second", input: "First.", store: false });
    const base = (await client.streamed()).response;
    expect(base.status).toBe("completed");

    client.send({ model: "ws-fails-second", previous_response_id: base.id, input: "Second.", store: false });
    const { events, response } = await client.streamed();
    expect(response.status).toBe("failed");
    expect(events.some((e) => e.type === "error")).toBe(true);

    client.send({ model: "ws-fails-second", previous_response_id: base.id, input: "Second, again.", store: false });
    expectWsError(await client.error(), 400, "previous_response_not_found", "previous_response_id");
    await client.close();
  });

  it("sends a scripted http_error turn as a WebSocketErrorEvent with its status, and evicts the base it continued", async () => {
    const client = await Client.open(server());
    client.send({ model: "ws-429-second", input: "First.", store: false });
    const base = (await client.streamed()).response;

    client.send({ model: "ws-429-second", previous_response_id: base.id, input: "Second.", store: false });
    const error = await client.error();
    expectWsError(error, 429, "rate_limit_exceeded");
    expect(error.error.type).toBe("too_many_requests");

    client.send({ model: "ws-429-second", previous_response_id: base.id, input: "Second, again.", store: false });
    expectWsError(await client.error(), 400, "previous_response_not_found", "previous_response_id");
    await client.close();
  });

  it("applies the upgrade request's x-mock-scenario to every turn (a library http_error scenario)", async () => {
    const client = await Client.open(server(), { "x-mock-scenario": "error-429" });
    for (let i = 0; i < 2; i++) {
      client.send({ model: "mock-model-1", input: `Try ${i}` });
      const error = await client.error();
      expectWsError(error, 429, "rate_limit_exceeded", null);
      expect(error.error.headers?.["retry-after"]).toBe("2");
    }
    await client.close();
  });

  it("starts a new chain from /v1/responses/compact output", async () => {
    const compactRes = await fetch(`${server().baseURL}/responses/compact`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "mock-model-1",
        input: [
          { type: "message", role: "user", content: "We launch on Tuesday and tell support first." },
          { type: "message", role: "assistant", content: "Understood: Tuesday launch, support notified first." },
        ],
      }),
    });
    expect(compactRes.status).toBe(200);
    const compacted = (await compactRes.json()) as { output: { type: string }[] };
    expect(compacted.output.some((i) => i.type === "compaction")).toBe(true);

    const client = await Client.open(server());
    client.send({
      model: "mock-model-1",
      input: [...compacted.output, { type: "message", role: "user", content: "When is the launch?" }],
      store: false,
    });
    const first = (await client.streamed()).response;
    expect(first.status).toBe("completed");
    expect(first.previous_response_id).toBeNull();
    client.send({ model: "mock-model-1", previous_response_id: first.id, input: "And who hears first?", store: false });
    expect((await client.streamed()).response.status).toBe("completed");
    await client.close();
  });
});

describe("WebSocket mode: invalid messages", () => {
  it("answers each with a WebSocketErrorEvent and keeps the connection usable", async () => {
    const client = await Client.open(server());
    const cases: [Record<string, unknown> | string, string, string | null][] = [
      ["{not json", "invalid_json", null],
      ["[1,2]", "invalid_type", null],
      ['{"model":"m","input":"hi"}', "missing_required_parameter", "type"],
      [JSON.stringify({ type: "response.cancel", model: "m", input: "hi" }), "invalid_value", "type"],
      [{ model: "mock-model-1", input: "hi", background: true }, "unsupported_parameter", "background"],
      [{ model: "mock-model-1", input: "hi", stream: "yes" }, "invalid_type", "stream"],
      [{ input: "hi" }, "missing_required_parameter", "model"],
      [{ model: "mock-model-1", input: 42 }, "invalid_type", "input"],
    ];
    for (const [message, code, param] of cases) {
      client.send(message);
      const error = await client.error();
      expectWsError(error, 400, code, param);
      expect(error.error.type).toBe("invalid_request");
    }
    client.send({ model: "mock-model-1", input: "Still there?" });
    expect((await client.streamed()).response.status).toBe("completed");
    expect(client.closedWith).toBeUndefined();
    await client.close();
  });
});

describe("WebSocket mode: stream, stream_options and background in response.create", () => {
  it("are accepted and ignored by default (the OpenAI Agents SDK always sends stream: true)", async () => {
    const client = await Client.open(server());
    for (const extra of [
      { stream: true },
      { stream: false },
      { stream: true, stream_options: { include_obfuscation: false } },
      { background: false },
    ]) {
      client.send({ model: "mock-model-1", input: "Hello over the socket", ...extra });
      const { response } = await client.streamed();
      expect(response.status, JSON.stringify(extra)).toBe("completed");
      expect(response.background).toBe(false);
    }
    await client.close();
  });

  it("are refused with x-mock-strict: 1 on the upgrade, as the spec says (and so is any other field outside it)", async () => {
    const client = await Client.open(server(), { "x-mock-strict": "1" });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ stream: true }, "unsupported_parameter", "stream"],
      [{ stream_options: { include_obfuscation: false } }, "unsupported_parameter", "stream_options"],
      [{ background: false }, "unsupported_parameter", "background"],
      [{ user: "user-1234" }, "unknown_parameter", "user"],
      [{ tools: [{ type: "web_search" }] }, "invalid_value", "tools[0].type"],
    ];
    for (const [extra, code, param] of cases) {
      client.send({ model: "mock-model-1", input: "hi", ...extra });
      expectWsError(await client.error(), 400, code, param);
    }
    client.send({ model: "mock-model-1", input: "Only the spec here" });
    expect((await client.streamed()).response.status).toBe("completed");
    await client.close();
  });

  it("refuses a bad x-mock-strict on the upgrade with 400 naming the header", async () => {
    const res = await refused(server(), { "x-mock-strict": "maybe" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_header", param: "x-mock-strict" });
  });
});

describe("WebSocket mode: the upgrade", () => {
  it("refuses other paths with 404 and a JSON error", async () => {
    const res = await refused(server(), {}, "/v1/other");
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe("not_found");
  });

  it("refuses bad control headers with 400 naming the header", async () => {
    const seed = await refused(server(), { "x-mock-seed": "abc" });
    expect(seed.status).toBe(400);
    expect(seed.body.error).toMatchObject({ code: "invalid_header", param: "x-mock-seed" });
    const scenario = await refused(server(), { "x-mock-scenario": "no-such-scenario" });
    expect(scenario.status).toBe(400);
    expect(scenario.body.error).toMatchObject({ code: "unknown_scenario", param: "x-mock-scenario" });
    const fault = await refused(server(), { "x-mock-fault": "explode=1" });
    expect(fault.body.error).toMatchObject({ code: "invalid_header", param: "x-mock-fault" });
    const session = await refused(server(), { "x-mock-session": "has spaces" });
    expect(session.body.error).toMatchObject({ code: "invalid_header", param: "x-mock-session" });
  });

  it("still serves plain HTTP on the same server", async () => {
    const res = await postResponses(server(), { model: "mock-model-1", input: "hi" });
    expect(res.status).toBe(200);
  });
});

describe("WebSocket mode: authentication", () => {
  const authed = useServer({ apiKey: "sekret-key" });

  it("refuses the upgrade with 401 and a JSON error when the key is missing or wrong", async () => {
    for (const headers of [{} as Record<string, string>, { authorization: "Bearer nope" }, { authorization: "nope" }]) {
      const res = await refused(authed(), headers);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("invalid_api_key");
      expect(res.body.error.message.length).toBeGreaterThan(10);
    }
  });

  it("accepts the right key, with or without the Bearer prefix", async () => {
    for (const authorization of ["Bearer sekret-key", "sekret-key"]) {
      const client = await Client.open(authed(), { authorization });
      client.send({ model: "mock-model-1", input: "hi" });
      expect((await client.streamed()).response.status).toBe("completed");
      await client.close();
    }
  });
});

describe("WebSocket mode: same answer as SSE", () => {
  const strip = (events: Msg[]) =>
    JSON.parse(JSON.stringify(events), (key, value) =>
      key === "created_at" || key === "completed_at" ? undefined : value,
    ) as Msg[];

  for (const [name, body, headers] of [
    ["text, server seed", { model: "mock-model-1", input: "Say hello in three words." }, {}],
    [
      "tools and reasoning, x-mock-seed",
      {
        model: "mock-model-1",
        input: "Weather in Paris?",
        tools: [weather],
        reasoning: { effort: "low", summary: "auto" },
      },
      { "x-mock-seed": "7" },
    ],
  ] as const) {
    it(`sends the same events as SSE for the same request and seed (${name})`, async () => {
      const sse = await postResponses(server(), { ...body, stream: true }, headers);
      expect(sse.status).toBe(200);
      const sseEvents = parseSseStrict(sse.text).events as Msg[];

      const client = await Client.open(server(), headers);
      client.send(body);
      const { events } = await client.streamed();
      // The same events but for the ids: the WebSocket turn repeats the SSE request, so it gets ids of its own.
      expect(withoutIds(strip(events))).toEqual(withoutIds(strip(sseEvents)));
      await client.close();
    });
  }
});

describe("WebSocket mode: timing and faults", () => {
  it("sends heartbeats as pings, never as JSON frames", async () => {
    const client = await Client.open(server(), { "x-mock-latency-ms": "150", "x-mock-heartbeat-ms": "20" });
    client.send({ model: "mock-model-1", input: "Take your time." });
    await client.streamed();
    expect(client.pings.length).toBeGreaterThanOrEqual(3);
    expect(client.nonJson).toEqual([]);
    await client.close();
  });

  it("drop-after-events closes the socket abruptly after that many events", async () => {
    const client = await Client.open(server(), { "x-mock-fault": "drop-after-events=3" });
    client.send({ model: "mock-model-1", input: "Go." });
    expect(await client.closed).toBe(1006);
    expect(client.messages.map((m) => m.type).slice(0, 2)).toEqual(["response.created", "response.in_progress"]);
    expect(client.messages).toHaveLength(3);
  });

  it("hang-after-events sends nothing more and keeps the socket open", async () => {
    const client = await Client.open(server(), { "x-mock-fault": "hang-after-events=2" });
    client.send({ model: "mock-model-1", input: "Go." });
    await until(() => client.messages.length === 2);
    await new Promise((r) => setTimeout(r, 150));
    expect(client.messages).toHaveLength(2);
    expect(client.closedWith).toBeUndefined();
    client.ws.terminate();
    await client.closed;
  });
});

describe("WebSocket mode: cleanup", () => {
  const timers = new ManualClock(0);
  const manual = useServer({ timers });

  it("a client that disconnects mid-turn stops its turn's timer at once", async () => {
    const client = await Client.open(manual(), { "x-mock-chunk-ms": "1000" });
    client.send({ model: "mock-model-1", input: "A slow answer." });
    expect((await client.next())?.type).toBe("response.created");
    await until(() => timers.pending === 1);
    client.ws.terminate();
    await until(() => timers.pending === 0);

    // The server carries on.
    const again = await Client.open(manual());
    again.send({ model: "mock-model-1", input: "Quick one." });
    expect((await again.streamed()).response.status).toBe("completed");
    await again.close();
  });

  it("server close() ends open WebSockets promptly and stops their turns", async () => {
    const clock = new ManualClock(0);
    const mock = await startMockServer({ port: 0, clock: fixedClock(TEST_NOW_MS), timers: clock });
    const idle = await Client.open(mock);
    const busy = await Client.open(mock, { "x-mock-chunk-ms": "1000" });
    busy.send({ model: "mock-model-1", input: "A slow answer." });
    expect((await busy.next())?.type).toBe("response.created");
    await until(() => clock.pending === 1);
    const started = Date.now();
    await Promise.all([mock.close(), mock.close()]);
    await Promise.all([idle.closed, busy.closed]);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(clock.pending).toBe(0);
    await mock.close();
    await expect(Client.open(mock)).rejects.toThrow();
  });
});
