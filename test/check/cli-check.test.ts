/**
 * `openresponses-mock check URL`, run as a user runs it (the built dist/):
 * it passes the mock in both dialects, names @copilotkit/aimock's real
 * faults, names the faults of a deliberately broken server, agrees with its
 * own --json report, and says so clearly when the server is not there.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATTERY_NAMES } from "../../src/check/index.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { sse, snapshot, textStream, USAGE } from "./streams.js";
import { runCli } from "../support/run.js";

/** Runs the CLI to its end, without colour. */
const run = (args: string[]) => runCli(args, { env: { ...process.env, NO_COLOR: "1" } });

interface JsonReport {
  target: string;
  dialect: string;
  ok: boolean;
  unreachable?: string;
  results: {
    name: string;
    outcome: string;
    note?: string;
    violations: { rule: string; message: string; path: string; event?: number; request: number }[];
  }[];
  summary: { passed: number; failed: number; skipped: number; violations: number };
}

/** The outcome of each check in the readable report: `{ text: "PASS", … }`. */
function textOutcomes(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of stdout.matchAll(/^(PASS|FAIL|SKIP)\s+(\S+)/gm)) out[m[2]] = m[1];
  return out;
}
const LABEL: Record<string, string> = { pass: "PASS", fail: "FAIL", skipped: "SKIP" };

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)),
  );
}

describe("check against the mock", () => {
  for (const dialect of ["open-responses", "openai"] as const) {
    describe(`in the ${dialect} dialect`, () => {
      let mock: MockServer;
      beforeAll(async () => {
        mock = await startMockServer({ port: 0, dialect });
      });
      afterAll(() => mock.close());

      it("passes every check, and the --json report says the same", async () => {
        const text = await run(["check", mock.baseURL, "--dialect", dialect]);
        expect(text.stderr).toBe("");
        expect(text.code, text.stdout).toBe(0);
        expect(text.stdout).toContain(
          `${BATTERY_NAMES.length} checks: ${BATTERY_NAMES.length} passed, 0 failed, 0 skipped (not exercised); 0 violation(s)`,
        );
        const json = await run(["check", mock.baseURL, "--dialect", dialect, "--json"]);
        expect(json.code).toBe(0);
        const report = JSON.parse(json.stdout) as JsonReport;
        expect(report).toMatchObject({
          target: mock.baseURL,
          dialect,
          ok: true,
          summary: { passed: BATTERY_NAMES.length, failed: 0, violations: 0 },
        });
        expect(report.results.map((r) => r.name)).toEqual(BATTERY_NAMES);
        expect(Object.fromEntries(report.results.map((r) => [r.name, LABEL[r.outcome]]))).toEqual(
          textOutcomes(text.stdout),
        );
      });
    });
  }

  it("sends --api-key as a bearer token", async () => {
    const mock = await startMockServer({ port: 0, apiKey: "sk-check" });
    try {
      const without = await run(["check", mock.baseURL, "--only", "text"]);
      expect(without.code).toBe(1);
      expect(without.stdout).toContain("a valid request got status 401");
      expect(without.stdout).toContain("if the server wants a key, pass it with --api-key");
      const withKey = await run(["check", mock.baseURL, "--only", "text", "--api-key", "sk-check"]);
      expect(withKey.code, withKey.stdout).toBe(0);
    } finally {
      await mock.close();
    }
  });

  it("judged by the other dialect's rules, the mock fails where the dialects differ", async () => {
    const mock = await startMockServer({ port: 0, dialect: "openai" });
    try {
      const { code, stdout } = await run(["check", mock.baseURL, "--only", "text-stream", "bad-json"]);
      expect(code).toBe(1);
      expect(stdout).toContain("the stream ended without `data: [DONE]` after the terminal event");
      expect(stdout).toContain('`error.type` "invalid_request_error" is not one of the spec\'s error types');
    } finally {
      await mock.close();
    }
  });
});

describe("check against @copilotkit/aimock", () => {
  let aimock: LLMock;
  let baseURL: string;
  beforeAll(async () => {
    aimock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    aimock.onMessage(/Tokyo/, {
      toolCalls: [
        { name: "get_weather", arguments: '{"city":"Paris"}' },
        { name: "get_time", arguments: '{"city":"Tokyo"}' },
      ],
    });
    aimock.onMessage(/weather in Paris\?$/, { toolCalls: [{ name: "get_weather", arguments: '{"city":"Paris"}' }] });
    aimock.onMessage(/17 times 23/, { content: "391", reasoning: "17 × 23 = 17 × 20 + 17 × 3 = 340 + 51 = 391." });
    aimock.onMessage(/as JSON/, { content: '{"city":"Paris","temp_c":18}' });
    aimock.onMessage(/.*/, { content: "Hello there, friend!" });
    await aimock.start();
    baseURL = `${aimock.url}/v1`;
  });
  afterAll(() => aimock.stop());

  it("fails, naming its real faults: no sequence_number, no [DONE], missing required fields, bad inputs accepted", async () => {
    const { code, stdout } = await run(["check", baseURL]);
    expect(code, stdout).toBe(1);
    // Streams: no sequence_number on any event, no [DONE] at the end.
    expect(stdout).toMatch(
      /✗ sequence-number {2}event 0 \(response\.created\) \$\.sequence_number\n {10}`sequence_number` is missing on `response\.created` \(missing on \d+ events in all\)/,
    );
    expect(stdout).toContain("the stream ended without `data: [DONE]` after the terminal event");
    // Response objects lack most of the 31 required keys, and usage its details.
    expect(stdout).toMatch(
      /`response` lacks required keys: completed_at, incomplete_details, previous_response_id, instructions, error, tools, tool_choice, truncation, parallel_tool_calls, text, /,
    );
    expect(stdout).toContain("`usage` lacks required keys: input_tokens_details, output_tokens_details");
    // Bad requests: input 42 crashes it (500, an error without code and param); a bad tool_choice and max_output_tokens 1 are answered 200.
    expect(stdout).toContain("a bad `input` got status 500: it is the caller's fault, so a 4xx");
    expect(stdout).toContain("`error` lacks required keys: code, param");
    expect(stdout).toContain("a bad `tool_choice` got status 200; it must be refused with a 4xx error object");
    expect(stdout).toContain("a bad `max_output_tokens` got status 200; it must be refused with a 4xx error object");
    // What it did right is not reported: its tool calls and its reasoning were streamed and folded consistently.
    expect(stdout).not.toMatch(/✗ (fold|text\.done|item\.done|part\.order|item\.order)\b/);
  });

  it("the --json report has the same verdicts", async () => {
    const [text, json] = await Promise.all([run(["check", baseURL]), run(["check", baseURL, "--json"])]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as JsonReport;
    expect(report.ok).toBe(false);
    expect(Object.fromEntries(report.results.map((r) => [r.name, LABEL[r.outcome]]))).toEqual(
      textOutcomes(text.stdout),
    );
    const stream = report.results.find((r) => r.name === "text-stream")!;
    expect(stream.violations).toContainEqual(
      expect.objectContaining({ rule: "sequence-number", event: 0, path: "$.sequence_number" }),
    );
    expect(stream.violations).toContainEqual(expect.objectContaining({ rule: "sse.done" }));
    expect(report.summary.failed).toBeGreaterThan(0);
  });

  it("--only runs the checks named", async () => {
    const { code, stdout } = await run(["check", baseURL, "--only", "bad-json", "--json"]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as JsonReport;
    expect(report.results.map((r) => r.name)).toEqual(["bad-json"]);
    // aimock's 400 for a bad body has no `param`, and OpenAI's type name.
    expect(report.results[0].violations.map((v) => v.rule).sort()).toEqual(["error.shape", "error.type"]);
  });
});

/** A small server that streams the spec's text answer broken in the way its model name says. */
function brokenServer(): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const body = JSON.parse(raw) as { model: string; stream?: boolean };
      const events = textStream();
      for (const e of events) if (e.response) e.response.model = body.model;
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            snapshot({
              model: body.model,
              status: "completed",
              completed_at: 1,
              usage: USAGE,
              output: events[9].response.output,
            }),
          ),
        );
        return;
      }
      if (body.model === "no-sequence") for (const e of events) delete e.sequence_number;
      if (body.model === "no-item-done") {
        events.splice(8, 1);
        events.forEach((e, i) => (e.sequence_number = i));
      }
      if (body.model === "fold-mismatch") events[9].response.output[0].content[0].text = "Goodbye!";
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sse(events));
    });
  });
}

describe("check against a broken server", () => {
  const server = brokenServer();
  let baseURL: string;
  beforeAll(async () => {
    baseURL = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("the unbroken stream passes", async () => {
    const { code, stdout } = await run(["check", baseURL, "--only", "text-stream", "--model", "mock-model-1"]);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/^PASS {2}text-stream/m);
  });

  it("names a stream with no sequence_number", async () => {
    const { code, stdout } = await run(["check", baseURL, "--only", "text-stream", "--model", "no-sequence"]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      "✗ sequence-number  event 0 (response.created) $.sequence_number\n          `sequence_number` is missing on `response.created` (missing on 10 events in all)",
    );
  });

  it("names a missing output_item.done", async () => {
    const { code, stdout } = await run(["check", baseURL, "--only", "text-stream", "--model", "no-item-done"]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      '✗ item.done  event 8 (response.completed) $.response.output[0]\n          no `output_item.done` for item "msg_1" (output_index 0) before response.completed',
    );
  });

  it("names a fold that differs from the terminal snapshot", async () => {
    const { code, stdout } = await run([
      "check",
      baseURL,
      "--only",
      "text-stream",
      "--model",
      "fold-mismatch",
      "--json",
    ]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as JsonReport;
    expect(report.results[0].violations).toEqual([
      {
        rule: "fold",
        event: 9,
        eventType: "response.completed",
        path: "$.response.output[0].content[0].text",
        message:
          '`output[0].content[0].text` in the terminal snapshot is "Goodbye!", but the stream\'s output_item.done had "Hello there!"',
        request: 0,
      },
    ]);
  });
});

describe("check when things go wrong", () => {
  it("exits 2 with a clear message when nothing listens at the URL", async () => {
    const probe = createServer();
    const url = await listen(probe);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { code, stdout, stderr } = await run(["check", url]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(`^openresponses-mock check: cannot reach ${url.replace(/[.]/g, "\\.")}: ECONNREFUSED`),
    );
    expect(stdout).toContain(`cannot reach ${url}`);
  });

  it("reports a stream that never ends within --timeout-ms as a violation, with what arrived checked", async () => {
    const sockets = new Set<ServerResponse>();
    const hang = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(sse(textStream().slice(0, 2), { done: false }));
      sockets.add(res);
    });
    const url = await listen(hang);
    try {
      const { code, stdout } = await run([
        "check",
        url,
        "--only",
        "text-stream",
        "--model",
        "mock-model-1",
        "--timeout-ms",
        "3000",
      ]);
      expect(code).toBe(1);
      expect(stdout).toContain("the answer was cut short: no complete answer within 3000 ms (--timeout-ms)");
      expect(stdout).toContain("the stream ended without a terminal event");
    } finally {
      for (const res of sockets) res.destroy();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
    }
  });

  it("names a bad flag as typed", async () => {
    const dialect = await run(["check", "http://127.0.0.1:1/v1", "--dialect", "klingon"]);
    expect(dialect.code).toBe(1);
    expect(dialect.stderr).toBe(
      "openresponses-mock check: --dialect: unknown dialect 'klingon'; known dialects: open-responses, openai\n",
    );
    const near = await run(["check", "http://127.0.0.1:1/v1", "--dialect", "opnai"]);
    expect(near.stderr).toBe(
      "openresponses-mock check: --dialect: unknown dialect 'opnai'; did you mean 'openai'? known dialects: open-responses, openai\n",
    );
    const only = await run(["check", "http://127.0.0.1:1/v1", "--only", "text,nope"]);
    expect(only.stderr).toContain("--only: unknown check 'nope'; checks: text, text-stream,");
    const onlyNear = await run(["check", "http://127.0.0.1:1/v1", "--only", "text-strem"]);
    expect(onlyNear.stderr).toContain("--only: unknown check 'text-strem'; did you mean 'text-stream'? checks: text,");
    const timeout = await run(["check", "http://127.0.0.1:1/v1", "--timeout-ms", "soon"]);
    expect(timeout.stderr).toContain("--timeout-ms: expected a whole number of milliseconds above 0, got 'soon'");
    const missing = await run(["check"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      "check: give the server's base URL, as the SDKs take it, e.g. 'openresponses-mock check http://127.0.0.1:4010/v1'",
    );
    const url = await run(["check", "localhost:4010"]);
    expect(url.code).toBe(1);
    expect(url.stderr).toContain("URL 'localhost:4010' is not an http(s) URL");
  });
});
