// The action's main step: starts openresponses-mock in the background, waits for
// /health, sets the outputs base-url, url and log-file, exports OPENAI_BASE_URL and
// OPENAI_API_KEY (export-env), and saves what the post step needs in its state.
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportVariable, fail, getBooleanInput, getInput, info, saveState, setOutput, setSecret } from "./runner.mjs";
import { serverCommand, splitWords, startServer, stopGroup } from "./server.mjs";

/** The key the exported OPENAI_API_KEY holds when the server asks for none (the SDKs need one). */
const NO_KEY = "openresponses-mock";

/** A log file of its own for this step, in the runner's temp folder. */
function logFileFor(dir) {
  mkdirSync(dir, { recursive: true });
  for (let n = 1; ; n++) {
    const file = join(dir, n === 1 ? "openresponses-mock.log" : `openresponses-mock-${n}.log`);
    if (!existsSync(file)) return file;
  }
}

async function main() {
  const portText = getInput("port", "0");
  if (!/^\d+$/.test(portText) || Number(portText) > 65535)
    throw new Error(`Input port: expected a port number from 0 to 65535, got '${portText}'.`);
  const apiKey = getInput("api-key");
  const version = getInput("version");
  const exportEnv = getBooleanInput("export-env", true);
  const scenarios = getInput("scenarios")
    .split("\n")
    .flatMap((line) => splitWords(line, "scenarios"));
  const extra = splitWords(getInput("args"), "args");
  // The files the runner hands every step: checked before a server starts that nothing could stop.
  for (const file of ["GITHUB_OUTPUT", "GITHUB_STATE", ...(exportEnv ? ["GITHUB_ENV"] : [])])
    if (!process.env[file]) throw new Error(`${file} is not set: run this as a step of a GitHub Actions job.`);
  if (apiKey) setSecret(apiKey);

  const workspace = process.env.GITHUB_WORKSPACE || process.cwd();
  const server = serverCommand({ version, workspace });
  const serveArgs = ["serve", "--port", portText];
  if (scenarios.length > 0) serveArgs.push("--scenarios", ...scenarios);
  if (apiKey) serveArgs.push("--api-key", apiKey);
  serveArgs.push(...extra);
  const logFile = logFileFor(process.env.RUNNER_TEMP || tmpdir());
  const shown = [server.from, ...serveArgs].map((w) => (apiKey && w === apiKey ? "***" : w)).join(" ");
  info(`openresponses-mock: starting ${shown} (log: ${logFile})`);

  const { pid, url, baseURL } = await startServer({
    command: server.command,
    args: [...server.args, ...serveArgs],
    cwd: workspace,
    logFile,
    timeoutMs: version ? 180_000 : 60_000,
  });
  try {
    saveState("pid", pid);
    saveState("url", url);
    saveState("log-file", logFile);
    setOutput("base-url", baseURL);
    setOutput("url", url);
    setOutput("log-file", logFile);
    if (exportEnv) {
      exportVariable("OPENAI_BASE_URL", baseURL);
      exportVariable("OPENAI_API_KEY", apiKey || NO_KEY);
    }
  } catch (error) {
    await stopGroup(pid);
    throw error;
  }
  info(`openresponses-mock: listening on ${baseURL} (pid ${pid})`);
}

main().catch((error) => fail(`openresponses-mock: ${error instanceof Error ? error.message : String(error)}`));
