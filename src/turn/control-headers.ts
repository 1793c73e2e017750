/**
 * The `x-mock-*` request headers that steer one request: its seed, its
 * scenario, its timing, its latency profile and its faults. Each is validated; a bad value is a
 * 400 that names the header and says what it takes.
 */
import type { IncomingHttpHeaders } from "node:http";
import { DIALECTS, dialectFromHeader, type Dialect } from "../dialect/index.js";
import type { LatencyProfile } from "../service/service.js";
import { ApiError } from "../spec/index.js";
import type { Faults, TimingProfile } from "../timing/profile.js";

const bad = (header: string, message: string) =>
  new ApiError({
    status: 400,
    type: "invalid_request",
    code: "invalid_header",
    param: header,
    message: `Header ${header} ${message}`,
  });

const MAX_MS = 3_600_000;

/** Where headers are read from: a Koa context, or `fromHeaders(req.headers)`. */
export interface HeaderSource {
  get(name: string): string;
}

/** A header source over Node's (lower-cased) request headers, cheaper than Koa's delegates. */
export function fromHeaders(headers: IncomingHttpHeaders): HeaderSource {
  return {
    get: (name) => {
      const v = headers[name];
      return Array.isArray(v) ? v.join(", ") : (v ?? "");
    },
  };
}

function number(
  ctx: HeaderSource,
  header: string,
  { integer = false, max = MAX_MS, positive = false } = {},
): number | undefined {
  const raw = ctx.get(header);
  if (raw === "") return undefined;
  const value = raw.trim();
  const n = Number(value);
  if (
    !/^\d+(\.\d+)?$/.test(value) ||
    !Number.isFinite(n) ||
    n > max ||
    (integer && !Number.isInteger(n)) ||
    (positive && n <= 0)
  ) {
    throw bad(
      header,
      `must be a ${positive ? "positive" : "non-negative"} ${integer ? "integer" : "number"} up to ${max}, got '${raw.slice(0, 40)}'.`,
    );
  }
  return n;
}

/** `x-mock-seed: N`. */
export const seedHeader = (ctx: HeaderSource) =>
  number(ctx, "x-mock-seed", { integer: true, max: Number.MAX_SAFE_INTEGER });

/** `x-mock-latency-ms`, `x-mock-chunk-ms`, `x-mock-jitter-ms`, `x-mock-tokens-per-second`, `x-mock-heartbeat-ms`. */
export function timingHeaders(ctx: HeaderSource): Partial<TimingProfile> {
  return {
    latencyMs: number(ctx, "x-mock-latency-ms"),
    chunkMs: number(ctx, "x-mock-chunk-ms"),
    jitterMs: number(ctx, "x-mock-jitter-ms"),
    tokensPerSecond: number(ctx, "x-mock-tokens-per-second", { positive: true, max: 1_000_000 }),
    heartbeatMs: number(ctx, "x-mock-heartbeat-ms"),
  };
}

/** `x-mock-strict: 1` (or `true`; `0`/`false` turn it off): validate the body against the spec alone. */
export function strictHeader(ctx: HeaderSource): boolean | undefined {
  const raw = ctx.get("x-mock-strict").trim().toLowerCase();
  if (raw === "") return undefined;
  if (raw === "1" || raw === "true") return true;
  if (raw === "0" || raw === "false") return false;
  throw bad(
    "x-mock-strict",
    `takes 1 or true (the spec alone), 0 or false (OpenAI's superset); got '${raw.slice(0, 40)}'.`,
  );
}

const FAULT_KEYS = ["drop-after-events", "drop-after-ms", "stall-after-events", "stall-ms", "hang-after-events"];
/** The faults that take no value. */
const SPLIT_UTF8 = "split-utf8";

/**
 * `x-mock-fault: drop-after-events=5`, `drop-after-ms=300`,
 * `stall-after-events=3; stall-ms=2000`, `hang-after-events=4`, `split-utf8` (several joined by `;` or `,`).
 */
export function faultHeader(ctx: HeaderSource): Faults | undefined {
  const raw = ctx.get("x-mock-fault").trim();
  if (raw === "") return undefined;
  const values = new Map<string, number>();
  let splitUtf8 = false;
  for (const part of raw
    .split(/[;,]/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    if (part === SPLIT_UTF8) {
      splitUtf8 = true;
      continue;
    }
    const m = /^([a-z-]+)\s*=\s*(\d+)$/.exec(part);
    if (!m || !FAULT_KEYS.includes(m[1]) || Number(m[2]) > MAX_MS) {
      throw bad(
        "x-mock-fault",
        `takes ${FAULT_KEYS.map((k) => `${k}=N`).join(", ")}, ${SPLIT_UTF8} (joined by ';'); got '${part.slice(0, 40)}'.`,
      );
    }
    values.set(m[1], Number(m[2]));
  }
  const faults: Faults = {};
  if (splitUtf8) faults.splitUtf8 = true;
  if (values.has("drop-after-events")) faults.dropAfterEvents = values.get("drop-after-events");
  if (values.has("drop-after-ms")) faults.dropAfterMs = values.get("drop-after-ms");
  if (values.has("hang-after-events")) faults.hangAfterEvents = values.get("hang-after-events");
  if (values.has("stall-after-events") !== values.has("stall-ms"))
    throw bad("x-mock-fault", "needs both stall-after-events=N and stall-ms=T for a stall.");
  if (values.has("stall-ms"))
    faults.stall = { afterEvents: values.get("stall-after-events")!, ms: values.get("stall-ms")! };
  return faults;
}

/** `x-mock-dialect: NAME`: the dialect of this answer (a 400 listing the known ones for another name). */
export function dialectHeader(ctx: HeaderSource): Dialect | undefined {
  const raw = ctx.get("x-mock-dialect");
  return raw === "" ? undefined : dialectFromHeader(raw);
}

/**
 * The dialect to answer a request in, never throwing: its header when it
 * names a dialect, else the server's (what an error answer is rendered in,
 * even the 400 for a bad dialect header).
 */
export function answerDialect(headers: IncomingHttpHeaders, fallback: Dialect): Dialect {
  const raw = headers["x-mock-dialect"];
  return (typeof raw === "string" && DIALECTS.get(raw.trim())) || fallback;
}

/**
 * `x-mock-profile: NAME`: the latency profile of this answer, one of the
 * service's (a 400 naming the known ones for another name). Without
 * `profiles` the header is not read.
 */
export function profileHeader(
  ctx: HeaderSource,
  profiles: ReadonlyMap<string, LatencyProfile> | undefined,
): LatencyProfile | undefined {
  const raw = ctx.get("x-mock-profile");
  if (raw === "" || profiles === undefined) return undefined;
  const profile = profiles.get(raw.trim());
  if (profile) return profile;
  throw bad(
    "x-mock-profile",
    `names an unknown latency profile '${raw.slice(0, 40)}'; the known profiles are ${[...profiles.keys()].map((n) => `'${n}'`).join(", ")}.`,
  );
}

/** Everything the `x-mock-*` headers of one request ask for, read and validated once. */
export interface RequestControls {
  seed: number | undefined;
  scenario: string | undefined;
  dialect: Dialect | undefined;
  timing: Partial<TimingProfile>;
  /** `x-mock-profile`: the latency profile it names (over the model's and the server's). */
  profile: LatencyProfile | undefined;
  fault: Faults | undefined;
  /** `x-mock-strict`: undefined leaves the server's `strict` option. */
  strict: boolean | undefined;
}

/**
 * Reads and validates the control headers (a 400 naming the first bad one).
 * `profiles` are the service's named latency profiles, which `x-mock-profile`
 * may name.
 */
export function readControls(headers: HeaderSource, profiles?: ReadonlyMap<string, LatencyProfile>): RequestControls {
  return {
    seed: seedHeader(headers),
    scenario: headers.get("x-mock-scenario") || undefined,
    dialect: dialectHeader(headers),
    timing: timingHeaders(headers),
    profile: profileHeader(headers, profiles),
    fault: faultHeader(headers),
    strict: strictHeader(headers),
  };
}
