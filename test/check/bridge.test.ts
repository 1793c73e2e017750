/**
 * `check URL --bridge --upstream-port N [--upstream-api chat|responses]`: the
 * bench against our own bridge (`proxy`, with either upstream API), which
 * passes every check, and against small broken bridges, each caught by the
 * rule meant for it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runBridgeChecks } from "../../src/cli/bridge.js";
import { runCli } from "../support/run.js";
import { checkSettings, probeSpecPath, send } from "../../src/cli/check.js";
import {
  BRIDGE_CHECKS,
  faultStatusViolations,
  fidelityViolations,
  formatReport,
  jsonReport,
  responsesTranslationViolations,
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

type Api = "chat" | "responses";
/** The slow-upstream check's wait in these tests: the upstream mock paces it (its turn's latencyMs). */
const SLOW_MS = 200;

async function bench(
  bridgeBase: string,
  port: number,
  only?: string[],
  api: Api = "chat",
  slowMs = SLOW_MS,
): Promise<BatteryReport> {
  const settings = checkSettings({
    url: bridgeBase,
    model: "openresponses-check",
    json: false,
    bridge: true,
    "upstream-port": String(port),
    "upstream-api": api,
    "slow-upstream-ms": String(slowMs),
    only,
  });
  return runBridgeChecks(
    { ...settings, bridge: settings.bridge! },
    { send: (r, k) => send(settings, r, k), probe: () => probeSpecPath(settings) },
  );
}

/** Every check passes, but slow-upstream, which is informational and saw the bridge wait. */
function expectAllPass(report: BatteryReport) {
  expect(report.results.filter((r) => r.outcome !== "pass" && r.name !== "slow-upstream")).toEqual([]);
  const slow = report.results.find((r) => r.name === "slow-upstream")!;
  expect(slow).toMatchObject({ outcome: "info", violations: [] });
  expect(slow.note).toBe(
    `the upstream waited ${SLOW_MS} ms before its first byte; the bridge waited, and passed the answer through (200, completed)`,
  );
  expect(report.ok).toBe(true);
  expect(report.results.map((r) => r.name)).toEqual(BRIDGE_CHECKS.map((c) => c.name));
}

for (const api of ["chat", "responses"] as const)
  describe(`check --bridge --upstream-api ${api} against our own proxy --upstream-api ${api}`, () => {
    let port: number;
    let proxy: MockServer;
    beforeAll(async () => {
      port = await freePort();
      proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: api });
    });
    afterAll(async () => {
      await proxy.close();
    });

    it("passes every check", async () => {
      const report = await bench(proxy.baseURL, port, undefined, api);
      expectAllPass(report);
      expect(report.streamedInstead).toEqual([]);
      expect(report.bridge).toEqual({ upstreamApi: api });
      expect(report.baseUrl).toBeUndefined();
      // Each check's request reached the API's own endpoint, and only it.
      const endpoint = api === "chat" ? "/v1/chat/completions" : "/v1/responses";
      for (const r of report.results) expect(r.upstream!.requests.map((u) => u.path)).toEqual([endpoint]);
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
 * A broken bridge: a bridge known to be good (our own proxy, translating to
 * Chat Completions or passing the Responses request on) with one defect
 * placed around it — a node:http server between it and the upstream that
 * alters the request it sends, or one in front of it that alters what the
 * client gets.
 */
async function brokenBridge(upstreamPort: number, defect: Defect, api: Api = "chat") {
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
  const proxy = await startMockServer({ port: 0, upstream: `${middleUrl}/v1`, upstreamApi: api });
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

interface DefectCase {
  rule: string;
  defect: Defect;
  /** The defect breaks the bridge's answer itself, so downstream rules fire too (with these upstream APIs only, when listed). */
  downstreamToo?: boolean | Api[];
  /**
   * A Responses bridge passes the upstream's response on, which echoes the request the upstream got: a field
   * dropped on the way up is also missing from the echo, so the downstream `echo` rule fires with the one meant.
   */
  echo?: true;
}

const errorBody = (type: string, code: string, message: string) =>
  JSON.stringify({ error: { type, code, param: null, message } });
const isCallerError = (status: number) => status >= 400 && status < 500 && status !== 429;

/** Defects in what a Chat Completions bridge sends upstream. */
const CHAT_DEFECTS: Record<string, DefectCase> = {
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
};

const inputOf = (body: Json) => body.input as Json[];

/** Defects in what a Responses-to-Responses bridge sends upstream. */
const RESPONSES_DEFECTS: Record<string, DefectCase> = {
  "a string input split into one user message per character": {
    rule: "upstream.input",
    defect: {
      up: (body) =>
        typeof body.input === "string"
          ? { ...body, input: [...body.input].map((c) => ({ type: "message", role: "user", content: c })) }
          : body,
    },
  },
  "instructions dropped": {
    rule: "upstream.instructions",
    echo: true,
    defect: { up: (body) => without(body, "instructions") },
  },
  "function_call_output dropped": {
    rule: "upstream.tool-output",
    defect: {
      up: (body) =>
        Array.isArray(body.input)
          ? { ...body, input: inputOf(body).filter((i) => i.type !== "function_call_output") }
          : body,
    },
  },
  "tool_choice not forwarded": {
    rule: "upstream.tool-choice",
    echo: true,
    defect: { up: (body) => without(body, "tool_choice") },
  },
  "text.format not forwarded": {
    rule: "upstream.response-format",
    echo: true,
    defect: { up: (body) => without(body, "text") },
  },
  "max_output_tokens not forwarded": {
    rule: "upstream.params",
    echo: true,
    defect: { up: (body) => without(body, "max_output_tokens") },
  },
};

/** Defects in what the bridge answers its client, whatever it speaks upstream. */
const ANSWER_DEFECTS: Record<string, DefectCase> = {
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
    // Passed through, the cut leaves the items open: completed over them, they break the stream rules too.
    downstreamToo: ["responses"],
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
  "an upstream 400 turned into HTTP 200 with a lone error event": {
    rule: "fault.status",
    downstreamToo: true,
    defect: {
      down: (answer, request) =>
        isCallerError(answer.status) && request.stream === true
          ? {
              status: 200,
              headers: { "content-type": "text/event-stream" },
              body: sseFrame({ type: "error", sequence_number: 0, code: "invalid_request", message: "bad request" }),
            }
          : answer,
    },
  },
  "an upstream 4xx answered as a 502": {
    rule: "fault.status",
    defect: {
      down: (answer) =>
        isCallerError(answer.status)
          ? { ...answer, status: 502, body: errorBody("server_error", "bad_gateway", "The upstream failed.") }
          : answer,
    },
  },
  "an upstream 4xx's error type replaced": {
    rule: "fault.status",
    defect: {
      down: (answer) =>
        isCallerError(answer.status)
          ? { ...answer, body: errorBody("server_error", "upstream_error", "The upstream refused the request.") }
          : answer,
    },
  },
  "an upstream 500 on a JSON request answered 200 with the error as its body": {
    rule: "fault.status",
    downstreamToo: true,
    defect: {
      down: (answer, request) =>
        answer.status >= 500 && request.stream !== true ? { ...answer, status: 200 } : answer,
    },
  },
};

const isBridgeRule = (rule: string) => /^(upstream|fault|fidelity)\./.test(rule);

const CASES: [Api, Record<string, DefectCase>][] = [
  ["chat", { ...CHAT_DEFECTS, ...ANSWER_DEFECTS }],
  ["responses", { ...RESPONSES_DEFECTS, ...ANSWER_DEFECTS }],
];

for (const [api, defects] of CASES)
  describe(`check --bridge --upstream-api ${api} against broken bridges: each caught by the rule meant for it, and by no other`, () => {
    for (const [name, { rule, defect, downstreamToo, echo }] of Object.entries(defects)) {
      const brokenDownstream = downstreamToo === true || (Array.isArray(downstreamToo) && downstreamToo.includes(api));
      it(`${name}: ${rule}`, async () => {
        const port = await freePort();
        const bridge = await brokenBridge(port, defect, api);
        let report: BatteryReport;
        try {
          report = await bench(bridge.base, port, undefined, api);
        } finally {
          await bridge.close();
        }
        const caught = report.results.filter((r) => r.violations.some((v) => v.rule === rule));
        expect(caught.length).toBeGreaterThan(0);
        // No bridge rule but the one meant fires anywhere.
        const bridgeRules = new Set(
          report.results.flatMap((r) => r.violations.map((v) => v.rule)).filter(isBridgeRule),
        );
        expect([...bridgeRules]).toEqual([rule]);
        // Every other check passes; a request-side defect breaks nothing downstream either.
        for (const r of report.results) {
          if (r.name === "slow-upstream") expect(r).toMatchObject({ outcome: "info", violations: [] });
          else if (!caught.includes(r))
            expect({ check: r.name, outcome: r.outcome }).toEqual({ check: r.name, outcome: "pass" });
          else if (!brokenDownstream)
            expect(r.violations.map((v) => v.rule).filter((x) => !(echo && x === "echo"))).toEqual(
              r.violations.filter((v) => !(echo && v.rule === "echo")).map(() => rule),
            );
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
    expect(
      report.results.filter((r) => r.outcome !== "pass" && r.outcome !== "info").map((r) => [r.name, r.violations]),
    ).toEqual([]);
    const faultStatus: Record<string, number> = { "fault-429": 429, "fault-404": 404, "fault-500-json": 500 };
    for (const r of report.results.filter((x) => nonStreamed.includes(x.name))) {
      expect(r.requests[0]).toMatchObject({
        stream: true,
        refusedNonStreamed: 501,
        status: faultStatus[r.name] ?? 200,
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

describe("the bridge rules for a Responses upstream, pure", () => {
  const tool = { type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: true };

  it("the same request passes; so does one with the same meaning (instructions and input as messages)", () => {
    const down = { model: "m", instructions: "Be brief.", input: "Hi", tools: [tool], tool_choice: "required" };
    expect(responsesTranslationViolations(down, down)).toEqual([]);
    const moved = {
      model: "m",
      input: [
        { role: "developer", content: "Be brief." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
      ],
      tools: [tool],
      tool_choice: "required",
    };
    expect(responsesTranslationViolations(down, moved)).toEqual([]);
  });

  it("each field lost is its own rule, with a path into the upstream body", () => {
    const down = {
      model: "m",
      instructions: "Be brief.",
      input: "Hi",
      tools: [tool],
      tool_choice: { type: "function", name: "f" },
      text: { format: { type: "json_schema", name: "a", schema: { type: "object" }, strict: true } },
      max_output_tokens: 20,
      temperature: 0.3,
      stream: true,
    };
    const up = {
      model: "m",
      input: [
        { role: "user", content: "H" },
        { role: "user", content: "i" },
      ],
      tools: [{ ...tool, parameters: { type: "object", properties: {} } }],
      tool_choice: "auto",
      text: { format: { type: "text" } },
      max_output_tokens: 16,
      temperature: 0.3,
    };
    expect(responsesTranslationViolations(down, up).map((x) => [x.rule, x.path])).toEqual([
      ["upstream.instructions", "$.instructions"],
      ["upstream.input", "$.input"],
      ["upstream.tools", "$.tools[0]"],
      ["upstream.tool-choice", "$.tool_choice"],
      ["upstream.response-format", "$.text.format"],
      ["upstream.params", "$.max_output_tokens"],
      ["upstream.params", "$.stream"],
    ]);
  });

  it("upstream.tool-output: the call and its output kept, with the same call_id, the output after the call", () => {
    const call = { type: "function_call", call_id: "c1", name: "f", arguments: '{"a":1}' };
    const output = { type: "function_call_output", call_id: "c1", output: "ok" };
    const user = { type: "message", role: "user", content: "Go" };
    const down = { model: "m", input: [user, call, output] };
    expect(responsesTranslationViolations(down, down)).toEqual([]);
    // Arguments are compared as JSON.
    expect(
      responsesTranslationViolations(down, { input: [user, { ...call, arguments: '{ "a": 1 }' }, output] }),
    ).toEqual([]);
    const rules = (input: unknown[]) => responsesTranslationViolations(down, { input }).map((x) => [x.rule, x.path]);
    expect(rules([user, { ...call, call_id: "other" }, output])).toEqual([["upstream.tool-output", "$.input"]]);
    expect(rules([user, call, { ...output, output: "changed" }])).toEqual([
      ["upstream.tool-output", "$.input[2].output"],
    ]);
    expect(rules([user, output, call])).toEqual([["upstream.tool-output", "$.input[1]"]]);
    expect(rules([user, call])).toEqual([["upstream.tool-output", "$.input"]]);
    expect(rules([call, output])).toEqual([["upstream.input", "$.input"]]);
  });

  it("fault.status: an upstream 4xx keeps its class and its error type (the spec's spelling or OpenAI's)", () => {
    const json = (status: number, type: string) => ({
      status,
      contentType: "application/json",
      body: JSON.stringify({ error: { type, code: null, param: null, message: "m" } }),
    });
    const fault = { status: 400, type: "invalid_request" };
    expect(faultStatusViolations(fault, json(400, "invalid_request"), undefined)).toEqual([]);
    expect(faultStatusViolations(fault, json(422, "invalid_request_error"), undefined)).toEqual([]);
    expect(faultStatusViolations(fault, json(400, "server_error"), undefined)).toEqual([
      expect.objectContaining({ rule: "fault.status", path: "$.error.type" }),
    ]);
    expect(faultStatusViolations(fault, json(502, "server_error"), undefined)).toEqual([
      expect.objectContaining({ rule: "fault.status", path: "$" }),
    ]);
    const lone = {
      status: 200,
      contentType: "text/event-stream",
      body: sseFrame({ type: "error", sequence_number: 0 }),
    };
    expect(faultStatusViolations(fault, lone, undefined)[0].message).toMatch(
      /holding an `error` event but no response.failed/,
    );
  });
});

describe("check --bridge: the report and the flags", () => {
  it("shows both sides: the upstream line, [side] on each fault; --json has rule, side, message, path", async () => {
    const port = await freePort();
    const bridge = await brokenBridge(port, CHAT_DEFECTS["tool_choice not forwarded"].defect);
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
    expect(settings({ bridge: true, "upstream-port": "4011", "upstream-api": "chatt" })).toThrow(
      /^--upstream-api: unknown API 'chatt'; did you mean 'chat'\? one of: chat, responses$/,
    );
    expect(settings({ "upstream-port": "4011" })).toThrow(/^--upstream-port: only with --bridge/);
    expect(settings({ "slow-upstream-ms": "100" })).toThrow(/^--slow-upstream-ms: only with --bridge/);
    for (const bad of ["0", "-5", "1.5", "soon", ""])
      expect(settings({ bridge: true, "upstream-port": "4011", "slow-upstream-ms": bad })).toThrow(
        `--slow-upstream-ms: expected a whole number of milliseconds above 0, got '${bad}'`,
      );
    // The bench must outwait the slow upstream: the wait stays below --timeout-ms (unless the check is left out).
    expect(settings({ bridge: true, "upstream-port": "4011", "timeout-ms": "4000" })).toThrow(
      /^--slow-upstream-ms: 5000 ms \(the default\) is not below --timeout-ms \(4000 ms\)/,
    );
    expect(settings({ bridge: true, "upstream-port": "4011", "slow-upstream-ms": "900", "timeout-ms": "900" })).toThrow(
      /^--slow-upstream-ms: 900 ms is not below --timeout-ms \(900 ms\)/,
    );
    expect(settings({ bridge: true, "upstream-port": "4011", "timeout-ms": "4000", only: ["text"] })()).toMatchObject({
      timeoutMs: 4000,
      bridge: { slowUpstreamMs: 5000 },
    });
    expect(
      settings({ bridge: true, "upstream-port": "4011", "upstream-api": "responses", "slow-upstream-ms": "250" })(),
    ).toMatchObject({ bridge: { port: 4011, api: "responses", slowUpstreamMs: 250 } });
    expect(settings({ bridge: true, "upstream-port": "4011", only: ["previous-response-id"] })).toThrow(
      /^--only: unknown bridge check 'previous-response-id'/,
    );
    expect(settings({ bridge: true, "upstream-port": "4011" })()).toMatchObject({
      bridge: { port: 4011, api: "chat", slowUpstreamMs: 5000 },
    });
  });
});

describe("openresponses-mock check --bridge, run as a user runs it (dist/)", () => {
  it("passes our own proxy with exit 0, and says so when the upstream port is taken (exit 2)", async () => {
    const port = await freePort();
    const proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "responses" });
    try {
      const env = { env: { ...process.env, NO_COLOR: "1" } };
      const args = ["check", proxy.baseURL, "--bridge", "--upstream-api", "responses", "--slow-upstream-ms", "200"];
      const ok = await runCli([...args, "--upstream-port", String(port)], env);
      expect(ok.stdout).toContain("--bridge (upstream API responses)");
      expect(ok.stdout).toContain(
        "INFO  slow-upstream         a slow upstream (informational), streamed — 200 text/event-stream",
      );
      expect(ok.stdout).toContain(
        "16 checks: 15 passed, 0 failed, 0 skipped (not exercised), 1 informational; 0 violation(s)",
      );
      expect(ok.code).toBe(0);
      const taken = await runCli([...args, "--upstream-port", String(proxy.port)], env);
      expect(taken.stderr).toContain(`--upstream-port: port ${proxy.port} is in use on 127.0.0.1`);
      expect(taken.code).toBe(2);
    } finally {
      await proxy.close();
    }
  });
});

describe("check --bridge: the slow upstream is informational", () => {
  it("a bridge that gives up before the upstream's first byte is said so, and fails nothing", async () => {
    const port = await freePort();
    // Our own proxy, told to give up after 50 ms of upstream silence; the upstream waits 400 ms (the mock paces it).
    const proxy = await startMockServer({
      port: 0,
      upstream: `http://127.0.0.1:${port}/v1`,
      upstreamApi: "responses",
      upstreamTimeoutMs: 50,
    });
    let report: BatteryReport;
    try {
      report = await bench(proxy.baseURL, port, ["slow-upstream"], "responses", 400);
    } finally {
      await proxy.close();
    }
    expect(report.results).toHaveLength(1);
    const [slow] = report.results;
    expect(slow).toMatchObject({ name: "slow-upstream", outcome: "info", violations: [], requests: [{ status: 504 }] });
    expect(slow.note).toMatch(
      /^the upstream waited 400 ms before its first byte; the bridge gave up or lost the answer: it answered 504 \(".+"\)$/,
    );
    expect(report.ok).toBe(true);
    expect(report.summary).toMatchObject({ passed: 0, failed: 0, info: 1, violations: 0 });
    expect(formatReport(report, { target: proxy.baseURL })).toContain(
      "1 checks: 0 passed, 0 failed, 0 skipped (not exercised), 1 informational; 0 violation(s)",
    );
  });
});

describe("check --bridge: the base URL", () => {
  it("says when the bridge answers at its own path but not at the spec's /v1/responses", async () => {
    const port = await freePort();
    const proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "responses" });
    // A bridge served under /api: /api/responses answers, /v1/responses is 404.
    const front = createServer(async (req, res) => {
      const text = await readBody(req);
      if (req.url !== "/api/responses") {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(errorBody("not_found", "not_found", `No route ${String(req.url)}.`));
      }
      const got = await fetch(`${proxy.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      res.writeHead(got.status, kept(got.headers));
      res.end(await got.text());
    });
    const origin = await listen(front);
    let report: BatteryReport;
    try {
      report = await bench(`${origin}/api`, port, ["text"], "responses");
    } finally {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await proxy.close();
    }
    expect(report.results.map((r) => r.outcome)).toEqual(["pass"]);
    expect(report.baseUrl).toEqual([
      `the server answers at ${origin}/api/responses, but not at the spec's own path ${origin}/v1/responses (status 404): clients that take the spec's path (an SDK given ${origin}/v1) will not find it`,
    ]);
    expect(formatReport(report, { target: `${origin}/api` })).toContain(
      `base URL: the server answers at ${origin}/api`,
    );
  });

  it("suggests …/v1 when the bridge's root was given", async () => {
    const port = await freePort();
    const proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "responses" });
    let report: BatteryReport;
    try {
      report = await bench(proxy.url, port, ["text"], "responses");
    } finally {
      await proxy.close();
    }
    expect(report.results[0].outcome).toBe("fail");
    expect(report.baseUrl).toEqual([expect.stringContaining(`did you mean ${proxy.url}/v1?`)]);
  });
});
