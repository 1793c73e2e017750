// Shared helpers of the benchmark scripts: start the CLI server in its own process, stats.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/** Starts `openresponses-mock serve --port 0 ...args` and resolves with its base URL and a stop(). */
export function startServerProcess(args = []) {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ baseURL: m[1], child, stop: () => new Promise((r) => { child.once("exit", r); child.kill("SIGTERM"); }) });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summary(values) {
  const s = Float64Array.from(values).sort();
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

export const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
