/**
 * `openresponses-mock check URL`: runs the conformance battery
 * (src/check/battery.ts) against any Open Responses server and prints what
 * it found. The only I/O here: fetch (no SDK, so the raw bytes are judged,
 * not what a client library made of them), the timeout, and the output.
 *
 * Exit codes: 0 every check passed or was not exercised; 1 a violation (or
 * a bad flag); 2 the server could not be reached.
 */
import type { Argv } from "yargs";
import { WebSocket, type RawData } from "ws";
import { nearestName } from "../util/nearest-name.js";
import { runBridgeCommand } from "./bridge.js";
import {
  BATTERY_NAMES,
  BRIDGE_CHECK_NAMES,
  DEFAULT_SLOW_UPSTREAM_MS,
  UPSTREAM_APIS,
  baseUrlHints,
  CHECK_DIALECTS,
  needsPathProbe,
  specEndpoint,
  formatReport,
  isCheckDialect,
  jsonReport,
  runBattery,
  type BatteryRequest,
  type PathProbe,
  type RawAnswer,
  type UpstreamApi,
  type WsConnection,
  type WsOpen,
  type WsRead,
} from "../check/index.js";

const NAME = "openresponses-mock";

/** `did you mean 'X'? ` when a known name is near the one typed, else nothing. */
const didYouMean = (typed: string, known: readonly string[]) => {
  const near = nearestName(typed, known);
  return near === undefined ? "" : `did you mean '${near}'? `;
};

/** The model asked for unless `--model` says otherwise. */
export const DEFAULT_CHECK_MODEL = "openresponses-check";
export const DEFAULT_CHECK_TIMEOUT_MS = 30_000;

export interface CheckArgs {
  url: string;
  "api-key"?: string;
  model: string;
  dialect?: string;
  only?: string[];
  skip?: string[];
  json: boolean;
  "timeout-ms"?: string;
  bridge?: boolean;
  "upstream-port"?: string;
  "upstream-api"?: string;
  "slow-upstream-ms"?: string;
}

/** The `check` command's positional and flags. */
export function checkOptions<T>(y: Argv<T>) {
  return y
    .positional("url", {
      type: "string",
      demandOption: true,
      describe: "Base URL of the server, as the SDKs take it (http://127.0.0.1:4010/v1); /responses is appended",
    })
    .option("api-key", { type: "string", describe: "Send 'Authorization: Bearer KEY'" })
    .option("model", { type: "string", default: DEFAULT_CHECK_MODEL, describe: "The model every request asks for" })
    .option("dialect", {
      type: "string",
      describe: `Judge answers by this dialect's rules: ${CHECK_DIALECTS.join(", ")} (default open-responses)`,
    })
    .option("only", {
      type: "string",
      array: true,
      describe: `Run only these checks: ${BATTERY_NAMES.join(", ")} (with --bridge: ${BRIDGE_CHECK_NAMES.join(", ")})`,
    })
    .option("skip", {
      type: "string",
      array: true,
      describe: "Run every check but these (websocket websocket-error: no WebSocket mode; compact)",
    })
    .option("json", { type: "boolean", default: false, describe: "Print the report as JSON" })
    .option("timeout-ms", {
      type: "string",
      describe: `Longest wait for one whole answer, in ms (default ${DEFAULT_CHECK_TIMEOUT_MS})`,
    })
    .option("bridge", {
      type: "boolean",
      default: false,
      describe:
        "Judge a bridge on both sides: start a scripted upstream on 127.0.0.1:--upstream-port and hold what the bridge sent it against each request",
    })
    .option("upstream-port", {
      type: "string",
      describe: "With --bridge: the port of the upstream the bridge calls (http://127.0.0.1:N/v1)",
    })
    .option("upstream-api", {
      type: "string",
      describe:
        "With --bridge: the API the bridge speaks upstream: chat (Chat Completions, the default) or responses (POST /v1/responses)",
    })
    .option("slow-upstream-ms", {
      type: "string",
      describe: `With --bridge: how long the upstream waits before its first byte in the informational slow-upstream check, in ms (default ${DEFAULT_SLOW_UPSTREAM_MS}; below --timeout-ms)`,
    });
}

class UsageError extends Error {}

export interface Settings {
  base: string;
  apiKey?: string;
  model: string;
  dialect: (typeof CHECK_DIALECTS)[number];
  only: string[];
  json: boolean;
  timeoutMs: number;
  /** `--bridge`: the upstream's port and API, and the slow-upstream check's wait. */
  bridge?: { port: number; api: UpstreamApi; slowUpstreamMs: number };
}

/** The checks `--only` (or `--skip`) names (comma-separated or repeated). */
const only = (argv: CheckArgs, flag: "only" | "skip" = "only") =>
  (argv[flag] ?? [])
    .flatMap((s) => String(s).split(","))
    .map((s) => s.trim())
    .filter(Boolean);

/** The flags, checked; a bad one is named as typed. */
export function checkSettings(argv: CheckArgs): Settings {
  let url: URL;
  try {
    url = new URL(argv.url);
  } catch {
    throw new UsageError(`URL '${argv.url}' is not a URL: give the server's base URL, e.g. http://127.0.0.1:4010/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(
      `URL '${argv.url}' is not an http(s) URL: give the server's base URL, e.g. http://127.0.0.1:4010/v1`,
    );
  const dialect = argv.dialect ?? "open-responses";
  if (!isCheckDialect(dialect))
    throw new UsageError(
      `--dialect: unknown dialect '${dialect}'; ${didYouMean(dialect, CHECK_DIALECTS)}known dialects: ${CHECK_DIALECTS.join(", ")}`,
    );
  let timeoutMs = DEFAULT_CHECK_TIMEOUT_MS;
  if (argv["timeout-ms"] !== undefined) {
    const text = String(argv["timeout-ms"]);
    timeoutMs = Number(text);
    if (text.trim() === "" || !Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError(`--timeout-ms: expected a whole number of milliseconds above 0, got '${text}'`);
  }
  let bridge: Settings["bridge"];
  if (argv.bridge) {
    const api = argv["upstream-api"] ?? "chat";
    if (!(UPSTREAM_APIS as readonly string[]).includes(api))
      throw new UsageError(
        `--upstream-api: unknown API '${api}'; ${didYouMean(api, UPSTREAM_APIS)}one of: ${UPSTREAM_APIS.join(", ")}`,
      );
    const text = argv["upstream-port"];
    if (text === undefined)
      throw new UsageError(
        "--upstream-port: required with --bridge: the port where the bridge sends its upstream calls (http://127.0.0.1:N/v1)",
      );
    const port = Number(text);
    if (String(text).trim() === "" || !Number.isInteger(port) || port < 1 || port > 65535)
      throw new UsageError(`--upstream-port: expected a port number from 1 to 65535, got '${text}'`);
    let slowUpstreamMs = DEFAULT_SLOW_UPSTREAM_MS;
    const slow = argv["slow-upstream-ms"];
    if (slow !== undefined) {
      slowUpstreamMs = Number(slow);
      if (String(slow).trim() === "" || !Number.isInteger(slowUpstreamMs) || slowUpstreamMs <= 0)
        throw new UsageError(`--slow-upstream-ms: expected a whole number of milliseconds above 0, got '${slow}'`);
    }
    const runsSlow =
      (only(argv).length === 0 || only(argv).includes("slow-upstream")) &&
      !only(argv, "skip").includes("slow-upstream");
    if (slowUpstreamMs >= timeoutMs && runsSlow)
      throw new UsageError(
        `--slow-upstream-ms: ${slowUpstreamMs} ms${slow === undefined ? " (the default)" : ""} is not below --timeout-ms (${timeoutMs} ms): the bench would give up before the bridge could answer; lower it, or raise --timeout-ms`,
      );
    bridge = { port, api: api as UpstreamApi, slowUpstreamMs };
  } else {
    const stray = (["upstream-port", "upstream-api", "slow-upstream-ms"] as const).find((f) => argv[f] !== undefined);
    if (stray) throw new UsageError(`--${stray}: only with --bridge (check URL --bridge --upstream-port N)`);
  }
  const names = bridge ? BRIDGE_CHECK_NAMES : BATTERY_NAMES;
  for (const flag of ["only", "skip"] as const)
    for (const name of only(argv, flag))
      if (!names.includes(name))
        throw new UsageError(
          `--${flag}: unknown ${bridge ? "bridge " : ""}check '${name}'; ${didYouMean(name, names)}checks: ${names.join(", ")}`,
        );
  let checks = only(argv);
  const skip = only(argv, "skip");
  if (skip.length > 0) {
    // --skip is --only with the rest: the checks --only names (or all), but these.
    checks = (checks.length > 0 ? checks : names).filter((n) => !skip.includes(n));
    if (checks.length === 0) throw new UsageError(`--skip: no check is left to run (skipped: ${skip.join(", ")})`);
  }
  if (argv.model.trim() === "") throw new UsageError("--model: expected a model name, got nothing");
  return {
    base: url.href.replace(/\/+$/, ""),
    apiKey: argv["api-key"],
    model: argv.model,
    dialect,
    only: checks,
    json: argv.json,
    timeoutMs,
    ...(bridge ? { bridge } : {}),
  };
}

/** Why a fetch failed, in words: `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)`, or the timeout. */
function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError")
    return `no complete answer within ${timeoutMs} ms (--timeout-ms)`;
  if (e?.cause?.code) return `${e.cause.code}${e.cause.message ? ` (${e.cause.message})` : ""}`;
  return e?.cause?.message ?? e?.message ?? String(err);
}

/** POSTs one battery request and reads the whole answer as text, however it ends. */
export async function send(settings: Settings, request: BatteryRequest, key?: string): Promise<RawAnswer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const apiKey = settings.apiKey ?? key;
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let res: Response;
  try {
    res = await fetch(`${settings.base}/responses${request.endpoint === "compact" ? "/compact" : ""}`, {
      method: "POST",
      headers,
      body: request.raw ?? JSON.stringify(request.body),
      signal,
    });
  } catch (err) {
    return { body: "", failure: describeFailure(err, settings.timeoutMs) };
  }
  const answer: RawAnswer = { status: res.status, contentType: res.headers.get("content-type"), body: "" };
  const retryAfter = res.headers.get("retry-after");
  if (retryAfter !== null) answer.headers = { "retry-after": retryAfter };
  if (!res.body) return answer;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body) answer.body += decoder.decode(chunk, { stream: true });
    answer.body += decoder.decode();
  } catch (err) {
    answer.failure = describeFailure(err, settings.timeoutMs);
  }
  return answer;
}

/** The text of a WebSocket message as `ws` gives it. */
const messageText = (data: RawData): string =>
  (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString("utf8");

/** How much of a refused upgrade's body the report quotes. */
const REFUSAL_BODY_BYTES = 4096;

/**
 * Opens a WebSocket at `BASE/responses` (ws:// or wss://), with the API key
 * as the upgrade's bearer token. Messages queue until the battery reads
 * them; a read waits at most --timeout-ms.
 */
export function connect(settings: Settings): Promise<WsOpen> {
  const url = new URL(`${settings.base}/responses`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const headers: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  return new Promise((resolve) => {
    let settled = false;
    const settle = (open: WsOpen) => {
      if (settled) return;
      settled = true;
      resolve(open);
    };
    const ws = new WebSocket(url, { headers, handshakeTimeout: settings.timeoutMs, perMessageDeflate: false });
    const queue: WsRead[] = [];
    let waiting: ((read: WsRead) => void) | undefined;
    let ended: WsRead | undefined;
    const push = (read: WsRead) => {
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w(read);
      } else queue.push(read);
    };
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        if (body.length < REFUSAL_BODY_BYTES) body += d;
      });
      const done = () => {
        settle({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? null, body });
        ws.terminate();
      };
      res.on("end", done);
      res.on("error", done);
    });
    ws.on("error", (err: Error & { code?: string }) => {
      settle({ failure: err.code ? `${err.code} (${err.message})` : err.message });
    });
    ws.on("message", (data, isBinary) => push({ message: { data: messageText(data), binary: isBinary } }));
    ws.on("close", (code, reason) => {
      ended = {
        end: `the server closed the connection (code ${code}${reason.length > 0 ? `, ${show(reason.toString("utf8"))}` : ""})`,
        closed: true,
      };
      push(ended);
    });
    const connection: WsConnection = {
      send(text) {
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      },
      read() {
        const next = queue.shift();
        if (next) return Promise.resolve(next);
        if (ended) return Promise.resolve(ended);
        return new Promise<WsRead>((resolveRead) => {
          const timer = setTimeout(() => {
            waiting = undefined;
            resolveRead({ end: `no message within ${settings.timeoutMs} ms (--timeout-ms)`, closed: false });
          }, settings.timeoutMs);
          waiting = (read) => {
            clearTimeout(timer);
            resolveRead(read);
          };
        });
      },
      close() {
        ws.terminate();
      },
    };
    ws.on("open", () => settle({ connection }));
  });
}

const show = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/**
 * Probes the spec's own path (`ORIGIN/v1/responses`) with a body that is not
 * JSON: a served path refuses it (400), an unserved one answers 404. Nothing
 * is generated, so a real model is not billed.
 */
export async function probeSpecPath(settings: Settings): Promise<PathProbe> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  try {
    const res = await fetch(specEndpoint(settings.base), {
      method: "POST",
      headers,
      body: "{",
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    await res.body?.cancel();
    return { status: res.status };
  } catch (err) {
    return { failure: describeFailure(err, settings.timeoutMs) };
  }
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** The command: runs the battery, prints the report, sets the exit code. */
export async function runCheckCommand(argv: CheckArgs): Promise<void> {
  let settings: Settings;
  try {
    settings = checkSettings(argv);
  } catch (err) {
    process.exitCode = 1;
    await write(process.stderr, `${NAME} check: ${(err as Error).message}\n`);
    return;
  }
  if (settings.bridge) {
    const s = settings;
    return runBridgeCommand(
      { ...s, bridge: s.bridge! },
      { send: (request, key) => send(s, request, key), probe: () => probeSpecPath(s), write },
    );
  }
  const report = await runBattery({
    model: settings.model,
    dialect: settings.dialect,
    only: settings.only,
    send: (request) => send(settings, request),
    connect: () => connect(settings),
  });
  if (!report.unreachable) {
    const probe = needsPathProbe(settings.base) ? await probeSpecPath(settings) : undefined;
    const hints = baseUrlHints(settings.base, report, probe);
    if (hints.length > 0) report.baseUrl = hints;
  }
  if (settings.json) await write(process.stdout, jsonReport(report, settings.base));
  else
    await write(
      process.stdout,
      formatReport(report, { target: settings.base, color: process.stdout.isTTY === true && !process.env.NO_COLOR }),
    );
  if (report.unreachable) {
    await write(process.stderr, `${NAME} check: cannot reach ${settings.base}: ${report.unreachable}\n`);
    process.exitCode = 2;
  } else {
    process.exitCode = report.ok ? 0 : 1;
  }
}
