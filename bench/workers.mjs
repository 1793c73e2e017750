// npm run bench:workers: what `--workers 2` buys over one process, on the requests that differ
// (every request's input is different, as in bench/index.mjs's "every request different" rows,
// so no answer repeats). Targets, measured in interleaved rounds (one, two, two+redis, one, …)
// so that a slow moment of the machine hits all alike; each row reports the medians and the
// median of the per-round ratios to one worker:
//   - one process (the default),
//   - --workers 2 (each worker keeps its own in-memory store),
//   - --workers 2 --store redis://… (a redis-server this script starts; skipped without one):
//     every stored response is written to Redis, every create reads the session controls there.
// The load generator (autocannon) runs on the same machine and takes a core of its own: on a
// 2-core machine two workers compete with it, so the ratio is a floor, not what a spare core gives.
// Env: BENCH_SECONDS (per load run, default 2), BENCH_ROUNDS (default 5), BENCH_CONNECTIONS (default 50).
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, startServerProcess } from "./lib.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REDIS_SERVER = "/usr/bin/redis-server";
const body = { model: "mock-model-1", input: "hello" };

/** Requests/s of one target under load, every request's input different. */
async function load(baseURL, payload) {
  let n = 0;
  const r = await autocannon({
    url: `${baseURL}/responses`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(payload),
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      { setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...payload, input: `${payload.input} ${++n}` }) }) },
    ],
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) console.warn(`  (warning: ${bad} failed requests against ${baseURL})`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

/** A redis-server on a free port, no persistence; undefined when it is not installed. */
async function startRedis() {
  if (!existsSync(REDIS_SERVER)) return undefined;
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  const dir = mkdtempSync(join(tmpdir(), "orm-bench-redis-"));
  const child = spawn(
    REDIS_SERVER,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let out = "";
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => (out += d).includes("Ready to accept connections") && resolve());
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code})`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const redis = await startRedis();
const targets = [
  { name: "one process", args: [] },
  { name: "--workers 2", args: ["--workers", "2"] },
  ...(redis ? [{ name: "--workers 2 --store redis", args: ["--workers", "2", "--store", redis.url] }] : []),
];
for (const t of targets) t.server = await startServerProcess(t.args);

const rows = [];
for (const [label, payload] of [
  ["non-streamed, every request different", body],
  ["streamed, every request different", { ...body, stream: true }],
]) {
  const runs = targets.map(() => []);
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, t] of targets.entries()) runs[i].push(await load(t.server.baseURL, payload));
  rows.push({
    label,
    cells: targets.map((t, i) => ({
      name: t.name,
      rps: median(runs[i].map((r) => r.rps)),
      p99: median(runs[i].map((r) => r.p99)),
      // The median of the per-round ratios to one process (each round measured them back to back).
      ratio: median(runs[i].map((r, k) => r.rps / runs[0][k].rps)),
    })),
  });
}
for (const t of targets) await t.server.stop();
await redis?.stop();

console.log(
  `\n--workers, ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections (medians; ratio: to one process, the same round)`,
);
for (const row of rows) {
  console.log(`\n${row.label}`);
  for (const c of row.cells)
    console.log(
      `  ${c.name.padEnd(28)} ${fmt(c.rps, 0).padStart(8)} req/s   p99 ${fmt(c.p99, 0).padStart(4)} ms   ${fmt(c.ratio)}×`,
    );
}
if (!redis) console.log("\n(redis-server not found at /usr/bin/redis-server: the Redis row was skipped)");
