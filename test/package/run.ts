/** Running npm, node and tsc as a user would, from the package tests. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The command and all it printed, for a failing assertion's message. */
  output: string;
}

/**
 * The environment without what `npm test` and vitest put in it for their own
 * run: the script's package and lifecycle, npm's local prefix (this
 * repository), and `VITEST*`, which would make a nested vitest think it is a
 * worker. The user's npm settings (`npm_config_registry`, a proxy, the cache) stay.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_(package_|lifecycle_|command$|config_local_prefix$)|vitest|NODE_OPTIONS$|INIT_CWD$)/i.test(key))
      continue;
    env[key] = value;
  }
  env.NO_COLOR = "1";
  return env;
}

/** Runs a command to its end and never throws: the caller asserts on the code with `output` as the message. */
export function run(command: string, args: string[], cwd: string, timeoutMs = 240_000): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const done = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      const status = error
        ? `failed to start: ${error.message}`
        : `exit code ${code}${signal ? `, signal ${signal}` : ""}`;
      const output = `$ ${[command, ...args].join(" ")}   (in ${cwd})\n${status}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
      resolve({ code, signal, stdout, stderr, output });
    };
    child.on("error", (error) => done(null, null, error));
    child.on("close", (code, signal) => done(code, signal));
  });
}
