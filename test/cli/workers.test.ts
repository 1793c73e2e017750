/**
 * `serve --workers N`: worker processes behind one port, started by the real
 * CLI. Which worker answered is told by the `x-mock-worker` header.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run.js";
import { call, killStarted, startCli, startRedis, type RedisServer } from "../store/redis-support.js";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 20_000);
afterAll(async () => {
  killStarted();
  await redis?.stop();
});
afterEach(killStarted);

/** The pids of a process's children (Linux `ps`). */
function childrenOf(pid: number): number[] {
  let out: string;
  try {
    out = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    return []; // ps exits 1 when there is none
  }
  return out
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const create = (baseURL: string, body: Record<string, unknown>) =>
  call(`${baseURL}/responses`, { body: { model: "m", ...body } });

describe("serve --workers 2 --store redis://…", () => {
  it("answers a previous_response_id chain whose turns land on different workers", async () => {
    const server = await startCli(["serve", "--port", "0", "--workers", "2", "--store", redis.url]);
    // Port 0: the one line names the real port, the same for every worker.
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/v1$/);
    let previous: string | null = null;
    const workers: string[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const res = await create(server.baseURL, { input: `turn ${turn}`, previous_response_id: previous });
      expect(res.status, res.text).toBe(200);
      expect(res.json!.previous_response_id).toBe(previous);
      workers.push(res.headers.get("x-mock-worker")!);
      previous = res.json!.id as string;
    }
    expect(new Set(workers)).toEqual(new Set(["1", "2"]));
    // A turn continued on one worker from a response the other stored.
    expect(workers.some((w, i) => i > 0 && w !== workers[i - 1])).toBe(true);
    // The summary is printed once, by the primary.
    expect(server.stdout().match(/listening on/g)).toHaveLength(1);
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toMatch(/openresponses-mock stopped: 6 requests/);
  }, 30_000);
});

describe("serve --workers 2", () => {
  it("stops cleanly on SIGTERM: every worker ends, none is left", async () => {
    const server = await startCli(["serve", "--port", "0", "--workers", "2", "--log", "off"]);
    const pids = childrenOf(server.child.pid!);
    expect(pids).toHaveLength(2);
    expect((await create(server.baseURL, { input: "hi" })).status).toBe(200);
    expect(server.stdout()).toMatch(/^openresponses-mock listening on http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
    expect(server.stderr()).toContain("--workers 2 with the memory store");
    expect(await server.stop()).toBe(0);
    for (const pid of pids) expect(alive(pid), `worker ${pid}`).toBe(false);
  }, 30_000);

  it("stops its workers when the primary is killed outright", async () => {
    const server = await startCli(["serve", "--port", "0", "--workers", "2", "--log", "off"]);
    const pids = childrenOf(server.child.pid!);
    expect(pids).toHaveLength(2);
    server.child.kill("SIGKILL");
    await once(server.child, "exit");
    for (let i = 0; i < 50 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    for (const pid of pids) expect(alive(pid), `worker ${pid}`).toBe(false);
  }, 30_000);

  it("reports a worker that dies and does not restart it; the others go on serving", async () => {
    const server = await startCli(["serve", "--port", "0", "--workers", "2", "--log", "off", "--store", redis.url]);
    const [first, second] = childrenOf(server.child.pid!);
    process.kill(first, "SIGKILL");
    for (let i = 0; i < 50 && !server.stderr().includes("not restarted"); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(server.stderr()).toMatch(
      new RegExp(
        `openresponses-mock: worker \\d \\(pid ${first}\\) was killed \\(SIGKILL\\); it is not restarted \\(1 of 2 workers left\\)`,
      ),
    );
    expect(childrenOf(server.child.pid!)).toEqual([second]);
    for (let i = 0; i < 3; i++) expect((await create(server.baseURL, { input: "still there?" })).status).toBe(200);
    expect(await server.stop()).toBe(0);
    expect(alive(second)).toBe(false);
  }, 30_000);

  it("prints one startup error and exits 1 when the workers cannot reach Redis", async () => {
    const run = await runCli(["serve", "--port", "0", "--workers", "2", "--store", "redis://127.0.0.1:1"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "openresponses-mock: --store: cannot connect to Redis at redis://127.0.0.1:1 (ECONNREFUSED); start redis-server there, or name another store\n",
    );
  }, 30_000);

  it.each([
    [["--workers", "0"], "--workers: expected a whole number of processes from 1 to 64, got 0"],
    [["--workers", "two"], "--workers: expected a whole number of processes from 1 to 64, got 'two'"],
    [["--workers", "1.5"], "--workers: expected a whole number of processes from 1 to 64, got 1.5"],
    [["--workers", "65"], "--workers: expected a whole number of processes from 1 to 64, got 65"],
  ])("refuses %j, naming the flag", async (args, message) => {
    const run = await runCli(["serve", "--port", "0", ...args]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`openresponses-mock: ${message}\n`);
  });

  it("--workers 1 is one process, as without the flag", async () => {
    const server = await startCli(["serve", "--port", "0", "--workers", "1", "--log", "off"]);
    expect(childrenOf(server.child.pid!)).toEqual([]);
    const res = await create(server.baseURL, { input: "hi" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-mock-worker")).toBeNull();
    expect(await server.stop()).toBe(0);
  }, 30_000);
});
