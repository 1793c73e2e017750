// Journal memory benchmark: the server in its own process (the CLI), N requests of ~1 MB each
// with distinct x-mock-seed headers, then DELETE /__mock/requests, then small requests. It prints
// the server's RSS (from /proc) and its heap after a forced GC (asked for over SIGUSR2) at each
// step. Node does not always give freed memory back to the OS at once, so RSS may lag the heap.
//
//   npm run bench:journal                  (builds, then: node bench/journal.mjs)
//   node bench/journal.mjs [requests] [concurrency] [--store] [serve flags…]
//
// By default the requests send `store: false`, so that what is measured is the journal: a stored
// response keeps its input (1 MB here) and up to --store-limit (1000) of them are kept. With
// --store they are stored, as a client that does not say otherwise would have them.
import http from "node:http";
import { fmt, heapReport, keepAliveClient, rssMB, startReportingServer } from "./lib.mjs";

const args = process.argv.slice(2);
const numbers = [];
while (args.length > 0 && /^\d+$/.test(args[0])) numbers.push(Number(args.shift()));
const [TOTAL = 2000, CONCURRENCY = 4] = numbers;
const STORE = args[0] === "--store" ? (args.shift(), true) : false;
const SERVE_FLAGS = args;
const INPUT_CHARS = 1_048_000;

const server = await startReportingServer(SERVE_FLAGS);
const { agent, hostname, port, request, send } = keepAliveClient(server.baseURL, CONCURRENCY);

/** The server's memory after a GC: its own report (heap) and /proc (RSS). */
async function memory() {
  const usage = await heapReport(server);
  return {
    rss: rssMB(server.pid),
    heap: usage.heapUsed / 2 ** 20,
    external: (usage.external + usage.arrayBuffers) / 2 ** 20,
  };
}

const line = (label, m) =>
  console.log(
    `${label.padEnd(44)} RSS ${fmt(m.rss, 0).padStart(5)} MB   heap ${fmt(m.heap, 0).padStart(5)} MB   external ${fmt(m.external, 0).padStart(4)} MB`,
  );
/** The whole text of one journal page. */
function page(after) {
  return new Promise((resolve, reject) => {
    http
      .get(
        { agent, hostname, port, path: `/__mock/requests?limit=1000${after === undefined ? "" : `&after=${after}`}` },
        (res) => {
          const parts = [];
          res.on("data", (d) => parts.push(d));
          res.on("end", () => resolve(JSON.parse(Buffer.concat(parts).toString("utf8"))));
          res.on("error", reject);
        },
      )
      .on("error", reject);
  });
}
/** Reads the whole journal, page by page: entries, truncated ones, bytes of the whole bodies. */
async function journalSize() {
  let entries = 0;
  let kept = 0;
  let truncated = 0;
  for (let after; ;) {
    const p = await page(after);
    for (const e of p.data) {
      entries++;
      if (e.truncated) truncated++;
      else if (e.rawBody !== null) kept += 2 * e.bodyBytes;
    }
    if (!p.has_more) return { entries, kept, truncated };
    after = p.last_seq;
  }
}

const big = JSON.stringify({ model: "m", input: "x".repeat(INPUT_CHARS), ...(STORE ? {} : { store: false }) });
console.log(
  `journal bench: ${TOTAL} requests of ${fmt(big.length / 2 ** 20)} MB, ${CONCURRENCY} at a time, ${STORE ? "stored" : "store: false"}; serve ${SERVE_FLAGS.join(" ") || "(defaults)"}`,
);
line("started", await memory());
const t0 = performance.now();
const failed = await send(
  TOTAL,
  () => big,
  (i) => ({ "x-mock-seed": String(i + 1) }),
);
const seconds = (performance.now() - t0) / 1000;
line(`after ${TOTAL} × 1 MB (${fmt(seconds, 1)} s${failed ? `, ${failed} failed` : ""})`, await memory());
const j = await journalSize();
console.log(
  `  journal: ${j.entries} entries, ${j.truncated} truncated, whole bodies ≈ ${fmt(j.kept / 2 ** 20, 1)} MB (raw + parsed)`,
);
line("after the journal was read (GET, paged)", await memory());
const cleared = await request("DELETE", "/__mock/requests");
if (cleared.status !== 204) console.error(`DELETE /__mock/requests: HTTP ${cleared.status}`);
line("after DELETE /__mock/requests", await memory());
await send(
  1000,
  (i) => JSON.stringify({ model: "m", input: `small ${i}`, ...(STORE ? {} : { store: false }) }),
  (i) => ({ "x-mock-seed": String(i + 1) }),
);
line("after 1000 small requests", await memory());
await server.stop();
agent.destroy();
