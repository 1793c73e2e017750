/**
 * Deterministic synthesis of JSON values that satisfy a JSON Schema: the subset found in
 * OpenAI-style function tool `parameters` and structured-output (`json_schema`) schemas.
 *
 * Pure: no I/O, no clock, no Math.random. All randomness comes from the caller's rng, so the
 * same schema, the same rng sequence and the same options always give the same value.
 * Unknown keywords are ignored; contradictory schemas yield a best-effort value; never throws.
 */

/** Source of randomness; the project's seeded rng satisfies this structurally. */
export interface SampleRng {
  /** uniform float in [0, 1) */
  next(): number;
}

export interface SampleOptions {
  /** Words used to build plausible strings (e.g. words from the user's message); may be empty. */
  words?: readonly string[];
  /** Proper names from the conversation (e.g. "San Francisco"), preferred for place-like properties. */
  places?: readonly string[];
  /** Max depth of nested objects/arrays before choosing minimal values (default 6). */
  maxDepth?: number;
  /** The request in a few words (e.g. "weather Paris"), for query-like strings (`query`, `q`, `search`, ...). */
  phrase?: string;
  /** The request as one line of prose, for prose-like strings (`objective`, `prompt`, `task`, `question`...). */
  sentence?: string;
  /** A harmless shell command that fits the request, for `command`/`cmd` fields (default: one from a short list). */
  command?: string;
  /**
   * Chance of including one optional property (default 1/2), given its name,
   * its schema and how many optional properties its object has.
   */
  optionalChance?: (key: string, schema: unknown, optionalCount: number) => number;
  /** Values of top-level properties, included even when optional (the caller makes sure they fit). */
  overrides?: Readonly<Record<string, unknown>>;
}

type Schema = Record<string, unknown>;

interface Ctx {
  root: unknown;
  rng: SampleRng;
  /** Words for free text: the caller's, or the built-in list. */
  words: readonly string[];
  places: readonly string[];
  maxDepth: number;
  /** Values left to generate (see VALUE_BUDGET). */
  budget: number;
  phrase?: string;
  sentence?: string;
  command?: string;
  optionalChance?: SampleOptions["optionalChance"];
  overrides?: Readonly<Record<string, unknown>>;
}

const WORDS = ["alpha", "amber", "bright", "cedar", "delta", "ember", "forest", "harbor", "lumen",
  "maple", "meadow", "nova", "orbit", "river", "silver", "summit", "velvet", "willow"];
const FIRST_NAMES = ["Alice", "Bruno", "Chloe", "Diego", "Emma", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Keira", "Liam"];
const LAST_NAMES = ["Martin", "Garcia", "Smith", "Tanaka", "Novak", "Okafor", "Rossi", "Larsen"];
const CITIES = ["Paris", "Tokyo", "Lisbon", "Nairobi", "Toronto", "Sydney", "Berlin", "Seoul", "Lima", "Oslo"];
const COUNTRIES = ["France", "Japan", "Portugal", "Kenya", "Canada", "Australia", "Germany", "Peru"];
const COLORS = ["red", "green", "blue", "teal", "orange", "purple"];
const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const HEX = DIGITS + "abcdef";
const TYPES = ["null", "boolean", "integer", "number", "string", "object", "array"];
/** Past this many $ref/allOf/anyOf reductions without nesting, give up (reference cycles). */
const HOP_LIMIT = 64;
/** Objects/arrays nested deeper than maxDepth + this are emitted empty (required recursion). */
const DEPTH_SLACK = 8;

const isObj = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const count = (v: unknown): number | undefined => (num(v) && v >= 0 ? Math.min(Math.floor(v), 100_000) : undefined);

/** Uniform integer in [lo, hi]; tolerant of an rng that returns exactly 1. */
const int = (ctx: Ctx, lo: number, hi: number): number =>
  lo + Math.min(hi - lo, Math.floor(ctx.rng.next() * (hi - lo + 1)));
const pick = <T>(ctx: Ctx, list: readonly T[]): T => list[int(ctx, 0, list.length - 1)];
const chance = (ctx: Ctx, p: number): boolean => ctx.rng.next() < p;

/** Own-property write that is safe for keys such as `__proto__`. */
function put(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) put(out, k, clone(x));
  return out;
}

/** Canonical text of a JSON value (sorted keys), for equality tests. */
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (isObj(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x)) ?? "";

export function sampleJsonSchema(schema: unknown, rng: SampleRng, options: SampleOptions = {}): unknown {
  if (schema !== true && !isObj(schema)) return {};
  const words = (options.words ?? []).filter((w) => typeof w === "string").map((w) => w.trim()).filter(Boolean);
  const maxDepth = num(options.maxDepth) ? Math.max(0, Math.floor(options.maxDepth)) : 6;
  const places = (options.places ?? []).filter((p) => typeof p === "string" && p.trim().length > 0);
  const phrase = typeof options.phrase === "string" && options.phrase.trim() ? options.phrase.trim() : undefined;
  const command = typeof options.command === "string" && options.command.trim() ? options.command.trim() : undefined;
  const ctx: Ctx = {
    root: schema, rng, words: words.length ? words : WORDS, places, maxDepth, budget: VALUE_BUDGET,
    phrase, command, optionalChance: options.optionalChance, overrides: options.overrides,
    sentence: typeof options.sentence === "string" && options.sentence.trim() ? options.sentence.trim() : undefined,
  };
  try {
    return gen(schema, ctx, 0, 0);
  } catch {
    return {}; // defensive only: the generators are written not to throw
  }
}

/**
 * At most this many values per sample: a small schema (`minItems: 45` three
 * levels deep) must not make an answer of megabytes. Past it, arrays get no
 * more items and objects no more keys (the value may then not fit the schema).
 */
export const VALUE_BUDGET = 2_000;

function gen(raw: unknown, ctx: Ctx, depth: number, hops: number, key?: string): unknown {
  ctx.budget--;
  if (raw === false) return null; // nothing is valid; best effort
  const s: Schema = isObj(raw) ? raw : {};
  if (hops > HOP_LIMIT) return genString({}, ctx, key);

  // Composition keywords each reduce the schema to a simpler one.
  if (typeof s.$ref === "string" || Array.isArray(s.allOf)) return gen(flatten(s, ctx, hops), ctx, depth, hops + 1, key);
  for (const kw of ["anyOf", "oneOf"] as const) {
    const branches = s[kw];
    if (Array.isArray(branches) && branches.length) {
      const rest = { ...s };
      delete rest[kw];
      return gen(merge(rest, flatten(chooseBranch(branches, ctx), ctx, hops)), ctx, depth, hops + 1, key);
    }
  }

  if ("const" in s) return clone(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return s.nullable === true && chance(ctx, 0.15) ? null : clone(pickEnum(s.enum, ctx));
  if (Array.isArray(s.examples) && s.examples.length && chance(ctx, 0.2)) return clone(pick(ctx, s.examples));
  if (s.default !== undefined && chance(ctx, 0.2)) return clone(s.default);

  switch (pickType(s, ctx)) {
    case "null": return null;
    case "boolean": return genBoolean(s, ctx, key);
    case "integer": return genNumber(s, ctx, true, key);
    case "number": return genNumber(s, ctx, false, key);
    case "object": return genObject(s, ctx, depth);
    case "array": return genArray(s, ctx, depth, key);
    default: return genString(s, ctx, key);
  }
}

/** anyOf/oneOf: a random branch, preferring non-null ones (null ~20% when both kinds exist). */
function chooseBranch(branches: unknown[], ctx: Ctx): Schema {
  const all = branches.filter((b) => b !== false).map((b) => (isObj(b) ? b : {}));
  const nulls = all.filter((b) => b.type === "null");
  const others = all.filter((b) => b.type !== "null");
  if (others.length && !(nulls.length && chance(ctx, 0.2))) return pick(ctx, others);
  return nulls.length ? pick(ctx, nulls) : {};
}

/** Resolves `$ref` (merging sibling keywords into the target) and folds `allOf` into one schema. */
function flatten(s: Schema, ctx: Ctx, hops: number): Schema {
  let out = s;
  for (let h = hops; h <= HOP_LIMIT; h++) {
    if (typeof out.$ref === "string") {
      const { $ref, ...rest } = out;
      out = merge(deref(ctx.root, $ref), rest);
    } else if (Array.isArray(out.allOf)) {
      const { allOf, ...rest } = out;
      out = allOf.reduce<Schema>((acc, b) => merge(acc, isObj(b) ? flatten(b, ctx, h + 1) : {}), rest);
    } else {
      return out;
    }
  }
  return {};
}

/** Local JSON pointer (`#`, `#/$defs/x`, `#/definitions/x`, ...) against the root schema. */
function deref(root: unknown, ref: string): Schema {
  if (!ref.startsWith("#")) return {};
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~").replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    node = (isObj(node) || Array.isArray(node)) && Object.hasOwn(node, seg) ? (node as Schema)[seg] : undefined;
  }
  return isObj(node) ? node : {};
}

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"]);

/** Approximate conjunction of two schemas by merging keywords (for allOf, $ref siblings, branches). */
function merge(a: Schema, b: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(a)) put(out, k, v);
  for (const [k, v] of Object.entries(b)) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    let value = v;
    if (prev === undefined) value = v;
    else if (k === "properties" && isObj(prev) && isObj(v)) {
      const props: Schema = { ...prev };
      for (const [pk, pv] of Object.entries(v)) put(props, pk, Object.hasOwn(props, pk) ? { allOf: [props[pk], pv] } : pv);
      value = props;
    } else if (k === "required" && Array.isArray(prev) && Array.isArray(v)) value = [...new Set([...prev, ...v])];
    else if (k === "type") value = intersectTypes(prev, v);
    else if (LOWER_BOUNDS.has(k) && num(prev) && num(v)) value = Math.max(prev, v);
    else if (UPPER_BOUNDS.has(k) && num(prev) && num(v)) value = Math.min(prev, v);
    else if (k === "enum" && Array.isArray(prev) && Array.isArray(v)) {
      const both = prev.filter((x) => v.some((y) => canon(x) === canon(y)));
      value = both.length ? both : v;
    } else if (k === "allOf" && Array.isArray(prev) && Array.isArray(v)) value = [...prev, ...v];
    else if ((k === "anyOf" || k === "oneOf") && Array.isArray(prev) && Array.isArray(v) && prev.length * v.length <= 64) {
      value = prev.flatMap((x) => v.map((y) => ({ allOf: [x, y] }))); // (A1|A2) & (B1|B2) = pairwise
    }
    put(out, k, value);
  }
  return out;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const list = (t: unknown): string[] => (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === "string");
  const bs = list(b);
  const both = list(a).flatMap((t) =>
    bs.includes(t) ? [t] : (t === "number" && bs.includes("integer")) || (t === "integer" && bs.includes("number")) ? ["integer"] : []);
  return both.length ? [...new Set(both)] : b;
}

function pickType(s: Schema, ctx: Ctx): string {
  const declared = (Array.isArray(s.type) ? s.type : [s.type]).filter((t): t is string => typeof t === "string" && TYPES.includes(t));
  const types = declared.length ? declared : [inferType(s)];
  if (s.nullable === true) types.push("null"); // OpenAPI style
  const concrete = types.filter((t) => t !== "null");
  if (!concrete.length) return "null";
  return concrete.length < types.length && chance(ctx, 0.2) ? "null" : pick(ctx, concrete);
}

function inferType(s: Schema): string {
  if (isObj(s.properties) || "required" in s || "additionalProperties" in s || "minProperties" in s) return "object";
  if ("items" in s || "prefixItems" in s || "minItems" in s || "maxItems" in s) return "array";
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => num(s[k]))) return "number";
  return "string";
}

/**
 * Required properties always, optional ones by chance (1/2 unless the caller
 * says otherwise), in `properties` order; no extra keys. At the top level,
 * the caller's overrides replace generated values.
 */
function genObject(s: Schema, ctx: Ctx, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > ctx.maxDepth + DEPTH_SLACK) return out;
  const props = isObj(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : []);
  const unlisted = [...required].filter((k) => !Object.hasOwn(props, k));
  const minimal = depth >= ctx.maxDepth;
  const keys = Object.keys(props);
  const overrides = depth === 0 && ctx.overrides ? ctx.overrides : {};
  const optional = keys.filter((k) => !required.has(k)).length;
  const include = (k: string) => {
    const p = ctx.optionalChance ? ctx.optionalChance(k, props[k], optional) : 0.5;
    return chance(ctx, num(p) ? p : 0.5);
  };
  const chosen = new Set(keys.filter((k) => required.has(k) || Object.hasOwn(overrides, k) || (!minimal && include(k))));
  const minProps = count(s.minProperties) ?? 0;
  for (const k of keys) if (chosen.size + unlisted.length < minProps) chosen.add(k);
  for (const k of keys) {
    if (!chosen.has(k) || ctx.budget <= 0) continue;
    put(out, k, Object.hasOwn(overrides, k) ? clone(overrides[k]) : gen(props[k], ctx, depth + 1, 0, k));
  }
  // Required but not described: use additionalProperties' schema when it is one.
  const extra = isObj(s.additionalProperties) ? s.additionalProperties : {};
  for (const k of unlisted) put(out, k, gen(extra, ctx, depth + 1, 0, k));
  return out;
}

function genArray(s: Schema, ctx: Ctx, depth: number, key?: string): unknown[] {
  const out: unknown[] = [];
  if (depth > ctx.maxDepth + DEPTH_SLACK) return out;
  // Draft 2020 `prefixItems` + `items`, or the older tuple form `items: [...]` + `additionalItems`.
  const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  const minimal = depth >= ctx.maxDepth;
  let lo = count(s.minItems) ?? (minimal ? 0 : 1);
  let hi = count(s.maxItems) ?? Math.max(lo, 3);
  if (rest === false) hi = Math.min(hi, prefix.length);
  if (minimal) hi = Math.min(hi, lo);
  lo = Math.min(lo, hi);
  const argv = key !== undefined && COMMAND_KEY.test(snake(key)) && prefix.length === 0 && isStringSchema(rest) && lo <= 3 && hi >= 3;
  if (argv) return ["bash", "-lc", command(ctx)];
  const n = int(ctx, lo, hi);
  const itemKey = key?.replace(/ies$/, "y").replace(/s$/, "");
  const seen = new Set<string>();
  for (let i = 0; i < n && ctx.budget > 0; i++) {
    const schema = i < prefix.length ? prefix[i] : (rest ?? {});
    let v = gen(schema, ctx, depth + 1, 0, itemKey);
    if (s.uniqueItems === true) {
      for (let t = 0; t < 8 && seen.has(canon(v)); t++) v = gen(schema, ctx, depth + 1, 0, itemKey);
      if (seen.has(canon(v)) && out.length >= lo) break; // best effort: stop rather than repeat
      seen.add(canon(v));
    }
    out.push(v);
  }
  return out;
}

/**
 * Numbers that a property's name says are whole, with a plausible range and a
 * round step: durations, token budgets, counts, pages, ports, ids... (the
 * name is lowercased snake_case; first match wins).
 */
const NUMBER_HINTS: [RegExp, number, number, number][] = [
  [/(^|_)(ms|msec|millis|milliseconds)$|(^|_)ms_/, 1000, 10000, 500],
  [/(^|_)(s|sec|secs|seconds)$|timeout|duration|interval|delay|ttl|wait/, 5, 60, 5],
  [/tokens?$|token_(budget|limit|count)/, 1000, 10000, 500],
  [/(^|_)port$/, 1024, 65535, 1],
  [/(^|_)page(_?(num|number|no))?$/, 1, 5, 1],
  [/limit|page_?size|per_page|top_?[kn]$|max_results|(^|_)(n|k|num|count|quantity|amount_of)$|(^|_)num_|_count$|^count|results$|items$/, 5, 50, 1],
  [/offset|skip|(^|_)(index|idx|start|cursor)$/, 0, 20, 1],
  [/(^|_)(id|pid|uid|gid)$|_ids?$/, 1, 9999, 1],
  [/year/, 2000, 2030, 1],
  [/(^|_)(age)$/, 18, 80, 1],
  [/(^|_)(line|lines|row|rows|column|col|line_number|lineno)$|_line$/, 1, 200, 1],
  [/retr(y|ies)|attempts/, 1, 5, 1],
  [/depth|level|(^|_)(size|width|height|length|len|days|hours|minutes|weeks|months|max|min|priority|rank|version)$|(^|_)(max|min)_/, 1, 100, 1],
  [/percent|pct/, 0, 100, 1],
];

function numberHint(key: string | undefined): [number, number, number] | undefined {
  if (key === undefined) return undefined;
  const k = snake(key);
  const hit = NUMBER_HINTS.find(([re]) => re.test(k));
  return hit ? [hit[1], hit[2], hit[3]] : undefined;
}

function genNumber(s: Schema, ctx: Ctx, integer: boolean, key?: string): number {
  let lo = num(s.minimum) ? s.minimum : -Infinity;
  let hi = num(s.maximum) ? s.maximum : Infinity;
  let loEx = s.exclusiveMinimum === true; // draft-4 boolean form
  let hiEx = s.exclusiveMaximum === true;
  if (num(s.exclusiveMinimum) && s.exclusiveMinimum >= lo) [lo, loEx] = [s.exclusiveMinimum, true];
  if (num(s.exclusiveMaximum) && s.exclusiveMaximum <= hi) [hi, hiEx] = [s.exclusiveMaximum, true];
  let round = 0;
  // A name that says "whole number" (yield_time_ms, max_output_tokens, page, port...) gets one, in a
  // plausible window cut to the schema's bounds (the schema's bounds alone when they do not meet).
  const hint = numberHint(key);
  if (hint) {
    const [hLo, hHi, hStep] = hint;
    const [nLo, nHi] = [Math.max(lo, hLo), Math.min(hi, hHi)];
    if (nLo <= nHi && !(nLo === nHi && ((nLo === lo && loEx) || (nHi === hi && hiEx)))) {
      [loEx, hiEx] = [nLo === lo && loEx, nHi === hi && hiEx];
      [lo, hi] = [nLo, nHi];
      round = hStep;
    }
    integer = true;
  }
  // Default window: 0..100, or 100 wide next to the one given bound.
  if (lo === -Infinity) [lo, loEx] = [hi === Infinity ? 0 : hi > 0 ? 0 : hi - 100, false];
  if (hi === Infinity) [hi, hiEx] = [lo + 100, false];

  let step = num(s.multipleOf) && s.multipleOf > 0 ? s.multipleOf : 0;
  if (integer) step = step ? integerStep(step) : 1;
  let v: number;
  if (step) {
    const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
    const range = (st: number): [number, number] => {
      let kLo = Math.ceil(lo / st - 1e-9);
      let kHi = Math.floor(hi / st + 1e-9);
      if (loEx && near(kLo * st, lo)) kLo++;
      if (hiEx && near(kHi * st, hi)) kHi--;
      return [kLo, kHi];
    };
    // A round value (2500 ms rather than 2731) when the window holds one and multipleOf does not object.
    if (round > 1 && !num(s.multipleOf) && range(round)[1] >= range(round)[0]) step = round;
    const [kLo, kHi] = range(step);
    v = Number(((kHi >= kLo ? int(ctx, kLo, kHi) : kLo) * step).toFixed(decimals(step)));
  } else {
    v = Math.round((lo + ctx.rng.next() * (hi - lo)) * 100) / 100;
    if (!((loEx ? v > lo : v >= lo) && (hiEx ? v < hi : v <= hi))) v = (lo + hi) / 2;
  }
  return Number.isFinite(v) ? v || 0 : 0; // `|| 0` turns -0 into 0
}

/** `yieldTimeMs`, `yield-time-ms` → `yield_time_ms`. */
function snake(key: string): string {
  return /^[a-z0-9_]*$/.test(key) ? key : key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[-\s.]+/g, "_").toLowerCase();
}

/** Flags that would make a call riskier or heavier are rarely set. */
const RISKY = /escalat|danger|unsafe|force|delete|destroy|remove|overwrite|recursive|sudo|bypass|full_access|privileg|interrupt|kill|purge|drop|all$/;

function genBoolean(s: Schema, ctx: Ctx, key?: string): boolean {
  if (typeof s.default === "boolean" && chance(ctx, 0.6)) return s.default;
  return chance(ctx, key !== undefined && RISKY.test(snake(key)) ? 0.1 : 0.5);
}

/** An enum value, avoiding risky ones (`require_escalated`, `force`...) most of the time. */
function pickEnum(values: unknown[], ctx: Ctx): unknown {
  const safe = values.filter((v) => typeof v !== "string" || !RISKY.test(v.toLowerCase()));
  return pick(ctx, safe.length > 0 && safe.length < values.length && chance(ctx, 0.9) ? safe : values);
}

/** Smallest positive integer multiple of `step` (integers must also be multiples of it). */
function integerStep(step: number): number {
  for (let m = 1; m <= 1000; m++) {
    const x = step * m;
    if (Math.abs(x - Math.round(x)) < 1e-9) return Math.max(1, Math.round(x));
  }
  return 1;
}

/** Decimal places needed to print `x` exactly (e.g. 0.05 → 2, 1e-7 → 7). */
function decimals(x: number): number {
  const m = /(?:\.(\d+))?(?:e-(\d+))?$/.exec(String(x));
  return Math.min(20, (m?.[1]?.length ?? 0) + Number(m?.[2] ?? 0));
}

/** Harmless, read-only shell commands, for `command`/`cmd` when the caller gives none. */
export const SAFE_COMMANDS = ["ls -la", "pwd", "git status", "cat README.md", "ls", "git log --oneline -5"] as const;
const FILES = ["src/index.ts", "README.md", "package.json", "src/main.ts", "docs/guide.md"];
const IMAGES = ["docs/screenshot.png", "assets/diagram.png"];
const ZONES = ["Europe/Paris", "Asia/Tokyo", "America/New_York", "Europe/Lisbon", "Australia/Sydney"];
const REASONS = ["Needed to answer the request", "Checks the current state before changing anything",
  "Gathers the details the user asked for", "Confirms the result before replying"];
/** `cmd`, `command`, `shell_command`...: a shell command (a string, or argv when the schema is a string array). */
const COMMAND_KEY = /^(cmd|command|commands|cmdline|command_line|script)$|_(cmd|command)$/;

const command = (ctx: Ctx): string => ctx.command ?? pick(ctx, SAFE_COMMANDS);
const phrase = (ctx: Ctx): string => ctx.phrase ?? Array.from({ length: int(ctx, 1, 3) }, () => pick(ctx, ctx.words)).join(" ");
const reason = (ctx: Ctx): string => `${pick(ctx, REASONS)}${ctx.phrase ? ` (${ctx.phrase})` : ""}.`;

/** A plain string schema that any short string satisfies (for argv items). */
function isStringSchema(v: unknown): boolean {
  if (!isObj(v) || v.type !== "string") return false;
  if (["enum", "const", "pattern", "format", "$ref", "anyOf", "oneOf", "allOf"].some((k) => k in v)) return false;
  return (count(v.minLength) ?? 0) <= 2 && (count(v.maxLength) ?? Infinity) >= 64;
}

/** Property-name hints for plain strings, tried on the snake_case name in order (with the string's schema). */
const HINTS: [RegExp, (ctx: Ctx, s: Schema) => string][] = [
  [/mail/, (ctx) => email(ctx)],
  [/(url|uri)s?$|link|website|homepage/, (ctx) => `https://example.com/${slug(ctx)}`],
  [COMMAND_KEY, (ctx) => command(ctx)],
  [/^shell$/, () => "bash"],
  [/^(workdir|cwd|dir|directory|folder|working_dir|working_directory|base_dir|root_dir)$|_(dir|directory|folder)$/, () => "."],
  [/(^|_)(path|file|filename|file_name|filepath|file_path|image|image_path)$/, (ctx, s) =>
    pick(ctx, /image|picture|photo|screenshot/i.test(`${String(s.description ?? "")}`) ? IMAGES : FILES)],
  [/^(q|query|search|search_query|search_term|keywords?|terms?|topic|subject|title)$|_query$/, (ctx) => phrase(ctx)],
  [/^(question|prompt|objective|goal|task|text|instructions?|request)$/, (ctx) => ctx.sentence ?? phrase(ctx)],
  [/justification|reason|rationale|explanation|description|summary|comment|(^|_)notes?$|message|details/, (ctx) => reason(ctx)],
  [/(^|_)(cit(y|ies)|locations?|places?|towns?|destinations?)($|_)/, (ctx) => pick(ctx, ctx.places.length ? ctx.places : CITIES)],
  [/countr/, (ctx) => pick(ctx, COUNTRIES)],
  [/(^|_)(time_?zone|tz)$/, (ctx) => pick(ctx, ZONES)],
  [/(^|_)locale$/, () => "en-US"],
  [/(^|_)branch$/, () => "main"],
  [/(^|_)(date|day|deadline|birthday|since|until|due)$/, (ctx) => formatValue("date", ctx) ?? ""],
  [/(_at|timestamp|datetime)$/, (ctx) => formatValue("date-time", ctx) ?? ""],
  [/(last|sur|family)_?name/, (ctx) => pick(ctx, LAST_NAMES)],
  [/full_?name|author|person|contact/, (ctx) => `${pick(ctx, FIRST_NAMES)} ${pick(ctx, LAST_NAMES)}`],
  [/^names?$|first_?name|user_?name/, (ctx) => pick(ctx, FIRST_NAMES)],
  [/(^|_)ids?$/, (ctx) => `${slug(ctx)}_${int(ctx, 1, 99)}`],
  [/colou?r/, (ctx) => pick(ctx, COLORS)],
  [/phone/, (ctx) => `+1-555-01${int(ctx, 10, 99)}`],
];

function genString(s: Schema, ctx: Ctx, key?: string): string {
  const min = count(s.minLength) ?? 0;
  const max = count(s.maxLength) ?? Infinity;
  const formatted = typeof s.format === "string" ? formatValue(s.format, ctx) : undefined;
  if (formatted !== undefined) return formatted;
  if (typeof s.pattern === "string") {
    const ast = parsePattern(s.pattern);
    const re = compile(s.pattern);
    for (let t = 0; ast && t < 5; t++) {
      const v = genAlts(ast, ctx);
      const len = Array.from(v).length;
      if ((!re || re.test(v)) && len >= min && len <= max) return v;
    }
  }
  const name = key === undefined ? undefined : snake(key);
  const hint = name === undefined ? undefined : HINTS.find(([re]) => re.test(name));
  const text = hint ? hint[1](ctx, s) : Array.from({ length: int(ctx, 1, 3) }, () => pick(ctx, ctx.words)).join(" ");
  return fit(text, min, max, ctx);
}

/** Pads with words up to `min` code points and cuts at `max`. */
function fit(text: string, min: number, max: number, ctx: Ctx): string {
  let chars = Array.from(text);
  while (chars.length < min) chars.push(" ", ...Array.from(pick(ctx, ctx.words)));
  if (chars.length > max) chars = chars.slice(0, max);
  const out = chars.join("");
  const trimmed = out.trimEnd();
  return Array.from(trimmed).length >= min ? trimmed : out;
}

/** A lowercase ASCII token from the word list, for emails, URLs and host names. */
function slug(ctx: Ctx): string {
  const w = pick(ctx, ctx.words).normalize("NFKD").toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 30);
  return w || pick(ctx, WORDS);
}

const email = (ctx: Ctx): string => `${pick(ctx, FIRST_NAMES).toLowerCase()}.${slug(ctx)}@example.com`;

function formatValue(format: string, ctx: Ctx): string | undefined {
  const pad = (n: number) => String(n).padStart(2, "0");
  const hex = (n: number) => Array.from({ length: n }, () => HEX[int(ctx, 0, 15)]).join("");
  const date = () => `${int(ctx, 2000, 2030)}-${pad(int(ctx, 1, 12))}-${pad(int(ctx, 1, 28))}`;
  const time = () => `${pad(int(ctx, 0, 23))}:${pad(int(ctx, 0, 59))}:${pad(int(ctx, 0, 59))}Z`;
  switch (format) {
    case "date": return date();
    case "time": return time();
    case "date-time": return `${date()}T${time()}`;
    case "duration": return `P${int(ctx, 1, 30)}D`;
    case "email": case "idn-email": return email(ctx);
    case "uri": case "url": case "iri": case "uri-reference": case "iri-reference": return `https://example.com/${slug(ctx)}`;
    case "hostname": case "idn-hostname": return `${slug(ctx)}.example.com`;
    case "uuid": return `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(ctx, ["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
    case "ipv4": return Array.from({ length: 4 }, () => int(ctx, 1, 254)).join(".");
    case "ipv6": return `2001:db8::${hex(4)}`;
    default: return undefined;
  }
}

// ---- Tiny regex generator: literals, escapes \d \w \s, classes [a-z_], `.`, (a|b) groups, quantifiers.

/** A quantified atom: a set of characters to pick from, or a group of alternatives. */
interface Atom { set: string[]; alts?: Atom[][]; min: number; max: number }

const ESCAPES: Record<string, string> = { d: DIGITS, w: LOWER + LOWER.toUpperCase() + DIGITS + "_", s: " ", n: "\n", t: "\t" };

/** Parses the supported subset; undefined for anything else (negated classes, lookarounds, \b, ...). */
function parsePattern(p: string): Atom[][] | undefined {
  let i = 0;
  const fail = (): never => {
    throw new Error("unsupported pattern");
  };
  const escape = (): string[] => {
    const c = p[i++] ?? fail();
    if (Object.hasOwn(ESCAPES, c)) return Array.from(ESCAPES[c]);
    return /[A-Za-z0-9]/.test(c) ? fail() : [c];
  };
  const charClass = (): string[] => {
    if (p[i] === "^") fail();
    const set: string[] = [];
    while (p[i] !== "]") {
      if (i >= p.length) fail();
      const c = p[i++];
      if (c === "\\") set.push(...escape());
      else if (p[i] === "-" && i + 1 < p.length && p[i + 1] !== "]") {
        const [a, b] = [c.charCodeAt(0), p.charCodeAt(i + 1)];
        i += 2;
        if (b < a || b - a > 5000) fail();
        for (let x = a; x <= b; x++) set.push(String.fromCharCode(x));
      } else set.push(c);
    }
    i++;
    return set.length ? set : fail();
  };
  const quantify = (atom: Atom): Atom => {
    const q = /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(p.slice(i));
    if (!q) return atom;
    i += q[0].length;
    if (q[1] !== undefined) [atom.min, atom.max] = [+q[1], q[2] === undefined ? +q[1] : q[3] ? +q[3] : +q[1] + 3];
    else [atom.min, atom.max] = q[0] === "*" ? [0, 3] : q[0] === "+" ? [1, 4] : [0, 1];
    if (atom.max > 10_000 || atom.max < atom.min) fail();
    if (p[i] === "?") i++; // lazy modifier
    return atom;
  };
  const alternatives = (): Atom[][] => {
    const alts: Atom[][] = [[]];
    while (i < p.length && p[i] !== ")") {
      const c = p[i++];
      if (c === "|") alts.push([]);
      if (c === "|" || c === "^" || c === "$") continue;
      let atom: Atom = { set: [c], min: 1, max: 1 };
      if (c === "(") {
        if (p.startsWith("?:", i)) i += 2;
        else if (p[i] === "?") fail();
        atom = { set: [], alts: alternatives(), min: 1, max: 1 };
        if (p[i++] !== ")") fail();
      } else if (c === "[") atom.set = charClass();
      else if (c === "\\") atom.set = escape();
      else if (c === ".") atom.set = Array.from(LOWER + DIGITS);
      else if ("*+?{}]".includes(c)) fail();
      alts[alts.length - 1].push(quantify(atom));
    }
    return alts;
  };
  try {
    const ast = alternatives();
    return i === p.length ? ast : undefined;
  } catch {
    return undefined;
  }
}

function genAlts(alts: Atom[][], ctx: Ctx): string {
  let out = "";
  for (const a of pick(ctx, alts)) for (let n = int(ctx, a.min, a.max); n > 0; n--) out += a.alts ? genAlts(a.alts, ctx) : pick(ctx, a.set);
  return out;
}

function compile(p: string): RegExp | undefined {
  try {
    return new RegExp(p, "u");
  } catch {
    return undefined;
  }
}
