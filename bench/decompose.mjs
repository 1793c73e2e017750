// npm run bench:decompose -- [json|short]: where a request that never repeats spends its CPU, for
// JSON and for short SSE answers (both, one after the other, unless one kind is named).
// The server's CPU time per request (user + system, from /proc) under the same load, every
// request's input different ("hello 1", "hello 2", …), for:
//   aimock        @copilotkit/aimock answering the same text (the peer)
//   bare mock     servers/bare-mock.mjs: parse, build by spreading, JSON.stringify, a bounded Map, send
//   ours, shell   our body reader and JSON writer around a captured answer (json only)
//   ours, lean    openresponses-mock with the journal and the store keeping nothing
//                 (journalLimit 0, storeLimit 0: options the CLI does not take)
//   ours, no journal / ours, no store    one of the two off
//   ours          openresponses-mock as `serve` starts it
// Rounds are interleaved (this VM's speed drifts within minutes); the median of each is printed,
// with aimock's CPU per request divided by each (the figure the "≥ 2× aimock" target reads).
// Env: ROUNDS (default 7), BENCH_SECONDS (default 2 per target and round).
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { captureAnswer, cpuTimes, median, startProcess, startServerProcess } from "./lib.mjs";

const named = process.argv[2];
if (named !== undefined && named !== "json" && named !== "short") {
  console.error(`bench:decompose: unknown kind '${named}'; use json or short`);
  process.exit(2);
}
const rounds = Number(process.env.ROUNDS ?? 7);
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const headers = { "content-type": "application/json" };
const scenarios = here("./scenarios");
/** CPU time so far, user + system, in ms. */
const cpu = (pid) => {
  const { user, system } = cpuTimes(pid);
  return user + system;
};
let n = 0;

/** One kind's decomposition: its own servers (the peers answer with that kind's captured answer), rounds, table. */
async function decompose(kind) {
  const body = { model: "mock-model-1", input: "hello", ...(kind === "json" ? {} : { stream: true }) };
  const ours = await startServerProcess(["--scenarios", scenarios]);
  const { file, textFile } = await captureAnswer(ours.baseURL, kind, body, headers);
  const withOptions = (options) =>
    startProcess([here("./servers/ours-options.mjs"), JSON.stringify({ scenarios, ...options })]);
  const targets = [
    ["aimock", await startProcess([here("./servers/aimock.mjs"), textFile(), "8"])],
    ["bare mock", await startProcess([here("./servers/bare-mock.mjs"), file])],
    ...(kind === "json" ? [["ours, shell", await startProcess([here("./servers/ours-shell.mjs"), file])]] : []),
    ["ours, lean", await withOptions({ journalLimit: 0, storeLimit: 0 })],
    ["ours, no journal", await withOptions({ journalLimit: 0 })],
    ["ours, no store", await withOptions({ storeLimit: 0 })],
    ["ours", ours],
  ];
  const load = (srv, duration) =>
    autocannon({
      url: `${srv.baseURL}/responses`,
      method: "POST",
      headers,
      connections: 20,
      duration,
      requests: [
        { setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...body, input: `${body.input} ${++n}` }) }) },
      ],
    });
  for (const [, srv] of targets) await load(srv, 1); // warm-up
  const perRequest = new Map(targets.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, srv] of targets) {
      const before = cpu(srv.pid);
      const result = await load(srv, seconds);
      const failed = result.non2xx + result.errors + result.timeouts;
      if (failed > 0) console.error(`${name}: ${failed} requests failed in round ${r + 1}`);
      perRequest.get(name).push(((cpu(srv.pid) - before) * 1000) / result.requests.total);
    }
  }
  const aimock = median(perRequest.get("aimock"));
  console.log(
    `\nCPU per request (µs, user + system), every request different, ${kind === "json" ? "non-streamed" : "streamed"}; median of ${rounds} interleaved rounds of ${seconds} s × 20 connections`,
  );
  console.log(`${"".padEnd(18)}${"median".padStart(8)}  aimock ÷ it   rounds`);
  for (const [name] of targets) {
    const xs = perRequest.get(name);
    const m = median(xs);
    console.log(
      `${name.padEnd(18)}${m.toFixed(0).padStart(8)}  ${(aimock / m).toFixed(2).padStart(9)}×   ${xs.map((x) => x.toFixed(0)).join(" ")}`,
    );
  }
  for (const [, srv] of targets) await srv.stop();
}

for (const kind of named === undefined ? ["json", "short"] : [named]) await decompose(kind);
process.exit(0);
