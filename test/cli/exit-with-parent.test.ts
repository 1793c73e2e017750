/**
 * `serve --exit-with-parent`: the server stops once the process that started
 * it is gone, even killed with SIGKILL (which it cannot pass on), and when its
 * stdin pipe ends. Run as harnesses run it: a real parent process, the built CLI.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, startCliLine } from "../support/run.js";

const children: ChildProcess[] = [];
const orphans: number[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
});

/** Whether `pid` runs (a zombie, dead but not yet reaped by whoever adopted it, does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true; // no /proc: kill(pid, 0) is all there is
  }
}

/** Whether anything still answers at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/** Waits (up to `ms`) until the server process has stopped and its port no longer answers; returns whether it did. */
async function stops(pid: number, url: string, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!running(pid) && !(await answers(url))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * A parent process that starts `serve` with `args` (stdin as given), then prints
 * `{"pid": server pid, "url": its URL}` and waits: the test kills it.
 */
async function startParent(
  args: string[],
  stdin: "ignore" | "pipe",
): Promise<{ parent: ChildProcess; pid: number; url: string }> {
  const script = `
    const { spawn } = require("node:child_process");
    const child = spawn(process.execPath, ${JSON.stringify([CLI, "serve", "--port", "0", "--log", "off", ...args])}, { stdio: [${JSON.stringify(stdin)}, "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\\/\\/\\S+)\\/v1\\n/.exec(out);
      if (m) { console.log(JSON.stringify({ pid: child.pid, url: m[1] })); out = ""; }
    });
    setInterval(() => {}, 60000);
  `;
  const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(parent);
  let out = "";
  for await (const chunk of parent.stdout!) {
    out += chunk;
    if (out.includes("\n")) break;
  }
  const { pid, url } = JSON.parse(out) as { pid: number; url: string };
  orphans.push(pid);
  return { parent, pid, url };
}

describe("serve --exit-with-parent", () => {
  it("stops once its parent is killed with SIGKILL (no stdin pipe: the parent pid tells)", async () => {
    const { parent, pid, url } = await startParent(["--exit-with-parent"], "ignore");
    expect(await answers(url)).toBe(true);
    parent.kill("SIGKILL");
    expect(await stops(pid, url)).toBe(true);
  });

  it("stops once its parent is killed with SIGKILL (with a stdin pipe from that parent)", async () => {
    const { parent, pid, url } = await startParent(["--exit-with-parent"], "pipe");
    expect(await answers(url)).toBe(true);
    parent.kill("SIGKILL");
    expect(await stops(pid, url)).toBe(true);
  });

  it("with --workers 2, the primary and its workers stop once the parent is killed", async () => {
    const { parent, pid, url } = await startParent(["--exit-with-parent", "--workers", "2"], "ignore");
    expect(await answers(url)).toBe(true);
    parent.kill("SIGKILL");
    // The port answers no more: no worker is left listening.
    expect(await stops(pid, url)).toBe(true);
  });

  it("stops cleanly (exit code 0) when its stdin pipe ends, the parent alive", async () => {
    const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--log", "off", "--exit-with-parent"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    for await (const chunk of child.stdout!) {
      out += chunk;
      if (out.includes("\n")) break;
    }
    const url = /listening on (http:\/\/\S+)\/v1/.exec(out)![1];
    expect(await answers(url)).toBe(true);
    child.stdin!.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    expect(await answers(url)).toBe(false);
  });

  it("without the flag, the server outlives a parent killed with SIGKILL", async () => {
    const { parent, pid, url } = await startParent([], "pipe");
    parent.kill("SIGKILL");
    await once(parent, "exit");
    // The flagged server is gone within about a second (two checks of its parent); this one still answers after more.
    await new Promise((r) => setTimeout(r, 1500));
    expect(running(pid)).toBe(true);
    expect(await answers(url)).toBe(true);
  });

  it("a stdin that is no pipe (a startCliLine child: /dev/null) does not stop it", async () => {
    const { child, line } = await startCliLine(
      ["serve", "--port", "0", "--log", "off", "--exit-with-parent"],
      children,
    );
    const url = /listening on (http:\/\/\S+)\/v1/.exec(line)![1];
    await new Promise((r) => setTimeout(r, 1000));
    expect(child.exitCode).toBeNull();
    expect(await answers(url)).toBe(true);
  });
});
