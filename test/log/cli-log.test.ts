/**
 * `serve`'s request log, run as a user runs it (the built dist/): the start
 * summary, one line per request as it ends (JSON and SSE answers, an HTTP
 * error scenario, a drop fault, a hang, a client that leaves mid-stream, a
 * 404, a WebSocket turn), the stop line on SIGTERM — in `--log json` and
 * `--log pretty` — and never the API key.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";

const BIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const KEY = "sk-cli-log-SECRET-5150";
const AUTH = { authorization: `Bearer ${KEY}` };
const ANSI = /\u001b\[\d+m/g;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
/** The tests' own scenarios: a drop fault, a hang fault, a slow stream to leave. */
const SCENARIOS: Record<string, object> = {
  "cut.json": {
    name: "cut",
    description: "Dropped after 3 events.",
    turns: [{ steps: [{ type: "message", text: words(30), chunk: { tokens: 1 } }], fault: { dropAfterEvents: 3 } }],
  },
  "stuck.json": {
    name: "stuck",
    description: "Hangs after 2 events.",
    turns: [{ steps: [{ type: "message", text: "never ends" }], fault: { hangAfterEvents: 2 } }],
  },
  "slow.json": {
    name: "slow",
    description: "A slow stream.",
    turns: [{ steps: [{ type: "message", text: words(40), chunk: { tokens: 1 } }], timing: { chunkMs: 200 } }],
  },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "orm-cli-log-"));
  for (const [file, scenario] of Object.entries(SCENARIOS)) writeFileSync(join(dir, file), JSON.stringify(scenario));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  child: ChildProcess;
  first: string;
  /** SIGTERM; resolves with the exit code and every stdout line. */
  stop(): Promise<{ code: number | null; lines: string[]; stderr: string }>;
}

/** Starts `serve --port 0 …args` and resolves with its first stdout line. */
function serve(args: string[], env: Record<string, string | undefined> = {}): Promise<Served> {
  const base = { ...process.env };
  delete base.FORCE_COLOR;
  delete base.NO_COLOR;
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...base, ...env },
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = once(child, "exit");
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      const before = out.includes("\n");
      out += d;
      if (before || !out.includes("\n")) return;
      resolve({
        child,
        first: out.slice(0, out.indexOf("\n")),
        async stop() {
          child.kill("SIGTERM");
          const [code] = (await exited) as [number | null];
          return { code, lines: out.split("\n").filter((l) => l !== ""), stderr: err };
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before printing a line: ${err}`)));
  });
}

const post = (baseURL: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...AUTH, ...headers },
    body: JSON.stringify(body),
    signal,
  });

/** Reads a stream to its end, or to where the server cut it. */
async function drain(res: Response): Promise<void> {
  try {
    await res.text();
  } catch {
    // A dropped connection ends the body with an error: expected for the drop fault.
  }
}

/** Reads the first chunk of a stream, then leaves. */
async function leaveAfterFirstChunk(baseURL: string, scenario: string): Promise<void> {
  const controller = new AbortController();
  const res = await post(
    baseURL,
    { model: "m", input: "x", stream: true },
    { "x-mock-scenario": scenario },
    controller.signal,
  );
  const reader = res.body!.getReader();
  await reader.read();
  controller.abort();
  await reader.read().catch(() => undefined);
}

/** Every kind of request the log should show, one after the other. */
async function drive(baseURL: string, withWebSocket: boolean): Promise<void> {
  await (await post(baseURL, { model: "m", input: "plain JSON" })).text();
  const client = new OpenAI({
    baseURL,
    apiKey: KEY,
    maxRetries: 0,
    defaultHeaders: { "x-mock-session": "sdk-1", "x-mock-scenario": "text" },
  });
  const stream = await client.responses.create({ model: "m", input: "stream it", stream: true });
  for await (const _event of stream) void _event;
  await (await post(baseURL, { model: "m", input: "x" }, { "x-mock-scenario": "error-429" })).text();
  await drain(await post(baseURL, { model: "m", input: "x", stream: true }, { "x-mock-scenario": "cut" }));
  await leaveAfterFirstChunk(baseURL, "stuck");
  await leaveAfterFirstChunk(baseURL, "slow");
  await (await fetch(`${baseURL.replace(/\/v1$/, "")}/nope`, { headers: AUTH })).text();
  if (withWebSocket) await webSocketTurn(baseURL);
}

/** One WebSocket turn, to its response.completed. */
async function webSocketTurn(baseURL: string): Promise<void> {
  const ws = new WebSocket(`${baseURL.replace(/^http/, "ws")}/responses`, { headers: AUTH });
  await once(ws, "open");
  ws.send(JSON.stringify({ type: "response.create", model: "m", input: "over the socket" }));
  await new Promise<void>((resolve, reject) => {
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === "response.completed") resolve();
    });
    ws.once("error", reject);
  });
  ws.close();
  await once(ws, "close");
}

/** The requests that ended so (a client that left ends its request a moment later: not always in the order sent). */
const byOutcome = (records: Record<string, unknown>[], outcome: string) => records.filter((r) => r.outcome === outcome);

describe("serve --log json", () => {
  it("one parseable object per line: start, each request as it ends, stop; no secret", async () => {
    const server = await serve(["--log", "json", "--api-key", KEY, "--scenarios", dir, "--seed", "5"]);
    const start = JSON.parse(server.first) as { event: string; baseURL: string };
    await drive(start.baseURL, true);
    // A stream still open at SIGTERM: the close cuts it, and its line comes before the stop line.
    const open = await post(
      start.baseURL,
      { model: "m", input: "x", stream: true },
      { "x-mock-scenario": "slow", "x-mock-session": "open-at-stop" },
    );
    const reader = open.body!.getReader();
    await reader.read();
    const { code, lines, stderr } = await server.stop();
    await reader.read().catch(() => undefined);
    expect(code).toBe(0);
    expect(stderr).toBe("");

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({
      event: "start",
      baseURL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1$/),
      defaultScenario: "auto",
      dialect: "open-responses",
      seed: 5,
      apiKey: true,
      admin: true,
    });
    expect((records[0].scenarios as { paths: unknown }).paths).toEqual([{ path: dir, count: 3 }]);
    expect(records.at(-1)).toMatchObject({ event: "stop", requests: 9 });
    const requests = records.slice(1, -1);
    expect(requests.every((r) => r.event === "request")).toBe(true);
    expect(requests).toHaveLength(9);
    expect(requests.at(-1)).toMatchObject({ outcome: "aborted", scenario: "slow", session: "open-at-stop" });

    const [plain, sdk, limited, cut] = requests;
    expect(plain).toMatchObject({
      method: "POST",
      path: "/v1/responses",
      status: 200,
      outcome: "completed",
      scenario: "auto",
      reason: "default",
      streamed: false,
      events: null,
      session: null,
    });
    expect(sdk).toMatchObject({
      status: 200,
      outcome: "completed",
      scenario: "text",
      reason: "header",
      streamed: true,
      session: "sdk-1",
    });
    expect(sdk.events).toBeGreaterThan(3);
    expect(limited).toMatchObject({
      status: 429,
      outcome: "error",
      errorCode: "rate_limit_exceeded",
      scenario: "error-429",
      reason: "header",
      events: null,
    });
    expect(cut).toMatchObject({ status: 200, outcome: "dropped", scenario: "cut", events: 3 });
    // The two clients that left, in the order their requests ended.
    expect(byOutcome(requests, "hung")).toEqual([expect.objectContaining({ scenario: "stuck", events: 2 })]);
    const left = byOutcome(requests, "aborted");
    expect(left).toEqual([
      expect.objectContaining({ scenario: "slow", status: 200, session: null }),
      expect.objectContaining({ session: "open-at-stop" }),
    ]);
    expect(left[0].events).toBeGreaterThanOrEqual(1);
    expect(left[0].events).toBeLessThan(40);
    expect(requests).toContainEqual(
      expect.objectContaining({
        method: "GET",
        path: "/nope",
        status: 404,
        outcome: "error",
        errorCode: "not_found",
        scenario: null,
      }),
    );
    const turns = requests.filter((r) => r.method === "WS");
    expect(turns).toEqual([
      expect.objectContaining({
        path: "/v1/responses",
        status: 200,
        outcome: "completed",
        scenario: "auto",
        reason: "default",
        streamed: true,
      }),
    ]);
    expect(turns[0].events).toBeGreaterThan(3);
    for (const r of requests) {
      expect(typeof r.durationMs).toBe("number");
      expect(Number.isNaN(Date.parse(r.time as string))).toBe(false);
    }
    const text = lines.join("\n");
    expect(text).not.toContain("SECRET");
    expect(text).not.toContain("5150");
    expect(text.toLowerCase()).not.toContain("authorization");
  });
});

describe("serve --log pretty", () => {
  it("is the default: the listening line first, the summary, a line per request, the stop line (coloured with FORCE_COLOR)", async () => {
    const server = await serve(["--api-key", KEY, "--scenarios", dir, "--no-admin"], { FORCE_COLOR: "1" });
    const match = /^openresponses-mock listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(server.first);
    expect(match, server.first).not.toBeNull();
    await drive(match![1], false);
    const { code, lines } = await server.stop();
    expect(code).toBe(0);
    expect(lines.slice(1).join("\n")).toMatch(ANSI);
    const plain = lines.map((l) => l.replace(ANSI, ""));
    expect(plain.slice(1, 7)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^  scenarios  \\d+: \\d+ from the library, 3 from ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, 1 built in$`,
        ),
      ),
      "  default    auto",
      "  dialect    open-responses",
      "  seed       0",
      "  api key    on (requests need Authorization: Bearer KEY)",
      "  admin      off",
    ]);
    const requests = plain.slice(7, -1);
    const time = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";
    const ms = "\\d+(\\.\\d)? (ms|s)";
    // An answer's cost (issue 26: src/turn/limits.ts), in USD.
    const cost = "\\$[\\d.]+";
    expect(requests).toHaveLength(7);
    expect(requests[0]).toMatch(
      new RegExp(`^${time}  POST   /v1/responses  200 completed  auto \\(default\\)  ${cost}  ${ms}$`),
    );
    expect(requests[1]).toMatch(
      new RegExp(
        `^${time}  POST   /v1/responses  200 completed  text \\(header\\)  \\d+ events  ${cost}  ${ms}  session sdk-1$`,
      ),
    );
    expect(requests[2]).toMatch(
      new RegExp(`^${time}  POST   /v1/responses  429 error rate_limit_exceeded  error-429 \\(header\\)  ${ms}$`),
    );
    expect(requests[3]).toMatch(
      new RegExp(`^${time}  POST   /v1/responses  200 dropped  cut \\(header\\)  3 events  ${cost}  ${ms}$`),
    );
    expect(requests).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${time}  POST   /v1/responses  200 hung  stuck \\(header\\)  2 events  ${cost}  ${ms}$`),
      ),
    );
    expect(requests).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${time}  POST   /v1/responses  200 aborted  slow \\(header\\)  \\d+ events?  ${cost}  ${ms}$`),
      ),
    );
    expect(requests).toContainEqual(
      expect.stringMatching(new RegExp(`^${time}  GET    /nope  404 error not_found  ${ms}$`)),
    );
    expect(plain.at(-1)).toMatch(new RegExp(`^${time}  openresponses-mock stopped: 7 requests, up ${ms}$`));
    expect(lines.join("\n")).not.toContain("SECRET");
  });

  it("is plain on a pipe without FORCE_COLOR", async () => {
    const server = await serve([]);
    const baseURL = server.first.split(" ").at(-1)!;
    await (await fetch(`${baseURL}/responses/none`)).text();
    const { lines } = await server.stop();
    expect(lines).toHaveLength(9);
    expect(lines[7]).toMatch(/ GET    \/v1\/responses\/none  404 error not_found  /);
    expect(lines.join("\n")).not.toMatch(/\u001b/);
  });
});

describe("serve --log off and a bad --log", () => {
  it("off: the listening line alone, before and after requests", async () => {
    const server = await serve(["--log", "off"]);
    expect(server.first).toMatch(/^openresponses-mock listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await (await post(server.first.split(" ").at(-1)!, { model: "m", input: "x" })).text();
    const { code, lines } = await server.stop();
    expect(code).toBe(0);
    expect(lines).toEqual([server.first]);
  });

  it("a format it does not know is refused, naming --log, exit 1", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--log", "loud"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d) => (err += d));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(err).toContain("--log: must be one of pretty, json, off; got 'loud'");
  });
});
