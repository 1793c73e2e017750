/**
 * `check`'s WebSocket mode and `POST /responses/compact` checks (issue 29
 * §3), run as a user runs `check` (the built dist/): our own mock passes them
 * in both dialects, a server that serves neither gets SKIPs, not violations,
 * and small fakes written here — our own mock with one defect injected in
 * front of it — are each caught by the rule meant for that defect and no
 * other:
 * - WebSocket: events sent SSE-framed (`websocket.message`), a gap in the
 *   sequence numbers (`sequence-number`), the socket closed instead of an
 *   error event (`websocket.error`), a gateway that opens a new upstream
 *   connection per turn so a `store: false` continuation is lost
 *   (`behaviour.previous-response`), an upgrade refused for want of a key
 *   (`websocket.upgrade`);
 * - compact: a required key missing (`schema`), no compaction item
 *   (`compact.item`), the compacted output refused as input
 *   (`compact.continue`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runCli } from "../support/run.js";

const run = (args: string[]) => runCli(args, { env: { ...process.env, NO_COLOR: "1" } });

interface JsonReport {
  ok: boolean;
  results: {
    name: string;
    outcome: string;
    note?: string;
    requests: {
      stream: boolean;
      transport?: string;
      endpoint?: string;
      status?: number;
      messages?: number;
      responseStatus?: string;
      errorEvent?: { status?: number; code?: string };
      failure?: string;
    }[];
    violations: { rule: string; path: string; message: string; count?: number; request: number }[];
    specNotes: { rule: string }[];
  }[];
  groups: { rule: string; path: string; message: string; count: number }[];
  summary: { passed: number; failed: number; skipped: number; violations: number };
}

const WS_CHECKS = ["websocket", "websocket-error"];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)),
  );
}
const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** Runs `check BASE --only CHECKS --json` (and the text report) against `server`, then closes it. */
async function checkServer(server: Server, checks: string[], extra: string[] = []) {
  const base = await listen(server);
  try {
    const [text, json] = await Promise.all([
      run(["check", base, "--only", ...checks, ...extra]),
      run(["check", base, "--only", ...checks, "--json", ...extra]),
    ]);
    return { text, report: JSON.parse(json.stdout) as JsonReport };
  } finally {
    await close(server);
  }
}

/** The rules a check broke, each once, in order. */
const rulesOf = (report: JsonReport, name: string) => [
  ...new Set(report.results.find((r) => r.name === name)!.violations.map((v) => v.rule)),
];
const outcomes = (report: JsonReport) => Object.fromEntries(report.results.map((r) => [r.name, r.outcome]));

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(() => mock.close());

// ---------------------------------------------------------------- fakes

interface WsFault {
  /** What the client gets for each message of the mock: text (or several), or "close" to close the socket instead. */
  relay?: (text: string) => string | string[] | "close";
  /** Open a new connection to the mock for each response.create (a gateway that keeps none). */
  perTurn?: boolean;
}

/** A WebSocket server at /v1/responses that relays to the mock's, broken as `fault` says; plain HTTP gets 404. */
function wsFake(fault: WsFault): Server {
  const server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "not_found", code: null, param: null, message: "Not found." } }));
  });
  const wss = new WebSocketServer({ server, path: "/v1/responses" });
  wss.on("connection", (client) => {
    const open = () => {
      const upstream = new WebSocket(`${mock.baseURL.replace(/^http/, "ws")}/responses`);
      upstream.on("message", (data) => {
        const out = fault.relay ? fault.relay(String(data)) : String(data);
        if (out === "close") {
          client.close(1008, "bad request");
          return;
        }
        for (const m of [out].flat()) if (client.readyState === WebSocket.OPEN) client.send(m);
      });
      upstream.on("error", () => undefined);
      return upstream;
    };
    let upstream = open();
    client.on("message", (data) => {
      if (fault.perTurn) {
        upstream.close();
        upstream = open();
      }
      const target = upstream;
      const send = () => target.send(String(data));
      if (target.readyState === WebSocket.OPEN) send();
      else target.once("open", send);
    });
    client.on("close", () => upstream.close());
  });
  return server;
}

interface HttpFault {
  /** Answer POST /v1/responses/compact with this status instead (a server without it). */
  compactStatus?: number;
  /** Changes the compaction body, in place. */
  compact?: (body: Record<string, unknown>) => void;
  /** Refuse a POST /v1/responses whose input holds a compaction item. */
  refuseCompactionInput?: boolean;
  /** Fill in this model when a request has none (`model` is required by compact). */
  defaultModel?: string;
}

/** An HTTP server in front of the mock, broken as `fault` says; no WebSocket mode (the upgrade gets 404). */
function httpFake(fault: HttpFault): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      void (async () => {
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        };
        const isCompact = req.url === "/v1/responses/compact";
        if (req.method !== "POST" || (req.url !== "/v1/responses" && !isCompact))
          return json(404, { error: { type: "not_found", code: null, param: null, message: "Not found." } });
        if (isCompact && fault.compactStatus !== undefined)
          return json(fault.compactStatus, {
            error: { type: "not_found", code: null, param: null, message: "No compaction here." },
          });
        if (!isCompact && fault.refuseCompactionInput && raw.includes('"type":"compaction"'))
          return json(400, {
            error: {
              type: "invalid_request",
              code: "invalid_value",
              param: "input",
              message: "Unknown item type 'compaction'.",
            },
          });
        if (fault.defaultModel && !raw.includes('"model"'))
          raw = JSON.stringify({ model: fault.defaultModel, ...(JSON.parse(raw) as object) });
        const answer = await fetch(`${mock.baseURL}${req.url!.slice(3)}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: raw,
        });
        const type = answer.headers.get("content-type") ?? "";
        let text = await answer.text();
        if (isCompact && answer.status === 200 && fault.compact) {
          const body = JSON.parse(text) as Record<string, unknown>;
          fault.compact(body);
          text = JSON.stringify(body);
        }
        res.writeHead(answer.status, { "content-type": type });
        res.end(text);
      })();
    });
  });
}

/** A server that answers every request, the WebSocket upgrade too, with `status`. */
function refusing(status: number): Server {
  return createServer((_req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { type: "invalid_request", code: null, param: null, message: "No." } }));
  });
}

// ---------------------------------------------------------------- our own mock

describe("against our own mock", () => {
  for (const dialect of ["open-responses", "openai"] as const) {
    it(`passes compact and both WebSocket checks in the ${dialect} dialect, exercising every turn`, async () => {
      const server = await startMockServer({ port: 0, dialect });
      try {
        const args = ["check", server.baseURL, "--dialect", dialect, "--only", "compact", ...WS_CHECKS];
        const [text, json] = await Promise.all([run(args), run([...args, "--json"])]);
        expect(text.code, text.stdout).toBe(0);
        expect(text.stdout).toContain("3 checks: 3 passed, 0 failed, 0 skipped (not exercised); 0 violation(s)");
        const report = JSON.parse(json.stdout) as JsonReport;
        expect(outcomes(report)).toEqual({ compact: "pass", websocket: "pass", "websocket-error": "pass" });
        const by = (name: string) => report.results.find((r) => r.name === name)!;
        // compact, then a create whose input is the compacted output, then compact without model.
        expect(by("compact").requests).toMatchObject([
          { endpoint: "compact", status: 200 },
          { status: 200, responseStatus: "completed" },
          { endpoint: "compact", status: 400 },
        ]);
        // Two turns on one connection, the second continuing the first.
        expect(by("websocket").requests).toMatchObject([
          { transport: "websocket", responseStatus: "completed" },
          { transport: "websocket", responseStatus: "completed" },
        ]);
        expect(by("websocket").requests[0].messages).toBeGreaterThan(5);
        // Two error events, then a turn answered on the same connection.
        expect(by("websocket-error").requests).toMatchObject([
          { transport: "websocket", errorEvent: { status: 400 } },
          { transport: "websocket", errorEvent: { status: 400, code: "previous_response_not_found" } },
          { transport: "websocket", responseStatus: "completed" },
        ]);
      } finally {
        await server.close();
      }
    });
  }

  it("--skip leaves checks out (WebSocket mode's, say), and is checked like --only", async () => {
    const { code, stdout } = await run([
      "check",
      mock.baseURL,
      "--only",
      "text,compact,websocket",
      "--skip",
      "websocket",
      "--json",
    ]);
    expect(code, stdout).toBe(0);
    expect((JSON.parse(stdout) as JsonReport).results.map((r) => r.name)).toEqual(["text", "compact"]);
    const typo = await run(["check", mock.baseURL, "--skip", "websockets"]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("--skip: unknown check 'websockets'; did you mean 'websocket'? checks: text,");
    const none = await run(["check", mock.baseURL, "--only", "compact", "--skip", "compact"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe("openresponses-mock check: --skip: no check is left to run (skipped: compact)\n");
  });

  it("a WebSocket upgrade without the key the server wants: websocket.upgrade, with the --api-key hint", async () => {
    const server = await startMockServer({ port: 0, apiKey: "sk-ws" });
    try {
      const without = await run(["check", server.baseURL, "--only", "websocket", "--json"]);
      expect(without.code).toBe(1);
      const report = JSON.parse(without.stdout) as JsonReport;
      expect(rulesOf(report, "websocket")).toEqual(["websocket.upgrade"]);
      expect(report.results[0].violations[0].message).toContain("answered 401");
      expect(report.results[0].violations[0].message).toContain("pass it with --api-key");
      const withKey = await run(["check", server.baseURL, "--only", ...WS_CHECKS, "--api-key", "sk-ws"]);
      expect(withKey.code, withKey.stdout).toBe(0);
    } finally {
      await server.close();
    }
  });
});

// ---------------------------------------------------------------- servers without them

describe("a server without WebSocket mode or /responses/compact", () => {
  for (const status of [404, 405, 426, 501])
    it(`an upgrade answered ${status} is a SKIP with a note, not a violation`, async () => {
      const { text, report } = await checkServer(refusing(status), WS_CHECKS);
      expect(text.code, text.stdout).toBe(0);
      expect(outcomes(report)).toEqual({ websocket: "skipped", "websocket-error": "skipped" });
      expect(report.summary.violations).toBe(0);
      for (const r of report.results)
        expect(r.note).toBe(
          `the server does not serve WebSocket mode: the upgrade at /responses was answered ${status}`,
        );
      expect(text.stdout).toContain(`SKIP  websocket        `);
      expect(text.stdout).toContain(`WebSocket upgrade answered ${status} application/json`);
    });

  for (const status of [404, 405, 501])
    it(`POST /responses/compact answered ${status} is a SKIP with a note`, async () => {
      const { text, report } = await checkServer(httpFake({ compactStatus: status }), ["compact"]);
      expect(text.code, text.stdout).toBe(0);
      expect(outcomes(report)).toEqual({ compact: "skipped" });
      expect(report.results[0].note).toBe(
        `the server does not serve POST /responses/compact (${status}); the spec makes it optional`,
      );
      // Nothing is sent back when there is nothing to send.
      expect(report.results[0].requests).toHaveLength(1);
    });

  it("a server that upgrades to 500: websocket.upgrade", async () => {
    const { text, report } = await checkServer(refusing(500), ["websocket"]);
    expect(text.code).toBe(1);
    expect(rulesOf(report, "websocket")).toEqual(["websocket.upgrade"]);
  });
});

// ---------------------------------------------------------------- broken WebSocket servers

describe("a broken WebSocket mode is caught by the rule meant for it", () => {
  it("events sent SSE-framed: websocket.message, one fault with its count; the events are still judged", async () => {
    const { text, report } = await checkServer(
      wsFake({
        relay(text) {
          const type = (JSON.parse(text) as { type: string }).type;
          return `event: ${type}\ndata: ${text}\n\n`;
        },
      }),
      WS_CHECKS,
    );
    expect(text.code).toBe(1);
    for (const name of WS_CHECKS) expect(rulesOf(report, name)).toEqual(["websocket.message"]);
    expect(report.groups.map((g) => g.rule)).toEqual(["websocket.message"]);
    const first = report.results[0].violations[0];
    expect(first.message).toContain("is SSE-framed text");
    expect(first.count).toBe(report.results[0].requests[0].messages);
    // The turns were still read to their end, so the second turn was sent and continued the first.
    expect(report.results[0].requests).toMatchObject([
      { responseStatus: "completed" },
      { responseStatus: "completed" },
    ]);
    // One line in the readable report, however many messages.
    expect(text.stdout.match(/^ +✗ .*$/gm)).toEqual(["      ✗ websocket.message  event 0 $"]);
  });

  it("a gap in the sequence numbers: sequence-number, and nothing else", async () => {
    const { text, report } = await checkServer(
      wsFake({
        relay(text) {
          const e = JSON.parse(text) as { sequence_number?: number };
          if (typeof e.sequence_number === "number" && e.sequence_number >= 3) e.sequence_number += 1;
          return JSON.stringify(e);
        },
      }),
      ["websocket"],
    );
    expect(text.code).toBe(1);
    expect(rulesOf(report, "websocket")).toEqual(["sequence-number"]);
    // One per turn, at the gap.
    expect(report.results[0].violations.map((v) => [v.request, v.path])).toEqual([
      [0, "$.sequence_number"],
      [1, "$.sequence_number"],
    ]);
  });

  it("the socket closed instead of an error event: websocket.error, and the turns after it are not sent", async () => {
    const { text, report } = await checkServer(
      wsFake({
        relay: (text) => ((JSON.parse(text) as { type: string }).type === "error" ? "close" : text),
      }),
      WS_CHECKS,
    );
    expect(text.code).toBe(1);
    expect(outcomes(report)).toEqual({ websocket: "pass", "websocket-error": "fail" });
    expect(rulesOf(report, "websocket-error")).toEqual(["websocket.error"]);
    const [v] = report.results[1].violations;
    expect(v.message).toContain("got no error event: the server closed the connection (code 1008");
    expect(report.results[1].requests).toHaveLength(1);
  });

  it("a gateway that opens a new upstream connection per turn loses the store:false continuation: behaviour.previous-response", async () => {
    const { text, report } = await checkServer(wsFake({ perTurn: true }), WS_CHECKS);
    expect(text.code).toBe(1);
    expect(outcomes(report)).toEqual({ websocket: "fail", "websocket-error": "pass" });
    expect(rulesOf(report, "websocket")).toEqual(["behaviour.previous-response"]);
    expect(report.results[0].violations[0]).toMatchObject({ request: 1, path: "$.error" });
    expect(report.results[0].violations[0].message).toContain("previous_response_not_found");
  });
});

// ---------------------------------------------------------------- broken compaction

describe("a broken /responses/compact is caught by the rule meant for it", () => {
  it("a required key missing (usage): schema, at $.usage", async () => {
    const { text, report } = await checkServer(httpFake({ compact: (b) => delete b.usage }), ["compact"]);
    expect(text.code).toBe(1);
    expect(report.results[0].violations.map((v) => [v.rule, v.path, v.request])).toEqual([["schema", "$.usage", 0]]);
    expect(text.stdout).toContain("`usage` is required but missing");
  });

  it("no compaction item in the output: compact.item, and nothing is sent back as input", async () => {
    const { text, report } = await checkServer(
      httpFake({
        compact: (b) => {
          b.output = (b.output as { type: string }[]).filter((i) => i.type !== "compaction");
        },
      }),
      ["compact"],
    );
    expect(text.code).toBe(1);
    expect(rulesOf(report, "compact")).toEqual(["compact.item"]);
    expect(report.results[0].requests.map((q) => q.endpoint)).toEqual(["compact", "compact"]);
  });

  it("a compaction without model answered 200: http.status", async () => {
    const { text, report } = await checkServer(httpFake({ defaultModel: "gpt-default" }), ["compact"]);
    expect(text.code).toBe(1);
    expect(report.results[0].violations.map((v) => [v.rule, v.request])).toEqual([["http.status", 2]]);
    expect(report.results[0].violations[0].message).toBe(
      "a compaction request without `model` got status 200; `model` is required there, so it must be refused with a 4xx error object",
    );
  });

  it("the compacted output refused as input: compact.continue, not http.status", async () => {
    const { text, report } = await checkServer(httpFake({ refuseCompactionInput: true }), ["compact"]);
    expect(text.code).toBe(1);
    expect(report.results[0].violations.map((v) => [v.rule, v.request])).toEqual([["compact.continue", 1]]);
    expect(report.results[0].violations[0].message).toContain(
      "the compacted output, sent back as input, got status 400",
    );
  });
});
