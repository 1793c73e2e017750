// Shared helpers of the benchmark scripts: start the CLI server in its own process, stats.
import { spawn } from "node:child_process";
import http from "node:http";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/** Starts `openresponses-mock serve --port 0 ...args` and resolves with its base URL and a stop(). */
export function startServerProcess(args = []) {
  // BENCH_CPU_PROF=DIR: our server writes a CPU profile there when it stops (node --cpu-prof).
  const prof = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // --log off: the benchmarks measure answering, not printing a line per request.
  return startProcess([...prof, BIN, "serve", "--port", "0", "--log", "off", ...args]);
}

/** Starts `node ...argv`, waits for its "listening on URL" line, resolves with { baseURL, pid, stop }. */
const children = new Set();
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

export function startProcess(argv) {
  const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      if (out === null) return; // found: the rest of its output is not kept
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (!m) return;
      out = null;
      resolve({
        baseURL: m[1],
        child,
        pid: child.pid,
        stop: () =>
          new Promise((r) => {
            child.once("exit", r);
            child.kill("SIGTERM");
          }),
      });
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

/** Resident memory of a process, in MB (Linux /proc). */
export function rssMB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/**
 * A server's process.memoryUsage() after a GC: the server runs with `--expose-gc --import
 * servers/heap-report.mjs`, which answers SIGUSR2 with a `heap-report {…}` line on its stdout.
 */
export function heapReport(server) {
  return new Promise((resolve) => {
    let out = "";
    const onData = (d) => {
      out += d;
      const m = /heap-report (\{.*\})\n/.exec(out);
      if (!m) return;
      server.child.stdout.off("data", onData);
      resolve(JSON.parse(m[1]));
    };
    server.child.stdout.on("data", onData);
    server.child.kill("SIGUSR2");
  });
}

/** CPU time a process has used so far, user and system, in ms (Linux /proc). */
export function cpuTimes(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
}

/** The median of some numbers (the mean of the two middle ones for an even count). */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * `openresponses-mock serve --port 0 --log off ...serveFlags` in its own process, with
 * `--expose-gc` and servers/heap-report.mjs, so that `heapReport(server)` can ask it for its
 * memory after a GC. `nodeFlags` go to node before the script.
 */
export function startReportingServer(serveFlags = [], nodeFlags = []) {
  const report = fileURLToPath(new URL("./servers/heap-report.mjs", import.meta.url));
  return startProcess([
    "--expose-gc",
    "--import",
    report,
    ...nodeFlags,
    BIN,
    "serve",
    "--port",
    "0",
    "--log",
    "off",
    ...serveFlags,
  ]);
}

/**
 * A keep-alive HTTP client of one server, at most `concurrency` connections:
 * `request(method, path, payload?, headers?)` resolves with the status, the body's size and its
 * text; `send(count, make, headers?)` posts `make(i)` to /v1/responses `count` times,
 * `concurrency` at a time (`headers(i)` adds headers), and resolves with how many failed (the
 * first three are printed).
 */
export function keepAliveClient(baseURL, concurrency) {
  const { hostname, port } = new URL(baseURL);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const request = (method, path, payload, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent,
          hostname,
          port,
          method,
          path,
          headers: {
            ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
            ...headers,
          },
        },
        (res) => {
          let size = 0;
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d) => {
            size += d.length;
            text += d;
          });
          res.on("end", () => resolve({ status: res.statusCode, size, text }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  const send = async (count, make, headers = () => ({})) => {
    let next = 0;
    let failed = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const res = await request("POST", "/v1/responses", make(i), headers(i));
        if (res.status !== 200 && failed++ < 3)
          console.error(`request ${i}: HTTP ${res.status} ${res.text.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return failed;
  };
  return { agent, hostname, port, request, send };
}

/** A process and its children (the workers of --workers), from Linux /proc. */
export function processTree(pid) {
  const tree = [pid];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the name: state, then ppid.
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) tree.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/** CPU time (user + system, ms) used so far by a process and its children; a process gone meanwhile counts 0. */
export function treeCpuMs(pid, part = "both") {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      const { user, system } = cpuTimes(p);
      sum += part === "system" ? system : part === "user" ? user : user + system;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/** Resident memory of a process and its children, in MB. */
export function treeRssMB(pid) {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += rssMB(p);
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/**
 * One streamed answer read whole: POSTs `body` to `url` and resolves with its headers (but
 * the per-connection ones and `x-mock-worker`) and its SSE frames, `data: [DONE]` joined to
 * the last event (they are due together). What a floor server replays.
 */
export function captureStream(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          const frames = text.split(/(?<=\n\n)/);
          if (frames.length > 1 && frames.at(-1).startsWith("data: [DONE]")) {
            const done = frames.pop();
            frames.push(frames.pop() + done);
          }
          const kept = {};
          for (const [k, v] of Object.entries(res.headers))
            if (!["date", "connection", "keep-alive", "transfer-encoding", "x-mock-worker"].includes(k)) kept[k] = v;
          resolve({ headers: kept, frames });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The reply text of a captured answer: a JSON body's first output text, or a stream's `output_text.done` text. */
export function answerText(kind, sample) {
  if (kind === "json") return JSON.parse(sample).output[0].content[0].text;
  const done = sample.split("\n").find((l) => l.includes('"response.output_text.done"'));
  return JSON.parse(done.slice(6)).text;
}

/**
 * One answer of our server at `baseURL` to `body`, as sent, for the peers that replay it: `sample`
 * (its text), `file` (it in a temp file, answer.json or answer.sse by `kind`), and `textFile()`,
 * which writes its reply text (answerText) beside it for aimock and returns that path. The temp
 * folder is removed when the process exits.
 */
export async function captureAnswer(baseURL, kind, body, headers) {
  const res = await fetch(`${baseURL}/responses`, { method: "POST", headers, body: JSON.stringify(body) });
  const sample = await res.text();
  const dir = mkdtempSync(join(tmpdir(), "orm-answer-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, kind === "json" ? "answer.json" : "answer.sse");
  writeFileSync(file, sample);
  const textFile = () => {
    const path = join(dir, "text.txt");
    writeFileSync(path, answerText(kind, sample));
    return path;
  };
  return { sample, file, textFile };
}
