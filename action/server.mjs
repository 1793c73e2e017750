// Which openresponses-mock to run, how to start it in the background and how to stop it.
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ACTION_ROOT = fileURLToPath(new URL("..", import.meta.url));
const NAME = "openresponses-mock";

/**
 * Splits a command line into words the way a shell would for plain words and
 * '…' or "…" quotes (with \ escapes outside single quotes); no expansions.
 */
export function splitWords(line, what) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? "") + c;
  }
  if (quote) throw new Error(`Input ${what}: a ${quote} quote is never closed.`);
  if (word !== null) words.push(word);
  return words;
}

/** The file a package's bin points at, if `dir` holds the package. */
function binOf(dir) {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    if (pkg.name !== NAME) return undefined;
    const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.[NAME];
    return bin ? join(dir, bin) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command that runs the server: `npx openresponses-mock@VERSION` when a
 * version is asked for; else the package installed in the workspace
 * (node_modules/openresponses-mock, from the workspace up), else the action's own
 * checkout when it is built (dist/). Throws, saying what to do, when none is there.
 */
export function serverCommand({ version, workspace }) {
  if (version) return { command: "npx", args: ["--yes", `${NAME}@${version}`], from: `npx ${NAME}@${version}` };
  const tried = [];
  for (let dir = workspace; ; dir = dirname(dir)) {
    const installed = join(dir, "node_modules", NAME);
    tried.push(installed);
    const bin = binOf(installed);
    if (bin && existsSync(bin)) return { command: process.execPath, args: [bin], from: bin };
    if (dirname(dir) === dir) break;
  }
  for (const dir of [workspace, ACTION_ROOT]) {
    const bin = binOf(dir);
    if (bin && existsSync(bin)) return { command: process.execPath, args: [bin], from: bin };
    if (bin) tried.push(`${bin} (not built: run npm run build)`);
  }
  throw new Error(
    `cannot find ${NAME}: install it in the workspace (npm ci with ${NAME} among your devDependencies) ` +
      `before this step, or give the input version (e.g. version: latest) to run it with npx. Looked in: ${tried.join(", ")}.`,
  );
}

/** The start line's base URL: the pretty log's "listening on URL" or --log json's start object. */
export function startedURL(text) {
  for (const line of text.split("\n")) {
    const pretty = /listening on (https?:\/\/\S+)/.exec(line);
    if (pretty) return pretty[1];
    if (line.startsWith("{")) {
      try {
        const event = JSON.parse(line);
        if (event.event === "start" && typeof event.baseURL === "string") return event.baseURL;
      } catch {
        // not a JSON line
      }
    }
  }
  return undefined;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the server in its own process group, its stdout and stderr into
 * `logFile`, and resolves once it prints its start line and answers /health:
 * with its pid, its URL (without /v1) and base URL. Rejects, with the log, when it
 * exits first or takes longer than `timeoutMs` (the process group is stopped then).
 */
export async function startServer({ command, args, cwd, logFile, timeoutMs }) {
  const fd = openSync(logFile, "a");
  let child;
  try {
    child = spawn(command, args, { cwd, detached: true, stdio: ["ignore", fd, fd], env: process.env });
  } finally {
    closeSync(fd);
  }
  let exited = null;
  let spawnError = null;
  child.on("exit", (code, signal) => (exited = signal ? `was killed by ${signal}` : `exited with code ${code}`));
  child.on("error", (error) => (spawnError = error));
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "");
  const deadline = Date.now() + timeoutMs;
  try {
    let baseURL;
    while (!baseURL) {
      if (spawnError) throw new Error(`cannot start ${command}: ${spawnError.message}`);
      baseURL = startedURL(log());
      if (baseURL) break;
      if (exited) throw new Error(`the server ${exited} before it started. Its output:\n${log()}`);
      if (Date.now() > deadline)
        throw new Error(`the server printed no start line within ${timeoutMs / 1000} s. Its output:\n${log()}`);
      await sleep(50);
    }
    const url = baseURL.replace(/\/v1\/?$/, "");
    for (;;) {
      try {
        const res = await fetch(`${url}/health`);
        if (res.ok) break;
      } catch {
        // not answering yet
      }
      if (exited) throw new Error(`the server ${exited} before /health answered. Its output:\n${log()}`);
      if (Date.now() > deadline) throw new Error(`${url}/health did not answer within ${timeoutMs / 1000} s`);
      await sleep(100);
    }
    child.unref();
    return { pid: child.pid, url, baseURL };
  } catch (error) {
    if (child.pid) await stopGroup(child.pid);
    throw error;
  }
}

/** Whether any process of the group is still there (a zombie left to be reaped does not count). */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // A leader that has exited but that no one has reaped yet still answers signal 0.
  if (process.platform === "linux" && existsSync(`/proc/${pgid}/stat`)) {
    const stat = readFileSync(`/proc/${pgid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (state === "Z") return groupMembersBesidesLeader(pgid);
  }
  return true;
}

/** On Linux: whether a process other than the (zombie) leader is in the group. */
function groupMembersBesidesLeader(pgid) {
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry) || Number(entry) === pgid) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(fields[2]) === pgid && fields[0] !== "Z") return true;
      } catch {
        // gone meanwhile
      }
    }
    return false;
  } catch {
    return true;
  }
}

/**
 * Stops the server's process group: SIGTERM (the server closes its connections
 * and prints its stop line), then SIGKILL after `graceMs`. Resolves with how it
 * ended: "stopped", "killed" or "gone" (nothing was running).
 */
export async function stopGroup(pgid, graceMs = 10_000) {
  if (process.platform === "win32") {
    const { spawnSync } = await import("node:child_process");
    const r = spawnSync("taskkill", ["/pid", String(pgid), "/T", "/F"], { stdio: "ignore" });
    return r.status === 0 ? "killed" : "gone";
  }
  if (!groupAlive(pgid)) return "gone";
  try {
    process.kill(-pgid, "SIGTERM");
  } catch {
    return "gone";
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return "stopped";
    await sleep(50);
  }
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ended meanwhile
  }
  const killDeadline = Date.now() + 5_000;
  while (groupAlive(pgid) && Date.now() < killDeadline) await sleep(50);
  return "killed";
}
