// Pacing precision: N concurrent paced streams, each event's arrival compared with its
// schedule (relative to the stream's own first event), plus the heartbeat intervals seen.
// Streams are long (the long-text scenario: ~500 events) and open over a ramp, so for most
// of the run all N are open at once and out of phase, as concurrent test runs are.
// Usage: node bench/timing.mjs [streams=500] [chunkMs=20] [rampMs=2000]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, startServerProcess, summary } from "./lib.mjs";

const WARMUP_EVENTS = 10; // each stream's first events overlap the admission of the others

/** Streams one request; returns the arrival time of each frame and whether it was a heartbeat. */
function stream(baseURL, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const arrivals = [];
    const req = request(`${baseURL}/responses`, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        const t = performance.now();
        buf += chunk;
        for (let i; (i = buf.indexOf("\n\n")) >= 0; buf = buf.slice(i + 2)) arrivals.push([t, buf.startsWith(":") ? "heartbeat" : buf.startsWith("data: [DONE]") ? "done" : "event"]);
      });
      res.on("end", () => resolve(arrivals));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * The same run with bench/sse-client.c (compiled here when a C compiler is present): a client
 * that only timestamps frame ends, so the numbers measure the server rather than a Node client.
 */
function nativeRun(baseURL, headers, body, STREAMS, RAMP_MS) {
  const dir = mkdtempSync(join(tmpdir(), "orm-bench-"));
  const bin = join(dir, "sse-client");
  try {
    execFileSync("cc", ["-O2", "-o", bin, fileURLToPath(new URL("./sse-client.c", import.meta.url))], { stdio: "ignore" });
  } catch {
    return null;
  }
  const url = new URL(baseURL);
  const payload = JSON.stringify(body);
  const head = Object.entries({ ...headers, "x-mock-seed": "{SEED}" }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  writeFileSync(join(dir, "request.http"), `POST ${url.pathname}/responses HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nconnection: close\r\n${head}content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
  return new Promise((resolve) => {
    const child = spawn(bin, [url.hostname, url.port, String(STREAMS), String(RAMP_MS), join(dir, "request.http")], { stdio: ["ignore", "pipe", "inherit"] });
    const chunks = [];
    child.stdout.on("data", (d) => chunks.push(d));
    child.on("exit", () => {
      const streams = new Map();
      for (const line of Buffer.concat(chunks).toString().split("\n")) {
        const [s, t, kind] = line.split(" ");
        if (kind === undefined) continue;
        if (!streams.has(s)) streams.set(s, []);
        streams.get(s).push([Number(t) / 1000, kind === "h" ? "heartbeat" : kind === "d" ? "done" : "event"]);
      }
      resolve([...streams.values()]);
    });
  });
}

/** Pacing errors of a run: each event against its schedule, relative to the stream's first event. */
function pacingErrors(results, CHUNK_MS) {
  const errors = [];
  const early = [];
  let events = 0;
  for (const arrivals of results) {
    const ev = arrivals.filter(([, k]) => k === "event").map(([t]) => t);
    events += ev.length;
    for (let i = 1; i < ev.length; i++) (i < WARMUP_EVENTS ? early : errors).push(Math.abs(ev[i] - ev[0] - i * CHUNK_MS));
  }
  return { events, steady: summary(errors), early: summary(early) };
}

/**
 * Runs the pacing benchmark against a server process of its own and returns the numbers:
 * pacing error (steady and first events) for the Node and C clients, and heartbeat intervals.
 */
export async function measurePacing({ STREAMS = 500, CHUNK_MS = 20, RAMP_MS = 2000 } = {}) {
  const server = await startServerProcess();
  const agent = new Agent({ keepAlive: true, maxSockets: STREAMS + 10 });
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const body = { model: "mock-model-1", input: "Pacing benchmark.", stream: true };

  // Warm the server up (JIT), as a test suite's first requests would.
  await Promise.all(Array.from({ length: 20 }, (_, i) => stream(server.baseURL, { "x-mock-seed": String(i) }, body, agent)));

  // 1. Event pacing, measured by a Node client and (when it compiles) by the C client.
  const pacedHeaders = { "x-mock-scenario": "long-text", "x-mock-chunk-ms": String(CHUNK_MS) };
  const t0 = performance.now();
  const results = await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      await sleep((RAMP_MS * i) / STREAMS);
      return stream(server.baseURL, { ...pacedHeaders, "x-mock-seed": String(i) }, body, agent);
    }),
  );
  const wall = performance.now() - t0;
  const node = pacingErrors(results, CHUNK_MS);
  const nativeResults = await nativeRun(server.baseURL, pacedHeaders, body, STREAMS, RAMP_MS);
  const native = nativeResults && pacingErrors(nativeResults, CHUNK_MS);

  // 2. Heartbeats during a slow first byte and between slow events.
  const HB = 50;
  const hbHeaders = { "x-mock-latency-ms": "400", "x-mock-chunk-ms": "150", "x-mock-heartbeat-ms": String(HB) };
  const hbStreams = Math.min(STREAMS, 200);
  const hbResults = await Promise.all(
    Array.from({ length: hbStreams }, async (_, i) => {
      await sleep((RAMP_MS * i) / hbStreams);
      return stream(server.baseURL, { ...hbHeaders, "x-mock-seed": String(i) }, { ...body, text: { verbosity: "low" } }, agent);
    }),
  );
  const gaps = [];
  for (const arrivals of hbResults) for (let i = 1; i < arrivals.length; i++) if (arrivals[i][1] === "heartbeat") gaps.push(arrivals[i][0] - arrivals[i - 1][0]);
  const h = summary(gaps);

  await server.stop();
  agent.destroy();


  return { streams: STREAMS, chunkMs: CHUNK_MS, rampMs: RAMP_MS, events: node.events, wall, node, native, heartbeat: h, heartbeatMs: HB };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const STREAMS = Number(process.argv[2] ?? 500);
  const CHUNK_MS = Number(process.argv[3] ?? 20);
  const RAMP_MS = Number(process.argv[4] ?? 2000);
  const { node, native, heartbeat: h, heartbeatMs: HB, wall } = await measurePacing({ STREAMS, CHUNK_MS, RAMP_MS });
  const row = (label, x) => `  ${label.padEnd(34)} p50 ${fmt(x.p50).padStart(6)}   p99 ${fmt(x.p99).padStart(7)}   max ${fmt(x.max).padStart(7)}`;
  console.log(`timing benchmark — ${STREAMS} concurrent streams opened over ${RAMP_MS} ms, ${CHUNK_MS} ms per event, ${node.events} events in ${fmt(wall / 1000)} s`);
  if (native) {
    console.log(row("pacing error (ms), C client", native.steady) + "   (target: p99 < 2 ms)");
    console.log(row(`… first ${WARMUP_EVENTS} events of each stream`, native.early) + "   (while the others are being admitted)");
  }
  console.log(row("pacing error (ms), Node client", node.steady) + (native ? "" : "   (target: p99 < 2 ms)"));
  console.log(row(`… first ${WARMUP_EVENTS} events of each stream`, node.early));
  console.log(row("heartbeat interval (ms)", h) + `   (set: ${HB} ms; ${h.n} heartbeats seen)`);

}
