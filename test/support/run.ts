/** Running a process to its end in tests, and the built CLI in particular. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI (`npm run build` first). */
export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` to its end and collects its output. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the built CLI with `args` to its end. */
export const runCli = (
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> => runProcess(process.execPath, [CLI, ...args], options);

/**
 * Starts the built CLI with `args` (it keeps running) and resolves with the
 * process and its first stdout line; rejects with its stderr if it exits
 * before printing one. The process goes into `children`, for the test file
 * to kill after each test.
 */
export function startCliLine(
  args: readonly string[],
  children: ChildProcess[],
  cwd?: string,
): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
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
