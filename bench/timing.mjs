// Pacing against a floor: N concurrent paced streams on our server and on the floor
// (bench/servers/floor.mjs: a bare Node server pacing the same frames with one timer and
// nothing else to do), driven by the same client in the same run. The streams are long
// (the long-text scenario: ~485 events, one every INTERVAL ms) and open over a ramp, so for
// most of the run all N are open at once and out of phase, as concurrent test runs are.
//
// Measured for each event: its lateness against its due time. A stream's events are due
// at phase + i × INTERVAL, where the phase is the stream's earliest (arrival − i × INTERVAL)
// over its events, so an event that arrived on time counts 0 and lateness never goes
// negative. For each stream: its time to headers (request written → status line), whether
// it got every event and [DONE].
//
// The client is bench/sse-client.c, compiled here with `cc`. Without a C compiler the
// same measurement is made by a Node client in this process (printed as such): it shares
// this process's event loop, so its figures are higher for both servers. BENCH_NODE_CLIENT=1
// uses the Node client even where cc is present.
//
// Usage: node bench/timing.mjs [STREAMS=500] [INTERVAL_MS=20] [RAMP_MS=2000] [--workers N] [--rounds N]
//   --workers N   passed to our server (`serve --workers N`); the floor runs N processes too
//   --rounds N    floor and ours N times each, interleaved; figures are medians of the rounds
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { captureStream, fmt, percentile, startProcess, startServerProcess, summary, treeCpuMs } from "./lib.mjs";

const FLOOR = fileURLToPath(new URL("./servers/floor.mjs", import.meta.url));
const CLIENT_SOURCE = fileURLToPath(new URL("./sse-client.c", import.meta.url));
/** A response head later than this after the request counts as "not at once". */
const HEAD_AT_ONCE_MS = 100;
/** How long past its last due frame a stream may take before the client gives up on it. */
const DEADLINE_SLACK_MS = 20_000;
const BODY = { model: "mock-model-1", input: "Pacing benchmark.", stream: true };
const SEED = "1";

/** One unpaced answer of our server: its headers and its frames, [DONE] joined to the last event. */
const capture = (baseURL) =>
  captureStream(`${baseURL}/responses`, BODY, { "x-mock-scenario": "long-text", "x-mock-seed": SEED });

/**
 * CPU seconds (user + system) used so far by a process and its children (the workers of
 * --workers), from Linux /proc. CPU time, unlike lateness, hardly depends on what else runs
 * on the machine.
 */
const cpuSeconds = (pid) => treeCpuMs(pid) / 1000;
/** The system part of cpuSeconds (the kernel's: writes, timers, memory). */
const systemSeconds = (pid) => treeCpuMs(pid, "system") / 1000;

/** Compiles the C client; null when there is no C compiler. */
function compileClient(dir) {
  const bin = join(dir, "sse-client");
  try {
    execFileSync("cc", ["-O2", "-o", bin, CLIENT_SOURCE], { stdio: "ignore" });
    return bin;
  } catch {
    return null;
  }
}

/** Runs the C client; resolves with its records, "stream µs kind" lines. */
function runNative(bin, url, streams, rampMs, requestFile, deadlineMs) {
  return new Promise((resolve) => {
    const child = spawn(
      bin,
      [url.hostname, url.port, String(streams), String(rampMs), requestFile, String(deadlineMs)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const chunks = [];
    child.stdout.on("data", (d) => chunks.push(d));
    child.on("exit", () => resolve(Buffer.concat(chunks).toString()));
  });
}

/** The same client in Node (no C compiler): the same records, timed in this process. */
function runNode(url, streams, rampMs, raw, deadlineMs) {
  return new Promise((resolve) => {
    const lines = [];
    const t0 = performance.now();
    const at = () => ((performance.now() - t0) * 1000).toFixed(1);
    let closed = 0;
    const sockets = [];
    const deadline = setTimeout(() => {
      for (const [i, s] of sockets.entries()) if (!s.destroyed) (lines.push(`${i} ${at()} t`), s.destroy());
      resolve(lines.join("\n"));
    }, deadlineMs);
    for (let i = 0; i < streams; i++) {
      setTimeout(
        () => {
          const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
          sockets[i] = socket;
          let status = "";
          let prev = "";
          socket.setEncoding("latin1");
          socket.write(raw.replace("{SEED}", String(i)), () => lines.push(`${i} ${at()} q`));
          socket.on("data", (d) => {
            const t = at();
            if (status.length < 12) {
              status += d.slice(0, 12 - status.length);
              if (status.length === 12) lines.push(`${i} ${t} ${status.slice(9) === "200" ? "r" : "f"}`);
            }
            for (let j = 0; j < d.length; j++) {
              if (d[j] === "\n" && prev[1] === "\n")
                lines.push(`${i} ${t} ${prev[0] === "e" ? "h" : prev[0] === "]" ? "d" : "e"}`);
              prev = (prev + d[j]).slice(-2);
            }
          });
          socket.on("error", () => {});
          socket.on("close", () => {
            lines.push(`${i} ${at()} x`);
            if (++closed === streams) (clearTimeout(deadline), resolve(lines.join("\n")));
          });
        },
        (rampMs * i) / streams,
      );
    }
  });
}

/** Figures of one server's run from the client's records. */
export function analyse(records, { streams, intervalMs }) {
  const per = Array.from({ length: streams }, () => ({ q: NaN, r: NaN, events: [], done: false }));
  for (const line of records.split("\n")) {
    const [s, us, kind] = line.split(" ");
    if (kind === undefined) continue;
    const st = per[Number(s)];
    const t = Number(us) / 1000;
    if (kind === "q") st.q = t;
    else if (kind === "r" || kind === "f") st.r = kind === "r" ? t : Infinity;
    else if (kind === "e") st.events.push(t);
    else if (kind === "d") st.done = true;
  }
  const lateness = [];
  const heads = [];
  let headed = 0,
    atOnce = 0,
    complete = 0,
    events = 0;
  for (const st of per) {
    if (Number.isFinite(st.r)) {
      headed++;
      heads.push(st.r - st.q);
      if (st.r - st.q <= HEAD_AT_ONCE_MS) atOnce++;
    }
    if (st.done) complete++;
    events += st.events.length;
    let phase = Infinity;
    for (let i = 0; i < st.events.length; i++) phase = Math.min(phase, st.events[i] - i * intervalMs);
    for (let i = 0; i < st.events.length; i++) lateness.push(st.events[i] - i * intervalMs - phase);
  }
  return { streams, headed, atOnce, complete, events, head: summary(heads), lateness: summary(lateness) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return percentile(s, 50);
};

/**
 * Runs floor and ours `rounds` times each, interleaved, with the same client and the same
 * frames, and returns both runs' figures and the ratio of the p99 lateness (median over rounds).
 */
export async function measurePacing({
  STREAMS = 500,
  CHUNK_MS = 20,
  RAMP_MS = 2000,
  workers = 1,
  rounds = 1,
  log = () => {},
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), "orm-timing-"));
  try {
    const serverArgs = workers > 1 ? ["--workers", String(workers)] : [];
    // The frames to pace: one answer of ours, unpaced, with the seed every stream uses.
    const probe = await startServerProcess(serverArgs);
    const answer = await capture(probe.baseURL);
    await probe.stop();
    const answerFile = join(dir, "answer.json");
    writeFileSync(answerFile, JSON.stringify(answer));
    const eventsPerStream = answer.frames.length;

    const bin = process.env.BENCH_NODE_CLIENT ? null : compileClient(dir);
    const deadlineMs = RAMP_MS + eventsPerStream * CHUNK_MS + DEADLINE_SLACK_MS;
    const payload = JSON.stringify(BODY);
    const rawRequest = (url, headers) =>
      `POST ${url.pathname}/responses HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nconnection: close\r\n` +
      Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("") +
      `content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
    // Ours is told the pace and the seed (every stream the same answer as the floor's); the floor ignores headers.
    const headers = { "x-mock-scenario": "long-text", "x-mock-chunk-ms": String(CHUNK_MS), "x-mock-seed": SEED };

    const runOne = async (which) => {
      const server =
        which === "floor"
          ? await startProcess([FLOOR, answerFile, String(CHUNK_MS), "--workers", String(workers)])
          : await startServerProcess(serverArgs);
      const url = new URL(server.baseURL);
      if (which === "ours") {
        // Warm the server up (JIT), as a test suite's first requests would: unpaced answers.
        await Promise.all(Array.from({ length: 20 }, () => capture(server.baseURL)));
      }
      const raw = rawRequest(url, headers);
      const cpuBefore = cpuSeconds(server.pid);
      const systemBefore = systemSeconds(server.pid);
      let records;
      if (bin) {
        const file = join(dir, `${which}.http`);
        writeFileSync(file, raw);
        records = await runNative(bin, url, STREAMS, RAMP_MS, file, deadlineMs);
      } else records = await runNode(url, STREAMS, RAMP_MS, raw, deadlineMs);
      const cpu = cpuSeconds(server.pid) - cpuBefore;
      const system = systemSeconds(server.pid) - systemBefore;
      await server.stop();
      const result = analyse(records, { streams: STREAMS, intervalMs: CHUNK_MS });
      return {
        ...result,
        cpu,
        cpuPerEventUs: (cpu * 1e6) / result.events,
        systemPerEventUs: (system * 1e6) / result.events,
      };
    };

    const runs = { floor: [], ours: [] };
    for (let r = 0; r < rounds; r++) {
      for (const which of r % 2 === 0 ? ["floor", "ours"] : ["ours", "floor"]) {
        const result = await runOne(which);
        runs[which].push(result);
        log(
          `round ${r + 1}, ${which}: p99 ${fmt(result.lateness.p99)} ms, ${result.complete}/${STREAMS} complete, CPU ${fmt(result.cpu)} s`,
        );
      }
    }
    const ratios = runs.ours.map((o, i) => o.lateness.p99 / runs.floor[i].lateness.p99);
    const pick = (list) => list[list.map((x) => x.lateness.p99).indexOf(median(list.map((x) => x.lateness.p99)))];
    const ours = pick(runs.ours);
    const floor = pick(runs.floor);
    const result = {
      streams: STREAMS,
      chunkMs: CHUNK_MS,
      rampMs: RAMP_MS,
      workers,
      rounds,
      client: bin ? "C" : "Node",
      eventsPerStream,
      floor,
      ours,
      runs,
      ratio: median(ratios),
    };
    // For bench/index.mjs, which prints one pacing line: the lateness of ours.
    return { ...result, native: bin ? { steady: ours.lateness } : null, node: { steady: ours.lateness } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads the command line; a bad flag or value is an error naming it as typed. */
function parseArgs(argv) {
  const positional = [];
  const options = { workers: 1, rounds: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--workers" || arg === "--rounds") {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1)
        throw new Error(`${arg} takes a whole number ≥ 1 (got ${argv[i] ?? "nothing"})`);
      options[arg.slice(2)] = value;
    } else if (arg.startsWith("-"))
      throw new Error(
        `unknown option ${arg} (usage: bench/timing.mjs [STREAMS] [INTERVAL_MS] [RAMP_MS] [--workers N] [--rounds N])`,
      );
    else {
      const value = Number(arg);
      if (!Number.isFinite(value) || value < (positional.length === 0 ? 1 : 0))
        throw new Error(
          `not a number of ${["streams", "ms per event", "ramp ms"][positional.length] ?? "anything (too many arguments)"}: ${arg}`,
        );
      positional.push(value);
    }
  }
  if (positional.length > 3) throw new Error(`too many arguments: ${positional.slice(3).join(" ")}`);
  const [STREAMS = 500, CHUNK_MS = 20, RAMP_MS = 2000] = positional;
  return { STREAMS, CHUNK_MS, RAMP_MS, ...options };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`bench:timing: ${err.message}`);
    process.exit(2);
  }
  const r = await measurePacing({ ...args, log: (line) => console.error(line) });
  const { floor, ours } = r;
  const col = (x) => ` ${String(x).padStart(17)}`;
  const row = (label, f, o, extra = "") => console.log(`  ${label.padEnd(30)}${col(f)}${col(o)}${extra}`);
  const ms = (x) => `${fmt(x.p50, 1)} / ${fmt(x.p99, 1)}`;
  console.log(
    `timing benchmark — ${r.streams} streams opened over ${r.rampMs} ms, ${r.chunkMs} ms per event, ${r.eventsPerStream} frames each; ` +
      `${r.client} client${r.client === "Node" ? " (no C compiler, or BENCH_NODE_CLIENT set: the client shares this process, figures are high for both)" : ""}; ` +
      `${r.workers} process${r.workers > 1 ? "es" : ""} each; ${r.rounds > 1 ? `median of ${r.rounds} interleaved rounds` : "1 round"}`,
  );
  row("", "floor", "ours");
  row(
    "lateness p50 / p99 (ms)",
    ms(floor.lateness),
    ms(ours.lateness),
    `   ours ÷ floor (p99): ${fmt(r.ratio)}×  (goal ≤ 1.5×)`,
  );
  row("lateness max (ms)", fmt(floor.lateness.max, 1), fmt(ours.lateness.max, 1));
  row("time to headers p50 / p99", ms(floor.head), ms(ours.head));
  row("time to headers max (ms)", fmt(floor.head.max, 1), fmt(ours.head.max, 1));
  row(`heads within ${HEAD_AT_ONCE_MS} ms`, `${floor.atOnce}/${r.streams}`, `${ours.atOnce}/${r.streams}`);
  row("streams complete ([DONE])", `${floor.complete}/${r.streams}`, `${ours.complete}/${r.streams}`);
  row("events delivered", floor.events, ours.events);
  row(
    "server CPU, µs per event",
    fmt(floor.cpuPerEventUs, 1),
    fmt(ours.cpuPerEventUs, 1),
    `   ratio ${fmt(ours.cpuPerEventUs / floor.cpuPerEventUs)}× (user + system, all its processes)`,
  );
  row("… of which system", fmt(floor.systemPerEventUs, 1), fmt(ours.systemPerEventUs, 1));
  if (r.rounds > 1)
    console.log(
      `  CPU per event per round (floor / ours): ${r.runs.floor.map((f, i) => `${fmt(f.cpuPerEventUs, 1)} / ${fmt(r.runs.ours[i].cpuPerEventUs, 1)} (${fmt(r.runs.ours[i].cpuPerEventUs / f.cpuPerEventUs)}×)`).join(", ")}`,
    );
  if (r.rounds > 1)
    console.log(
      `  p99 per round (floor / ours): ${r.runs.floor.map((f, i) => `${fmt(f.lateness.p99, 1)} / ${fmt(r.runs.ours[i].lateness.p99, 1)}`).join(", ")}`,
    );
  process.exit(0);
}
