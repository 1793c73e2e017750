#!/usr/bin/env node
/**
 * The `openresponses-mock` command.
 *
 * - `serve` (the default) starts the server and prints its base URL (the
 *   first line, `openresponses-mock listening on URL`), then the request log
 *   (`--log pretty|json|off`); SIGINT/SIGTERM stop it cleanly, and so does
 *   the end of the process that started it with `--exit-with-parent`.
 * - `validate FILE...` checks scenario files and folders, and service files.
 * - `list` shows the scenarios a server would load (`--profiles`: the latency profiles).
 * - `play NAME` prints the SSE stream a request would get, with no server.
 * - `proxy --upstream URL` listens like serve and forwards to a real server.
 * - `check URL` judges a server; `exam -- COMMAND ARGS...` judges a client (src/cli/exam.ts).
 *
 * Errors go to stderr with exit code 1, one `openresponses-mock: …` line
 * each, naming a bad flag as typed and saying what it takes. Scenario
 * problems are printed one per line as `FILE: $.json.path: message`, the
 * same by every command. `-h`/`--help` and `-v`/`--version` work everywhere.
 *
 * `--scenarios PATH...` takes every path after it up to the next flag;
 * typed before the command, it stops at the command's name (see args.ts).
 */
import { STATUS_CODES } from "node:http";
import { fstatSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import yargs, { type Argv, type MiddlewareFunction } from "yargs";
import { hideBin } from "yargs/helpers";
import { DIALECT_NAMES, DIALECTS, renderError } from "../dialect/index.js";
import { OPTION_EXPECTS, OptionsError, quoteValue, resolveOptions, type ServerOptionsInput } from "../options.js";
import { loadRegistry, startServer, type MockServer } from "../server.js";
import { StoreConnectError } from "../store/redis-client.js";
import { isWorker, runPrimary, runWorker } from "./workers.js";
import { displayPath, jsonFiles, loadScenarios } from "../scenario/load.js";
import { ScenarioError, formatIssue } from "../scenario/parse.js";
import { UnknownScenarioError, knownScenariosHint } from "../scenario/registry.js";
import { ApiError } from "../spec/index.js";
import { checkOptions, runCheckCommand } from "./check.js";
import { examOptions, runExamCommand } from "./exam.js";
import { nearestName } from "../util/nearest-name.js";
import { findCommand, flagsMissingValues, unknownFlags } from "./args.js";
import { tuneServeHeap } from "./heap.js";
import { loadService } from "../service/load.js";
import { ServiceError, UnknownProfileError, isServiceDocument, limitsSet, parseServiceText } from "../service/parse.js";
import { listenErrorMessage, yargsMessage } from "./errors.js";
import { formatList, formatProfiles } from "./list.js";
import { DEFAULT_PLAY_INPUT, DEFAULT_PLAY_MODEL, playRequest } from "./play.js";
import { PROXY_FLAGS, proxyFlags, proxyOptions, type ProxyArgs } from "./proxy.js";

const NAME = "openresponses-mock";

/** Messages of UsageErrors: yargs passes on a coerce function's error as its message only. */
const usageMessages = new Set<string>();

/** A problem the user has to fix; printed as is (one `openresponses-mock: ` line per line), exit code 1. */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    usageMessages.add(message);
  }
}

/** The lines an error is printed as (each after `openresponses-mock: `), in the words of the command line. */
function errorLines(err: unknown): string[] {
  if (err instanceof OptionsError) return [...err.problems];
  if (err instanceof UnknownScenarioError)
    return [`--scenario: unknown scenario '${err.scenario.slice(0, 80)}'. ${err.hint}`];
  if (err instanceof UnknownProfileError)
    return [`--profile: unknown profile '${err.profile.slice(0, 80)}'. ${err.hint}`];
  if (err instanceof StoreConnectError) return [err.describe("--store")];
  const listen = listenErrorMessage(err);
  if (listen !== undefined) return [listen];
  return (err instanceof Error ? err.message : String(err)).split("\n");
}

/** An error as every command prints it. */
function errorText(err: unknown): string {
  // One `FILE: $.path: message` line per issue, exactly as `validate` prints them.
  if (err instanceof ScenarioError || err instanceof ServiceError) return err.issues.map(formatIssue).join("\n") + "\n";
  return errorLines(err)
    .map((line) => `${NAME}: ${line}\n`)
    .join("");
}

/** Prints an error the way every command does, and sets exit code 1. */
function fail(err: unknown): void {
  process.exitCode = 1;
  process.stderr.write(errorText(err));
}

/** Writes to stdout and resolves once the data is handed to the OS (so exit codes never cut output). */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === "") return resolve();
    process.stdout.write(text, () => resolve());
  });
}

/** Set while `serve` runs: its log goes quiet on a closed stdout, the server goes on. */
let serving = false;

// A closed pipe (`play … | head`) is not an error of ours.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE" && serving) return;
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

interface ScenarioArgs {
  scenarios?: string[];
  library: boolean;
}

/** `--scenarios PATH...` and `--no-library`, shared by serve, list and play. */
function scenarioOptions<T>(y: Argv<T>) {
  return y
    .option("scenarios", {
      type: "string",
      array: true,
      describe:
        "Scenario files or folders to load; they replace library scenarios of the same name. Takes every path after it up to the next flag (or repeat the flag); typed before the command, it stops at the command's name: '--scenarios DIR serve' is 'serve --scenarios DIR'",
    })
    .option("library", {
      type: "boolean",
      default: true,
      describe: "Load the shipped scenario library (--no-library to leave it out)",
    });
}

// ---------------------------------------------------------------- serve

interface ServeArgs extends ScenarioArgs {
  port: number;
  host?: string;
  seed?: number;
  scenario?: string;
  "api-key"?: string;
  "body-limit"?: number;
  "latency-ms"?: number;
  "chunk-ms"?: number;
  "jitter-ms"?: number;
  "tokens-per-second"?: number;
  "heartbeat-ms"?: number;
  "store-limit"?: number;
  "store-bytes"?: number;
  "journal-bytes"?: number;
  store?: string;
  workers?: number;
  dialect?: string;
  admin: boolean;
  strict: boolean;
  "session-from-key": boolean;
  log?: string;
  service?: string;
  profile?: string;
  rpm?: number;
  tpm?: number;
  "max-concurrent"?: number;
  queue?: number;
  "queue-timeout-ms"?: number;
  "exit-with-parent"?: boolean;
}

/** The flags by option name (serve's; list and play use some), so that a bad value is reported as the flag it was typed as. */
const SERVE_FLAGS: Partial<Record<keyof ServerOptionsInput, string>> = {
  port: "--port",
  host: "--host",
  seed: "--seed",
  apiKey: "--api-key",
  bodyLimit: "--body-limit",
  latencyMs: "--latency-ms",
  chunkMs: "--chunk-ms",
  jitterMs: "--jitter-ms",
  tokensPerSecond: "--tokens-per-second",
  heartbeatMs: "--heartbeat-ms",
  storeLimit: "--store-limit",
  storeBytes: "--store-bytes",
  journalBytes: "--journal-bytes",
  store: "--store",
  workers: "--workers",
  dialect: "--dialect",
  scenarios: "--scenarios",
  scenario: "--scenario",
  log: "--log",
  service: "--service",
  profile: "--profile",
  rpm: "--rpm",
  tpm: "--tpm",
  maxConcurrent: "--max-concurrent",
  queue: "--queue",
  queueTimeoutMs: "--queue-timeout-ms",
};

async function serve(argv: ServeArgs, proxy?: ProxyArgs): Promise<void> {
  let options: ServerOptionsInput;
  try {
    options = {
      ...(proxy ? proxyOptions(proxy, process.env) : {}),
      port: argv.port,
      host: argv.host,
      seed: argv.seed,
      apiKey: argv["api-key"],
      bodyLimit: argv["body-limit"],
      latencyMs: argv["latency-ms"],
      chunkMs: argv["chunk-ms"],
      jitterMs: argv["jitter-ms"],
      tokensPerSecond: argv["tokens-per-second"],
      heartbeatMs: argv["heartbeat-ms"],
      storeLimit: argv["store-limit"],
      storeBytes: argv["store-bytes"],
      journalBytes: argv["journal-bytes"],
      store: argv.store,
      workers: argv.workers,
      dialect: argv.dialect,
      admin: argv.admin,
      strict: argv.strict,
      sessionFromKey: argv["session-from-key"],
      scenarios: argv.scenarios,
      scenario: argv.scenario,
      library: argv.library,
      service: argv.service,
      profile: argv.profile,
      rpm: argv.rpm,
      tpm: argv.tpm,
      maxConcurrent: argv["max-concurrent"],
      queue: argv.queue,
      queueTimeoutMs: argv["queue-timeout-ms"],
      // The CLI logs unless told not to (the API does not).
      log: (argv.log ?? "pretty") as ServerOptionsInput["log"],
    };
    const resolved = resolveOptions(options, { ...SERVE_FLAGS, ...PROXY_FLAGS });
    // The primary starts no server: it reads the service file itself, so that a bad one is reported once, and limits are refused without a shared store.
    if (!isWorker() && resolved.workers > 1)
      refuseLocalLimits(resolved.workers, resolved.store, await loadService(resolved));
  } catch (err) {
    fail(err);
    return;
  }
  serving = true;
  tuneServeHeap();
  // A worker's parent is the primary, which stops it; the primary (or the one server) watches its own.
  if (argv["exit-with-parent"] && !isWorker()) watchParent();
  // More than one worker: this process starts them (each runs this command line again) and serves nothing itself.
  if (isWorker()) return runWorker((shell) => startServer({ ...options, workers: 1 }, shell), errorText);
  if ((options.workers ?? 1) > 1) {
    if ((options.store ?? "memory") === "memory") {
      process.stderr.write(
        `${NAME}: warning: --workers ${options.workers} with the memory store: each worker keeps its own stored responses and session controls, so previous_response_id, GET /v1/responses/{id} and /__mock/ controls work only on the worker that holds them. Give --store redis://HOST:PORT to share them.\n`,
      );
    }
    return runPrimary(options.workers!, options.log ?? "pretty");
  }
  const starting = startServer(options);
  // Signals are handled before the first line is out: a supervisor that reads it may signal us at once.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const running = await starting.catch(() => undefined);
    if (!running) return;
    await running.close();
    process.exitCode = signal === "SIGINT" ? 130 : 0;
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  let mock: MockServer;
  try {
    mock = await starting;
  } catch (err) {
    serving = false;
    fail(err);
    return;
  }
  // With the log on, the server wrote its start summary, the listening line first; off, that line alone.
  if (options.log === "off") console.log(`${NAME} listening on ${mock.baseURL}`);
}

/** How often `--exit-with-parent` looks for its parent: one read of /proc/self/stat, nothing more. */
const PARENT_CHECK_MS = 500;

/**
 * Whether `parent` is still this process's parent. `process.ppid` is read once at
 * start, so Linux's /proc/self/stat tells the parent now (an orphan gets another one);
 * elsewhere, whether a process `parent` still exists.
 */
function parentAlive(parent: number): boolean {
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last `)`.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
  } catch {
    try {
      process.kill(parent, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "EPERM";
    }
  }
}

/**
 * `--exit-with-parent`: once the process that started this one is gone (even
 * killed with SIGKILL, which it cannot pass on), stop as on SIGTERM. Gone means
 * this process was handed to another parent (see parentAlive), or, when
 * stdin is a pipe (or a socket), it reached its end (the writer, usually the parent,
 * closed it or died). Harnesses that start the server (the pytest plugin) pass it
 * so that nothing is left running; they also give it a stdin pipe, which tells
 * even a parent that died while this process was still loading (by then its parent
 * may already be init, pid 1, which counts as gone too).
 */
function watchParent(): void {
  const parent = process.ppid;
  let gone = false;
  const stop = () => {
    if (gone) return;
    gone = true;
    clearInterval(timer);
    process.kill(process.pid, "SIGTERM");
  };
  // Neither the timer nor stdin keeps the process alive: it ends as it would without the flag.
  const timer = setInterval(() => {
    if (!parentAlive(parent)) stop();
  }, PARENT_CHECK_MS);
  timer.unref();
  // Orphaned before this ran: handed to init already.
  if (parent === 1) setImmediate(stop);
  let pipe = false;
  try {
    const stdin = fstatSync(0);
    // A pipe, or the socket pair Node (libuv) gives a child for one.
    pipe = stdin.isFIFO() || stdin.isSocket();
  } catch {
    // no stdin at all: the parent pid alone tells
  }
  if (pipe) {
    process.stdin.on("end", stop).on("error", stop).resume();
    (process.stdin as NodeJS.ReadStream & { unref?: () => void }).unref?.();
  }
}

/**
 * `--workers N` with limits and the memory store: each worker would keep its
 * own buckets, budgets and concurrency counts, so N workers would let through
 * N times what the limits say. Refused, with what to do instead.
 */
function refuseLocalLimits(workers: number, store: string, service: Awaited<ReturnType<typeof loadService>>): void {
  if (store !== "memory") return;
  const limits = limitsSet(service);
  if (limits.length === 0) return;
  throw new UsageError(
    `--workers ${workers} with limits (${limits.join(", ")}${service.source ? `; service file ${service.source}` : ""}) and the memory store: each worker process would keep its own rate-limit buckets, budgets and concurrency counts, so ${workers} workers would let through ${workers} times the limits. Give --store redis://HOST:PORT to share them, or run one worker.`,
  );
}

// ---------------------------------------------------------------- validate

/** Where a file of `validate` stands: a scenario, a service, or a problem. */
type Checked = { file: string; ok: string } | { file: string; scenario: true };

async function validate(argv: { files: string[] }): Promise<void> {
  try {
    const issues: ServiceError["issues"] = [];
    const checked: Checked[] = [];
    // Service files are told apart by their $schema or their keys (isServiceDocument); every other file is a scenario.
    for (const path of argv.files) {
      let files: string[];
      try {
        files = await jsonFiles(path);
      } catch (err) {
        issues.push({
          file: path,
          path: "$",
          message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        });
        continue;
      }
      for (const file of files) {
        const name = displayPath(file);
        let value: unknown;
        let text: string;
        try {
          text = await readFile(file, "utf8");
        } catch (err) {
          issues.push({
            file: name,
            path: "$",
            message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          });
          continue;
        }
        try {
          value = JSON.parse(text);
        } catch {
          value = undefined;
        }
        if (!isServiceDocument(value)) {
          checked.push({ file, scenario: true });
          continue;
        }
        try {
          const service = parseServiceText(text, name);
          const models = Object.keys(service.models ?? {}).length;
          const profiles = Object.keys(service.profiles ?? {}).length;
          checked.push({
            file,
            ok: `ok ${name} (service: ${models} model${models === 1 ? "" : "s"}, ${profiles} profile${profiles === 1 ? "" : "s"})`,
          });
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
          issues.push(...err.issues);
        }
      }
    }
    const scenarioFiles = checked.filter((c) => "scenario" in c).map((c) => c.file);
    const okScenarios = new Map<string, string>();
    if (scenarioFiles.length > 0) {
      try {
        for (const l of await loadScenarios(scenarioFiles))
          okScenarios.set(l.source, `ok ${l.source} (${l.scenario.name})`);
      } catch (err) {
        if (!(err instanceof ScenarioError)) throw err;
        issues.push(...err.issues);
      }
    }
    if (issues.length > 0) throw new ServiceError(issues);
    if (checked.length === 0)
      throw new UsageError(`no scenario files (*.json) in ${argv.files.join(", ")}, nor service files`);
    await writeOut(
      checked
        .map((c) => ("ok" in c ? c.ok : (okScenarios.get(displayPath(c.file)) ?? `ok ${displayPath(c.file)}`)) + "\n")
        .join(""),
    );
  } catch (err) {
    fail(err);
  }
}

// ---------------------------------------------------------------- list

async function list(
  argv: ScenarioArgs & { scenario?: string; profiles: boolean; service?: string; profile?: string },
): Promise<void> {
  try {
    if (argv.profiles) {
      const resolved = resolveOptions({ service: argv.service, profile: argv.profile }, SERVE_FLAGS);
      await writeOut(formatProfiles(await loadService(resolved)));
      return;
    }
    for (const flag of ["service", "profile"] as const)
      if (argv[flag] !== undefined)
        throw new UsageError(`--${flag}: goes with --profiles (list --profiles --${flag} …)`);
    // The options schema of the API checks the values (and supplies the defaults), as for serve.
    const resolved = resolveOptions(
      { scenarios: argv.scenarios, library: argv.library, scenario: argv.scenario },
      SERVE_FLAGS,
    );
    await writeOut(formatList(await loadRegistry(resolved)));
  } catch (err) {
    fail(err);
  }
}

// ---------------------------------------------------------------- play

interface PlayArgs extends ScenarioArgs {
  name: string;
  dialect?: string;
  seed?: number;
  input: string;
  model: string;
}

async function play(argv: PlayArgs): Promise<void> {
  try {
    // The options schema of the API checks the values (and supplies the defaults), as for serve.
    const resolved = resolveOptions(
      { seed: argv.seed, scenarios: argv.scenarios, library: argv.library, dialect: argv.dialect },
      SERVE_FLAGS,
    );
    const registry = await loadRegistry(resolved);
    if (!registry.byName.has(argv.name))
      throw new UsageError(
        `unknown scenario '${argv.name.slice(0, 80)}'. ${knownScenariosHint(argv.name, registry.byName.keys())}`,
      );
    const body = { model: argv.model, input: argv.input, stream: true };
    let text: string;
    try {
      text = playRequest({
        registry,
        body,
        seed: resolved.seed,
        scenario: argv.name,
        now: Date.now(),
        dialect: DIALECTS.get(resolved.dialect),
      }).text;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // What the server would answer instead of a stream: the status, its headers, the error body.
      const rendered = renderError(DIALECTS.get(resolved.dialect)!, err);
      const head = [
        `HTTP ${err.status} ${STATUS_CODES[err.status] ?? ""}`.trimEnd(),
        ...Object.entries(rendered.headers).map(([k, v]) => `${k}: ${v}`),
      ];
      process.stderr.write(`${head.join("\n")}\n\n${JSON.stringify(rendered.body)}\n`);
      process.exitCode = 1;
      return;
    }
    await writeOut(text);
  } catch (err) {
    fail(err);
  }
}

// ---------------------------------------------------------------- commands

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
      .version;
  } catch {
    return "unknown";
  }
}

/**
 * A number flag, declared with no type and converted here (yargs' `number`
 * type would turn `1MB` into NaN): the number typed, or an error that names
 * the flag and quotes what was typed. Ranges are the options schema's to check.
 */
function numberFlag(option: keyof ServerOptionsInput): (value: unknown) => number {
  const flag = SERVE_FLAGS[option] ?? `--${option}`;
  return (value) => {
    if (Array.isArray(value))
      throw new UsageError(`${flag}: given ${value.length} times (${value.map(quoteValue).join(", ")}); give it once`);
    if (typeof value === "number") return value;
    const text = String(value);
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n))
      throw new UsageError(`${flag}: expected ${OPTION_EXPECTS[option] ?? "a number"}, got ${quoteValue(text)}`);
    return n;
  };
}

const COMMANDS = ["serve", "proxy", "validate", "list", "play", "check", "exam"];
/** Flags that take no value (their `--no-` forms too): what the search for the command needs to know. */
const SWITCHES = [
  "help",
  "h",
  "version",
  "v",
  "admin",
  "library",
  "strict",
  "session-from-key",
  "json",
  "profiles",
  "bridge",
];

// The words as typed, with the command moved first if `--scenarios` came before it.
const line = findCommand(hideBin(process.argv), { commands: COMMANDS, arrays: ["scenarios"], switches: SWITCHES });
// exam: the words after the first `--` are the client's command, not ours.
const examCommand =
  line.command === "exam" && line.args.includes("--") ? line.args.splice(line.args.indexOf("--")) : undefined;
examCommand?.shift();
const helpHint = `see '${NAME}${line.command ? ` ${line.command}` : ""} --help'`;

/** What yargs hands a middleware besides the arguments: itself (yargs/build/lib/middleware.js), with the options of the command it runs. */
interface CommandYargs {
  getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]>; boolean: string[] };
}

/**
 * Before yargs validates: flags the command does not know (each as typed,
 * with the nearest known one), and words left over, in words a user
 * understands. yargs' own strict mode stays behind it.
 */
function checkWords(argv: { _: (string | number)[]; name?: unknown }, y: CommandYargs): void {
  const options = y.getOptions();
  const unknown = unknownFlags(line.args, { keys: Object.keys(options.key), aliases: options.alias });
  if (unknown.length > 0) {
    const lines = unknown.map(
      (u) => `unknown option '${u.typed}'${u.suggestion ? `; did you mean '${u.suggestion}'?` : ""}`,
    );
    throw new UsageError([...lines, `${helpHint} for the options`].join("\n"));
  }
  const empty = flagsMissingValues(
    line.args,
    Object.keys(options.key).filter((k) => !options.boolean.includes(k)),
  );
  if (empty.length > 0) throw new UsageError(empty.map((flag) => `${flag}: needs a value`).join("\n"));
  const extra = argv._.map(String);
  if (COMMANDS.includes(extra[0])) extra.shift();
  if (extra.length === 0) return;
  const words = extra.map((w) => `'${w.slice(0, 80)}'`).join(", ");
  const pathHint = extra.some((w) => /[/\\.]/.test(w)) ? `; to load scenario files, write --scenarios ${extra[0]}` : "";
  if (line.command === undefined) {
    const near = nearestName(extra[0], COMMANDS);
    throw new UsageError(
      `unknown command ${words}${near ? ` (did you mean '${near}'?)` : ""}${pathHint}. Commands: ${COMMANDS.join(", ")} (serve is the default); ${helpHint}`,
    );
  }
  if (line.command === "play")
    throw new UsageError(`play takes one scenario NAME, got '${String(argv.name)}' and then ${words}; ${helpHint}`);
  throw new UsageError(`${line.command} takes no arguments, got ${words}${pathHint}; ${helpHint}`);
}

/** serve's flags (proxy takes them too). */
function serveFlags<T>(y: Argv<T>) {
  return scenarioOptions(
    y
      .option("port", {
        requiresArg: true,
        coerce: numberFlag("port"),
        default: 4010,
        describe: "Port to listen on (0 picks a free port)",
      })
      .option("host", { type: "string", describe: "Interface to bind (default 127.0.0.1)" })
      .option("seed", {
        requiresArg: true,
        coerce: numberFlag("seed"),
        describe: "Server seed: the same request and seed give the same bytes (default 0)",
      })
      .option("scenario", {
        type: "string",
        describe: "Scenario used when no header, model name or match rule picks one (default auto)",
      })
      .option("api-key", { type: "string", describe: "Require 'Authorization: Bearer KEY' on /v1 routes" })
      .option("body-limit", {
        requiresArg: true,
        coerce: numberFlag("bodyLimit"),
        describe: "Largest request body in bytes (default 32 MiB)",
      })
      .option("latency-ms", {
        requiresArg: true,
        coerce: numberFlag("latencyMs"),
        describe: "Time to the first byte of every answer, in ms (default 0)",
      })
      .option("chunk-ms", {
        requiresArg: true,
        coerce: numberFlag("chunkMs"),
        describe: "Pause between streamed events, in ms (default 0)",
      })
      .option("jitter-ms", {
        requiresArg: true,
        coerce: numberFlag("jitterMs"),
        describe: "Vary each pause by up to ± this many ms, from the seed (default 0)",
      })
      .option("tokens-per-second", {
        requiresArg: true,
        coerce: numberFlag("tokensPerSecond"),
        describe: "Pace text deltas at this rate instead of --chunk-ms",
      })
      .option("heartbeat-ms", {
        requiresArg: true,
        coerce: numberFlag("heartbeatMs"),
        describe: "Send ': keep-alive' after this many idle ms (default 0: never)",
      })
      .option("store", {
        type: "string",
        describe:
          "Where stored responses, background runs, session controls and the journal's shared view live: memory (default) or redis://HOST:PORT, shared by every worker and replica that names it",
      })
      .option("workers", {
        requiresArg: true,
        coerce: numberFlag("workers"),
        describe:
          "Worker processes behind one port (default 1); with more than one, give --store redis://HOST:PORT so that they share stored responses",
      })
      .option("store-limit", {
        requiresArg: true,
        coerce: numberFlag("storeLimit"),
        describe: "Stored responses to keep; the oldest are evicted (default 1000)",
      })
      .option("store-bytes", {
        requiresArg: true,
        coerce: numberFlag("storeBytes"),
        describe:
          "Bytes the stored responses may hold; the oldest are evicted, a response over 1/16 of it is kept without its input items (default 64 MiB; 0 keeps no inputs)",
      })
      .option("journal-bytes", {
        requiresArg: true,
        coerce: numberFlag("journalBytes"),
        describe:
          "Bytes the request journal may hold; the oldest entries go first, big bodies are kept truncated (default 64 MiB; 0 keeps no bodies)",
      })
      .option("dialect", {
        type: "string",
        describe: `Wire dialect of every answer unless x-mock-dialect says otherwise: ${DIALECT_NAMES.join(", ")} (default open-responses)`,
      })
      .option("admin", {
        type: "boolean",
        default: true,
        describe: "Serve the /__mock/ admin routes (--no-admin to turn them off)",
      })
      .option("strict", {
        type: "boolean",
        default: false,
        describe:
          "Accept only the Open Responses spec: anything else (OpenAI's tools, items, fields) is a 400 naming it",
      })
      .option("session-from-key", {
        type: "boolean",
        default: false,
        describe:
          "A request without an x-mock-session header takes its API key (the bearer token) as its session; a key that is no valid session id leaves it without one",
      })
      .option("log", {
        type: "string",
        describe:
          "Request log on stdout: pretty (coloured on a terminal), json (one object per line) or off (default pretty)",
      })
      .option("service", {
        type: "string",
        describe:
          "Service file (JSON, service.schema.json): models with prices, limits, capacity and latency profiles; limits per API key; named profiles",
      })
      .option("rpm", {
        requiresArg: true,
        coerce: numberFlag("rpm"),
        describe: "Requests per minute per API key × model, for every model the service file gives no rpm",
      })
      .option("tpm", {
        requiresArg: true,
        coerce: numberFlag("tpm"),
        describe:
          "Tokens (input + output) per minute per API key × model, for every model the service file gives no tpm",
      })
      .option("max-concurrent", {
        requiresArg: true,
        coerce: numberFlag("maxConcurrent"),
        describe: "Answers playing at once, server-wide (a model's own maxConcurrent in the service file wins)",
      })
      .option("queue", {
        requiresArg: true,
        coerce: numberFlag("queue"),
        describe: "Answers that may wait for a slot beyond --max-concurrent (default 0: a 503 at once)",
      })
      .option("queue-timeout-ms", {
        requiresArg: true,
        coerce: numberFlag("queueTimeoutMs"),
        describe: "The longest an answer waits in the queue before a 503, in ms (default: no limit)",
      })
      .option("exit-with-parent", {
        type: "boolean",
        default: false,
        describe:
          "Stop once the process that started this one is gone, even killed with SIGKILL (its pid checked twice a second; also when stdin is a pipe and reaches its end): for harnesses that must leave nothing running",
      }),
  );
}

/** `--profile NAME`: serve's and list's (a proxied answer is paced by its upstream, so proxy has none). */
function profileFlag<T>(y: Argv<T>, describe: string) {
  return y.option("profile", { type: "string", describe });
}

const cli = yargs(line.args)
  .scriptName(NAME)
  // yargs' messages are read by yargsMessage: English, whatever the locale.
  .locale("en")
  .middleware(checkWords as unknown as MiddlewareFunction, true)
  .command(
    ["serve", "$0"],
    "Start the mock server (the default command).",
    (y) =>
      profileFlag(
        serveFlags(y),
        "Latency profile of every answer whose model names none in the service file: instant (the default: no latency), fast, typical, slow-reasoning, or the file's (see 'list --profiles')",
      ),
    (argv) => serve(argv),
  )
  .command(
    "proxy",
    "Listen like serve, and forward /v1/responses to a real server (--upstream URL): checked, translated from Chat Completions (--upstream-api chat), recorded (--record DIR).",
    (y) => proxyFlags(serveFlags(y), numberFlag),
    (argv) => serve(argv, argv),
  )
  .command(
    "validate <files..>",
    "Check scenario files and service files (files or folders): every error with its file and JSON path.",
    (y) =>
      y.positional("files", {
        type: "string",
        array: true,
        demandOption: true,
        default: undefined,
        describe:
          "Scenario files, service files or folders (a service file is one whose $schema names service.schema.json, or with service keys such as models or profiles and no name)",
      }),
    (argv) => validate({ files: argv.files }),
  )
  .command(
    "list",
    "Show the scenarios a server would load, with the default marked; --profiles: the latency profiles.",
    (y) =>
      profileFlag(
        scenarioOptions(y)
          .option("scenario", {
            type: "string",
            describe: "The default scenario to mark (default auto)",
          })
          .option("profiles", {
            type: "boolean",
            default: false,
            describe:
              "List the latency profiles instead: TTFT and inter-token median/p99 in ms, slowdown k/capacity, description",
          })
          .option("service", {
            type: "string",
            describe: "With --profiles: a service file whose profiles are listed too",
          }),
        "With --profiles: the default profile to mark (as serve --profile)",
      ),
    (argv) => list(argv),
  )
  .command(
    "play <name>",
    "Print the SSE stream a request would get from scenario NAME, with no server.",
    (y) =>
      scenarioOptions(
        y
          .positional("name", {
            type: "string",
            demandOption: true,
            describe:
              "Scenario name (as in the x-mock-scenario header); give it before --scenarios, which takes every path after it",
          })
          .option("seed", {
            requiresArg: true,
            coerce: numberFlag("seed"),
            describe: "Server seed, as serve --seed (default 0)",
          })
          .option("dialect", {
            type: "string",
            describe: `Wire dialect: ${DIALECT_NAMES.join(", ")} (default open-responses)`,
          })
          .option("input", { type: "string", default: DEFAULT_PLAY_INPUT, describe: "The user message" })
          .option("model", { type: "string", default: DEFAULT_PLAY_MODEL, describe: "The request's model" }),
      ),
    (argv) => play(argv),
  )
  .command(
    "check <url>",
    "Run the conformance battery against an Open Responses server at URL (a base URL: http://127.0.0.1:4010/v1); exit 1 on any violation, 2 if it cannot be reached.",
    (y) => checkOptions(y),
    (argv) => runCheckCommand(argv),
  )
  .command(
    "exam",
    "Grade a client: run COMMAND (after --) once per lesson against a mock, with OPENAI_BASE_URL, OPENAI_API_KEY and the lesson's prompt (OPENRESPONSES_MOCK_PROMPT, {prompt}); exit 1 on any FAIL.",
    (y) => examOptions(y),
    (argv) => runExamCommand(argv, examCommand, writeOut),
  )
  .strict()
  .version(version())
  .alias("v", "version")
  .help()
  .alias("h", "help")
  .fail((message: string | undefined, err: Error | undefined) => {
    // Thrown, not printed: yargs would go on to run the command after a custom fail handler returns.
    if (err instanceof UsageError) throw err;
    if (message !== undefined && usageMessages.has(message)) throw new UsageError(message);
    throw new UsageError(yargsMessage(message ?? err?.message ?? "invalid command line", NAME, line.command));
  });

try {
  await cli.parseAsync();
} catch (err) {
  fail(err);
}
