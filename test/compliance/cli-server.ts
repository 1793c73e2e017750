/**
 * Starts the real `openresponses-mock serve --port 0` (the built dist/) as a
 * child process and reads the base URL from its one stdout line. Default
 * scenarios: no scenario flags, and the checks send no scenario headers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

const LINE = /^openresponses-mock listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/;

export interface CliServer {
  /** For example `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function startCliServer(extraArgs: string[] = [], timeoutMs = 15_000): Promise<CliServer> {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` first`);
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(
        new Error(
          `no listening line within ${timeoutMs} ms; stdout=${JSON.stringify(out)} stderr=${JSON.stringify(err)}`,
        ),
      );
    }, timeoutMs);
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      const line = out.slice(0, nl).replace(/\r$/, "");
      const match = LINE.exec(line);
      if (match) resolve(match[1]);
      else {
        child.kill("SIGTERM");
        reject(new Error(`unexpected first stdout line: ${JSON.stringify(line)}`));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before printing its line: ${err}`));
    });
  });

  let stopping: Promise<number | null> | undefined;
  return {
    baseUrl,
    child,
    stderr: () => err,
    stop() {
      if (!stopping) {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), 5_000);
        stopping = exited.finally(() => clearTimeout(force));
      }
      return stopping;
    },
  };
}
