// Store memory benchmark: 100,000 small non-streaming requests (each a new
// stored response) against one in-process server with storeLimit 1000. Prints
// RSS and heap used at checkpoints (after a GC when run with --expose-gc) to
// show memory stays flat once the store is full, then the store size, probed
// over HTTP (it should be exactly the cap).
//
//   npm run bench:store          (builds, then: node --expose-gc bench/store.mjs)
//   node --expose-gc bench/store.mjs [total] [concurrency]
import { startMockServer } from "../dist/index.js";
import { keepAliveClient } from "./lib.mjs";

const TOTAL = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const STORE_LIMIT = 1000;
const CHECKPOINTS = [0, 10_000, 25_000, 50_000, 75_000, 100_000].filter((n) => n <= TOTAL);
if (CHECKPOINTS.at(-1) !== TOTAL) CHECKPOINTS.push(TOTAL);
/** How many of the newest ids are kept to probe the store with at the end. */
const RECENT = 5 * STORE_LIMIT;

const mock = await startMockServer({ port: 0, storeLimit: STORE_LIMIT });
const client = keepAliveClient(mock.url, CONCURRENCY);
const { agent } = client;
/** One request over the keep-alive agent, with a JSON body; resolves with status and body text. */
const request = (method, path, body) =>
  client.request(method, path, body === undefined ? undefined : JSON.stringify(body));

// The newest ids in a ring (bounded, so the client's own memory stays flat too).
const recent = new Array(RECENT);
let sent = 0;
let received = 0;
let failures = 0;

/** Sends requests number [from, to) with CONCURRENCY workers. */
async function runUntil(to) {
  const worker = async () => {
    while (sent < to) {
      const n = sent++;
      const res = await request("POST", "/v1/responses", { model: "bench", input: `Request ${n}: reply briefly.` });
      if (res.status !== 200) {
        if (failures++ < 5) console.error(`request ${n}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
        continue;
      }
      recent[received++ % RECENT] = JSON.parse(res.text).id;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function settle() {
  if (typeof global.gc === "function") {
    for (let i = 0; i < 3; i++) {
      global.gc();
      await new Promise((r) => setImmediate(r));
    }
  }
}

const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
const MB = (b) => fmt(b / 1024 / 1024, 1);
const rows = [];
console.log(
  `store bench: ${TOTAL} requests, concurrency ${CONCURRENCY}, storeLimit ${STORE_LIMIT}, gc ${typeof global.gc === "function" ? "on" : "off (run with node --expose-gc)"}`,
);
console.log(
  `${"requests".padStart(9)} ${"rss MB".padStart(8)} ${"heap MB".padStart(8)} ${"ext MB".padStart(7)} ${"req/s".padStart(8)}`,
);
let lastAt = performance.now();
let lastCount = 0;
for (const checkpoint of CHECKPOINTS) {
  await runUntil(checkpoint);
  const now = performance.now();
  const rate = checkpoint > lastCount ? ((checkpoint - lastCount) / (now - lastAt)) * 1000 : NaN;
  await settle();
  const m = process.memoryUsage();
  rows.push({ n: checkpoint, rss: m.rss, heap: m.heapUsed });
  console.log(
    `${String(checkpoint).padStart(9)} ${MB(m.rss).padStart(8)} ${MB(m.heapUsed).padStart(8)} ${MB(m.external).padStart(7)} ${fmt(rate, 0).padStart(8)}`,
  );
  lastAt = performance.now();
  lastCount = checkpoint;
}

// The store's size, from outside: among the newest ids, how many GET answers 200.
const probe = recent.slice(0, Math.min(received, RECENT)).filter(Boolean);
const distinct = new Set(probe).size;
let stored = 0;
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < probe.length) {
      const id = probe[next++];
      const res = await request("GET", `/v1/responses/${id}`);
      if (res.status === 200) stored++;
      else if (res.status !== 404) failures++;
    }
  }),
);

const fromFull = rows.find((r) => r.n >= 10_000) ?? rows[0];
const last = rows.at(-1);
console.log(`\nfailed requests: ${failures}`);
console.log(`distinct ids among the newest ${probe.length}: ${distinct}`);
console.log(
  `store size (GET 200 among the newest ${probe.length} ids; older ones were evicted): ${stored} (limit ${STORE_LIMIT})`,
);
console.log(
  `growth from ${fromFull.n} to ${last.n} requests: rss ${MB(last.rss - fromFull.rss)} MB, heap ${MB(last.heap - fromFull.heap)} MB`,
);

agent.destroy();
await mock.close();
if (failures > 0 || stored !== Math.min(STORE_LIMIT, received) || distinct !== probe.length) process.exitCode = 1;
