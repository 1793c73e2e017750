// npm run bench:cpu -- [json|short|long][-distinct] [serve flags…]: the server's CPU time per request
// (user and system, from /proc) for openresponses-mock, the ceiling and aimock, under the same load —
// where the time goes, less noisy than req/s alone. With `-distinct` (json-distinct, short-distinct)
// every request's input is different ("hello 1", "hello 2", …), as a test suite's are.
// With -distinct the bare mock (servers/bare-mock.mjs) runs too.
// Env: BENCH_SECONDS (default 4), ROUNDS (default 2), BENCH_AIMOCK=0 to leave aimock out.
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { captureAnswer, cpuTimes, startProcess, startServerProcess } from "./lib.mjs";
const arg = process.argv[2] ?? "json";
const vary = arg.endsWith("-distinct");
const kind = vary ? arg.slice(0, -"-distinct".length) : arg;
if (!["json", "short", "long"].includes(kind)) {
  console.error(`bench:cpu: unknown kind '${arg}'; use json, short or long, each optionally with -distinct`);
  process.exit(2);
}
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const body = { model: "mock-model-1", input: "hello", ...(kind === "json" ? {} : { stream: true }) };
const headers = { "content-type": "application/json", ...(kind === "long" ? { "x-mock-scenario": "long-1000" } : {}) };
const ours = await startServerProcess(["--scenarios", here("./scenarios"), ...process.argv.slice(3)]);
const { file, textFile } = await captureAnswer(ours.baseURL, kind, body, headers);
const targets = [
  ["ours", ours],
  ["ceiling", await startProcess([here("./servers/ceiling.mjs"), file])],
];
// The bare mock (servers/bare-mock.mjs) with every request different: what a mock that only parses, builds and serialises costs.
if (vary && kind !== "long") targets.push(["bare", await startProcess([here("./servers/bare-mock.mjs"), file])]);
if (process.env.BENCH_AIMOCK !== "0" && kind !== "long") {
  // aimock answers the same text, in 8-character deltas as `npm run bench` has it.
  targets.push(["aimock", await startProcess([here("./servers/aimock.mjs"), textFile(), "8"])]);
}
const run = async (srv) => {
  let n = 0;
  const a = cpuTimes(srv.pid);
  const r = await autocannon({
    url: `${srv.baseURL}/responses`,
    method: "POST",
    headers,
    body: JSON.stringify(body),
    connections: 50,
    duration: Number(process.env.BENCH_SECONDS ?? 4),
    ...(vary
      ? {
          requests: [
            { setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...body, input: `${body.input} ${++n}` }) }) },
          ],
        }
      : {}),
  });
  const b = cpuTimes(srv.pid);
  const total = r.requests.total;
  const bad = r.non2xx + r.errors + r.timeouts;
  const user = ((b.user - a.user) * 1000) / total;
  const sys = ((b.system - a.system) * 1000) / total;
  return {
    line: `${r.requests.average.toFixed(0)} req/s, user ${user.toFixed(1)} µs/req, sys ${sys.toFixed(1)} µs/req, total ${(user + sys).toFixed(1)}${bad ? ` (${bad} failed)` : ""}`,
    total: user + sys,
  };
};
for (let i = 0; i < Number(process.env.ROUNDS ?? 2); i++) {
  const totals = {};
  for (const [name, srv] of targets) {
    const r = await run(srv);
    totals[name] = r.total;
    console.log(`${arg} ${`${name}:`.padEnd(8)} ${r.line}`);
  }
  if (totals.aimock) console.log(`${arg} CPU per request, aimock ÷ ours: ${(totals.aimock / totals.ours).toFixed(2)}×`);
  if (totals.bare) console.log(`${arg} CPU per request, bare mock ÷ ours: ${(totals.bare / totals.ours).toFixed(2)}×`);
}
process.exit(0);
