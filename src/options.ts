/**
 * The server's options: one zod schema shared by the CLI and the programmatic
 * API, so both accept and reject the same things.
 */
import { z } from "zod";
import { DIALECT_NAMES } from "./dialect/index.js";
import type { Clock } from "./timing/clock.js";
import { DEFAULT_JOURNAL_BYTES } from "./journal/journal.js";
import type { LogTarget } from "./log/logger.js";
import { nearestName } from "./util/nearest-name.js";

/** `unknown dialect 'opnai'; did you mean 'openai'? known dialects: …` */
const unknownDialect = (name: string) => {
  const near = nearestName(name, DIALECT_NAMES);
  return `unknown dialect '${name.slice(0, 80)}'; ${near !== undefined ? `did you mean '${near}'? ` : ""}known dialects: ${DIALECT_NAMES.join(", ")}`;
};
import type { LiveChecker } from "./proxy/live-check.js";
import { parseUpstream } from "./proxy/upstream.js";
import { parseStoreUrl } from "./store/store-url.js";
import { DEFAULT_STORE_BYTES } from "./store/record-cost.js";

/** The most worker processes `--workers` starts. */
export const MAX_WORKERS = 64;

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** The request log's formats; `off` writes nothing. */
export const LOG_FORMATS = ["pretty", "json", "off"] as const;

/** A value as an error message quotes it: text in quotes, anything else as it prints. */
const quoted = (v: unknown) => (typeof v === "string" ? `'${v}'` : String(v));

/** The message for a bad byte count, with what was given; `zero` says what 0 does. */
const bytesMessage = (zero: string) => (issue: { input?: unknown }) =>
  `must be a whole number of bytes, 0 or more (${zero}); got ${typeof issue.input === "string" ? JSON.stringify(issue.input) : String(issue.input)}`;
const bytesError = bytesMessage("0 keeps no bodies");
const storeBytesError = bytesMessage("0 keeps no inputs");

export const ServerOptions = z
  .object({
    /** TCP port; 0 picks a free one. */
    port: z.number().int().min(0).max(65535).default(0),
    /** Interface to bind; loopback unless told otherwise. */
    host: z.string().min(1).default("127.0.0.1"),
    /** Server seed: with it, every answer is derived from (seed, request). */
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    /** When set, requests must send `Authorization: Bearer <apiKey>`. */
    apiKey: z.string().min(1).optional(),
    /** How many stored responses to keep; the oldest are evicted first. */
    storeLimit: z.number().int().min(0).max(10_000_000).default(1000),
    /**
     * How many bytes the stored responses may hold, estimated (the oldest are
     * evicted first). A response over 1/16 of it is kept without its input
     * (`input_items` answers `input_items_unavailable`; a continuation sees a
     * stand-in: its first 16 KiB of text). 0 keeps no inputs, and then only
     * `storeLimit` bounds it. With a Redis store it bounds each process's local view.
     */
    storeBytes: z
      .number({ error: storeBytesError })
      .int({ error: storeBytesError })
      .min(0, { error: storeBytesError })
      .max(Number.MAX_SAFE_INTEGER, { error: storeBytesError })
      .default(DEFAULT_STORE_BYTES),
    /**
     * Where stored responses, background runs' state, the session controls and
     * the journal's shared view live: `memory` (this process, the default) or
     * `redis://HOST:PORT` (shared by every worker and replica that names it).
     */
    store: z
      .string()
      .default("memory")
      .superRefine((value, ctx) => {
        const parsed = parseStoreUrl(value);
        if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
      }),
    /** Worker processes behind one port (the CLI's `--workers`; startMockServer always serves from its own process). */
    workers: z.number().int().min(1).max(MAX_WORKERS).default(1),
    /** The dialect answers are rendered in (a request's `x-mock-dialect` header overrides it). */
    dialect: z
      .string()
      .default("open-responses")
      .refine((name) => DIALECT_NAMES.includes(name), { error: (issue) => unknownDialect(String(issue.input)) }),
    /** How many requests the journal keeps (the oldest are dropped). */
    journalLimit: z.number().int().min(0).max(10_000_000).default(1000),
    /**
     * How many bytes the journal's entries may hold, estimated (the oldest are
     * dropped). A body over 1/16 of it is kept truncated. 0 keeps no bodies
     * (only their length and hash), and then only `journalLimit` bounds it.
     */
    journalBytes: z
      .number({ error: bytesError })
      .int({ error: bytesError })
      .min(0, { error: bytesError })
      .max(Number.MAX_SAFE_INTEGER, { error: bytesError })
      .default(DEFAULT_JOURNAL_BYTES),
    /**
     * A request without an `x-mock-session` header takes its API key (the
     * bearer token) as its session, as if it had sent `x-mock-session: KEY`:
     * HTTP requests on every route, and WebSocket upgrades. A key that is no
     * valid session id (1-200 visible ASCII characters) leaves the request
     * without a session.
     */
    sessionFromKey: z.boolean().default(false),
    /** Serve the `/__mock/` admin routes (journal and per-session controls). */
    admin: z.boolean().default(true),
    /** Largest accepted request body, in bytes. */
    bodyLimit: z.number().int().positive().default(DEFAULT_BODY_LIMIT),
    /** Scenario files or folders to load, or scenario objects (validated like files). */
    scenarios: z
      .union([z.string().min(1), z.array(z.union([z.string().min(1), z.record(z.string(), z.unknown())]))])
      .optional()
      .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v])),
    /** Name of the scenario used when no header, model name or match rule picks one. */
    scenario: z.string().min(1).default("auto"),
    /**
     * Validate request bodies against the Open Responses spec alone: anything
     * OpenAI accepts beyond it (hosted tools, its item types and include
     * values, unknown top-level keys, …) is a 400 naming the field. Per
     * request: header `x-mock-strict: 1` or `0`.
     */
    strict: z.boolean().default(false),
    /** Load the shipped scenario library (scenarios/ in the package). */
    library: z.boolean().default(true),
    /** Time to the first byte of every answer, in ms (not given: 0, or a recorded scenario's own). */
    latencyMs: z.number().min(0).max(3_600_000).optional(),
    /** Pause between streamed events, in ms (not given: 0, or a recorded scenario's own). */
    chunkMs: z.number().min(0).max(3_600_000).optional(),
    /** Each pause varies by up to ± this many ms, drawn from the seed (not given: 0, or a recorded scenario's own). */
    jitterMs: z.number().min(0).max(3_600_000).optional(),
    /** Pace text deltas at this many tokens per second instead of chunkMs. */
    tokensPerSecond: z.number().positive().max(1_000_000).optional(),
    /** Send `: keep-alive` comments after this many idle ms (0 = never; not given: 0, or a recorded scenario's own). */
    heartbeatMs: z.number().min(0).max(3_600_000).optional(),
    /**
     * The service file (issue 26): models with prices, limits, capacity and a
     * latency profile; limits per key; named profiles. A path to a JSON file
     * (service.schema.json), or the same object. Without it nothing is
     * limited and nothing is slow; prices still apply (costUsd, budgets).
     */
    service: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
    /** The latency profile of every answer whose model names none (`instant`, `fast`, `typical`, `slow-reasoning`, or the service file's). */
    profile: z.string().min(1).optional(),
    /** Requests per minute, per API key × model, for every model the service file gives no limit. */
    rpm: z.number().int().positive().max(1_000_000_000).optional(),
    /** Tokens per minute (input + output), per API key × model, for every model the service file gives no limit. */
    tpm: z.number().int().positive().max(1_000_000_000_000).optional(),
    /** Answers playing at once, server-wide (a model's own `maxConcurrent` in the service file wins). */
    maxConcurrent: z.number().int().positive().max(1_000_000).optional(),
    /** Answers that may wait for a slot beyond maxConcurrent (default 0). */
    queue: z.number().int().min(0).max(1_000_000).optional(),
    /** The longest an answer waits in the queue before a 503, in ms (default: no limit). */
    queueTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
    /**
     * The request log: `pretty` (a start summary, one line per request as it
     * ends, a stop line; coloured on a terminal), `json` (the same as one JSON
     * object per line) or `off`. Off unless asked (the CLI's default is pretty).
     */
    log: z
      .enum(LOG_FORMATS, { error: (issue) => `must be one of ${LOG_FORMATS.join(", ")}; got ${quoted(issue.input)}` })
      .default("off"),
    /** Where the request log goes (programmatic only): a stream such as `process.stderr`, or anything with `write(text)`. Default stdout. */
    logTo: z
      .custom<LogTarget>(
        (v) => typeof v === "object" && v !== null && typeof (v as LogTarget).write === "function",
        "must have a write(text) method, like a stream (process.stdout, process.stderr)",
      )
      .optional(),
    /** Where `created_at`/`completed_at` come from (programmatic only). */
    clock: z
      .custom<Pick<Clock, "now">>(
        (v) => typeof v === "object" && v !== null && typeof (v as Clock).now === "function",
        "clock must have a now() method",
      )
      .optional(),
    /**
     * Proxy mode: the base URL of a real server, as the SDKs take it
     * (`http://127.0.0.1:11434/v1`); `POST /v1/responses` is forwarded there.
     */
    upstream: z
      .string()
      .optional()
      .superRefine((value, ctx) => {
        const url = value === undefined ? undefined : parseUpstream(value);
        if (typeof url === "string") ctx.addIssue({ code: "custom", message: url });
      }),
    /** What the upstream speaks: the Responses API (passed on as it is) or Chat Completions (translated). */
    upstreamApi: z
      .enum(["responses", "chat"], {
        error: (issue) => `must be 'responses' or 'chat', got ${JSON.stringify(issue.input)}`,
      })
      .default("responses"),
    /** The upstream's API key, sent as `Authorization: Bearer KEY` (without it, the client's Authorization is passed on). Never logged or written. */
    upstreamKey: z.string().min(1, "must not be empty").optional(),
    /** Longest silence from the upstream, in ms, before the answer fails: 504 before it, `error` + `response.failed` mid-stream. */
    upstreamTimeoutMs: z.number().int().min(1).max(3_600_000).default(600_000),
    /** Proxy mode: write each exchange as a scenario file into this folder. */
    record: z.string().min(1).optional(),
    /** Proxy mode: the checker run on every answer (programmatic only); by default the conformance checker of `check`. */
    checker: z
      .custom<LiveChecker>(
        (v) => typeof v === "object" && v !== null && typeof (v as LiveChecker).start === "function",
        "checker must have a start() method",
      )
      .optional(),
    /** Timers that pace streams (programmatic only; tests pass a ManualClock). */
    timers: z
      .custom<Clock>(
        (v) =>
          typeof v === "object" &&
          v !== null &&
          ["now", "setTimeout", "clearTimeout"].every((k) => typeof (v as Record<string, unknown>)[k] === "function"),
        "timers must have now(), setTimeout() and clearTimeout()",
      )
      .optional(),
  })
  .superRefine((options, ctx) => {
    // What only a proxy does needs an upstream to proxy.
    if (options.upstream !== undefined) return;
    for (const key of ["record", "upstreamKey", "checker"] as const) {
      if (options[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "needs an upstream (proxy mode)" });
    }
  });

/** Options as a caller writes them (everything optional). */
export type ServerOptionsInput = z.input<typeof ServerOptions>;
/** Options after defaults. */
export type ResolvedServerOptions = z.output<typeof ServerOptions>;

/**
 * What each option takes, in words a user understands: a bad value is
 * reported as `NAME: expected WHAT, got VALUE` (the CLI passes a flag's text
 * as typed when it is not a number, so that it is quoted as typed). The
 * schema's own messages (`refine`, `custom`) are kept as they are.
 */
export const OPTION_EXPECTS: Partial<Record<keyof ServerOptionsInput, string>> = {
  port: "a port number (0-65535)",
  host: "a host name or IP address",
  seed: `a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
  apiKey: "a non-empty key",
  storeLimit: "a whole number of responses from 0 to 10000000",
  storeBytes: "a whole number of bytes, 0 or more (0 keeps no inputs)",
  workers: `a whole number of processes from 1 to ${MAX_WORKERS}`,
  journalLimit: "a whole number of requests from 0 to 10000000",
  journalBytes: "a whole number of bytes, 0 or more (0 keeps no bodies)",
  admin: "true or false",
  sessionFromKey: "true or false",
  bodyLimit: "a number of bytes (a whole number, 1 or more)",
  scenarios: "a path, or a list of paths and scenario objects",
  scenario: "a scenario name",
  strict: "true or false",
  library: "true or false",
  latencyMs: "a number of milliseconds from 0 to 3600000",
  chunkMs: "a number of milliseconds from 0 to 3600000",
  jitterMs: "a number of milliseconds from 0 to 3600000",
  tokensPerSecond: "a number of tokens per second, above 0 and at most 1000000",
  heartbeatMs: "a number of milliseconds from 0 to 3600000 (0: never)",
  service: "a path to a service file, or a service object",
  profile: "a latency profile's name",
  rpm: "a whole number of requests per minute, 1 or more",
  tpm: "a whole number of tokens per minute, 1 or more",
  maxConcurrent: "a whole number of answers, 1 or more",
  queue: "a whole number of waiting answers, 0 or more",
  queueTimeoutMs: "a whole number of milliseconds from 1 to 3600000",
};

/** A value as a message quotes it: text in quotes (cut at 80 characters), '' as nothing, anything else as JSON. */
export function quoteValue(value: unknown): string {
  if (value === "") return "nothing";
  if (typeof value === "string") return `'${value.length > 80 ? `${value.slice(0, 80)}…` : value}'`;
  if (typeof value === "number" || typeof value === "boolean" || value === undefined || value === null)
    return String(value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 80)}…` : json;
}

/** Options refused: one line per problem, `NAME: what is wrong`, each naming the option as the caller spelled it. */
export class OptionsError extends TypeError {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid openresponses-mock options:\n${problems.map((p) => `  ${p}`).join("\n")}`);
    this.name = "OptionsError";
  }
}

/**
 * Validates options, with a message that names each bad option — as `names`
 * spells it when given (the CLI passes its flags, e.g. `journalBytes` → `--journal-bytes`) —
 * and says what it takes and what it got.
 */
export function resolveOptions(
  input: ServerOptionsInput = {},
  names: Partial<Record<keyof ServerOptionsInput, string>> = {},
): ResolvedServerOptions {
  const result = ServerOptions.safeParse(input, { reportInput: true });
  if (!result.success) {
    const name = (path: PropertyKey[]) =>
      (path.length === 1 ? names[path[0] as keyof ServerOptionsInput] : undefined) ?? (path.join(".") || "(options)");
    const problems = result.error.issues.map((i) => {
      const expects = i.path.length === 1 ? OPTION_EXPECTS[i.path[0] as keyof ServerOptionsInput] : undefined;
      return `${name(i.path)}: ${expects !== undefined && i.code !== "custom" ? `expected ${expects}, got ${quoteValue(i.input)}` : i.message}`;
    });
    throw new OptionsError([...new Set(problems)]);
  }
  return result.data;
}
