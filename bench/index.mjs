// npm run bench: openresponses-mock against the ceiling (a bare node:http server sending the
// same bytes) and the closest npm peer (@copilotkit/aimock), measured side by side in one run,
// plus memory, start time and pacing. Ratios are what to compare; this machine is noisy.
// Each row runs ROUNDS interleaved rounds (ours, ceiling, aimock, ours, …) and reports each
// target's median, so a slow moment of the machine hits all three alike.
// The every-request-different rows also run the bare mock (servers/bare-mock.mjs): the least a
// mock that really answers does per request, by hand, as a measure of what our own work costs.
// Env: BENCH_SECONDS (per load run, default 2), BENCH_ROUNDS (default 5), BENCH_CONNECTIONS (default 50),
// BENCH_SKIP_PACING=1, BENCH_ONLY (comma-separated row groups to run: plain, stream, distinct, long,
// rss, start, pacing; e.g. BENCH_ONLY=distinct for the every-request-different rows alone).
import autocannon from "autocannon";
import { mkdtempSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, rssMB, startProcess, startServerProcess } from "./lib.mjs";
import { measureStart } from "./start.mjs";
import { measurePacing } from "./timing.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((s) => s.trim())) : null;
/** Whether a group of rows runs (all of them unless BENCH_ONLY names some). */
const runs = (group) => ONLY === null || ONLY.has(group);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "orm-bench-"));
const body = { model: "mock-model-1", input: "hello" };

async function post(baseURL, payload, headers = {}) {
  const res = await fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
  });
  return res.text();
}

/**
 * Requests/s and latency of one target under load. With `vary`, every request's input is
 * different ("hello 1", "hello 2", …), so no answer repeats and the answer memo never helps.
 */
async function load(baseURL, payload, headers = {}, vary = false) {
  let n = 0;
  const r = await autocannon({
    url: `${baseURL}/responses`,
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
    connections: CONNECTIONS,
    duration: SECONDS,
    ...(vary
      ? {
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                body: JSON.stringify({ ...payload, input: `${payload.input} ${++n}` }),
              }),
            },
          ],
        }
      : {}),
  });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0) console.warn(`  (warning: ${bad} failed requests against ${baseURL})`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

const eventsIn = (sse) => sse.split("\n\n").filter((f) => f.startsWith("event:")).length;

// Our server, and the bytes it sends, captured for the ceiling.
const ours = await startServerProcess(["--scenarios", here("./scenarios")]);
const plainJson = await post(ours.baseURL, body);
const shortSse = await post(ours.baseURL, { ...body, stream: true });
const longSse = await post(ours.baseURL, { ...body, stream: true }, { "x-mock-scenario": "long-1000" });
const text = JSON.parse(plainJson).output[0].content[0].text;
const longText = longSse
  .split("\n")
  .filter((l) => l.startsWith("data: {"))
  .map((l) => JSON.parse(l.slice(6)))
  .find((e) => e.type === "response.output_text.done").text;
writeFileSync(join(tmp, "plain.json"), plainJson);
writeFileSync(join(tmp, "short.sse"), shortSse);
writeFileSync(join(tmp, "long.sse"), longSse);
writeFileSync(join(tmp, "text.txt"), text);
writeFileSync(join(tmp, "long.txt"), longText);
const shortEvents = eventsIn(shortSse);
const longEvents = eventsIn(longSse);

const rows = [];
/** The run with the median req/s of several. */
const median = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];
/** The median of the per-round ratios a/b (each round measured the two back to back). */
const medianRatio = (a, b) => a.map((x, i) => x.rps / b[i].rps).sort((x, y) => x - y)[Math.floor(a.length / 2)];

/**
 * One row: ours, the ceiling and aimock, interleaved. With `bare` (the every-request-different
 * rows), the bare mock (servers/bare-mock.mjs, a hand-written mock that does only what any mock
 * must: parse, build, serialise, keep, send) runs in the same rounds.
 */
async function compare(
  label,
  payload,
  oursHeaders,
  ceilingFile,
  aimockArgs,
  perRequest = 1,
  vary = false,
  bare = false,
) {
  const ceiling = await startProcess([here("./servers/ceiling.mjs"), join(tmp, ceilingFile)]);
  const aimock = await startProcess([here("./servers/aimock.mjs"), ...aimockArgs]);
  const bareMock = bare ? await startProcess([here("./servers/bare-mock.mjs"), join(tmp, ceilingFile)]) : null;
  const runs = { ours: [], ceiling: [], aimock: [], bare: [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.ours.push(await load(ours.baseURL, payload, oursHeaders, vary));
    runs.ceiling.push(await load(ceiling.baseURL, payload, {}, vary));
    runs.aimock.push(await load(aimock.baseURL, payload, {}, vary));
    if (bareMock) runs.bare.push(await load(bareMock.baseURL, payload, {}, vary));
  }
  await ceiling.stop();
  await aimock.stop();
  await bareMock?.stop();
  rows.push({
    label,
    perRequest,
    ours: median(runs.ours),
    ceiling: median(runs.ceiling),
    aimock: median(runs.aimock),
    vsCeiling: medianRatio(runs.ours, runs.ceiling),
    vsAimock: medianRatio(runs.ours, runs.aimock),
    perRound: runs.ours.map((o, i) => ({
      vsCeiling: o.rps / runs.ceiling[i].rps,
      vsAimock: o.rps / runs.aimock[i].rps,
      vsBare: bare ? o.rps / runs.bare[i].rps : NaN,
    })),
    bare: bare
      ? {
          ...median(runs.bare),
          vsOurs: medianRatio(runs.ours, runs.bare),
          vsAimock: medianRatio(runs.bare, runs.aimock),
        }
      : null,
  });
}

if (runs("plain")) await compare("non-streaming text (req/s)", body, {}, "plain.json", [join(tmp, "text.txt")]);
if (runs("stream"))
  await compare(`short stream, ${shortEvents} events (req/s)`, { ...body, stream: true }, {}, "short.sse", [
    join(tmp, "text.txt"),
    "8",
  ]);
// The same two with every request different: what an answer costs when it is not a repeat.
if (runs("distinct")) {
  await compare("  …every request different (req/s)", body, {}, "plain.json", [join(tmp, "text.txt")], 1, true, true);
  await compare(
    `  …stream, every request different`,
    { ...body, stream: true },
    {},
    "short.sse",
    [join(tmp, "text.txt"), "8"],
    1,
    true,
    true,
  );
}
if (runs("long"))
  await compare(
    `long stream, ${longEvents} events (events/s)`,
    { ...body, stream: true },
    { "x-mock-scenario": "long-1000" },
    "long.sse",
    [join(tmp, "long.txt"), String(Math.ceil(longText.length / 1000))],
    longEvents,
  );

// RSS with 1,000 open, slow streams (a fresh server each): the default answer, and the 1,000-delta one.
await ours.stop();
async function openStreams(fresh, headers) {
  const agent = new Agent({ keepAlive: false, maxSockets: 2000 });
  const open = [];
  for (let i = 0; i < 1000; i++) {
    open.push(
      new Promise((resolve) => {
        const req = request(
          `${fresh.baseURL}/responses`,
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
        req.end(JSON.stringify({ ...body, stream: true }));
      }),
    );
  }
  const reqs = await Promise.all(open);
  await new Promise((r) => setTimeout(r, 3000));
  const rss = rssMB(fresh.pid);
  for (const r of reqs) r.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  return rss;
}
let rss = null;
if (runs("rss")) {
  // A fresh server for each row: a heap grown by the first thousand streams is not given back to the
  // system at once, so the second row would count the first's high-water mark too.
  const measure = async (headers) => {
    const fresh = await startServerProcess(["--scenarios", here("./scenarios")]);
    const idle = rssMB(fresh.pid);
    const open = await openStreams(fresh, headers);
    await fresh.stop();
    return { idle, open };
  };
  const short = await measure({});
  const long = await measure({ "x-mock-scenario": "long-1000" });
  rss = { idle: short.idle, short: short.open, long: long.open };
}

const start = runs("start") ? await measureStart() : null;
const pacing = process.env.BENCH_SKIP_PACING || !runs("pacing") ? null : await measurePacing();

const pad = (s, n) => String(s).padEnd(n);
const num = (x) => fmt(x, 0).padStart(8);
console.log(
  `\nopenresponses-mock benchmark — ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, median of ${ROUNDS} interleaved runs of ${SECONDS} s × ${CONNECTIONS} connections`,
);
console.log(
  `${pad("", 38)}${"ours".padStart(8)} ${"ceiling".padStart(8)} ${"aimock".padStart(8)}   ${"vs ceiling".padStart(10)} ${"vs aimock".padStart(9)}   latency p50/p99 ms (ours | ceiling | aimock)`,
);
for (const r of rows) {
  const k = r.perRequest;
  console.log(
    `${pad(r.label, 38)}${num(r.ours.rps * k)} ${num(r.ceiling.rps * k)} ${num(r.aimock.rps * k)}   ${fmt(r.vsCeiling).padStart(9)}× ${fmt(r.vsAimock).padStart(8)}×   ` +
      `${r.ours.p50}/${r.ours.p99} | ${r.ceiling.p50}/${r.ceiling.p99} | ${r.aimock.p50}/${r.aimock.p99}`,
  );
  // Each round's own ratios (measured back to back): a target met in every round, not only in the median.
  console.log(
    `${pad("", 40)}per round, vs ceiling: ${r.perRound.map((x) => `${fmt(x.vsCeiling)}×`).join(" ")}; vs aimock: ${r.perRound.map((x) => `${fmt(x.vsAimock)}×`).join(" ")}`,
  );
  if (r.bare) {
    // The same rounds' bare mock: how far our own work is from the least a mock must do.
    console.log(
      `${pad("", 40)}bare mock ${fmt(r.bare.rps, 0)} req/s (${fmt(r.bare.vsAimock)}× aimock); ours ÷ bare mock ${fmt(r.bare.vsOurs)}×, ` +
        `per round ${r.perRound.map((x) => `${fmt(x.vsBare)}×`).join(" ")}`,
    );
  }
}
if (rss)
  console.log(
    `RSS, 1,000 open slow streams          ${fmt(rss.short, 1)} MB with ${shortEvents}-event answers, ${fmt(rss.long, 1)} MB with ${longEvents}-event ones (idle ${fmt(rss.idle, 1)} MB; target < 150 MB)`,
  );
if (start)
  console.log(
    `programmatic start                    median ${fmt(start.median)} ms, p90 ${fmt(start.p90)} ms over ${start.runs} starts`,
  );
if (pacing) {
  const c = pacing.native?.steady ?? pacing.node.steady;
  console.log(
    `pacing error, ${pacing.streams} streams × ${pacing.chunkMs} ms    p50 ${fmt(c.p50)} ms, p99 ${fmt(c.p99)} ms, max ${fmt(c.max)} ms (${pacing.native ? "C" : "Node"} client; target p99 < 2 ms)`,
  );
}
console.log(
  `targets: non-streaming ≥ 0.5× ceiling and ≥ 2× aimock; streaming ≥ 2× aimock; 1,000 open streams < 150 MB`,
);
process.exit(0);
