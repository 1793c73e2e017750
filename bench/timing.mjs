// Pacing precision: N concurrent paced streams; each event's arrival is compared with its
// schedule (relative to the stream's first event), and heartbeat intervals are measured.
// Usage: node bench/timing.mjs [streams=500] [chunkMs=20]
import { request } from "node:http";
import { Agent } from "node:http";
import { startServerProcess, summary, fmt } from "./lib.mjs";

const STREAMS = Number(process.argv[2] ?? 500);
const CHUNK_MS = Number(process.argv[3] ?? 20);

function stream(baseURL, headers, body, agent) {
  return new Promise((resolve, reject) => {
    const arrivals = []; // [time, kind]
    const req = request(`${baseURL}/responses`, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => {
        const t = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          arrivals.push([t, frame.startsWith(":") ? "heartbeat" : frame.startsWith("data: [DONE]") ? "done" : "event"]);
        }
      });
      res.on("end", () => resolve(arrivals));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const server = await startServerProcess();
const agent = new Agent({ keepAlive: true, maxSockets: STREAMS + 10 });
const body = { model: "mock-model-1", input: "Pacing benchmark, please answer at length.", stream: true, text: { verbosity: "high" } };

// 1. Event pacing at CHUNK_MS per event.
const t0 = performance.now();
const results = await Promise.all(
  Array.from({ length: STREAMS }, (_, i) => stream(server.baseURL, { "x-mock-chunk-ms": String(CHUNK_MS), "x-mock-seed": String(i) }, body, agent)),
);
const wall = performance.now() - t0;
const errors = [];
let events = 0;
for (const arrivals of results) {
  const ev = arrivals.filter(([, k]) => k === "event").map(([t]) => t);
  events += ev.length;
  for (let i = 1; i < ev.length; i++) errors.push(Math.abs(ev[i] - ev[0] - i * CHUNK_MS));
}
const e = summary(errors);

// 2. Heartbeats during a slow first byte and slow events.
const HB = 50;
const hbResults = await Promise.all(
  Array.from({ length: Math.min(STREAMS, 200) }, (_, i) =>
    stream(server.baseURL, { "x-mock-latency-ms": "400", "x-mock-chunk-ms": "150", "x-mock-heartbeat-ms": String(HB), "x-mock-seed": String(i) }, { ...body, text: { verbosity: "low" } }, agent),
  ),
);
const gaps = [];
for (const arrivals of hbResults) {
  for (let i = 1; i < arrivals.length; i++) if (arrivals[i][1] === "heartbeat") gaps.push(arrivals[i][0] - arrivals[i - 1][0]);
}
const h = summary(gaps);

await server.stop();
agent.destroy();

console.log(`timing benchmark — ${STREAMS} concurrent streams, ${CHUNK_MS} ms per event, ${events} events in ${fmt(wall / 1000)} s`);
console.log(`  pacing error (ms)        p50 ${fmt(e.p50)}   p99 ${fmt(e.p99)}   max ${fmt(e.max)}   (target: p99 < 2 ms)`);
console.log(`  heartbeat interval (ms)  p50 ${fmt(h.p50)}   p99 ${fmt(h.p99)}   max ${fmt(h.max)}   (set: ${HB} ms; ${h.n} heartbeats seen)`);
