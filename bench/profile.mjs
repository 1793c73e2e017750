// node bench/profile.mjs [json|short] [seconds] [top]: profiles `serve --log off` (node --cpu-prof)
// under autocannon with every request different ("hello 1", "hello 2", …) and prints the
// functions and files with the most self time. Run `npm run build` first. The profile is kept
// in a temporary directory (its path is printed) for Chrome's DevTools.
import autocannon from "autocannon";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, startProcess } from "./lib.mjs";

const kind = process.argv[2] ?? "json";
const seconds = Number(process.argv[3] ?? 5);
const top = Number(process.argv[4] ?? 30);
const dir = mkdtempSync(join(tmpdir(), "orm-profile-"));
const scenarios = fileURLToPath(new URL("./scenarios", import.meta.url));
const server = await startProcess([
  `--cpu-prof`,
  `--cpu-prof-dir=${dir}`,
  BIN,
  "serve",
  "--port",
  "0",
  "--log",
  "off",
  "--scenarios",
  scenarios,
]);
const body = { model: "mock-model-1", input: "hello", ...(kind === "json" ? {} : { stream: true }) };
let n = 0;
const load = (duration) =>
  autocannon({
    url: `${server.baseURL}/responses`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    connections: 20,
    duration,
    requests: [
      { setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...body, input: `${body.input} ${++n}` }) }) },
    ],
  });
await load(1); // warm-up, in the profile too but small
const r = await load(seconds);
await server.stop(); // SIGTERM: the server exits and Node writes the profile
const file = join(
  dir,
  readdirSync(dir).find((f) => f.endsWith(".cpuprofile")),
);
console.log(
  `${kind}, every request different: ${r.requests.average.toFixed(0)} req/s (${r.non2xx + r.errors} failed); profile ${file}`,
);
summarise(JSON.parse(readFileSync(file, "utf8")), top);

/** Self time per function and per file, as a share of all samples. */
function summarise(profile, top) {
  const time = new Map();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const fns = new Map();
  const files = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const t = time.get(node.id) ?? 0;
    total += t;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/^.*?\/(dist|node_modules)\//, "$1/").replace(/^file:\/\//, "");
    const fn = `${functionName || "(anonymous)"} ${where ? `${where}:${lineNumber + 1}` : ""}`;
    fns.set(fn, (fns.get(fn) ?? 0) + t);
    const f = where || `(${functionName})`;
    files.set(f, (files.get(f) ?? 0) + t);
  }
  const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  console.log(`\nself time, ${(total / 1000).toFixed(0)} ms sampled — functions:`);
  for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
  console.log(`\nby file:`);
  for (const [k, t] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
  // Inclusive time of the project's own functions: each sample counts once for every function on its stack.
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const inclusive = new Map();
  for (const [id, t] of time) {
    const seen = new Set();
    for (let node = byId.get(id); node; node = parent.get(node.id)) {
      const { functionName, url, lineNumber } = node.callFrame;
      if (!url.includes("/dist/")) continue;
      const fn = `${functionName || "(anonymous)"} ${url.replace(/^.*?\/dist\//, "")}:${lineNumber + 1}`;
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + t);
    }
  }
  console.log(`\nthe project's functions, inclusive (self and callees):`);
  for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
}
