/** The `openresponses-mock` command, run as a user runs it (the built dist/). */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

/** Starts the CLI and resolves with the first stdout line. */
function start(args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) resolve({ child, line: out.slice(0, nl) });
    });
    child.stderr!.on("data", (d) => (err += d));
    child.on("exit", (code) => reject(new Error(`exited ${code} before printing a line: ${err}`)));
  });
}

describe("openresponses-mock serve", () => {
  it("prints the base URL, serves, and stops cleanly on SIGTERM", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--seed", "3"]);
    const match = /^openresponses-mock listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line);
    expect(match, line).not.toBeNull();
    const baseURL = match![1];
    const res = await fetch(`${baseURL}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", input: "hi" }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("is the default command, and SIGINT stops it", async () => {
    const { child, line } = await start(["--port", "0"]);
    expect(line).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
    child.kill("SIGINT");
    const [code] = await once(child, "exit");
    expect(code).toBe(130);
  });

  it("requires the API key it was given", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--api-key", "k1"]);
    const baseURL = line.split(" ").at(-1)!;
    const denied = await fetch(`${baseURL}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(denied.status).toBe(401);
    const allowed = await fetch(`${baseURL}/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer k1" }, body: JSON.stringify({ model: "m", input: "x" }) });
    expect(allowed.status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("refuses a bad option with a message and exit code 1", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "99999"], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d) => (err += d));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(err).toMatch(/port/);
  });
});
