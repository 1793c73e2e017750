// Load: N simulated users against our server under a latency profile, beside a bare Node
// pacer (bench/servers/floor-load.mjs) playing the same answers on the same schedules, in
// the same run. Each user holds one keep-alive connection and sends its next streamed request
// as soon as its stream ends, for SECONDS. Printed for each server:
//
// - answers per second (streams that ended with the whole answer);
// - pacing error against the profile: for each event, how late it arrived against its due
//   time by the profile, p50 and p99. A stream's due times are its request time + the
//   schedule the profile draws for it (TTFT, then inter-token gaps, slowed by the documented
//   law for the users playing at once); the phase is aligned per stream as in
//   bench/timing.mjs (the earliest arrival − due), so an event on time counts 0;
// - server CPU per event (user + system, all its processes), and its peak RSS.
//
// The answers come from a pool of POOL seeds (x-mock-seed), each captured once unpaced from
// our server; the floor gets the same frames and the same offsets. The schedules are drawn
// with the server's own code (dist/), with the load each process sees: USERS / WORKERS
// streams at once (every user is always in a stream but for the instant between two).
//
// Usage: node bench/load.mjs [USERS=100] [--seconds 20] [--workers N] [--profile typical]
import http from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { captureStream, fmt, startProcess, startServerProcess, summary, treeCpuMs, treeRssMB } from "./lib.mjs";
import { expectedOffsets } from "./load-schedule.mjs";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const USERS = Number(args.find((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith("--")) ?? 100);
const SECONDS = Number(flag("--seconds", process.env.BENCH_SECONDS ?? 20));
const WORKERS = Number(flag("--workers", 1));
const PROFILE = flag("--profile", "typical");
const POOL = 64;
const MODEL = "mock-load-model";
const BODY = { model: MODEL, input: "A load test.", stream: true };
const FLOOR = fileURLToPath(new URL("./servers/floor-load.mjs", import.meta.url));

/**
 * N users, each looping streamed requests until `seconds` are up, when every connection is
 * cut: the streams that ended before then each played under the full load throughout (a run
 * that let the last streams finish would speed them up as the others stop). Resolves with
 * every stream's request time and frame arrivals.
 */
function drive(baseURL, users, seconds) {
  const { hostname, port } = new URL(baseURL);
  const agent = new http.Agent({ keepAlive: true, maxSockets: users });
  const streams = [];
  const body = JSON.stringify(BODY);
  let stopped = false;
  const user = (u) => {
    let turn = 0;
    const next = () => {
      if (stopped) return;
      const seed = (u * 7 + turn++) % POOL;
      const stream = { user: u, seed, worker: undefined, sent: performance.now(), arrivals: [], complete: false };
      streams.push(stream);
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method: "POST",
          path: "/v1/responses",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "x-mock-seed": String(seed),
          },
        },
        (res) => {
          stream.worker = res.headers["x-mock-worker"];
          let tail = "";
          res.setEncoding("utf8");
          res.on("data", (d) => {
            const t = performance.now();
            const text = tail + d;
            let at = text.indexOf("\n\n");
            let from = 0;
            while (at >= 0) {
              // An event frame (not a [DONE] frame, which goes with the last event).
              if (!text.startsWith("data: [DONE]", from)) stream.arrivals.push(t);
              from = at + 2;
              at = text.indexOf("\n\n", from);
            }
            tail = text.slice(from);
          });
          res.on("end", () => {
            stream.complete = !stopped && res.statusCode === 200;
            next();
          });
          res.on("error", () => {});
        },
      );
      req.on("error", () => {});
      req.end(body);
    };
    next();
  };
  for (let u = 0; u < users; u++) user(u);
  return new Promise((resolve) =>
    setTimeout(() => {
      stopped = true;
      agent.destroy();
      resolve(streams);
    }, seconds * 1000),
  );
}

/** A server's figures: answers/s, pacing error against the offsets, CPU per event, RSS. */
async function measure(label, server, offsetsOf) {
  let peakRss = 0;
  const sample = setInterval(() => (peakRss = Math.max(peakRss, treeRssMB(server.pid))), 250);
  const cpu0 = treeCpuMs(server.pid);
  const streams = await drive(server.baseURL, USERS, SECONDS);
  const cpu = treeCpuMs(server.pid) - cpu0;
  clearInterval(sample);
  // With --workers, how many users each of our workers served (a keep-alive connection stays on one): its load.
  const usersOn = new Map();
  for (const s of streams)
    if (s.worker !== undefined) (usersOn.get(s.worker) ?? usersOn.set(s.worker, new Set()).get(s.worker)).add(s.user);
  const lateness = [];
  let events = 0;
  let complete = 0;
  for (const s of streams) {
    events += s.arrivals.length;
    if (!s.complete) continue;
    complete++;
    const offsets = offsetsOf(s.seed, s.worker === undefined ? undefined : usersOn.get(s.worker).size);
    let phase = Infinity;
    for (let i = 0; i < s.arrivals.length; i++) phase = Math.min(phase, s.arrivals[i] - s.sent - offsets[i]);
    for (let i = 0; i < s.arrivals.length; i++) lateness.push(s.arrivals[i] - s.sent - offsets[i] - phase);
  }
  const late = summary(lateness);
  console.error(`${label}: ${complete} answers, p99 ${fmt(late.p99)} ms, CPU ${fmt(cpu / 1000)} s`);
  return { complete, events, late, cpuPerEvent: (cpu * 1000) / events, rss: peakRss };
}

const workerFlags = WORKERS > 1 ? ["--workers", String(WORKERS)] : [];
const ours = await startServerProcess(["--profile", PROFILE, ...workerFlags]);
const dir = mkdtempSync(join(tmpdir(), "bench-load-"));
try {
  // The pool: each seed's frames (captured unpaced) and its offsets by the profile at this load.
  const answers = {};
  let headers;
  const perProcess = Math.ceil(USERS / WORKERS);
  for (let seed = 0; seed < POOL; seed++) {
    const captured = await captureStream(`${ours.baseURL}/responses`, BODY, {
      "x-mock-seed": String(seed),
      "x-mock-profile": "instant",
    });
    headers ??= captured.headers;
    // The request's x-mock-seed is the seed its answer and schedule are drawn from.
    const offsets = expectedOffsets({
      frames: captured.frames,
      seed,
      body: BODY,
      profile: PROFILE,
      active: perProcess,
    });
    answers[seed] = { frames: captured.frames, offsets };
  }
  const file = join(dir, "answers.json");
  writeFileSync(file, JSON.stringify({ headers, answers }));
  const floor = await startProcess([FLOOR, file, ...workerFlags]);
  // The floor plays each answer at the load it was given; ours is held to the load of the worker that answered.
  const atLoad = new Map();
  const offsetsOf = (seed, active) => {
    if (active === undefined || active === perProcess) return answers[seed].offsets;
    const key = `${seed}|${active}`;
    if (!atLoad.has(key))
      atLoad.set(key, expectedOffsets({ frames: answers[seed].frames, seed, body: BODY, profile: PROFILE, active }));
    return atLoad.get(key);
  };
  let f, o;
  try {
    f = await measure("floor", floor, offsetsOf);
    o = await measure("ours", ours, offsetsOf);
  } finally {
    await floor.stop();
  }
  const row = (name, a, b, digits = 1) => `  ${name.padEnd(34)}${a.padStart(16)}${b.padStart(16)}`;
  console.log(
    `load benchmark — ${USERS} users, ${SECONDS} s each, profile ${PROFILE}, ${WORKERS} process${WORKERS > 1 ? "es" : ""} each`,
  );
  console.log(row("", "floor", "ours"));
  console.log(row("answers per second", fmt(f.complete / SECONDS, 1), fmt(o.complete / SECONDS, 1)));
  console.log(
    row(
      "pacing error p50 / p99 (ms)",
      `${fmt(f.late.p50)} / ${fmt(f.late.p99)}`,
      `${fmt(o.late.p50)} / ${fmt(o.late.p99)}`,
    ),
  );
  console.log(row("events delivered", String(f.events), String(o.events)));
  console.log(
    row("server CPU, µs per event", fmt(f.cpuPerEvent, 1), fmt(o.cpuPerEvent, 1)) +
      `   ratio ${fmt(o.cpuPerEvent / f.cpuPerEvent)}×`,
  );
  console.log(row("peak RSS (MB, all processes)", fmt(f.rss, 0), fmt(o.rss, 0)));
} finally {
  await ours.stop();
  rmSync(dir, { recursive: true, force: true });
}
