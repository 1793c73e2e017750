/**
 * Expectations (issue 27, sections 1-3): a scenario turn's `expect`, judged on
 * the next request of the same conversation; `mock.expect()`;
 * `GET /__mock/verify`, `verify()`. Time rules run on a ManualClock.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { loadScenarios } from "../../src/scenario/load.js";
import { ScenarioError } from "../../src/scenario/parse.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ManualClock } from "../../src/timing/clock.js";

const TOOLS = [{ type: "function", name: "lookup", parameters: { type: "object", properties: {} } }];

const SCENARIOS = [
  {
    name: "parallel",
    turns: [
      {
        steps: [
          { type: "function_call", name: "lookup", call_id: "call_1", arguments: {} },
          { type: "function_call", name: "lookup", call_id: "call_2", arguments: {} },
        ],
        expect: { tool_outputs: true, continues: true },
      },
      { steps: [{ type: "message", text: "done" }] },
    ],
  },
  {
    name: "patient",
    turns: [
      { steps: [{ type: "message", text: "first" }], expect: { continues: true, waits_ms: 1000, within_ms: 5000 } },
      { steps: [{ type: "message", text: "second" }] },
    ],
  },
  {
    name: "refuse",
    turns: [{ end: { type: "http_error", status: 400 }, expect: { no_retry_ms: 2000 } }],
  },
  {
    name: "thinker",
    turns: [
      {
        steps: [
          { type: "reasoning", summary: ["thinking"], encrypted_content: "enc-1" },
          { type: "function_call", name: "lookup", call_id: "call_r", arguments: {} },
        ],
        expect: { reasoning_returned: true, tool_outputs: true },
      },
      { steps: [{ type: "message", text: "done" }] },
    ],
  },
  {
    name: "picky",
    turns: [
      { steps: [{ type: "message", text: "ask me" }], expect: { match: { contains: "please" } } },
      { steps: [{ type: "message", text: "ok" }] },
    ],
  },
];

let mock: MockServer;
const clock = new ManualClock(1_000_000);
beforeAll(async () => {
  mock = await startMockServer({ port: 0, timers: clock, scenarios: SCENARIOS as never, library: false });
});
afterAll(async () => {
  await mock?.close();
});

let n = 0;
const fresh = () => mock.session(`expect-test-${++n}`);

async function post(session: string, scenario: string, body: Record<string, unknown>) {
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-mock-session": session, "x-mock-scenario": scenario },
    body: JSON.stringify({ model: "m", ...body }),
  });
  return { status: res.status, json: (await res.json()) as { id: string; output: Record<string, unknown>[] } };
}

async function verify(session?: string) {
  const res = await fetch(`${mock.url}/__mock/verify${session ? `?session=${session}` : ""}`);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    ok: boolean;
    expectations: {
      status: string;
      rule: string;
      scenario: string | null;
      turn: number | null;
      seq: number | null;
      message: string;
    }[];
  };
}

const output = (call_id: string) => ({ type: "function_call_output", call_id, output: "42" });

describe("tool_outputs and continues", () => {
  it("a correct parallel tool loop (previous_response_id) meets both", async () => {
    const s = fresh();
    const first = await post(s.id, "parallel", { input: "go", tools: TOOLS });
    expect((await verify(s.id)).expectations.map((e) => e.status)).toEqual(["pending", "pending"]);
    await post(s.id, "parallel", {
      previous_response_id: first.json.id,
      input: [output("call_1"), output("call_2")],
      tools: TOOLS,
    });
    const seq = s.requests.at(-1)!.seq;
    const report = await verify(s.id);
    expect(report.ok).toBe(true);
    expect(report.expectations).toEqual([
      expect.objectContaining({ status: "met", rule: "tool_outputs", scenario: "parallel", turn: 0, seq }),
      expect.objectContaining({ status: "met", rule: "continues", scenario: "parallel", turn: 0, seq }),
    ]);
    expect(s.requests.at(-1)!.expect).toEqual({ met: 2, total: 2 });
    expect(() => s.verify()).not.toThrow();
  });

  it("a loop that drops a call's output is unmet, naming the missing call_id; verify() throws it", async () => {
    const s = fresh();
    const first = await post(s.id, "parallel", { input: "go", tools: TOOLS });
    await post(s.id, "parallel", { previous_response_id: first.json.id, input: [output("call_1")], tools: TOOLS });
    const report = await verify(s.id);
    expect(report.ok).toBe(false);
    const unmet = report.expectations.find((e) => e.rule === "tool_outputs")!;
    expect(unmet.status).toBe("unmet");
    expect(unmet.message).toBe("expected function_call_output for call_2; got outputs for call_1 only");
    expect(s.requests.at(-1)!.expect).toEqual({ met: 1, total: 2 });
    expect(() => s.verify()).toThrow(/call_2; got outputs for call_1 only/);
    expect(() => mock.verify()).toThrow(/tool_outputs \(scenario 'parallel', turn 0\), request #\d+: expected/);
    s.reset();
    expect((await verify(s.id)).expectations).toEqual([]);
  });

  it("continues by replayed history (no previous_response_id), with the openai SDK", async () => {
    const s = fresh();
    const client = new OpenAI({
      baseURL: mock.baseURL,
      apiKey: "x",
      defaultHeaders: { ...s.headers, "x-mock-scenario": "parallel" },
    });
    const first = await client.responses.create({ model: "m", input: "go", tools: TOOLS as never, store: false });
    const calls = first.output.filter((i) => i.type === "function_call");
    expect(calls.map((c) => c.call_id)).toEqual(["call_1", "call_2"]);
    await client.responses.create({
      model: "m",
      store: false,
      tools: TOOLS as never,
      input: [
        { role: "user", content: "go" },
        ...(first.output as never[]),
        ...calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: "42" })),
      ],
    });
    const report = await verify(s.id);
    expect(report.expectations.map((e) => [e.rule, e.status])).toEqual([
      ["tool_outputs", "met"],
      ["continues", "met"],
    ]);
  });

  it("an unrelated request of the session is not judged (it continues nothing)", async () => {
    const s = fresh();
    await post(s.id, "parallel", { input: "go", tools: TOOLS });
    await post(s.id, "parallel", { input: "something else", tools: TOOLS });
    // Both answers' expectations wait: the second request began a conversation of its own.
    expect((await verify(s.id)).expectations.map((e) => e.status)).toEqual([
      "pending",
      "pending",
      "pending",
      "pending",
    ]);
  });
});

describe("time rules (ManualClock)", () => {
  it("waits_ms: too soon is unmet, late enough is met", async () => {
    const soon = fresh();
    const a = await post(soon.id, "patient", { input: "hi" });
    await clock.advance(400);
    await post(soon.id, "patient", { previous_response_id: a.json.id, input: "again" });
    const r1 = (await verify(soon.id)).expectations.find((e) => e.rule === "waits_ms")!;
    expect(r1).toMatchObject({ status: "unmet" });
    expect(r1.message).toBe(
      "expected the next request no sooner than 1000 ms after the answer ended; it came after 400 ms",
    );

    const late = fresh();
    const b = await post(late.id, "patient", { input: "hi" });
    await clock.advance(1000);
    await post(late.id, "patient", { previous_response_id: b.json.id, input: "again" });
    const r2 = await verify(late.id);
    expect(r2.ok).toBe(true);
    expect(r2.expectations.map((e) => [e.rule, e.status])).toEqual([
      ["continues", "met"],
      ["waits_ms", "met"],
    ]);
  });

  it("pending until within_ms, then unmet", async () => {
    const s = fresh();
    await post(s.id, "patient", { input: "hi" });
    await clock.advance(5000);
    expect((await verify(s.id)).expectations.map((e) => e.status)).toEqual(["pending", "pending"]);
    await clock.advance(1);
    const report = await verify(s.id);
    expect(report.ok).toBe(false);
    expect(report.expectations.map((e) => e.status)).toEqual(["unmet", "unmet"]);
    expect(report.expectations[0]!.message).toBe(
      "expected the next request of the conversation within 5000 ms; none came",
    );
    expect(report.expectations[0]!.seq).toBeNull();
  });

  it("no_retry_ms: the same body again too soon is unmet; none within the time is met", async () => {
    const eager = fresh();
    expect((await post(eager.id, "refuse", { input: "x" })).status).toBe(400);
    await clock.advance(1500);
    expect((await post(eager.id, "refuse", { input: "x" })).status).toBe(400);
    const retried = (await verify(eager.id)).expectations;
    // The retry opened an expectation of its own, still pending.
    expect(retried.map((e) => e.status)).toEqual(["unmet", "pending"]);
    expect(retried[0]!.message).toBe("expected no request with the same body within 2000 ms; one came after 1500 ms");
    expect(retried[0]!.seq).toBe(eager.requests.at(-1)!.seq);

    const calm = fresh();
    await post(calm.id, "refuse", { input: "x" });
    await post(calm.id, "refuse", { input: "a different body" });
    expect((await verify(calm.id)).expectations[0]!.status).toBe("pending");
    await clock.advance(2000);
    expect((await verify(calm.id)).expectations.map((e) => e.status)).toEqual(["met", "met"]);
  });
});

describe("reasoning_returned and match", () => {
  it("store: false with the reasoning item sent back is met; without it, unmet", async () => {
    const good = fresh();
    const a = await post(good.id, "thinker", {
      input: "go",
      tools: TOOLS,
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    const reasoning = a.json.output.find((i) => i.type === "reasoning")!;
    expect(reasoning.encrypted_content).toBe("enc-1");
    await post(good.id, "thinker", {
      store: false,
      tools: TOOLS,
      input: ["go", ...a.json.output, output("call_r")].map((i) =>
        typeof i === "string" ? { role: "user", content: i } : i,
      ),
    });
    expect((await verify(good.id)).ok).toBe(true);

    const bad = fresh();
    const b = await post(bad.id, "thinker", { input: "go", tools: TOOLS, store: false });
    const call = b.json.output.find((i) => i.type === "function_call")!;
    await post(bad.id, "thinker", {
      store: false,
      tools: TOOLS,
      input: [{ role: "user", content: "go" }, call, output("call_r")],
    });
    const report = await verify(bad.id);
    expect(report.ok).toBe(false);
    const rule = report.expectations.find((e) => e.rule === "reasoning_returned")!;
    expect(rule.status).toBe("unmet");
    expect(rule.message).toMatch(/^expected reasoning rs_\S+ with its encrypted_content back/);
  });

  it("match uses the selection rules' form", async () => {
    const s = fresh();
    const a = await post(s.id, "picky", { input: "hi" });
    await post(s.id, "picky", { previous_response_id: a.json.id, input: "now!" });
    const report = await verify(s.id);
    expect(report.expectations[0]).toMatchObject({ rule: "match", status: "unmet" });
    expect(report.expectations[0]!.message).toBe('expected a request that fits {"contains":"please"}');
  });
});

describe("sessions, reset and mock.expect()", () => {
  it("keeps each session's expectations apart", async () => {
    const a = fresh();
    const b = fresh();
    await post(a.id, "parallel", { input: "go", tools: TOOLS });
    expect((await verify(b.id)).expectations).toEqual([]);
    expect((await verify(a.id)).expectations).toHaveLength(2);
    expect(b.expectations).toEqual([]);
    b.reset();
    expect(a.expectations).toHaveLength(2);
    const res = await fetch(`${mock.url}/__mock/reset?session=${a.id}`, { method: "POST" });
    expect(res.status).toBe(204);
    expect(a.expectations).toEqual([]);
  });

  it("session.expect() judges the next request (match) and, for answer rules, the session's last answer", async () => {
    const s = fresh();
    s.expect({ match: { contains: "hello" } });
    await post(s.id, "picky", { input: "hello there" });
    expect(s.expectations).toEqual([
      expect.objectContaining({
        rule: "match",
        status: "met",
        scenario: null,
        turn: null,
        seq: s.requests.at(-1)!.seq,
      }),
      // the picky turn's own expectation, opened by that answer
      expect.objectContaining({ rule: "match", status: "pending", scenario: "picky" }),
    ]);

    const t = fresh();
    t.expect({ tool_outputs: true }, { times: 2 });
    const first = await post(t.id, "parallel", { input: "go", tools: TOOLS });
    await post(t.id, "parallel", { previous_response_id: first.json.id, input: [output("call_2")], tools: TOOLS });
    const own = t.expectations.filter((e) => e.scenario === null);
    expect(own.map((e) => e.status)).toEqual(["unmet", "unmet"]);
    expect(own[0]!.message).toMatch(/there was none/);
    expect(own[1]!.message).toBe("expected function_call_output for call_1; got outputs for call_2 only");
  });

  it("after a session's first expect(), its answers are kept: a later expect() judges against the last one", async () => {
    const s = fresh();
    s.expect({ match: { model: "m" } });
    const first = await post(s.id, "parallel", { input: "go", tools: TOOLS });
    s.expect({ tool_outputs: true });
    await post(s.id, "parallel", {
      previous_response_id: first.json.id,
      input: [output("call_1"), output("call_2")],
      tools: TOOLS,
    });
    const own = s.expectations.filter((e) => e.scenario === null);
    expect(own.map((e) => [e.rule, e.status])).toEqual([
      ["match", "met"],
      ["tool_outputs", "met"],
    ]);
    expect(() => s.verify()).not.toThrow();
  });

  it("an expect() no request came for is pending, then unmet past within_ms (counted from expect())", async () => {
    const s = fresh();
    s.expect({ match: { contains: "x" }, within_ms: 100 }, { times: 2 });
    expect(s.expectations.map((e) => e.status)).toEqual(["pending", "pending"]);
    await post(s.id, "picky", { input: "x" });
    expect(s.expectations.filter((e) => e.scenario === null).map((e) => e.status)).toEqual(["met", "pending"]);
    await clock.advance(101);
    const unmet = s.expectations.filter((e) => e.status === "unmet");
    expect(unmet.map((e) => e.message)).toEqual([
      "expected a request of the session within 100 ms of expect(); none came",
    ]);
    expect(() => s.verify()).toThrow(/match \(mock\.expect\): expected a request of the session within 100 ms/);
  });

  it("expect({no_retry_ms}) watches the body of the session's last answer's request", async () => {
    const s = fresh();
    s.expect({ match: { model: "m" } });
    await post(s.id, "refuse", { input: "y" });
    s.expect({ no_retry_ms: 1000 });
    await clock.advance(200);
    await post(s.id, "refuse", { input: "y" });
    const own = s.expectations.filter((e) => e.scenario === null);
    expect(own.map((e) => [e.rule, e.status])).toEqual([
      ["match", "met"],
      ["no_retry_ms", "unmet"],
    ]);
    expect(own[1]!.message).toBe("expected no request with the same body within 1000 ms; one came after 200 ms");

    const calm = fresh();
    calm.expect({ match: { model: "m" } });
    await post(calm.id, "refuse", { input: "y" });
    calm.expect({ no_retry_ms: 1000 });
    await post(calm.id, "refuse", { input: "another body" });
    expect(calm.expectations.filter((e) => e.scenario === null).map((e) => e.status)).toEqual(["met", "pending"]);
    await clock.advance(1000);
    expect(calm.expectations.filter((e) => e.scenario === null).map((e) => e.status)).toEqual(["met", "met"]);
  });

  it("a bad rule throws, naming it", () => {
    const s = fresh();
    expect(() => s.expect({ waits_ms: -1 })).toThrow(/session\.expect\(\): \$\.waits_ms: must be >= 0/);
    expect(() => mock.expect({ tool_output: true } as never)).toThrow(
      /mock\.expect\(\): \$: unknown key 'tool_output'/,
    );
    expect(() => mock.expect({ tool_outputs: true }, { times: 0 })).toThrow(RangeError);
  });
});

describe("on a WebSocket", () => {
  it("a turn's expectation is judged on the connection's next response.create", async () => {
    const s = fresh();
    const ws = new WebSocket(`${mock.url.replace(/^http/, "ws")}/v1/responses`, {
      headers: { ...s.headers, "x-mock-scenario": "parallel" },
    });
    await once(ws, "open");
    const turn = (body: object) =>
      new Promise<{ type: string; response?: { id: string } }>((resolve) => {
        const onMessage = (data: unknown) => {
          const message = JSON.parse(String(data)) as { type: string; response?: { id: string } };
          if (["response.completed", "response.failed", "response.incomplete", "error"].includes(message.type)) {
            ws.off("message", onMessage);
            resolve(message);
          }
        };
        ws.on("message", onMessage);
        ws.send(JSON.stringify({ type: "response.create", model: "m", tools: TOOLS, ...body }));
      });
    const first = await turn({ input: "go" });
    await turn({ previous_response_id: first.response!.id, input: [output("call_2")] });
    ws.close();
    await once(ws, "close");
    const report = await verify(s.id);
    expect(report.expectations.find((e) => e.rule === "tool_outputs")!.message).toBe(
      "expected function_call_output for call_1; got outputs for call_2 only",
    );
    expect(report.expectations.find((e) => e.rule === "continues")!.status).toBe("met");
  });
});

describe("expect in a scenario file", () => {
  it("a bad rule is an error naming the file and the JSON path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "expect-"));
    const file = join(dir, "bad.json");
    await writeFile(
      file,
      JSON.stringify({ name: "bad", turns: [{ steps: [], expect: { tool_outputs: "yes", match: { contain: "x" } } }] }),
    );
    const err = await loadScenarios([file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioError);
    const { issues } = err as ScenarioError;
    expect(issues.map((i) => [i.file.endsWith("bad.json"), i.path])).toEqual([
      [true, "$.turns[0].expect.tool_outputs"],
      [true, "$.turns[0].expect.match"],
    ]);
    expect(issues[1]!.message).toMatch(/unknown key 'contain'/);
  });
});

describe("bounds", () => {
  it("keeps the expectations of at most MAX_SESSIONS sessions: the oldest session's go first", async () => {
    const { MAX_SESSIONS } = await import("../../src/turn/expect.js");
    const mock = await startMockServer({ port: 0 });
    try {
      const first = mock.session("bound-0");
      first.expect({ continues: true });
      expect(first.expectations).toHaveLength(1);
      for (let i = 1; i <= MAX_SESSIONS; i++) mock.session(`bound-${i}`).expect({ continues: true });
      expect(first.expectations).toHaveLength(0);
      expect(mock.session(`bound-${MAX_SESSIONS}`).expectations).toHaveLength(1);
    } finally {
      await mock.close();
    }
  });
});
