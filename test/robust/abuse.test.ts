/**
 * Hostile clients: a slowloris cut off by the headers timeout; bodies over the
 * limit refused with 413 before they are read (declared by Content-Length) or
 * as soon as they pass it (chunked); a storm of long streams that must not
 * starve /health; scenario names that look like paths, and raw header
 * injection attempts, which must never reach the file system.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIBRARY_DIR } from "../../src/scenario/load.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { systemClock } from "../../src/timing/clock.js";
import { playSchedule } from "../../src/timing/pacer.js";
import { TICK_BUDGET_MS } from "../../src/timing/scheduler.js";
import type { Schedule } from "../../src/timing/schedule.js";
import {
  connectRaw,
  connectionsOf,
  expectSaneAnswer,
  health,
  plainRequest,
  post,
  rawExchange,
  settle,
  watchInternalErrors,
  type InternalErrors,
} from "../support/robust.js";

let internal: InternalErrors;
beforeAll(() => {
  internal = watchInternalErrors();
});
afterAll(() => internal.restore());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BODY = '{"model":"mock-model-1","input":"hi"}';

// ---- slowloris -----------------------------------------------------------------------

/**
 * Node checks headersTimeout/requestTimeout on a timer started when the server
 * listens, every `connectionsCheckingInterval` ms (default 30 s). To test the
 * cut-off in seconds, restart that timer with a short interval, as Node itself
 * does on 'listening'. Returns false if this Node has no such listener.
 */
function checkConnectionsEvery(server: http.Server, ms: number): boolean {
  const setup = server.listeners("listening").find((l) => l.name === "setupConnectionsTracking");
  if (!setup) return false;
  (server as http.Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = ms;
  setup.call(server);
  return true;
}

describe("a slowloris client", () => {
  it("is cut off by the server's headers timeout", async () => {
    await using mock = await startMockServer({ port: 0 });
    const server = mock.server as http.Server & { connectionsCheckingInterval: number };
    // The defaults: set, and headers before the whole request.
    expect(server.headersTimeout).toBeGreaterThan(0);
    expect(server.requestTimeout).toBeGreaterThan(0);
    expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
    console.log(
      `slowloris: defaults headersTimeout ${server.headersTimeout} ms, requestTimeout ${server.requestTimeout} ms, keepAliveTimeout ${server.keepAliveTimeout} ms, checked every ${server.connectionsCheckingInterval} ms`,
    );

    // Lowered for speed, checked every 200 ms.
    server.headersTimeout = 1_000;
    server.requestTimeout = 1_500;
    if (!checkConnectionsEvery(server, 200)) {
      console.log(
        "slowloris: this Node has no setupConnectionsTracking listener; the check would take up to 30 s, skipped",
      );
      return;
    }

    const conn = await connectRaw(mock.port);
    const started = Date.now();
    await conn.write("POST /v1/responses HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n");
    // One header byte every 500 ms, forever.
    const header = `X-Slow: ${"a".repeat(200)}`;
    let sent = 0;
    const trickle = setInterval(() => void conn.write(header[sent++ % header.length]), 500);
    try {
      // The server keeps serving others meanwhile.
      expect(await health(mock.url)).toBe(200);
      const res = await conn.closed(8_000);
      const elapsed = Date.now() - started;
      expect(res.closed, "the slow connection is still open after 8 s").toBe(true);
      expect(elapsed).toBeLessThan(8_000);
      // Node answers 408 before closing (a bare one: see "Node-level errors" below).
      if (res.status !== null) expect(res.status).toBe(408);
      console.log(`slowloris: cut after ${elapsed} ms and ${sent} trickled bytes, status ${res.status ?? "none"}`);
    } finally {
      clearInterval(trickle);
      conn.socket.destroy();
    }
    expect(internal.take()).toEqual([]);
  }, 20_000);
});

// ---- bodies over the limit -------------------------------------------------------------------

describe("a body over the limit (bodyLimit: 1024)", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, bodyLimit: 1024 });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("declared by Content-Length is refused with 413 before the body is sent", async () => {
    const conn = await connectRaw(mock.port);
    try {
      // Headers only: the body never comes.
      await conn.write(
        `POST /v1/responses HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n`,
      );
      const res = await conn.head(3_000);
      expect(res.status, conn.received().toString("latin1").slice(0, 200)).toBe(413);
      expect(res.headers.connection).toBe("close");
      const closed = await conn.closed(3_000);
      expect(closed.closed, "the connection stays open after the 413").toBe(true);
      const body = JSON.parse(closed.body.toString("utf8"));
      expectSaneAnswer({ status: 413, contentType: closed.headers["content-type"] ?? "", text: JSON.stringify(body) });
      expect(body.error.code).toBe("request_too_large");
    } finally {
      conn.socket.destroy();
    }
  });

  it("exactly at the limit is read; one byte over is a 413", async () => {
    const at = JSON.stringify({ model: "m", input: "x".repeat(1024 - '{"model":"m","input":""}'.length) });
    expect(Buffer.byteLength(at)).toBe(1024);
    expect((await post(`${mock.baseURL}/responses`, at)).status).toBe(200);
    const over = at.replace('"x', '"xx');
    const answer = await post(`${mock.baseURL}/responses`, over);
    expect(answer.status).toBe(413);
    expectSaneAnswer(answer);
  });

  it("sent chunked without a length is cut off as soon as it passes the limit, long before 10 MB", async () => {
    const conn = await connectRaw(mock.port);
    const TOTAL = 10 * 1024 * 1024;
    const CHUNK = 16 * 1024;
    const chunk = Buffer.concat([
      Buffer.from(`${CHUNK.toString(16)}\r\n`),
      Buffer.alloc(CHUNK, 0x20),
      Buffer.from("\r\n"),
    ]);
    let sent = 0;
    let sentAtAnswer = -1;
    try {
      await conn.write(
        `POST /v1/responses HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      // Slowly: 16 KiB every 5 ms (10 MiB would take over 3 s).
      while (sent < TOTAL) {
        if (conn.received().includes("\r\n\r\n")) {
          sentAtAnswer = sent;
          break;
        }
        if (!(await conn.write(chunk))) break;
        sent += CHUNK;
        await sleep(5);
      }
      const res = await conn.head(3_000);
      if (sentAtAnswer < 0) sentAtAnswer = sent;
      expect(res.status).toBe(413);
      expect(sentAtAnswer, `the answer came after ${sentAtAnswer} bytes`).toBeLessThan(TOTAL);
      expect(sentAtAnswer).toBeLessThan(1024 * 1024);
      const closed = await conn.closed(3_000);
      expect(closed.closed, "the connection stays open after the 413").toBe(true);
      expect(JSON.parse(closed.body.toString("utf8")).error.code).toBe("request_too_large");
      console.log(`chunked upload: 413 after ${sentAtAnswer} of ${TOTAL} bytes sent`);
    } finally {
      conn.socket.destroy();
    }
    expect(internal.take()).toEqual([]);
  });

  it("the server still answers after all that", async () => {
    expect(await health(mock.url)).toBe(200);
    expect((await post(`${mock.baseURL}/responses`, BODY)).status).toBe(200);
  });
});

// ---- a request storm ----------------------------------------------------------------------------

/**
 * How many concurrent streams: ORM_STORM_N, else 400 (fewer under a low
 * descriptor limit). 400 long-text streams at one event per 50 ms are 8,000
 * events/s, well within what one event loop serves on a 2-core CI machine. At
 * 2,000 (40,000 events/s) the streams fall behind; since late streams yield
 * the loop (see the end of this file) it still passes: all 2,000 open in ~3 s,
 * /health within ~0.6 s.
 */
function stormSize(): number {
  const asked = Number(process.env.ORM_STORM_N);
  let n = Number.isInteger(asked) && asked > 0 ? asked : 400;
  try {
    const soft = Number(/Max open files\s+(\d+)/.exec(readFileSync("/proc/self/limits", "utf8"))?.[1]);
    if (Number.isFinite(soft)) n = Math.min(n, soft - 200);
  } catch {
    // not Linux
  }
  return Math.max(50, n);
}

/**
 * The storm's clients, in a child process so that their own work does not
 * delay this process's event loop (the server's). They open `wave` streams
 * every `everyMs` (a single burst of SYNs would overflow the listen backlog
 * of 511 and wait on the kernel's SYN retries), print progress as JSON lines,
 * and hold the streams until they are killed.
 */
const STORM_CLIENT = `
const http = require("node:http");
const [url, total, wave, everyMs] = process.argv.slice(2).map((v, i) => (i === 0 ? v : Number(v)));
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const body = JSON.stringify({ model: "mock-model-1", input: "A long story, please.", stream: true });
let started = 0, failed = 0, opened = 0;
const codes = {};
function open() {
  opened++;
  const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "x-mock-scenario": "long-text", "x-mock-chunk-ms": "50" } }, (res) => {
    started++;
    res.resume();
    res.on("error", () => {});
  });
  req.on("error", (e) => { failed++; codes[e.code] = (codes[e.code] || 0) + 1; });
  req.end(body);
}
const opener = setInterval(() => {
  for (let i = 0; i < wave && opened < total; i++) open();
  if (opened >= total) clearInterval(opener);
}, everyMs);
setInterval(() => console.log(JSON.stringify({ started, failed, codes })), 100);
`;

describe("a request storm", () => {
  it("of long streaming requests does not starve /health", async () => {
    await using mock = await startMockServer({ port: 0 });
    const N = stormSize();
    const dir = mkdtempSync(join(tmpdir(), "orm-storm-"));
    const script = join(dir, "client.cjs");
    writeFileSync(script, STORM_CLIENT);
    const child = spawn(process.execPath, [script, `${mock.baseURL}/responses`, String(N), "100", "100"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let progress: { started: number; failed: number; codes: Record<string, number> } = {
      started: 0,
      failed: 0,
      codes: {},
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const last = d.trim().split("\n").at(-1);
      if (last) progress = JSON.parse(last);
    });
    const times: number[] = [];
    /** /health on a fresh connection (so the accept queue counts too); throws after 10 s: starved. */
    const probe = async () => {
      const t = Date.now();
      const res = await plainRequest(`${mock.url}/health`, { method: "GET", signal: AbortSignal.timeout(10_000) });
      expect(res.end, "/health did not answer within 10 s").toBe("complete");
      expect(res.status).toBe(200);
      times.push(Date.now() - t);
    };
    const started = Date.now();
    try {
      // /health, again and again, while the storm builds up (at most 20 s).
      while (progress.started + progress.failed < N && Date.now() - started < 20_000) {
        await probe();
        await sleep(100);
      }
      const open = await connectionsOf(mock.server);
      expect(progress.failed, `streams that failed to start: ${JSON.stringify(progress.codes)}`).toBe(0);
      expect(progress.started, "streams open").toBe(N);
      // And with every stream open: /health, and a plain request.
      await probe();
      const t = Date.now();
      const answer = await post(`${mock.baseURL}/responses`, BODY, {}, { signal: AbortSignal.timeout(10_000) });
      expect(answer.status).toBe(200);
      console.log(
        `storm: ${progress.started} long streams open after ${Date.now() - started} ms (${open} connections); /health answered ${times.length} times, slowest ${Math.max(...times)} ms; a plain request in ${Date.now() - t} ms`,
      );
    } finally {
      // Every client goes away at once.
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
    expect(
      await settle(async () => (await connectionsOf(mock.server)) === 0, 10_000, 50),
      "connections left after the clients died",
    ).toBe(true);
    expect(internal.take()).toEqual([]);
  }, 60_000);
});

// ---- names that look like paths, and header injection ---------------------------------------------

describe("scenario names that look like paths", () => {
  let mock: MockServer;
  let dir: string;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
    // A valid scenario file outside the library: a server that read files by header name would answer with it.
    dir = mkdtempSync(join(tmpdir(), "orm-abuse-"));
    writeFileSync(
      join(dir, "evil.json"),
      JSON.stringify({
        name: "evil",
        description: "Must never be loaded from a header.",
        turns: [{ steps: [{ type: "message", text: "PWNED" }] }],
      }),
    );
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("never reach the file system: a clean 400 unknown_scenario", async () => {
    const fromLibrary = relative(LIBRARY_DIR, join(dir, "evil"));
    const names = [
      "../../etc/passwd",
      "/etc/passwd",
      "..\\..\\windows\\win.ini",
      join(dir, "evil.json"),
      join(dir, "evil"),
      fromLibrary,
      `${fromLibrary}.json`,
      "file:///etc/passwd",
      "text.json",
      "./text",
      "%2e%2e%2fetc%2fpasswd",
      "evil",
      "x".repeat(8_000),
    ];
    for (const name of names) {
      for (const stream of [false, true]) {
        const answer = await post(
          `${mock.baseURL}/responses`,
          { model: "mock-model-1", input: "hi", stream },
          { "x-mock-scenario": name },
        );
        expect(answer.status, name).toBe(400);
        expectSaneAnswer(answer);
        const error = JSON.parse(answer.text).error;
        expect(error.code).toBe("unknown_scenario");
        expect(error.param).toBe("x-mock-scenario");
        expect(answer.text).not.toContain("PWNED");
        expect(answer.text).not.toContain("root:");
        expect(error.message.length, "the message echoes at most a slice of the name").toBeLessThan(2_000);
      }
    }
    // The same through the model name (a scenario named like the model answers).
    const byModel = await post(`${mock.baseURL}/responses`, { model: join(dir, "evil"), input: "hi" });
    expect(byModel.status).toBe(200);
    expect(byModel.text).not.toContain("PWNED");
    expect(internal.take()).toEqual([]);
  });

  it("raw header injection (CR, bare LF, NUL, obs-text) is refused with a 400 and the server stays up", async () => {
    const request = (header: string, eol = "\r\n") =>
      `POST /v1/responses HTTP/1.1${eol}Host: localhost${eol}Content-Type: application/json${eol}${header}${eol}Content-Length: ${BODY.length}${eol}Connection: close${eol}${eol}${BODY}`;
    const cases: Array<[string, string, number]> = [
      ["CR inside a value", request("x-mock-scenario: text\rx-mock-fault: drop-after-events=0"), 400],
      ["bare LF line ends", request("x-mock-scenario: ../../etc/passwd", "\n"), 400],
      ["NUL inside a value", request("x-mock-scenario: te\u0000xt"), 400],
      ["obs-text (latin-1) value", request("x-mock-scenario: t\u00e9xt"), 400],
      ["a path as the value", request("x-mock-scenario: ../../../../etc/passwd"), 400],
      ["header folding", request("x-mock-scenario: text\r\n ../../etc/passwd"), 400],
    ];
    for (const [label, raw, status] of cases) {
      const res = await rawExchange(mock.port, Buffer.from(raw, "latin1"));
      expect(res.status, `${label}: ${res.raw.toString("latin1").slice(0, 200)}`).toBe(status);
      expect(res.raw.toString("latin1")).not.toContain("PWNED");
    }
    expect(await health(mock.url)).toBe(200);
    expect(internal.take()).toEqual([]);
  });
});

// ---- known bugs ------------------------------------------------------------------------------------
//
// Regression tests for bugs the fuzzing found (fixed), and one known limitation (`it.fails`).

describe("known bugs", () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0 });
  });
  afterAll(async () => {
    await mock?.close();
  });

  // Regression test (fixed): errors raised by Node's HTTP parser before the app runs — a CR or NUL inside a header value,
  // bare-LF line ends, a malformed request line, conflicting Content-Length/Transfer-Encoding, headers
  // over 16 KiB (431), the headers timeout (408) — are answered by Node's default `clientError`
  // handler: a status line, `Connection: close` and no body at all, not the spec error object the
  // README promises for "every error". A `server.on("clientError", …)` that writes the JSON body
  // would fix it.
  it.each([
    [
      "CR inside a header value",
      `POST /v1/responses HTTP/1.1\r\nHost: x\r\nx-mock-scenario: te\rxt\r\nContent-Length: 2\r\n\r\n{}`,
    ],
    ["a malformed request line", "GARBAGE\r\n\r\n"],
    ["headers over 16 KiB", `GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(20_000)}\r\n\r\n`],
    [
      "Content-Length with Transfer-Encoding",
      "POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
    ],
  ])("%s is answered with a spec error body", async (_, raw) => {
    const res = await rawExchange(mock.port, Buffer.from(raw, "latin1"));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expectSaneAnswer({
      status: res.status!,
      contentType: res.headers["content-type"] ?? "",
      text: res.body.toString("utf8"),
    });
  });

  // Regression test (fixed): a client that goes away while its request body is being read makes readJsonBody reject with
  // Node's "aborted" (ECONNRESET) error, which the error middleware treats as the server's own fault:
  // it logs "openresponses-mock: internal error: Error: aborted" and the journal records status 500.
  // A client disconnect is not an internal error (no log; e.g. status 499 or 400 in the journal).
  it("a client that disconnects mid-body is not logged as an internal error", async () => {
    const session = "abuse-abort-upload";
    try {
      const conn = await connectRaw(mock.port);
      await conn.write(
        `POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-mock-session: ${session}\r\nContent-Length: 100\r\n\r\n{"model":`,
      );
      await sleep(50);
      conn.socket.destroy();
      await sleep(100);
      const entries = mock.session(session).requests;
      expect(entries).toHaveLength(1);
      expect(entries[0].status).not.toBe(500);
      expect(internal.take()).toEqual([]);
    } finally {
      internal.take();
      mock.session(session).reset();
    }
  });

  // Regression test (fixed): fairness under overload. The pacer used to write every overdue frame at once —
  // a late stream's frames went out in one macrotask (here all 61 before the next setImmediate). One event
  // loop serves ~20,000-25,000 events/s on a 2-core machine; a storm of 2,000 long-text streams at
  // x-mock-chunk-ms: 50 asks for 40,000/s, every stream falls behind, each timer turn wrote a growing burst,
  // and the turns grew without bound: new connections waited 7-15 s, /health over 10 s, 77 of 2,000 clients
  // got ECONNRESET (ORM_STORM_N=2000 reproduces the load with the storm test above). Now a stream more than
  // a stream that has run for TICK_BUDGET_MS yields the loop (it used to be after every 8 frames once
  // 10 ms behind; a budget of time also bounds a turn whose frames are slow to build), and the storm at
  // 2,000 passes.
  it("an overdue stream yields to the event loop once its run has had its time", async () => {
    const slots: Schedule["slots"] = Array.from({ length: 100 }, (_, i) => ({
      kind: "event" as const,
      index: i,
      at: i * 50,
    }));
    slots.push({ kind: "done", at: 100 * 50 });
    let written = 0;
    let atNextTurn = -1;
    // Each frame costs 1 ms of CPU to build: 61 overdue frames would hold the loop for 61 ms.
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const sink = { event: () => (busy(1), written++, true), heartbeat: () => true, end() {}, destroy() {} };
    setImmediate(() => (atNextTurn = written));
    const controller = new AbortController();
    const play = playSchedule({ slots, heartbeatMs: 0, durationMs: 5_000 }, sink, {
      clock: systemClock,
      start: systemClock.now() - 3_000,
      signal: controller.signal,
    });
    await sleep(20);
    controller.abort();
    await play;
    // 61 frames are overdue; a fair pacer has written only a budget's worth of them before the loop turns.
    expect(atNextTurn).toBeGreaterThanOrEqual(1);
    expect(atNextTurn).toBeLessThanOrEqual(TICK_BUDGET_MS + 2);
  });

  it("an overdue stream whose frames cost nothing sends them all in one run (one write), not in bursts", async () => {
    const slots: Schedule["slots"] = Array.from({ length: 100 }, (_, i) => ({
      kind: "event" as const,
      index: i,
      at: i * 50,
    }));
    slots.push({ kind: "done", at: 100 * 50 });
    let written = 0;
    let flushes = 0;
    const sink = {
      event: () => (written++, true),
      heartbeat: () => true,
      flush: () => void flushes++,
      end() {},
      destroy() {},
    };
    const controller = new AbortController();
    const play = playSchedule({ slots, heartbeatMs: 0, durationMs: 5_000 }, sink, {
      clock: systemClock,
      start: systemClock.now() - 3_000,
      signal: controller.signal,
    });
    // The 61 overdue frames went out before the play returned, and were flushed once.
    expect(written).toBe(61);
    expect(flushes).toBe(1);
    controller.abort();
    expect(await play).toBe("aborted");
  });

  it("a stream on time (all frames just due, zero delay) is not held back by yielding", async () => {
    const slots: Schedule["slots"] = Array.from({ length: 100 }, (_, i) => ({
      kind: "event" as const,
      index: i,
      at: 0,
    }));
    slots.push({ kind: "done", at: 0 });
    let written = 0;
    let atNextTurn = -1;
    const sink = { event: () => (written++, true), heartbeat: () => true, end() {}, destroy() {} };
    setImmediate(() => (atNextTurn = written));
    expect(
      await playSchedule({ slots, heartbeatMs: 0, durationMs: 0 }, sink, {
        clock: systemClock,
        start: systemClock.now(),
      }),
    ).toBe("done");
    await new Promise((r) => setImmediate(r));
    expect(atNextTurn).toBe(100);
  });
});
