/** Running a process to its end in tests, and the built CLI in particular. */
import { spawn } from "node:child_process";
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
