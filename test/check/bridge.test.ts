/**
 * `check URL --bridge --upstream-port N`: the bench against our own bridge
 * (`proxy --upstream-api chat`), which passes every check, and against small
 * broken bridges, each caught by the rule meant for it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runBridgeChecks } from "../../src/cli/bridge.js";
import { runCli } from "../support/run.js";
import { checkSettings, send } from "../../src/cli/check.js";
import {
  BRIDGE_CHECKS,
  fidelityViolations,
  formatReport,
  jsonReport,
  translationViolations,
  type BatteryReport,
  type Verdict,
} from "../../src/check/index.js";

/** A port free now (listened on, then closed). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function bench(bridgeBase: string, port: number, only?: string[]): Promise<BatteryReport> {
  const settings = checkSettings({
    url: bridgeBase,
    model: "openresponses-check",
    json: false,
    bridge: true,
    "upstream-port": String(port),
    only,
  });
  return runBridgeChecks({ ...settings, bridge: settings.bridge! }, { send: (r, k) => send(settings, r, k) });
}

describe("check --bridge against our own proxy --upstream-api chat", () => {
  let port: number;
  let proxy: MockServer;
  beforeAll(async () => {
    port = await freePort();
    proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "chat" });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it("passes every check", async () => {
    const report = await bench(proxy.baseURL, port);
    expect(report.results.filter((r) => r.outcome !== "pass")).toEqual([]);
    expect(report.streamedInstead).toEqual([]);
  });
});

// ---------------------------------------------------------------- broken bridges

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
/** One defect: in what goes upstream (`up`), or in what comes back to the client (`down`). */
interface Defect {
  up?: (body: Json) => Json;
  down?: (answer: Answer, request: Json) => Answer;
}

const readBody = async (req: IncomingMessage) => {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
};
const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const kept = (headers: Headers) => {
  const out: Record<string, string> = {};
  for (const name of ["content-type", "retry-after"]) {
    const value = headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
};

/**
 * A broken bridge: a translator from Responses to Chat Completions (our own
 * proxy, as its known-good translator) with one defect placed around it — a
 * node:http server between it and the upstream that alters the chat request
 * it sends, or one in front of it that alters what the client gets.
 */
async function brokenBridge(upstreamPort: number, defect: Defect) {
  const middle = createServer(async (req, res) => {
    const text = await readBody(req);
    const body = defect.up ? JSON.stringify(defect.up(JSON.parse(text) as Json)) : text;
    const answer = await fetch(`http://127.0.0.1:${upstreamPort}${req.url}`, {
      method: req.method,
      headers: { "content-type": "application/json", authorization: req.headers.authorization ?? "" },
      body,
    });
    res.writeHead(answer.status, kept(answer.headers));
    try {
      for await (const chunk of answer.body!) res.write(chunk);
      res.end();
    } catch {
      res.destroy(); // the upstream cut: so does the bridge's upstream side
    }
  });
  const middleUrl = await listen(middle);
  const proxy = await startMockServer({ port: 0, upstream: `${middleUrl}/v1`, upstreamApi: "chat" });
  const front = createServer(async (req, res) => {
    const text = await readBody(req);
    const got = await fetch(`${proxy.url}${req.url}`, {
      method: req.method,
      headers: { "content-type": "application/json", authorization: req.headers.authorization ?? "" },
      body: text,
    });
    let answer: Answer = { status: got.status, headers: kept(got.headers), body: await got.text() };
    if (defect.down) answer = defect.down(answer, JSON.parse(text) as Json);
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
  const frontUrl = await listen(front);
  return {
    base: `${frontUrl}/v1`,
    async close() {
      await proxy.close();
      for (const s of [middle, front]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
    },
  };
}

const sseFrame = (event: Json) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
const events = (body: string): Json[] =>
  body
    .split("\n\n")
    .map((frame) =>
      frame
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6),
    )
    .filter((data): data is string => data !== undefined && data !== "[DONE]")
    .map((data) => JSON.parse(data) as Json);
const messagesOf = (body: Json) => body.messages as Json[];
const without = (body: Json, key: string) => {
  const out: Json = {};
  for (const [k, value] of Object.entries(body)) if (k !== key) out[k] = value;
  return out;
};

const DEFECTS: Record<string, { rule: string; defect: Defect; downstreamToo?: boolean }> = {
  "a string input split into one user message per character": {
    rule: "upstream.input",
    defect: {
      up: (body) => ({
        ...body,
        messages: messagesOf(body).flatMap((m) =>
          m.role === "user" && typeof m.content === "string"
            ? [...m.content].map((c) => ({ role: "user", content: c }))
            : [m],
        ),
      }),
    },
  },
  "function_call_output dropped": {
    rule: "upstream.tool-output",
    defect: { up: (body) => ({ ...body, messages: messagesOf(body).filter((m) => m.role !== "tool") }) },
  },
  "tool_choice not forwarded": {
    rule: "upstream.tool-choice",
    defect: { up: (body) => without(body, "tool_choice") },
  },
  "response_format not set": {
    rule: "upstream.response-format",
    defect: { up: (body) => without(body, "response_format") },
  },
  "an upstream 500 turned into HTTP 200 with a lone error event": {
    rule: "fault.status",
    downstreamToo: true,
    defect: {
      down: (answer, request) =>
        answer.status >= 500 && request.stream === true
          ? {
              status: 200,
              headers: { "content-type": "text/event-stream" },
              body: sseFrame({ type: "error", sequence_number: 0, code: "server_error", message: "upstream failed" }),
            }
          : answer,
    },
  },
  "an upstream cut turned into response.completed": {
    rule: "fault.cut",
    defect: {
      down: (answer) => {
        if (!answer.headers["content-type"]?.startsWith("text/event-stream")) return answer;
        const out = events(answer.body)
          .filter((e) => e.type !== "error")
          .map((e, i) => {
            if (e.type !== "response.failed") return { ...e, sequence_number: i };
            const response = e.response as Json;
            return {
              type: "response.completed",
              sequence_number: i,
              response: { ...response, status: "completed", error: null, completed_at: response.created_at },
            };
          });
        return { ...answer, body: out.map(sseFrame).join("") + "data: [DONE]\n\n" };
      },
    },
  },
  "call ids replaced by the bridge's own": {
    rule: "fidelity.tool-call",
    defect: { down: (answer) => ({ ...answer, body: answer.body.replaceAll('"call_bridge_', '"call_own_') }) },
  },
  "retry-after dropped": {
    rule: "fault.retry-after",
    defect: { down: (answer) => ({ ...answer, headers: { "content-type": answer.headers["content-type"] } }) },
  },
};

const isBridgeRule = (rule: string) => /^(upstream|fault|fidelity)\./.test(rule);

describe("check --bridge against broken bridges: each caught by the rule meant for it, and by no other", () => {
  for (const [name, { rule, defect, downstreamToo }] of Object.entries(DEFECTS)) {
    it(`${name}: ${rule}`, async () => {
      const port = await freePort();
      const bridge = await brokenBridge(port, defect);
      let report: BatteryReport;
      try {
        report = await bench(bridge.base, port);
      } finally {
        await bridge.close();
      }
      const caught = report.results.filter((r) => r.violations.some((v) => v.rule === rule));
      expect(caught.length).toBeGreaterThan(0);
      // No bridge rule but the one meant fires anywhere.
      const bridgeRules = new Set(report.results.flatMap((r) => r.violations.map((v) => v.rule)).filter(isBridgeRule));
      expect([...bridgeRules]).toEqual([rule]);
      // Every other check passes; a request-side defect breaks nothing downstream either.
      for (const r of report.results) {
        if (!caught.includes(r))
          expect({ check: r.name, outcome: r.outcome }).toEqual({ check: r.name, outcome: "pass" });
        else if (!downstreamToo) expect(r.violations.map((v) => v.rule)).toEqual(r.violations.map(() => rule));
      }
      for (const r of caught)
        for (const v of r.violations.filter((x) => x.rule === rule))
          expect(v.side).toBe(rule.startsWith("upstream.") ? "upstream" : "downstream");
    });
  }
});

describe("check --bridge on a bridge that only streams", () => {
  it("sends each refused non-streamed request again with stream: true, judges it over the stream, and says so", async () => {
    const port = await freePort();
    // Our own translator behind a front that answers 501 to any request without stream: true.
    const bridge = await brokenBridge(port, {
      down: (answer, request) =>
        request.stream === true
          ? answer
          : {
              status: 501,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                error: { type: "server_error", code: "not_implemented", param: "stream", message: "Only streaming." },
              }),
            },
    });
    let report: BatteryReport;
    try {
      report = await bench(bridge.base, port);
    } finally {
      await bridge.close();
    }
    const nonStreamed = BRIDGE_CHECKS.filter((c) => !c.request("m").stream).map((c) => c.name);
    expect(nonStreamed.length).toBeGreaterThan(3);
    expect(report.streamedInstead).toEqual(nonStreamed);
    expect(report.results.filter((r) => r.outcome !== "pass").map((r) => [r.name, r.violations])).toEqual([]);
    for (const r of report.results.filter((x) => nonStreamed.includes(x.name))) {
      expect(r.requests[0]).toMatchObject({
        stream: true,
        refusedNonStreamed: 501,
        status: r.name === "fault-429" ? 429 : 200,
      });
      expect(r.note).toMatch(/refused the request without `stream` \(501\), so it was sent again with `stream: true`/);
      // What went upstream is the streamed request's translation, judged by the same rules.
      expect(r.upstream!.requests.filter((u) => u.path.endsWith("/chat/completions")).length).toBeGreaterThan(0);
    }
  });
});

describe("the bridge rules, pure", () => {
  const verdict = (output: unknown[]): Verdict =>
    ({
      ok: true,
      violations: [],
      suppressed: {},
      kind: "response",
      notes: [],
      response: { status: "completed", output },
    }) as Verdict;

  it("fidelity.text: the client's text is the upstream's", () => {
    const said = [{ type: "message", content: [{ type: "output_text", text: "Hello" }] }];
    expect(fidelityViolations({ text: "Hello" }, verdict(said))).toEqual([]);
    expect(fidelityViolations({ text: "Hello!" }, verdict(said)).map((v) => v.rule)).toEqual(["fidelity.text"]);
  });

  it("fidelity.tool-call: arguments compared as JSON, names and call ids exactly", () => {
    const calls = [{ type: "function_call", name: "f", arguments: '{ "a": 1 }', call_id: "c1" }];
    expect(fidelityViolations({ calls: [{ name: "f", arguments: '{"a":1}', call_id: "c1" }] }, verdict(calls))).toEqual(
      [],
    );
    const found = fidelityViolations({ calls: [{ name: "g", arguments: '{"a":2}', call_id: "c2" }] }, verdict(calls));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ rule: "fidelity.tool-call", path: "$.output[0]" });
    expect(found[0].message).toMatch(/name "f".*arguments.*call_id "c1"/);
  });

  it("upstream.instructions and upstream.params: a developer message counts; max_completion_tokens or max_tokens", () => {
    const down = { model: "m", instructions: "Be brief.", input: "Hi", max_output_tokens: 20, temperature: 0 };
    const good = {
      messages: [
        { role: "developer", content: [{ type: "text", text: "Be brief." }] },
        { role: "user", content: "Hi" },
      ],
      max_completion_tokens: 20,
      temperature: 0,
    };
    expect(translationViolations(down, good)).toEqual([]);
    const bad = { messages: [{ role: "user", content: "Be brief.\n\nHi" }], max_tokens: 16 };
    expect(translationViolations(down, bad).map((v) => v.rule)).toEqual([
      "upstream.instructions",
      "upstream.input",
      "upstream.params",
      "upstream.params",
    ]);
  });

  it("upstream.tools: each function tool nested under function, with its parameters", () => {
    const tool = { type: "function", name: "f", description: "d", parameters: { type: "object" } };
    const down = { model: "m", input: "Hi", tools: [tool] };
    const up = (fn: Record<string, unknown>) => ({
      messages: [{ role: "user", content: "Hi" }],
      tools: [{ type: "function", function: fn }],
    });
    expect(translationViolations(down, up({ name: "f", description: "d", parameters: { type: "object" } }))).toEqual(
      [],
    );
    const found = translationViolations(down, up({ name: "f", description: "d" }));
    expect(found).toEqual([expect.objectContaining({ rule: "upstream.tools", path: "$.tools[0]" })]);
  });

  it('upstream.tool-choice: "auto" may be left out when tools go upstream (the Chat default); "none" may not', () => {
    const tool = { type: "function", name: "f", parameters: { type: "object" } };
    const up = {
      messages: [{ role: "user", content: "Hi" }],
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    };
    expect(translationViolations({ input: "Hi", tools: [tool], tool_choice: "auto" }, up)).toEqual([]);
    expect(translationViolations({ input: "Hi", tools: [tool], tool_choice: "none" }, up).map((v) => v.rule)).toEqual([
      "upstream.tool-choice",
    ]);
  });
});

describe("check --bridge: the report and the flags", () => {
  it("shows both sides: the upstream line, [side] on each fault; --json has rule, side, message, path", async () => {
    const port = await freePort();
    const bridge = await brokenBridge(port, DEFECTS["tool_choice not forwarded"].defect);
    let report: BatteryReport;
    try {
      report = await bench(bridge.base, port, ["tool-choice-none"]);
    } finally {
      await bridge.close();
    }
    const text = formatReport(report, { target: bridge.base });
    // The README's example ("Test a bridge"), line for line.
    expect(text).toContain(
      [
        'FAIL  tool-choice-none  tool_choice "none" — 200 application/json; charset=utf-8, completed',
        "      upstream: POST /v1/chat/completions (1 message(s), 1 tool(s), stream false)",
        "      ✗ [upstream] upstream.tool-choice  $.tool_choice",
        '          `tool_choice` "none" must go upstream as "none"; got nothing',
      ].join("\n"),
    );
    expect(text).toContain("--bridge (upstream API chat)");
    const json = JSON.parse(jsonReport(report, bridge.base)) as {
      results: { violations: Record<string, unknown>[]; upstream: { requests: { path: string; body: Json }[] } }[];
    };
    expect(json.results[0].violations).toEqual([
      expect.objectContaining({
        rule: "upstream.tool-choice",
        side: "upstream",
        path: "$.tool_choice",
        message: expect.stringContaining("tool_choice"),
      }),
    ]);
    expect(json.results[0].upstream.requests).toEqual([
      expect.objectContaining({
        path: "/v1/chat/completions",
        body: expect.objectContaining({ tools: expect.any(Array) }),
      }),
    ]);
  });

  const settings = (extra: Record<string, unknown>) => () =>
    checkSettings({ url: "http://127.0.0.1:1/v1", model: "m", json: false, ...extra });

  it("refuses bad flags, naming them", () => {
    expect(settings({ bridge: true })).toThrow(/^--upstream-port: required with --bridge/);
    expect(settings({ bridge: true, "upstream-port": "70000" })).toThrow(/^--upstream-port: expected a port number/);
    expect(settings({ bridge: true, "upstream-port": "4011", "upstream-api": "responses" })).toThrow(
      /^--upstream-api: 'responses' is not supported yet/,
    );
    expect(settings({ bridge: true, "upstream-port": "4011", "upstream-api": "chatt" })).toThrow(
      /^--upstream-api: unknown API 'chatt'; did you mean 'chat'\?/,
    );
    expect(settings({ "upstream-port": "4011" })).toThrow(/^--upstream-port: only with --bridge/);
    expect(settings({ bridge: true, "upstream-port": "4011", only: ["previous-response-id"] })).toThrow(
      /^--only: unknown bridge check 'previous-response-id'/,
    );
    expect(settings({ bridge: true, "upstream-port": "4011" })()).toMatchObject({
      bridge: { port: 4011, api: "chat" },
    });
  });
});

describe("openresponses-mock check --bridge, run as a user runs it (dist/)", () => {
  it("passes our own proxy with exit 0, and says so when the upstream port is taken (exit 2)", async () => {
    const port = await freePort();
    const proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "chat" });
    try {
      const env = { env: { ...process.env, NO_COLOR: "1" } };
      const ok = await runCli(["check", proxy.baseURL, "--bridge", "--upstream-port", String(port)], env);
      expect(ok.stdout).toContain("12 checks: 12 passed, 0 failed, 0 skipped");
      expect(ok.code).toBe(0);
      const taken = await runCli(["check", proxy.baseURL, "--bridge", "--upstream-port", String(proxy.port)], env);
      expect(taken.stderr).toContain(`--upstream-port: port ${proxy.port} is in use on 127.0.0.1`);
      expect(taken.code).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});
