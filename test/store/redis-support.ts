/**
 * What the shared-store tests need: a real `redis-server` on a free port (no
 * persistence, a temp dir), stopped at the end, and the built CLI started as
 * a user starts it, read up to its first line.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../support/run.js";

const REDIS_SERVER = "/usr/bin/redis-server";

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts redis-server on a free port; fails with what to install when it is missing. */
export async function startRedis(onPort?: number): Promise<RedisServer> {
  const binary = existsSync(REDIS_SERVER)
    ? REDIS_SERVER
    : spawnSync("which", ["redis-server"]).stdout?.toString().trim();
  if (!binary)
    throw new Error(
      "redis-server is not installed: these tests need a real Redis (Debian: sudo apt-get install -y redis-server; npm test installs it when it can)",
    );
  const port = onPort ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), "orm-redis-"));
  const child = spawn(
    binary,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${out}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CliServer {
  child: ChildProcess;
  /** The base URL (…/v1) of the first line. */
  baseURL: string;
  /** The origin (for /__mock/ routes). */
  origin: string;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

const started: ChildProcess[] = [];

/** Kills what a test left running (afterEach). */
export function killStarted(): void {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

/** Starts the built CLI with `args`; resolves once it printed `openresponses-mock listening on URL`. */
export function startCli(args: string[]): Promise<CliServer> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      const before = out;
      out += d;
      if (before.includes("\n")) return;
      const m = /^openresponses-mock listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(out);
      if (!m) return;
      const baseURL = m[1];
      resolve({
        child,
        baseURL,
        origin: baseURL.slice(0, -"/v1".length),
        stdout: () => out,
        stderr: () => err,
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
          child.kill("SIGTERM");
          const [code] = await once(child, "exit");
          return code as number | null;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before printing its first line: ${err}`)));
  });
}

/** A JSON request; resolves with the status, the headers and the parsed body. */
export async function call(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  const isJson = res.headers.get("content-type")?.startsWith("application/json") ?? false;
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: isJson && text !== "" ? (JSON.parse(text) as Record<string, any>) : undefined,
  };
}
