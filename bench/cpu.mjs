// npm run bench:cpu -- [json|short|long] [serve flags…]: the server's CPU time per request
// (user and system, from /proc) for openresponses-mock and the ceiling, under the same load —
// where the time goes, less noisy than req/s alone. Env: BENCH_SECONDS (default 4), ROUNDS (default 2).
import autocannon from "autocannon";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startProcess, startServerProcess } from "./lib.mjs";
const kind = process.argv[2] ?? "json";
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const body = { model: "mock-model-1", input: "hello", ...(kind === "json" ? {} : { stream: true }) };
const headers = { "content-type": "application/json", ...(kind === "long" ? { "x-mock-scenario": "long-1000" } : {}) };
const ours = await startServerProcess(["--scenarios", here("./scenarios"), ...process.argv.slice(3)]);
const sample = await (await fetch(`${ours.baseURL}/responses`, { method: "POST", headers, body: JSON.stringify(body) })).text();
const tmp = mkdtempSync(join(tmpdir(), "orm-quick-"));
const file = join(tmp, kind === "json" ? "x.json" : "x.sse");
writeFileSync(file, sample);
const ceiling = await startProcess([here("./servers/ceiling.mjs"), file]);
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" "); return { u: Number(f[11]) * 10, s: Number(f[12]) * 10 }; };
const run = async (srv) => {
  const a = cpu(srv.pid);
  const r = await autocannon({ url: `${srv.baseURL}/responses`, method: "POST", headers, body: JSON.stringify(body), connections: 50, duration: Number(process.env.BENCH_SECONDS ?? 4) });
  const b = cpu(srv.pid);
  const n = r.requests.total;
  return `${r.requests.average.toFixed(0)} req/s, user ${((b.u - a.u) * 1000 / n).toFixed(1)} µs/req, sys ${((b.s - a.s) * 1000 / n).toFixed(1)} µs/req`;
};
for (let i = 0; i < Number(process.env.ROUNDS ?? 2); i++) {
  console.log(`${kind} ours:    ${await run(ours)}`);
  console.log(`${kind} ceiling: ${await run(ceiling)}`);
}
process.exit(0);
