// Big inputs and memory that comes back: the built server in its own process (the CLI, defaults:
// store on, --store-limit 1000, --store-bytes 64 MiB, --journal-bytes 64 MiB), then
//   1. 2,000 requests with a 1 MB input each (distinct, stored), RSS sampled every 100 ms;
//   2. 1,100 small requests (they push the big ones out of the store and the journal);
//   3. POST /__mock/reset;
// printing RSS (/proc) and the heap at each step, beside the targets. "RSS" is as the process
// stands; "after GC" is once the server has collected garbage (asked over SIGUSR2, see
// servers/heap-report.mjs), then after 5 s of idling (V8 gives freed pages back to the OS lazily).
//
//   npm run bench:big-inputs              (builds, then: node bench/big-inputs.mjs)
//   node bench/big-inputs.mjs [big] [small] [concurrency] [--snapshot FILE] [serve flags…]
//
// --snapshot FILE writes a heap snapshot of the server after the small requests (analyse it with
// node bench/heap-top.mjs FILE).
import { fmt, heapReport, keepAliveClient, rssMB, startReportingServer } from "./lib.mjs";

const args = process.argv.slice(2);
const numbers = [];
while (args.length > 0 && /^\d+$/.test(args[0])) numbers.push(Number(args.shift()));
const [BIG = 2000, SMALL = 1100, CONCURRENCY = 4] = numbers;
let SNAPSHOT;
if (args[0] === "--snapshot") {
  args.shift();
  SNAPSHOT = args.shift();
}
const SERVE_FLAGS = args;
const INPUT_CHARS = 1_048_000;
const TARGET_PEAK_MB = 400;
const TARGET_AFTER_MB = 250;

const server = await startReportingServer(SERVE_FLAGS, SNAPSHOT ? ["--heapsnapshot-signal=SIGUSR1"] : []);
const { agent, request, send } = keepAliveClient(server.baseURL, CONCURRENCY);

const mb = (bytes) => bytes / 2 ** 20;
const idle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** RSS as it stands, then after a GC (with the heap), then after 5 s more. */
async function memory(label, target) {
  const rss = rssMB(server.pid);
  const usage = await heapReport(server);
  const afterGc = rssMB(server.pid);
  await idle(5000);
  const later = rssMB(server.pid);
  const mark =
    target === undefined
      ? ""
      : `   target < ${target} MB: ${Math.min(rss, afterGc, later) < target ? "met" : "NOT met"}`;
  console.log(
    `${label.padEnd(34)} RSS ${fmt(rss, 0).padStart(4)} MB, after GC ${fmt(afterGc, 0).padStart(4)} MB, 5 s later ${fmt(later, 0).padStart(4)} MB   heap ${fmt(mb(usage.heapUsed), 0).padStart(4)} MB (total ${fmt(mb(usage.heapTotal), 0)})${mark}`,
  );
  return { rss, afterGc, later };
}

console.log(
  `big-inputs bench: ${BIG} requests with a ${fmt(INPUT_CHARS / 1e6, 2)} MB input, then ${SMALL} small ones, ${CONCURRENCY} at a time; serve ${SERVE_FLAGS.join(" ") || "(defaults: store on, --store-bytes 64 MiB, --journal-bytes 64 MiB)"}`,
);
await memory("before");

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, rssMB(server.pid))), 100);
const t0 = performance.now();
const filler = "x".repeat(INPUT_CHARS);
const failed = await send(BIG, (i) => JSON.stringify({ model: "m", input: `${i} ${filler}` }));
clearInterval(sampler);
const end = rssMB(server.pid);
peak = Math.max(peak, end);
console.log(
  `during ${BIG} × 1 MB (${fmt((performance.now() - t0) / 1000, 1)} s${failed ? `, ${failed} failed` : ""}): RSS peak ${fmt(peak, 0)} MB, at the end ${fmt(end, 0)} MB   target < ${TARGET_PEAK_MB} MB: ${peak < TARGET_PEAK_MB ? "met" : "NOT met"}`,
);
await memory(`after ${BIG} × 1 MB`);

await send(SMALL, (i) => JSON.stringify({ model: "m", input: `small ${i}` }));
const after = await memory(`after ${SMALL} small`, TARGET_AFTER_MB);
if (SNAPSHOT) {
  server.child.kill("SIGUSR1");
  await idle(10_000);
  console.log(`heap snapshot written in the server's working directory (Heap.*.heapsnapshot); see bench/heap-top.mjs`);
}

const reset = await request("POST", "/__mock/reset");
if (reset.status !== 204) console.error(`POST /__mock/reset: HTTP ${reset.status}`);
await memory("after POST /__mock/reset", TARGET_AFTER_MB);
console.log(
  `targets: RSS < ${TARGET_PEAK_MB} MB during the big requests (${peak < TARGET_PEAK_MB ? "met" : "NOT met"}: ${fmt(peak, 0)}); < ${TARGET_AFTER_MB} MB once they left the store and the journal (${after.afterGc < TARGET_AFTER_MB ? "met" : "NOT met"} after GC: ${fmt(after.afterGc, 0)}; as it stood ${fmt(after.rss, 0)}, 5 s later ${fmt(after.later, 0)})`,
);
await server.stop();
agent.destroy();
