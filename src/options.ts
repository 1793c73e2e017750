/**
 * The server's options: one zod schema shared by the CLI and the programmatic
 * API, so both accept and reject the same things.
 */
import { z } from "zod";
import { DIALECT_NAMES } from "./dialect/index.js";
import type { Clock } from "./timing/clock.js";
import { DEFAULT_JOURNAL_BYTES } from "./journal/journal.js";
import type { LiveChecker } from "./proxy/live-check.js";
import { parseUpstream } from "./proxy/upstream.js";

export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** The message for a bad byte count, with what was given. */
const bytesError = (issue: { input?: unknown }) => `must be a whole number of bytes, 0 or more (0 keeps no bodies); got ${typeof issue.input === "string" ? JSON.stringify(issue.input) : String(issue.input)}`;

export const ServerOptions = z.object({
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
  /** The dialect answers are rendered in (a request's `x-mock-dialect` header overrides it). */
  dialect: z
    .string()
    .default("open-responses")
    .refine((name) => DIALECT_NAMES.includes(name), { error: (issue) => `unknown dialect '${String(issue.input)}'; known dialects: ${DIALECT_NAMES.join(", ")}` }),
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
  /** Time to the first byte of every answer, in ms. */
  latencyMs: z.number().min(0).max(3_600_000).default(0),
  /** Pause between streamed events, in ms. */
  chunkMs: z.number().min(0).max(3_600_000).default(0),
  /** Each pause varies by up to ± this many ms, drawn from the seed. */
  jitterMs: z.number().min(0).max(3_600_000).default(0),
  /** Pace text deltas at this many tokens per second instead of chunkMs. */
  tokensPerSecond: z.number().positive().max(1_000_000).optional(),
  /** Send `: keep-alive` comments after this many idle ms (0 = never). */
  heartbeatMs: z.number().min(0).max(3_600_000).default(0),
  /** Where `created_at`/`completed_at` come from (programmatic only). */
  clock: z
    .custom<Pick<Clock, "now">>((v) => typeof v === "object" && v !== null && typeof (v as Clock).now === "function", "clock must have a now() method")
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
  upstreamApi: z.enum(["responses", "chat"], { error: (issue) => `must be 'responses' or 'chat', got ${JSON.stringify(issue.input)}` }).default("responses"),
  /** The upstream's API key, sent as `Authorization: Bearer KEY` (without it, the client's Authorization is passed on). Never logged or written. */
  upstreamKey: z.string().min(1, "must not be empty").optional(),
  /** Longest silence from the upstream, in ms, before the answer fails: 504 before it, `error` + `response.failed` mid-stream. */
  upstreamTimeoutMs: z.number().int().min(1).max(3_600_000).default(600_000),
  /** Proxy mode: write each exchange as a scenario file into this folder. */
  record: z.string().min(1).optional(),
  /** Proxy mode: a conformance checker run on every answer (programmatic only). */
  checker: z
    .custom<LiveChecker>((v) => typeof v === "object" && v !== null && typeof (v as LiveChecker).start === "function", "checker must have a start() method")
    .optional(),
  /** Timers that pace streams (programmatic only; tests pass a ManualClock). */
  timers: z
    .custom<Clock>(
      (v) => typeof v === "object" && v !== null && ["now", "setTimeout", "clearTimeout"].every((k) => typeof (v as Record<string, unknown>)[k] === "function"),
      "timers must have now(), setTimeout() and clearTimeout()",
    )
    .optional(),
}).superRefine((options, ctx) => {
  // What only a proxy does needs an upstream to proxy.
  if (options.upstream !== undefined) return;
  for (const key of ["record", "upstreamKey", "checker"] as const) {
    if (options[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: "needs an upstream (proxy mode)" });
  }
});

/** Options as a caller writes them (everything optional). */
export type ServerOptionsInput = z.input<typeof ServerOptions>;
/** Options after defaults. */
export type ResolvedServerOptions = z.output<typeof ServerOptions>;

/**
 * Validates options, with a message that names each bad option — as `names`
 * spells it when given (the CLI passes its flags, e.g. `journalBytes` → `--journal-bytes`).
 */
export function resolveOptions(input: ServerOptionsInput = {}, names: Partial<Record<keyof ServerOptionsInput, string>> = {}): ResolvedServerOptions {
  const result = ServerOptions.safeParse(input);
  if (!result.success) {
    const name = (path: PropertyKey[]) => (path.length === 1 ? names[path[0] as keyof ServerOptionsInput] : undefined) ?? (path.join(".") || "(options)");
    const lines = result.error.issues.map((i) => `  ${name(i.path)}: ${i.message}`);
    throw new TypeError(`Invalid openresponses-mock options:\n${lines.join("\n")}`);
  }
  return result.data;
}
