/**
 * Service files into services, with errors a person can act on: each names
 * the file, the JSON path (`$.models["gpt-x"].prices.input`) and what is
 * wrong, with the nearest known name for a mistyped key or profile. Pure: the
 * loader (load.ts) reads the file, this only sees its text or value.
 */
import { parseJsonText } from "../util/json-text.js";
import { z } from "zod";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../spec/common.js";
import { jsonPath, type ScenarioIssue } from "../scenario/parse.js";
import { nearestName } from "../util/nearest-name.js";
import { BUILTIN_PROFILE_NAMES, ServiceFile } from "./schema.js";
import {
  BUILTIN_PROFILES,
  DEFAULT_PRICES,
  type Capacity,
  type LatencyProfile,
  type Limits,
  type ModelSpec,
  type Prices,
  type Service,
} from "./service.js";

/** One problem in a service file: the same shape as a scenario file's (`FILE: $.path: message`). */
export type ServiceIssue = ScenarioIssue;

/** A service file refused: every issue, one per line. */
export class ServiceError extends Error {
  constructor(readonly issues: ServiceIssue[]) {
    super(issues.map((i) => `${i.file}: ${i.path}: ${i.message}`).join("\n"));
    this.name = "ServiceError";
  }
}

/** What a server without a service file calls its default model (`GET /v1/models` lists it). */
export const DEFAULT_MODEL_ID = "mock-model";
/** `owned_by` of a model that does not say. */
export const DEFAULT_OWNER = "openresponses-mock";

/** The flags that set a service's defaults (src/options.ts). */
export interface ServiceFlags {
  profile?: string;
  rpm?: number;
  tpm?: number;
  maxConcurrent?: number;
  queue?: number;
  queueTimeoutMs?: number;
}

/** `Did you mean 'typical'? Known profiles: fast, instant, slow-reasoning, typical.` */
export function knownProfilesHint(name: string, known: Iterable<string>): string {
  const names = [...known].sort();
  const near = nearestName(name, names);
  return `${near !== undefined ? `Did you mean '${near}'? ` : ""}Known profiles: ${names.join(", ")}.`;
}

/** A `--profile` (option `profile`) that names no profile, built-in or the service file's. */
export class UnknownProfileError extends Error {
  constructor(
    readonly profile: string,
    readonly hint: string,
  ) {
    super(`Unknown profile '${profile.slice(0, 80)}' (option profile). ${hint}`);
    this.name = "UnknownProfileError";
  }
}

// ---- telling a service file from a scenario file ----------------------------------------

/** Top-level keys only a service file has (a scenario file has `name` and `turns` or `generate`). */
export const SERVICE_ONLY_KEYS = ["defaults", "models", "keys", "profiles", "maxConcurrent", "queue", "queueTimeoutMs"];

/**
 * Whether a parsed JSON document is meant as a service file: its `$schema`
 * names service.schema.json, or (no `$schema` naming a scenario schema) it
 * has a key only a service file has and none of a scenario's `name`, `turns`
 * and `generate`.
 */
export function isServiceDocument(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const doc = value as Record<string, unknown>;
  if (typeof doc.$schema === "string") {
    if (/service\.schema\.json$/.test(doc.$schema)) return true;
    if (/scenario\.schema\.json$/.test(doc.$schema)) return false;
  }
  if ("name" in doc || "turns" in doc || "generate" in doc) return false;
  return SERVICE_ONLY_KEYS.some((k) => k in doc);
}

// ---- messages --------------------------------------------------------------------------

/** The keys a strict object of the schema takes at `path` (for "did you mean"), or none. */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = ServiceFile;
  for (const key of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const next = (schema.shape as Record<string, z.ZodType>)[String(key)];
      if (!next) return [];
      schema = next;
    } else if (schema instanceof z.ZodRecord) {
      schema = schema.valueType as z.ZodType;
    } else return [];
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
  return s;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type": {
      const expected = issue.expected === "int" ? "a whole number" : issue.expected;
      return (issue as { input?: unknown }).input === undefined
        ? `is required (expected ${expected})`
        : `expected ${expected}`;
    }
    case "too_small":
    case "too_big": {
      if (!/^Too (small|big)/.test(issue.message)) return issue.message;
      const i = issue as { origin?: string; minimum?: unknown; maximum?: unknown; inclusive?: boolean };
      const unit = i.origin === "string" ? " characters" : "";
      return issue.code === "too_small"
        ? `must be ${i.inclusive === false ? ">" : ">="} ${String(i.minimum)}${unit}`
        : `must be ${i.inclusive === false ? "<" : "<="} ${String(i.maximum)}${unit}`;
    }
    case "invalid_key": {
      const inner = (issue as { issues?: z.core.$ZodIssue[] }).issues?.[0];
      return `bad name: ${inner?.message ?? issue.message}`;
    }
    case "invalid_format":
      return issue.message;
    default:
      return issue.message;
  }
}

/** Keys of `defaults` and of a model that people put at the top level. */
const MISPLACED = ["prices", "limits", "profile"];

/** The issues of one zod issue: an unknown key is one issue per key, at the key, with the nearest known one. */
function issuesOf(issue: z.core.$ZodIssue, file: string): ServiceIssue[] {
  if (issue.code !== "unrecognized_keys") return [{ file, path: jsonPath(issue.path), message: describeIssue(issue) }];
  const known = knownKeysAt(issue.path);
  return issue.keys.map((key) => {
    if (issue.path.length === 0 && MISPLACED.includes(key))
      return {
        file,
        path: jsonPath([key]),
        message: `unknown key at the top level: '${key}' goes in 'defaults' (for every model) or in a model of 'models'; see service.schema.json`,
      };
    const near = nearestName(key, known);
    return {
      file,
      path: jsonPath([...issue.path, key]),
      message: `unknown key${near !== undefined ? `; did you mean '${near}'?` : ""}${known.length > 0 ? ` (known here: ${known.join(", ")})` : ""}; see service.schema.json`,
    };
  });
}

/** The rules JSON Schema cannot state (SERVICE_SEMANTIC_RULES), on a document the schema accepted. */
function semanticIssues(doc: ServiceFile, file: string): ServiceIssue[] {
  const issues: ServiceIssue[] = [];
  const known = [...BUILTIN_PROFILE_NAMES, ...Object.keys(doc.profiles ?? {})];
  const checkRef = (name: string | undefined, path: PropertyKey[]) => {
    if (name === undefined || known.includes(name)) return;
    issues.push({
      file,
      path: jsonPath(path),
      message: `unknown profile '${name}'. ${knownProfilesHint(name, known)}`,
    });
  };
  checkRef(doc.defaults?.profile, ["defaults", "profile"]);
  for (const [id, model] of Object.entries(doc.models ?? {})) checkRef(model.profile, ["models", id, "profile"]);
  for (const [name, profile] of Object.entries(doc.profiles ?? {})) {
    for (const which of ["ttftMs", "itlMs"] as const) {
      const d = profile[which];
      if (d.p99 < d.median)
        issues.push({
          file,
          path: jsonPath(["profiles", name, which, "p99"]),
          message: `must be at least the median (${d.median}), got ${d.p99}`,
        });
    }
  }
  return issues;
}

/** Validates an already-parsed JSON value as a service file; throws a ServiceError listing every problem. */
export function validateServiceFile(value: unknown, file: string): ServiceFile {
  if (nestsDeeperThan(value))
    throw new ServiceError([
      { file, path: "$", message: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  const result = ServiceFile.safeParse(value, { reportInput: true });
  if (!result.success) throw new ServiceError(result.error.issues.flatMap((issue) => issuesOf(issue, file)));
  const semantic = semanticIssues(result.data, file);
  if (semantic.length > 0) throw new ServiceError(semantic);
  return result.data;
}

/** Parses the text of a service file (JSON) and validates it. */
export function parseServiceText(text: string, file: string): ServiceFile {
  const parsed = parseJsonText(text);
  if ("error" in parsed) throw new ServiceError([{ file, path: "$", message: parsed.error }]);
  return validateServiceFile(parsed.value, file);
}

// ---- the service a file and the flags describe ----------------------------------------------

/** Only the keys that are set (a limits or capacity object never holds `undefined`). */
function defined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** A file's profile as the service holds it. */
export function profileOf(name: string, p: NonNullable<ServiceFile["profiles"]>[string]): LatencyProfile {
  return {
    name,
    description: p.description ?? "",
    ttft: { medianMs: p.ttftMs.median, p99Ms: p.ttftMs.p99 },
    itl: { medianMs: p.itlMs.median, p99Ms: p.itlMs.p99 },
    slowdown: p.slowdown ? { k: p.slowdown.k, capacity: p.slowdown.capacity } : { k: 0, capacity: 1 },
  };
}

/**
 * The service a (validated) file and the flags describe. Precedence, highest
 * first: a model's own values in the file; the flags (`--rpm`, `--tpm` and
 * `--profile` set the defaults; `--max-concurrent`, `--queue` and
 * `--queue-timeout-ms` the server-wide capacity); the file's `defaults` (and
 * top-level capacity); the built-in defaults. Throws UnknownProfileError for
 * a `--profile` that names no profile.
 */
export function serviceOf(file: ServiceFile, source: string | undefined, flags: ServiceFlags = {}): Service {
  const profiles = new Map<string, LatencyProfile>(BUILTIN_PROFILES.map((p) => [p.name, p]));
  for (const [name, p] of Object.entries(file.profiles ?? {})) profiles.set(name, profileOf(name, p));
  if (flags.profile !== undefined && !profiles.has(flags.profile))
    throw new UnknownProfileError(flags.profile, knownProfilesHint(flags.profile, profiles.keys()));

  const prices: Prices = { ...DEFAULT_PRICES, ...defined(file.defaults?.prices ?? {}) };
  const limits: Limits = defined({
    ...file.defaults?.limits,
    ...defined({ rpm: flags.rpm, tpm: flags.tpm }),
  });
  const models = new Map<string, ModelSpec>();
  for (const [id, m] of Object.entries(file.models ?? {})) {
    const spec: ModelSpec = {
      id,
      prices: { ...prices, ...defined(m.prices ?? {}) },
      limits: { ...limits, ...defined(m.limits ?? {}) },
      capacity: defined({ maxConcurrent: m.maxConcurrent, queue: m.queue, queueTimeoutMs: m.queueTimeoutMs }),
      ownedBy: m.ownedBy ?? DEFAULT_OWNER,
      created: m.created ?? 0,
    };
    if (m.profile !== undefined) spec.profile = m.profile;
    models.set(id, spec);
  }
  const capacity: Capacity = defined({
    maxConcurrent: flags.maxConcurrent ?? file.maxConcurrent,
    queue: flags.queue ?? file.queue,
    queueTimeoutMs: flags.queueTimeoutMs ?? file.queueTimeoutMs,
  });
  return {
    source,
    models,
    defaults: { prices, limits, capacity: {}, ownedBy: DEFAULT_OWNER, created: 0 },
    keys: new Map(Object.entries(file.keys ?? {}).map(([key, l]) => [key, defined(l)])),
    profiles,
    profile: flags.profile ?? file.defaults?.profile,
    capacity,
  };
}

/**
 * What a service limits (for `--workers`, which cannot share limits without
 * Redis): the names of the limits set anywhere (defaults, models, keys,
 * server-wide capacity). Empty: nothing is limited.
 */
export function limitsSet(service: Service): string[] {
  const found = new Set<string>();
  const addLimits = (l: Limits) => {
    for (const k of ["rpm", "tpm", "budgetUsd"] as const) if (l[k] !== undefined) found.add(k);
  };
  const addCapacity = (c: Capacity) => {
    for (const k of ["maxConcurrent", "queue", "queueTimeoutMs"] as const) if (c[k] !== undefined) found.add(k);
  };
  addLimits(service.defaults.limits);
  addCapacity(service.capacity);
  for (const m of service.models.values()) {
    addLimits(m.limits);
    addCapacity(m.capacity);
  }
  for (const l of service.keys.values()) addLimits(l);
  return [...found];
}
