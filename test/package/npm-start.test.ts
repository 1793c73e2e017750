/**
 * `npm start` from a clone: SIGTERM to npm's PID stops the server. npm runs the
 * script through `sh -c`, and a shell that waits for node dies of the signal
 * and leaves node serving; the script `exec`s node, so npm's signal reaches it.
 * Linux only (descendants are read from /proc).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, cleanEnv } from "./run.js";

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

/** Every live process, from /proc (a process can end between the listing and the read: it is left out). */
function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim();
      out.push({ pid: Number(name), ppid: Number(ppid), state, cmdline });
    } catch {
      // gone
    }
  }
  return out;
}

function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** Alive and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  return processes().some((p) => p.pid === pid && p.state !== "Z");
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Polls until `check` holds, up to a bound (a failure bound, not a timing assertion). */
async function eventually(check: () => boolean | Promise<boolean>, tries = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

const started: ChildProcess[] = [];
const strays: number[] = [];
afterEach(() => {
  // A failing run must not leave a server behind: end what this test started, by PID.
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

describe.skipIf(process.platform !== "linux")("npm start", () => {
  it("stops the server when npm's PID gets SIGTERM", { timeout: 60_000 }, async () => {
    expect(existsSync(join(REPO, "dist/cli/main.js")), "dist/ is missing: run `npm run build` first").toBe(true);
    const npm = spawn("npm", ["start", "--", "--port", "0"], {
      cwd: REPO,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(npm);
    let output = "";
    npm.stdout.on("data", (d) => (output += d));
    npm.stderr.on("data", (d) => (output += d));
    const exited = once(npm, "exit");

    const port = await new Promise<number>((resolve, reject) => {
      const look = () => {
        const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) resolve(Number(match[1]));
      };
      npm.stdout.on("data", look);
      npm.stderr.on("data", look);
      npm.once("exit", (code, signal) =>
        reject(new Error(`npm start ended (${code ?? signal}) before the server listened:\n${output}`)),
      );
    });
    const servers = descendants(npm.pid!);
    strays.push(...servers.map((p) => p.pid));
    const node = servers.find((p) => p.cmdline.includes("dist/cli/main.js"));
    expect(node, `no node server among npm's descendants:\n${JSON.stringify(servers, null, 2)}`).toBeDefined();
    expect(await portOpen(port)).toBe(true);

    npm.kill("SIGTERM");
    await exited;

    const gone = await eventually(() => servers.every((p) => !alive(p.pid)));
    expect(
      gone,
      `still running after npm ended:\n${JSON.stringify(
        servers.filter((p) => alive(p.pid)),
        null,
        2,
      )}\n${output}`,
    ).toBe(true);
    expect(await portOpen(port), `port ${port} still open after npm ended:\n${output}`).toBe(false);
  });
});
