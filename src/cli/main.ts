#!/usr/bin/env node
/**
 * The `openresponses-mock` command.
 *
 * - `serve` (the default) starts the server and prints one line with the base
 *   URL; SIGINT/SIGTERM stop it cleanly.
 * - `validate FILE...` checks scenario files and folders.
 * - `list` shows the scenarios a server would load.
 * - `play NAME` prints the SSE stream a request would get, with no server.
 * - `proxy --upstream URL` listens like serve and forwards to a real server.
 *
 * Errors go to stderr with exit code 1. Scenario problems are printed one per
 * line as `FILE: $.json.path: message`, the same by every command.
 */
import { STATUS_CODES } from "node:http";
import { readFileSync } from "node:fs";
import yargs, { type Argv } from "yargs";
import { hideBin } from "yargs/helpers";
import { DIALECT_NAMES, DIALECTS, renderError } from "../dialect/index.js";
import { resolveOptions, type ServerOptionsInput } from "../options.js";
import { loadRegistry, startMockServer, type MockServer } from "../server.js";
import { loadScenarios } from "../scenario/load.js";
import { ScenarioError, formatIssue } from "../scenario/parse.js";
import { ApiError } from "../spec/index.js";
import { formatList } from "./list.js";
import { DEFAULT_PLAY_INPUT, DEFAULT_PLAY_MODEL, playRequest } from "./play.js";
import { displayUpstream } from "../proxy/upstream.js";
import { PROXY_FLAGS, proxyFlags, proxyOptions, type ProxyArgs } from "./proxy.js";

const NAME = "openresponses-mock";

/** A problem the user has to fix; printed as is, exit code 1. */
class UsageError extends Error {}

/** Prints an error the way every command does, and sets exit code 1. */
function fail(err: unknown): void {
  process.exitCode = 1;
  if (err instanceof ScenarioError) {
    // One `FILE: $.path: message` line per issue, exactly as `validate` prints them.
    process.stderr.write(err.issues.map(formatIssue).join("\n") + "\n");
    return;
  }
  process.stderr.write(`${NAME}: ${err instanceof Error ? err.message : String(err)}\n`);
}

/** Writes to stdout and resolves once the data is handed to the OS (so exit codes never cut output). */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === "") return resolve();
    process.stdout.write(text, () => resolve());
  });
}

// A closed pipe (`play … | head`) is not an error of ours.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
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
      describe: "Scenario files or folders to load (several allowed); they replace library scenarios of the same name",
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
  "journal-bytes"?: string;
  dialect?: string;
  admin: boolean;
  strict: boolean;
}

/** A flag's text as a number when it is one, else as typed (so that the error quotes it, not NaN). */
function numberOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}

/** The serve flags by option name, so that a bad value is reported as the flag it was typed as. */
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
  journalBytes: "--journal-bytes",
  dialect: "--dialect",
  scenarios: "--scenarios",
  scenario: "--scenario",
};

async function serve(argv: ServeArgs, proxy?: ProxyArgs): Promise<void> {
  let mock: MockServer;
  try {
    const options: ServerOptionsInput = {
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
      // A text the schema refuses, quoting it.
      journalBytes: numberOrText(argv["journal-bytes"]) as number | undefined,
      dialect: argv.dialect,
      admin: argv.admin,
      strict: argv.strict,
      scenarios: argv.scenarios,
      scenario: argv.scenario,
      library: argv.library,
    };
    resolveOptions(options, { ...SERVE_FLAGS, ...PROXY_FLAGS });
    mock = await startMockServer(options);
  } catch (err) {
    fail(err);
    return;
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await mock.close();
    process.exitCode = signal === "SIGINT" ? 130 : 0;
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  if (proxy) console.log(`${NAME} proxying /v1/responses to ${proxy["upstream-api"] ?? "responses"} ${displayUpstream(new URL(proxy.upstream))}${proxy.record !== undefined ? `, recording into ${proxy.record}` : ""}`);
  // Printed last, so that a supervisor that reads this line can signal us at once.
  console.log(`${NAME} listening on ${mock.baseURL}`);
}

// ---------------------------------------------------------------- validate

async function validate(argv: { files: string[] }): Promise<void> {
  try {
    const loaded = await loadScenarios(argv.files);
    if (loaded.length === 0) throw new UsageError(`no scenario files (*.json) in ${argv.files.join(", ")}`);
    await writeOut(loaded.map((l) => `ok ${l.source} (${l.scenario.name})\n`).join(""));
  } catch (err) {
    fail(err);
  }
}

// ---------------------------------------------------------------- list

async function list(argv: ScenarioArgs & { scenario?: string }): Promise<void> {
  try {
    // The options schema of the API checks the values (and supplies the defaults), as for serve.
    const resolved = resolveOptions({ scenarios: argv.scenarios, library: argv.library, scenario: argv.scenario });
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
    const resolved = resolveOptions({ seed: argv.seed, scenarios: argv.scenarios, library: argv.library, dialect: argv.dialect });
    const registry = await loadRegistry(resolved);
    if (!registry.byName.has(argv.name)) {
      throw new UsageError(`unknown scenario '${argv.name}'. Known scenarios: ${[...registry.byName.keys()].sort().join(", ")}.`);
    }
    const body = { model: argv.model, input: argv.input, stream: true };
    let text: string;
    try {
      text = playRequest({ registry, body, seed: resolved.seed, scenario: argv.name, now: Date.now(), dialect: DIALECTS.get(resolved.dialect) }).text;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // What the server would answer instead of a stream: the status, its headers, the error body.
      const rendered = renderError(DIALECTS.get(resolved.dialect)!, err);
      const head = [`HTTP ${err.status} ${STATUS_CODES[err.status] ?? ""}`.trimEnd(), ...Object.entries(rendered.headers).map(([k, v]) => `${k}: ${v}`)];
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
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** serve's flags (proxy takes them too). */
function serveFlags<T>(y: Argv<T>) {
  return scenarioOptions(
    y
      .option("port", { type: "number", default: 4010, describe: "Port to listen on (0 picks a free port)" })
      .option("host", { type: "string", describe: "Interface to bind (default 127.0.0.1)" })
      .option("seed", { type: "number", describe: "Server seed: the same request and seed give the same bytes (default 0)" })
      .option("scenario", { type: "string", describe: "Scenario used when no header, model name or match rule picks one (default auto)" })
      .option("api-key", { type: "string", describe: "Require 'Authorization: Bearer KEY' on /v1 routes" })
      .option("body-limit", { type: "number", describe: "Largest request body in bytes (default 32 MiB)" })
      .option("latency-ms", { type: "number", describe: "Time to the first byte of every answer, in ms (default 0)" })
      .option("chunk-ms", { type: "number", describe: "Pause between streamed events, in ms (default 0)" })
      .option("jitter-ms", { type: "number", describe: "Vary each pause by up to ± this many ms, from the seed (default 0)" })
      .option("tokens-per-second", { type: "number", describe: "Pace text deltas at this rate instead of --chunk-ms" })
      .option("heartbeat-ms", { type: "number", describe: "Send ': keep-alive' after this many idle ms (default 0: never)" })
      .option("store-limit", { type: "number", describe: "Stored responses to keep; the oldest are evicted (default 1000)" })
      .option("journal-bytes", { type: "string", describe: "Bytes the request journal may hold; the oldest entries go first, big bodies are kept truncated (default 64 MiB; 0 keeps no bodies)" })
      .option("dialect", { type: "string", describe: `Wire dialect of every answer unless x-mock-dialect says otherwise: ${DIALECT_NAMES.join(", ")} (default open-responses)` })
      .option("admin", { type: "boolean", default: true, describe: "Serve the /__mock/ admin routes (--no-admin to turn them off)" })
      .option("strict", { type: "boolean", default: false, describe: "Accept only the Open Responses spec: anything else (OpenAI's tools, items, fields) is a 400 naming it" }),
  );
}

await yargs(hideBin(process.argv))
  .scriptName(NAME)
  .command(
    ["serve", "$0"],
    "Start the mock server (the default command).",
    (y) => serveFlags(y),
    (argv) => serve(argv),
  )
  .command(
    "proxy",
    "Listen like serve, and forward /v1/responses to a real server (--upstream URL): checked, translated from Chat Completions (--upstream-api chat), recorded (--record DIR).",
    (y) => proxyFlags(serveFlags(y)),
    (argv) => serve(argv, argv),
  )
  .command(
    "validate <files..>",
    "Check scenario files (files or folders): every error with its file and JSON path.",
    (y) => y.positional("files", { type: "string", array: true, demandOption: true, default: undefined, describe: "Scenario files or folders" }),
    (argv) => validate({ files: argv.files }),
  )
  .command(
    "list",
    "Show the scenarios a server would load, with the default marked.",
    (y) =>
      scenarioOptions(y).option("scenario", { type: "string", describe: "The default scenario to mark (default auto)" }),
    (argv) => list(argv),
  )
  .command(
    "play <name>",
    "Print the SSE stream a request would get from scenario NAME, with no server.",
    (y) =>
      scenarioOptions(
        y
          .positional("name", { type: "string", demandOption: true, describe: "Scenario name (as in the x-mock-scenario header)" })
          .option("seed", { type: "number", describe: "Server seed, as serve --seed (default 0)" })
          .option("dialect", { type: "string", describe: `Wire dialect: ${DIALECT_NAMES.join(", ")} (default open-responses)` })
          .option("input", { type: "string", default: DEFAULT_PLAY_INPUT, describe: "The user message" })
          .option("model", { type: "string", default: DEFAULT_PLAY_MODEL, describe: "The request's model" }),
      ),
    (argv) => play(argv),
  )
  .strict()
  .version(version())
  .help()
  .parseAsync();
