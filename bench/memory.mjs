// Memory of open streams: a fresh `serve` process (with --expose-gc and heap-report.mjs
// preloaded) holds N open SSE streams, paced slowly (x-mock-chunk-ms 1000) so that none ends
// while it is measured. Reports the server's RSS (from /proc) and, after a GC, its heap, idle and
// with the streams open, and what one open stream costs. Rows: the default answer (20 events)
// and the 1,000-delta one (bench/scenarios/long-1000.json, 1,008 events). RUNS runs, each on a
// fresh server. Only the server's memory is measured (the client is this process).
//
// Beside ours, in the same run: the floor (servers/floor-load.mjs), a bare node:http server that
// holds the same N streams open and writes the same bytes (our answer, captured once) one frame
// a second through a one-timer pacer, and does nothing else. Its RSS is what Node itself needs
// to hold those sockets; ours less the floor's is what the mock adds. Rounds alternate ours and
// the floor, each on a fresh process.
//
//   npm run bench:memory                 (builds, then: node bench/memory.mjs)
//   node bench/memory.mjs [streams] [runs]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, captureStream, fmt, heapReport, rssMB, startProcess } from "./lib.mjs";

const STREAMS = Number(process.argv[2] ?? 1000);
const RUNS = Number(process.argv[3] ?? 3);
/** How long the streams are held open before measuring (the server settles: sockets, store, journal). */
const SETTLE_MS = 3000;
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const body = JSON.stringify({ model: "mock-model-1", input: "hello", stream: true });

/** Opens STREAMS slow streams; resolves once each has its first bytes, with the requests (to cut later). */
async function openStreams(server, headers) {
  const agent = new Agent({ keepAlive: false, maxSockets: STREAMS + 10 });
  const reqs = await Promise.all(
    Array.from(
      { length: STREAMS },
      (_, i) =>
        new Promise((resolve) => {
          const req = request(
            `${server.baseURL}/responses`,
            {
              method: "POST",
              agent,
              headers: {
                "content-type": "application/json",
                "x-mock-chunk-ms": "1000",
                "x-mock-seed": String(i),
                ...headers,
              },
            },
            (res) => {
              res.once("data", () => resolve(req));
            },
          );
          req.on("error", () => resolve(req));
          req.end(body);
        }),
    ),
  );
  return { reqs, agent };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What the processes run with: a GC on SIGUSR2, then a `heap-report` line (servers/heap-report.mjs). */
const REPORTING = ["--expose-gc", "--import", here("./servers/heap-report.mjs")];
const startOurs = () =>
  startProcess([...REPORTING, BIN, "serve", "--port", "0", "--log", "off", "--scenarios", here("./scenarios")]);

const tmp = mkdtempSync(join(tmpdir(), "orm-memory-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));

/**
 * The floor for one answer: our answer (seed 0), captured unpaced from a server of ours, written
 * to a file the floor plays for every request, frame i at i seconds (ours: x-mock-chunk-ms 1000).
 */
async function floorFor(name, headers) {
  const server = await startOurs();
  try {
    const { headers: head, frames } = await captureStream(`${server.baseURL}/responses`, JSON.parse(body), {
      ...headers,
      "x-mock-seed": "0",
    });
    const file = join(tmp, `${name}.json`);
    const offsets = frames.map((_, i) => i * 1000);
    writeFileSync(file, JSON.stringify({ headers: head, answers: { "*": { frames, offsets } } }));
    return () => startProcess([...REPORTING, here("./servers/floor-load.mjs"), file]);
  } finally {
    await server.stop();
  }
}

/** One run: a fresh server, idle then open streams of `headers`' answer; MB figures. */
async function measure(start, headers, warm) {
  const server = await start();
  try {
    // Warm up (ours): one unpaced answer of the kind, so lazy module loading is not counted per stream.
    if (warm)
      await fetch(`${server.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }).then((r) => r.text());
    await sleep(200);
    const idleHeap = (await heapReport(server)).heapUsed;
    const idleRss = rssMB(server.pid);
    const { reqs, agent } = await openStreams(server, headers);
    await sleep(SETTLE_MS);
    const rss = rssMB(server.pid);
    const heap = (await heapReport(server)).heapUsed;
    for (const r of reqs) r.destroy();
    agent.destroy();
    return { idleRss, rss, heapMB: heap / 1048576, perStreamKB: (heap - idleHeap) / STREAMS / 1024 };
  } finally {
    await server.stop();
  }
}

const rows = [
  ["default answer (20 events)", "default", {}],
  ["long-1000 (1,008 events)", "long-1000", { "x-mock-scenario": "long-1000" }],
];
console.log(
  `memory bench: ${STREAMS} open streams paced at 1 s per event, ${RUNS} runs, each on a fresh server (Node ${process.version})`,
);
console.log(
  `${"answer".padEnd(28)} ${"server".padEnd(6)} ${"run".padStart(3)} ${"idle RSS".padStart(9)} ${"open RSS".padStart(9)} ${"heap".padStart(8)} ${"heap/stream".padStart(12)}`,
);
for (const [name, file, headers] of rows) {
  const startFloor = await floorFor(file, headers);
  for (let run = 1; run <= RUNS; run++) {
    for (const [server, start, warm] of [
      ["ours", startOurs, true],
      ["floor", startFloor, false],
    ]) {
      const m = await measure(start, headers, warm);
      console.log(
        `${name.padEnd(28)} ${server.padEnd(6)} ${String(run).padStart(3)} ${(fmt(m.idleRss, 1) + " MB").padStart(9)} ${(fmt(m.rss, 1) + " MB").padStart(9)} ${(fmt(m.heapMB, 1) + " MB").padStart(8)} ${(fmt(m.perStreamKB, 1) + " kB").padStart(12)}`,
      );
    }
  }
}
console.log("target (issue 30): ours ≤ 100 MB RSS with 1,000 open 1,008-event streams");
