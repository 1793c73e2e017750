// npm run bench:compare -- [REF] [serve flags…]: this checkout's build beside the build of a git
// ref (default: origin/main, else main), under the same load, rounds interleaved, every request
// different ("hello 1", "hello 2", …): JSON and short SSE answers. It prints, per kind, each
// round's req/s and server CPU per request (user + system, from /proc), then the medians and
// new ÷ old. The ref is checked out in a temporary git worktree that borrows this checkout's
// node_modules, built there, and removed at the end.
// KINDS may also hold `pacer`: our own CPU per paced event with no I/O (bench/pacer.mjs, each
// build's own copy, PACER_STREAMS streams, default 500), old and new in turn, one run a round.
// Env: BENCH_SECONDS (default 4), ROUNDS (default 5), KINDS (default "json,short"), PACER_STREAMS.
import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BIN, cpuTimes, median, startProcess } from "./lib.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
const args = process.argv.slice(2);
const ref =
  args[0] && !args[0].startsWith("-")
    ? args.shift()
    : (() => {
        try {
          git("rev-parse", "--verify", "-q", "origin/main");
          return "origin/main";
        } catch {
          return "main";
        }
      })();
const sha = git("rev-parse", "--verify", `${ref}^{commit}`);
const kinds = (process.env.KINDS ?? "json,short").split(",");
const rounds = Number(process.env.ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);

const dir = mkdtempSync(join(tmpdir(), "orm-compare-"));
const worktree = join(dir, "old");
const cleanup = () => {
  try {
    git("worktree", "remove", "--force", worktree);
  } catch {
    // Not added, or already gone.
  }
  rmSync(dir, { recursive: true, force: true });
};
process.on("exit", cleanup);
process.on("SIGINT", () => process.exit(130));
git("worktree", "add", "--detach", worktree, sha);
symlinkSync(join(root, "node_modules"), join(worktree, "node_modules"), "dir");
console.log(`building ${ref} (${sha.slice(0, 10)}) in ${worktree}`);
execFileSync("npm", ["run", "build", "--silent"], { cwd: worktree, stdio: ["ignore", "ignore", "inherit"] });
const oldBin = join(worktree, "dist/cli/main.js");
if (!existsSync(oldBin)) throw new Error(`the build of ${ref} has no dist/cli/main.js`);

const serve = (bin) =>
  startProcess([bin, "serve", "--port", "0", "--log", "off", "--scenarios", join(root, "bench/scenarios"), ...args]);
const servers = [
  ["old", await serve(oldBin)],
  ["new", await serve(BIN)],
];

/** CPU time so far, user + system, in ms. */
const cpu = (pid) => {
  const { user, system } = cpuTimes(pid);
  return user + system;
};

/** One round on one server: req/s, and µs of server CPU per request. */
async function round(srv, kind) {
  const body = { model: "mock-model-1", input: "hello", ...(kind === "json" ? {} : { stream: true }) };
  let n = 0;
  const before = cpu(srv.pid);
  const r = await autocannon({
    url: `${srv.baseURL}/responses`,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections: 20,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ ...body, input: `${body.input} ${srv.pid} ${++n}` }),
        }),
      },
    ],
  });
  const failed = r.non2xx + r.errors + r.timeouts;
  if (failed > 0) throw new Error(`${failed} requests failed`);
  return { rps: r.requests.average, cpu: ((cpu(srv.pid) - before) * 1000) / r.requests.total };
}

/** One round of bench/pacer.mjs from a checkout: µs of CPU (user + system) per paced event. */
function pacerRound(checkout) {
  const script = join(checkout, "bench/pacer.mjs");
  if (!existsSync(script))
    throw new Error(`${checkout} has no bench/pacer.mjs: the pacer kind needs it in both builds`);
  const out = execFileSync(process.execPath, [script, process.env.PACER_STREAMS ?? "500"], { encoding: "utf8" });
  const m = /([\d.]+) µs user \+ ([\d.]+) µs system/.exec(out);
  if (!m) throw new Error(`bench/pacer.mjs printed no figures: ${out}`);
  return { rps: NaN, cpu: Number(m[1]) + Number(m[2]) };
}
const checkouts = { old: worktree, new: root };

const results = {};
for (const kind of kinds) {
  if (kind === "pacer") {
    results.pacer = { old: [], new: [] };
    for (let i = 0; i < rounds; i++) {
      for (const name of i % 2 === 0 ? ["old", "new"] : ["new", "old"]) {
        const r = pacerRound(checkouts[name]);
        results.pacer[name].push(r);
        console.log(`pacer round ${i + 1} ${name}: ${r.cpu.toFixed(2).padStart(6)} µs CPU per paced event`);
      }
    }
    continue;
  }
  // A warm-up round each, not counted.
  for (const [, srv] of servers) await round(srv, kind);
  results[kind] = { old: [], new: [] };
  for (let i = 0; i < rounds; i++) {
    // Interleaved, and each round starts with the other one, so neither always runs first.
    const order = i % 2 === 0 ? servers : [...servers].reverse();
    for (const [name, srv] of order) {
      const r = await round(srv, kind);
      results[kind][name].push(r);
      console.log(
        `${kind.padEnd(5)} round ${i + 1} ${name}: ${r.rps.toFixed(0).padStart(6)} req/s  ${r.cpu.toFixed(1).padStart(6)} µs CPU/req`,
      );
    }
  }
}
console.log(`\nmedians of ${rounds} rounds (${seconds} s each, 20 connections, every request different):`);
console.log("kind   old req/s  new req/s  new÷old   old µs/req  new µs/req  new÷old   (pacer: µs per paced event)");
for (const kind of kinds) {
  const o = results[kind].old;
  const n = results[kind].new;
  const [or, nr] = [median(o.map((r) => r.rps)), median(n.map((r) => r.rps))];
  const [oc, nc] = [median(o.map((r) => r.cpu)), median(n.map((r) => r.cpu))];
  // The pacer kind has no req/s, and its CPU is per paced event.
  const rate = (x) => (Number.isNaN(x) ? "-" : x.toFixed(0)).padStart(9);
  const ratio = Number.isNaN(or) ? "-".padStart(7) : (nr / or).toFixed(3).padStart(7);
  const digits = kind === "pacer" ? 2 : 1;
  console.log(
    `${kind.padEnd(5)}  ${rate(or)}  ${rate(nr)}  ${ratio}   ${oc.toFixed(digits).padStart(10)}  ${nc.toFixed(digits).padStart(10)}  ${(nc / oc).toFixed(3).padStart(7)}`,
  );
}
for (const [, srv] of servers) await srv.stop();
process.exit(0);
