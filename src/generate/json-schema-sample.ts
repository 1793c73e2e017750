/**
 * Deterministic synthesis of JSON values that satisfy a JSON Schema: the subset found in
 * OpenAI-style function tool `parameters` and structured-output (`json_schema`) schemas.
 *
 * Pure: no I/O, no clock, no Math.random. All randomness comes from the caller's rng, so the
 * same schema, the same rng sequence and the same options always give the same value.
 * Unknown keywords are ignored; contradictory schemas yield a best-effort value; never throws.
 *
 * Every sample has a budget: its JSON text (`maxBytes`), the values it holds
 * (VALUE_BUDGET) and the work spent on the schema (WORK_BUDGET). Regex
 * repetitions, optional properties and array items beyond `minItems` are drawn
 * small; a value that does not fit is drawn again as small as the schema allows
 * (no optional keys, `minItems` items, the shortest string a pattern takes);
 * `sampleWithin` says so when even that does not fit (a schema whose smallest
 * valid value is megabytes: `minLength: 1e9`, `^(a{1000}){1000}$`).
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
  /** Largest JSON text of the value, in UTF-8 bytes (default VALUE_BYTES). */
  maxBytes?: number;
}

/** A sample within its budget, or the lower bound of what the schema needs when none fits. */
export type BoundedSample =
  | { ok: true; value: unknown; json: string }
  | {
      ok: false;
      /** At least this many bytes (or values) a valid value needs, when known; else the budget. */ least: number;
      reason: "bytes" | "values" | "work";
    };

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
  /** Bytes of JSON text left (approximately: UTF-16 units, escapes not counted). */
  left: number;
  /** Steps of work left (see WORK_BUDGET): schema merges, references, enum scans. */
  work: number;
  /** Something the schema requires was left out for lack of budget: the value does not fit. */
  cut: boolean;
  /** Draw everything as small as the schema allows (the second attempt). */
  minimal: boolean;
  /** Parsed patterns of this sample, by source. */
  patterns: Map<string, Pattern | undefined>;
  /** Lower bounds of schema nodes (see least()). */
  leastOf: WeakMap<object, number>;
  leastVisiting: Set<object>;
  /** The values of an enum that are not risky (see pickEnum), by enum. */
  safeValues: WeakMap<unknown[], unknown[]>;
  phrase?: string;
  sentence?: string;
  command?: string;
  optionalChance?: SampleOptions["optionalChance"];
  overrides?: Readonly<Record<string, unknown>>;
}

const WORDS = [
  "alpha",
  "amber",
  "bright",
  "cedar",
  "delta",
  "ember",
  "forest",
  "harbor",
  "lumen",
  "maple",
  "meadow",
  "nova",
  "orbit",
  "river",
  "silver",
  "summit",
  "velvet",
  "willow",
];
const FIRST_NAMES = [
  "Alice",
  "Bruno",
  "Chloe",
  "Diego",
  "Emma",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonas",
  "Keira",
  "Liam",
];
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
  if (k === "__proto__")
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
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
  JSON.stringify(v, (_k, x: unknown) =>
    isObj(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  ) ?? "";

/**
 * A value for `schema` (best effort: when no value fits the budget, a small
 * one that may not fit the schema). `sampleWithin` says when that happens.
 */
export function sampleJsonSchema(schema: unknown, rng: SampleRng, options: SampleOptions = {}): unknown {
  const sample = sampleAttempts(schema, rng, options);
  return sample.ok ? sample.value : sample.fallback;
}

/** A value for `schema` whose JSON text fits `options.maxBytes`, or the reason there is none. */
export function sampleWithin(schema: unknown, rng: SampleRng, options: SampleOptions = {}): BoundedSample {
  const sample = sampleAttempts(schema, rng, options);
  return sample.ok
    ? { ok: true, value: sample.value, json: sample.json }
    : { ok: false, least: sample.least, reason: sample.reason };
}

/**
 * Largest JSON text of one sample by default (64 KiB): one call's arguments,
 * one structured-output answer.
 */
export const VALUE_BYTES = 64 * 1024;

/**
 * At most this many values per sample: a small schema (`minItems: 45` three
 * levels deep) must not make an answer of megabytes. A schema that needs more
 * has no value within the budget.
 */
export const VALUE_BUDGET = 2_000;

/**
 * Steps of work per sample: each schema node visited, each key merged by
 * allOf/$ref/anyOf, each enum value scanned. Bounds the time a sample takes
 * whatever the schema (a few milliseconds).
 */
export const WORK_BUDGET = 20_000;

/** Words longer than this are not words (user text may hold anything): they are not used in values. */
const MAX_WORD = 40;
/** Longest phrase, sentence or command taken from the caller. */
const MAX_HINT = 200;
/** A regex repetition draws at most this many more than its minimum (`{1,10000}` → 1..33). */
const REPEAT_EXTRA = 32;
/** Arrays get at most this many items more than `minItems` (`maxItems: 1000` → a few). */
const ITEMS_EXTRA = 8;

type Attempt =
  | { ok: true; value: unknown; json: string }
  | { ok: false; least: number; reason: "bytes" | "values" | "work"; fallback: unknown };

function sampleAttempts(schema: unknown, rng: SampleRng, options: SampleOptions): Attempt {
  if (schema !== true && !isObj(schema)) return { ok: true, value: {}, json: "{}" };
  const text = (v: unknown, max: number): string | undefined =>
    typeof v === "string" && v.trim() && v.trim().length <= max ? v.trim() : undefined;
  const words = (options.words ?? [])
    .filter((w) => typeof w === "string")
    .map((w) => w.trim())
    .filter((w) => w.length > 0 && w.length <= MAX_WORD);
  const maxDepth = num(options.maxDepth) ? Math.max(0, Math.floor(options.maxDepth)) : 6;
  const places = (options.places ?? []).filter(
    (p) => typeof p === "string" && p.trim().length > 0 && p.length <= MAX_HINT,
  );
  const maxBytes = num(options.maxBytes) && options.maxBytes > 0 ? Math.floor(options.maxBytes) : VALUE_BYTES;
  const ctx: Ctx = {
    root: schema,
    rng,
    words: words.length ? words : WORDS,
    places,
    maxDepth,
    budget: VALUE_BUDGET,
    left: maxBytes,
    work: WORK_BUDGET,
    cut: false,
    minimal: false,
    patterns: new Map(),
    leastOf: new WeakMap(),
    leastVisiting: new Set(),
    safeValues: new WeakMap(),
    phrase: text(options.phrase, MAX_HINT),
    command: text(options.command, MAX_HINT),
    optionalChance: options.optionalChance,
    overrides: options.overrides,
    sentence: text(options.sentence, MAX_HINT),
  };
  // A schema whose smallest valid value is over the budget needs no attempt.
  const least = leastBytes(schema, ctx, 0, 0);
  ctx.work = WORK_BUDGET;
  if (least > maxBytes) return { ok: false, least, reason: "bytes", fallback: {} };
  let fallback: unknown = {};
  let reason: "bytes" | "values" | "work" = "bytes";
  for (const minimal of [false, true]) {
    Object.assign(ctx, { minimal, budget: VALUE_BUDGET, left: maxBytes, work: WORK_BUDGET, cut: false });
    let value: unknown;
    try {
      value = gen(schema, ctx, 0, 0);
    } catch {
      value = {}; // defensive only: the generators are written not to throw
    }
    fallback = value;
    reason = ctx.work <= 0 ? "work" : ctx.budget <= 0 ? "values" : "bytes";
    if (ctx.cut) continue;
    const json = JSON.stringify(value) ?? "null";
    if (utf8Length(json) <= maxBytes) return { ok: true, value, json };
  }
  return { ok: false, least: Math.max(least, reason === "values" ? VALUE_BUDGET + 1 : maxBytes + 1), reason, fallback };
}

/** Bytes of a string in UTF-8 (a lone surrogate counts 3, as its replacement character would). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * A lower bound of the JSON size of the smallest value valid for the schema
 * (as the sampler reads it), without drawing one: `minLength`, `minItems`,
 * required keys and the shortest match of a pattern, summed. Cycles, and
 * whatever is left when the work runs out, count 0 (it stays a lower bound).
 */
function leastBytes(raw: unknown, ctx: Ctx, depth: number, hops: number): number {
  if (--ctx.work < 0 || depth > 64 || hops > HOP_LIMIT) return 0;
  if (raw === false) return 4;
  if (!isObj(raw)) return 1;
  const memo = ctx.leastOf.get(raw);
  if (memo !== undefined) return memo;
  if (ctx.leastVisiting.has(raw)) return 0;
  ctx.leastVisiting.add(raw);
  const n = leastOfSchema(raw, ctx, depth, hops);
  ctx.leastVisiting.delete(raw);
  if (ctx.work > 0) ctx.leastOf.set(raw, n);
  return n;
}

function leastOfSchema(s: Schema, ctx: Ctx, depth: number, hops: number): number {
  if (typeof s.$ref === "string" || Array.isArray(s.allOf))
    return leastBytes(flatten(s, ctx, hops), ctx, depth, hops + 1);
  for (const kw of ["anyOf", "oneOf"] as const) {
    const branches = s[kw];
    if (Array.isArray(branches) && branches.length) {
      const rest = { ...s };
      delete rest[kw];
      let best = Infinity;
      for (const b of branches) {
        if (b === false) continue;
        if (ctx.work <= 0) return 0;
        best = Math.min(
          best,
          leastBytes(merge(rest, flatten(isObj(b) ? b : {}, ctx, hops), ctx), ctx, depth, hops + 1),
        );
      }
      return best === Infinity ? 4 : best;
    }
  }
  if ("const" in s) return jsonSize(s.const);
  if (Array.isArray(s.enum) && s.enum.length) {
    if (s.nullable === true) return 4;
    let best = Infinity;
    for (const v of s.enum) {
      if (--ctx.work < 0) return 0;
      best = Math.min(best, jsonSize(v));
    }
    return best;
  }
  const declared = (Array.isArray(s.type) ? s.type : [s.type]).filter(
    (t): t is string => typeof t === "string" && TYPES.includes(t),
  );
  const types = declared.length ? declared : [inferType(s)];
  if (s.nullable === true || types.includes("null")) return 4;
  const size = (v: unknown) => (num(v) && v > 0 ? Math.floor(v) : 0);
  let best = Infinity;
  for (const t of types) {
    if (t === "boolean") best = Math.min(best, 4);
    else if (t === "integer" || t === "number") best = Math.min(best, 1);
    else if (t === "string") {
      const pattern =
        typeof s.pattern === "string" && typeof s.format !== "string" ? parsedPattern(s.pattern, ctx) : undefined;
      best = Math.min(best, 2 + Math.max(size(s.minLength), pattern?.least ?? 0));
    } else if (t === "array") {
      const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
      const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
      const n = size(s.minItems);
      let total = 2;
      for (let i = 0; i < Math.min(n, prefix.length); i++) total += 1 + leastBytes(prefix[i], ctx, depth + 1, 0);
      if (n > prefix.length) total += (n - prefix.length) * (1 + leastBytes(rest ?? {}, ctx, depth + 1, 0));
      best = Math.min(best, total);
    } else if (t === "object") {
      const props = isObj(s.properties) ? s.properties : {};
      const extra = isObj(s.additionalProperties) ? s.additionalProperties : {};
      const required = Array.isArray(s.required)
        ? [...new Set(s.required.filter((k): k is string => typeof k === "string"))]
        : [];
      let total = 2;
      for (const k of required) {
        if (ctx.work <= 0) break;
        total += k.length + 4 + leastBytes(Object.hasOwn(props, k) ? props[k] : extra, ctx, depth + 1, 0);
      }
      // Keys beyond the required ones that minProperties asks for: at least `"":0,` each.
      total += 5 * Math.max(0, size(s.minProperties) - required.length);
      best = Math.min(best, total);
    } else best = Math.min(best, 2);
  }
  return best;
}

/** Marks the value as not fitting (something required was left out) and returns a placeholder. */
function cut(ctx: Ctx): null {
  ctx.cut = true;
  return null;
}

/** JSON size of a value taken as it is (const, enum, default, examples), cached for objects. */
const jsonSizes = new WeakMap<object, number>();
function jsonSize(v: unknown): number {
  if (typeof v !== "object" || v === null) return (JSON.stringify(v) ?? "null").length;
  let n = jsonSizes.get(v);
  if (n === undefined) {
    n = (JSON.stringify(v) ?? "null").length;
    jsonSizes.set(v, n);
  }
  return n;
}

function gen(raw: unknown, ctx: Ctx, depth: number, hops: number, key?: string): unknown {
  // Out of values, bytes or work: whatever is still required does not fit.
  if (--ctx.budget < 0 || ctx.left < 0 || --ctx.work < 0) return cut(ctx);
  if (raw === false) return spent(ctx, null); // nothing is valid; best effort
  const s: Schema = isObj(raw) ? raw : {};
  if (hops > HOP_LIMIT) return genString({}, ctx, key);

  // Composition keywords each reduce the schema to a simpler one.
  if (typeof s.$ref === "string" || Array.isArray(s.allOf))
    return gen(flatten(s, ctx, hops), ctx, depth, hops + 1, key);
  for (const kw of ["anyOf", "oneOf"] as const) {
    const branches = s[kw];
    if (Array.isArray(branches) && branches.length) {
      const rest = { ...s };
      delete rest[kw];
      const branch = ctx.minimal
        ? smallestBranch(branches, rest, ctx, hops)
        : flatten(chooseBranch(branches, ctx), ctx, hops);
      return gen(merge(rest, branch, ctx), ctx, depth, hops + 1, key);
    }
  }

  if ("const" in s) return spentAs(ctx, clone(s.const), jsonSize(s.const));
  if (Array.isArray(s.enum) && s.enum.length) {
    if (s.nullable === true && (ctx.minimal || chance(ctx, 0.15))) return spent(ctx, null);
    const v = ctx.minimal ? smallestValue(s.enum, ctx) : pickEnum(s.enum, ctx);
    return spentAs(ctx, clone(v), jsonSize(v));
  }
  if (!ctx.minimal && Array.isArray(s.examples) && s.examples.length && chance(ctx, 0.2)) {
    const v = pick(ctx, s.examples);
    return spentAs(ctx, clone(v), jsonSize(v));
  }
  if (!ctx.minimal && s.default !== undefined && chance(ctx, 0.2))
    return spentAs(ctx, clone(s.default), jsonSize(s.default));

  switch (pickType(s, ctx)) {
    case "null":
      return spent(ctx, null);
    case "boolean":
      return spent(ctx, genBoolean(s, ctx, key));
    case "integer":
      return spent(ctx, genNumber(s, ctx, true, key));
    case "number":
      return spent(ctx, genNumber(s, ctx, false, key));
    case "object":
      return genObject(s, ctx, depth);
    case "array":
      return genArray(s, ctx, depth, key);
    default:
      return genString(s, ctx, key);
  }
}

/** Counts a primitive value against the bytes left. */
function spent<T>(ctx: Ctx, v: T): T {
  ctx.left -= typeof v === "string" ? v.length + 2 : String(v).length;
  return v;
}

/** Counts a value of known JSON size against the bytes left. */
function spentAs<T>(ctx: Ctx, v: T, size: number): T {
  ctx.left -= size;
  return v;
}

/** The enum value with the shortest JSON (the first of those). */
function smallestValue(values: unknown[], ctx: Ctx): unknown {
  let best = values[0];
  for (const v of values) {
    if (--ctx.work < 0) break;
    if (jsonSize(v) < jsonSize(best)) best = v;
  }
  return best;
}

/** anyOf/oneOf, as small as can be: the branch whose smallest value is smallest (the first of those). */
function smallestBranch(branches: unknown[], rest: Schema, ctx: Ctx, hops: number): Schema {
  let best: Schema = {};
  let size = Infinity;
  for (const b of branches) {
    if (b === false || ctx.work <= 0) continue;
    const flat = flatten(isObj(b) ? b : {}, ctx, hops);
    const n = leastBytes(merge(rest, flat, ctx), ctx, 0, hops + 1);
    if (n < size) [best, size] = [flat, n];
  }
  return best;
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
  for (let h = hops; h <= HOP_LIMIT && ctx.work > 0; h++) {
    if (typeof out.$ref === "string") {
      const { $ref, ...rest } = out;
      out = merge(deref(ctx.root, $ref, ctx), rest, ctx);
    } else if (Array.isArray(out.allOf)) {
      const { allOf, ...rest } = out;
      out = allOf.reduce<Schema>(
        (acc, b) => (ctx.work > 0 ? merge(acc, isObj(b) ? flatten(b, ctx, h + 1) : {}, ctx) : acc),
        rest,
      );
    } else {
      return out;
    }
  }
  return {};
}

/** Local JSON pointer (`#`, `#/$defs/x`, `#/definitions/x`, ...) against the root schema. */
function deref(root: unknown, ref: string, ctx: Ctx): Schema {
  if (!ref.startsWith("#")) return {};
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    ctx.work--;
    const seg = raw
      .replace(/~1/g, "/")
      .replace(/~0/g, "~")
      .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    node = (isObj(node) || Array.isArray(node)) && Object.hasOwn(node, seg) ? (node as Schema)[seg] : undefined;
  }
  return isObj(node) ? node : {};
}

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"]);

/** Approximate conjunction of two schemas by merging keywords (for allOf, $ref siblings, branches). */
function merge(a: Schema, b: Schema, ctx: Ctx): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(a)) put(out, k, v);
  ctx.work -= 1 + Object.keys(out).length;
  for (const [k, v] of Object.entries(b)) {
    ctx.work--;
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    let value = v;
    if (prev === undefined) value = v;
    else if (k === "properties" && isObj(prev) && isObj(v)) {
      const props: Schema = { ...prev };
      ctx.work -= Object.keys(props).length;
      for (const [pk, pv] of Object.entries(v))
        put(props, pk, Object.hasOwn(props, pk) ? { allOf: [props[pk], pv] } : pv);
      value = props;
    } else if (k === "required" && Array.isArray(prev) && Array.isArray(v)) {
      ctx.work -= prev.length + v.length;
      value = [...new Set([...prev, ...v])];
    } else if (k === "type") value = intersectTypes(prev, v);
    else if (LOWER_BOUNDS.has(k) && num(prev) && num(v)) value = Math.max(prev, v);
    else if (UPPER_BOUNDS.has(k) && num(prev) && num(v)) value = Math.min(prev, v);
    else if (k === "enum" && Array.isArray(prev) && Array.isArray(v)) {
      ctx.work -= prev.length + v.length;
      const keys = ctx.work > 0 ? new Set(v.map(canon)) : new Set<string>();
      const both = prev.filter((x) => keys.has(canon(x)));
      value = both.length ? both : v;
    } else if (k === "allOf" && Array.isArray(prev) && Array.isArray(v)) value = [...prev, ...v];
    else if (
      (k === "anyOf" || k === "oneOf") &&
      Array.isArray(prev) &&
      Array.isArray(v) &&
      prev.length * v.length <= 64
    ) {
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
    bs.includes(t)
      ? [t]
      : (t === "number" && bs.includes("integer")) || (t === "integer" && bs.includes("number"))
        ? ["integer"]
        : [],
  );
  return both.length ? [...new Set(both)] : b;
}

function pickType(s: Schema, ctx: Ctx): string {
  const declared = (Array.isArray(s.type) ? s.type : [s.type]).filter(
    (t): t is string => typeof t === "string" && TYPES.includes(t),
  );
  const types = declared.length ? declared : [inferType(s)];
  if (s.nullable === true) types.push("null"); // OpenAPI style
  const concrete = types.filter((t) => t !== "null");
  if (!concrete.length) return "null";
  // As small as can be: null when allowed, else the first of the cheaper kinds.
  if (ctx.minimal) return concrete.length < types.length ? "null" : TYPES.find((t) => concrete.includes(t))!;
  return concrete.length < types.length && chance(ctx, 0.2) ? "null" : pick(ctx, concrete);
}

function inferType(s: Schema): string {
  if (isObj(s.properties) || "required" in s || "additionalProperties" in s || "minProperties" in s) return "object";
  if ("items" in s || "prefixItems" in s || "minItems" in s || "maxItems" in s) return "array";
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => num(s[k])))
    return "number";
  return "string";
}

/**
 * Required properties always, optional ones by chance (1/2 unless the caller
 * says otherwise), in `properties` order; no extra keys. At the top level,
 * the caller's overrides replace generated values.
 */
function genObject(s: Schema, ctx: Ctx, depth: number): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  ctx.left -= 2;
  if (depth > ctx.maxDepth + DEPTH_SLACK) return out;
  const props = isObj(s.properties) ? s.properties : {};
  const required = new Set(
    Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === "string") : [],
  );
  const unlisted = [...required].filter((k) => !Object.hasOwn(props, k));
  const minimal = ctx.minimal || depth >= ctx.maxDepth;
  const keys = Object.keys(props);
  ctx.work -= keys.length + required.size;
  const overrides = depth === 0 && ctx.overrides ? ctx.overrides : {};
  const optional = keys.filter((k) => !required.has(k)).length;
  const include = (k: string) => {
    // Optional keys only while there is room for them.
    if (ctx.left <= 0 || ctx.budget <= 0 || ctx.work <= 0) return false;
    const p = ctx.optionalChance ? ctx.optionalChance(k, props[k], optional) : 0.5;
    return chance(ctx, num(p) ? p : 0.5);
  };
  const chosen = new Set(
    keys.filter((k) => required.has(k) || Object.hasOwn(overrides, k) || (!minimal && include(k))),
  );
  const minProps = count(s.minProperties) ?? 0;
  for (const k of keys) if (chosen.size + unlisted.length < minProps) chosen.add(k);
  for (const k of keys) {
    if (!chosen.has(k)) continue;
    if (ctx.cut) return null;
    ctx.left -= k.length + 4;
    put(
      out,
      k,
      Object.hasOwn(overrides, k)
        ? spentAs(ctx, clone(overrides[k]), jsonSize(overrides[k]))
        : gen(props[k], ctx, depth + 1, 0, k),
    );
  }
  // Required but not described: use additionalProperties' schema when it is one.
  const extra = isObj(s.additionalProperties) ? s.additionalProperties : {};
  for (const k of unlisted) {
    if (ctx.cut) return null;
    ctx.left -= k.length + 4;
    put(out, k, gen(extra, ctx, depth + 1, 0, k));
  }
  return out;
}

function genArray(s: Schema, ctx: Ctx, depth: number, key?: string): unknown[] | null {
  const out: unknown[] = [];
  ctx.left -= 2;
  if (depth > ctx.maxDepth + DEPTH_SLACK) return out;
  // Draft 2020 `prefixItems` + `items`, or the older tuple form `items: [...]` + `additionalItems`.
  const prefix: unknown[] = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
  const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
  const minimal = ctx.minimal || depth >= ctx.maxDepth;
  let lo = count(s.minItems) ?? (minimal ? 0 : 1);
  let hi = Math.min(count(s.maxItems) ?? Math.max(lo, 3), lo + ITEMS_EXTRA);
  if (rest === false) hi = Math.min(hi, prefix.length);
  if (minimal) hi = Math.min(hi, lo);
  lo = Math.min(lo, hi);
  const argv =
    key !== undefined &&
    COMMAND_KEY.test(snake(key)) &&
    prefix.length === 0 &&
    isStringSchema(rest) &&
    lo <= 3 &&
    hi >= 3;
  if (argv) {
    const cmd = ["bash", "-lc", command(ctx)];
    return spentAs(ctx, cmd, jsonSize(cmd));
  }
  const n = int(ctx, lo, hi);
  const itemKey = key?.replace(/ies$/, "y").replace(/s$/, "");
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    if (ctx.cut) return null;
    // Items past minItems only while there is room for them.
    if (i >= lo && (ctx.left <= 0 || ctx.budget <= 0 || ctx.work <= 0)) break;
    const schema = i < prefix.length ? prefix[i] : (rest ?? {});
    ctx.left -= 1;
    let v = gen(schema, ctx, depth + 1, 0, itemKey);
    if (s.uniqueItems === true) {
      for (let t = 0; t < 8 && seen.has(canon(v)) && !ctx.cut; t++) v = gen(schema, ctx, depth + 1, 0, itemKey);
      if (seen.has(canon(v)) && out.length >= lo) break; // best effort: stop rather than repeat
      seen.add(canon(v));
    }
    out.push(v);
  }
  return ctx.cut ? null : out;
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
  [
    /limit|page_?size|per_page|top_?[kn]$|max_results|(^|_)(n|k|num|count|quantity|amount_of)$|(^|_)num_|_count$|^count|results$|items$/,
    5,
    50,
    1,
  ],
  [/offset|skip|(^|_)(index|idx|start|cursor)$/, 0, 20, 1],
  [/(^|_)(id|pid|uid|gid)$|_ids?$/, 1, 9999, 1],
  [/year/, 2000, 2030, 1],
  [/(^|_)(age)$/, 18, 80, 1],
  [/(^|_)(line|lines|row|rows|column|col|line_number|lineno)$|_line$/, 1, 200, 1],
  [/retr(y|ies)|attempts/, 1, 5, 1],
  [
    /depth|level|(^|_)(size|width|height|length|len|days|hours|minutes|weeks|months|max|min|priority|rank|version)$|(^|_)(max|min)_/,
    1,
    100,
    1,
  ],
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
  return /^[a-z0-9_]*$/.test(key)
    ? key
    : key
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .replace(/[-\s.]+/g, "_")
        .toLowerCase();
}

/** Flags that would make a call riskier or heavier are rarely set. */
const RISKY =
  /escalat|danger|unsafe|force|delete|destroy|remove|overwrite|recursive|sudo|bypass|full_access|privileg|interrupt|kill|purge|drop|all$/;

function genBoolean(s: Schema, ctx: Ctx, key?: string): boolean {
  if (typeof s.default === "boolean" && chance(ctx, 0.6)) return s.default;
  return chance(ctx, key !== undefined && RISKY.test(snake(key)) ? 0.1 : 0.5);
}

/** An enum value, avoiding risky ones (`require_escalated`, `force`...) most of the time. */
function pickEnum(values: unknown[], ctx: Ctx): unknown {
  let safe = ctx.safeValues.get(values);
  if (safe === undefined) {
    ctx.work -= values.length;
    safe = ctx.work > 0 ? values.filter((v) => typeof v !== "string" || !RISKY.test(v.toLowerCase())) : values;
    ctx.safeValues.set(values, safe);
  }
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
const REASONS = [
  "Needed to answer the request",
  "Checks the current state before changing anything",
  "Gathers the details the user asked for",
  "Confirms the result before replying",
];
/** `cmd`, `command`, `shell_command`...: a shell command (a string, or argv when the schema is a string array). */
const COMMAND_KEY = /^(cmd|command|commands|cmdline|command_line|script)$|_(cmd|command)$/;

const command = (ctx: Ctx): string => ctx.command ?? pick(ctx, SAFE_COMMANDS);
const phrase = (ctx: Ctx): string =>
  ctx.phrase ?? Array.from({ length: int(ctx, 1, 3) }, () => pick(ctx, ctx.words)).join(" ");
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
  [
    /^(workdir|cwd|dir|directory|folder|working_dir|working_directory|base_dir|root_dir)$|_(dir|directory|folder)$/,
    () => ".",
  ],
  [
    /(^|_)(path|file|filename|file_name|filepath|file_path|image|image_path)$/,
    (ctx, s) => pick(ctx, /image|picture|photo|screenshot/i.test(`${String(s.description ?? "")}`) ? IMAGES : FILES),
  ],
  [/^(q|query|search|search_query|search_term|keywords?|terms?|topic|subject|title)$|_query$/, (ctx) => phrase(ctx)],
  [/^(question|prompt|objective|goal|task|text|instructions?|request)$/, (ctx) => ctx.sentence ?? phrase(ctx)],
  [
    /justification|reason|rationale|explanation|description|summary|comment|(^|_)notes?$|message|details/,
    (ctx) => reason(ctx),
  ],
  [
    /(^|_)(cit(y|ies)|locations?|places?|towns?|destinations?)($|_)/,
    (ctx) => pick(ctx, ctx.places.length ? ctx.places : CITIES),
  ],
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
  // Longer than the bytes left: it cannot fit.
  if (min > ctx.left) return cut(ctx) ?? "";
  const formatted = typeof s.format === "string" ? formatValue(s.format, ctx) : undefined;
  if (formatted !== undefined) return spent(ctx, formatted);
  if (typeof s.pattern === "string") {
    const pattern = parsedPattern(s.pattern, ctx);
    if (pattern) {
      const fits = (v: string | undefined): v is string => {
        if (v === undefined) return false;
        const len = Array.from(v).length;
        return len >= min && len <= max && pattern.test(v);
      };
      // A few draws; then the shortest string the pattern takes.
      const room = Math.min(max, ctx.left);
      for (let t = 0; !ctx.minimal && t < 5; t++) {
        const v = genAlts(pattern.ast, ctx, room, false);
        if (fits(v)) return spent(ctx, v);
      }
      if (pattern.least > ctx.left) return cut(ctx) ?? "";
      const v = genAlts(pattern.ast, ctx, room, true);
      if (fits(v)) return spent(ctx, v);
    }
  }
  const name = key === undefined ? undefined : snake(key);
  const hint = name === undefined ? undefined : HINTS.find(([re]) => re.test(name));
  const text = hint ? hint[1](ctx, s) : Array.from({ length: int(ctx, 1, 3) }, () => pick(ctx, ctx.words)).join(" ");
  return spent(ctx, fit(text, min, max, ctx));
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
  const w = pick(ctx, ctx.words)
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .slice(0, 30);
  return w || pick(ctx, WORDS);
}

const email = (ctx: Ctx): string => `${pick(ctx, FIRST_NAMES).toLowerCase()}.${slug(ctx)}@example.com`;

function formatValue(format: string, ctx: Ctx): string | undefined {
  const pad = (n: number) => String(n).padStart(2, "0");
  const hex = (n: number) => Array.from({ length: n }, () => HEX[int(ctx, 0, 15)]).join("");
  const date = () => `${int(ctx, 2000, 2030)}-${pad(int(ctx, 1, 12))}-${pad(int(ctx, 1, 28))}`;
  const time = () => `${pad(int(ctx, 0, 23))}:${pad(int(ctx, 0, 59))}:${pad(int(ctx, 0, 59))}Z`;
  switch (format) {
    case "date":
      return date();
    case "time":
      return time();
    case "date-time":
      return `${date()}T${time()}`;
    case "duration":
      return `P${int(ctx, 1, 30)}D`;
    case "email":
    case "idn-email":
      return email(ctx);
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
    case "iri-reference":
      return `https://example.com/${slug(ctx)}`;
    case "hostname":
    case "idn-hostname":
      return `${slug(ctx)}.example.com`;
    case "uuid":
      return `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(ctx, ["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
    case "ipv4":
      return Array.from({ length: 4 }, () => int(ctx, 1, 254)).join(".");
    case "ipv6":
      return `2001:db8::${hex(4)}`;
    default:
      return undefined;
  }
}

// ---- Tiny regex generator: literals, escapes \d \w \s, classes [a-z_], `.`, (a|b) groups, quantifiers.

/** A quantified atom: a set of characters to pick from, or a group of alternatives. */
interface Atom {
  set: string[];
  alts?: Atom[][];
  min: number;
  max: number;
}

/** A parsed pattern: its syntax tree, the length of its shortest match, and a check of a value against the real regex. */
interface Pattern {
  ast: Atom[][];
  /** The fewest characters a match has. */
  least: number;
  test(v: string): boolean;
}

const ESCAPES: Record<string, string> = {
  d: DIGITS,
  w: LOWER + LOWER.toUpperCase() + DIGITS + "_",
  s: " ",
  n: "\n",
  t: "\t",
};
/** Longer patterns are not parsed (the string is then made of words). */
const MAX_PATTERN = 4_096;
/** Characters of all the classes of one pattern. */
const MAX_CLASS_CHARS = 20_000;
/** Groups nested deeper than this are not parsed. */
const MAX_GROUP_DEPTH = 32;
/** Values longer than this are not checked against the real regex (its backtracking could take long). */
const MAX_TESTED = 1_024;

/** A pattern parsed once per sample (undefined when it is outside the supported subset). */
function parsedPattern(source: string, ctx: Ctx): Pattern | undefined {
  if (ctx.patterns.has(source)) return ctx.patterns.get(source);
  ctx.work -= source.length;
  const parsed = source.length <= MAX_PATTERN ? parsePattern(source) : undefined;
  let pattern: Pattern | undefined;
  if (parsed) {
    const re = compile(source);
    // Nested repetitions ((a+)+) can make a backtracking regex slow: the tree alone is trusted for them.
    const nested = hasNestedRepeat(parsed.ast);
    pattern = {
      ast: parsed.ast,
      least: altsLeast(parsed.ast),
      test: (v) => !re || nested || v.length > MAX_TESTED || re.test(v),
    };
  }
  ctx.patterns.set(source, pattern);
  return pattern;
}

/** Parses the supported subset; undefined for anything else (negated classes, lookarounds, \b, ...). */
function parsePattern(p: string): { ast: Atom[][] } | undefined {
  let i = 0;
  let classChars = 0;
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
    const set = new Set<string>();
    const add = (c: string) => {
      if (++classChars > MAX_CLASS_CHARS) fail();
      set.add(c);
    };
    while (p[i] !== "]") {
      if (i >= p.length) fail();
      const c = p[i++];
      if (c === "\\") escape().forEach(add);
      else if (p[i] === "-" && i + 1 < p.length && p[i + 1] !== "]") {
        const [a, b] = [c.charCodeAt(0), p.charCodeAt(i + 1)];
        i += 2;
        if (b < a || b - a > 5000) fail();
        for (let x = a; x <= b; x++) add(String.fromCharCode(x));
      } else add(c);
    }
    i++;
    return set.size ? [...set] : fail();
  };
  const quantify = (atom: Atom): Atom => {
    const q = /^(?:[*+?]|\{(\d+)(,(\d*))?\})/.exec(p.slice(i, i + 40));
    if (!q) return atom;
    i += q[0].length;
    if (q[1] !== undefined) [atom.min, atom.max] = [+q[1], q[2] === undefined ? +q[1] : q[3] ? +q[3] : +q[1] + 3];
    else [atom.min, atom.max] = q[0] === "*" ? [0, 3] : q[0] === "+" ? [1, 4] : [0, 1];
    if (!Number.isSafeInteger(atom.max) || atom.max < atom.min) fail();
    if (p[i] === "?") i++; // lazy modifier
    return atom;
  };
  const alternatives = (depth: number): Atom[][] => {
    if (depth > MAX_GROUP_DEPTH) fail();
    const alts: Atom[][] = [[]];
    while (i < p.length && p[i] !== ")") {
      const c = p[i++];
      if (c === "|") alts.push([]);
      if (c === "|") continue;
      // Anchors only where they mean "start" and "end" (elsewhere the real regex would differ).
      if (c === "^") {
        if (alts[alts.length - 1].length > 0) fail();
        continue;
      }
      if (c === "$") {
        if (i < p.length && p[i] !== "|" && p[i] !== ")") fail();
        continue;
      }
      let atom: Atom = { set: [c], min: 1, max: 1 };
      if (c === "(") {
        if (p.startsWith("?:", i)) i += 2;
        else if (p[i] === "?") fail();
        atom = { set: [], alts: alternatives(depth + 1), min: 1, max: 1 };
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
    const ast = alternatives(0);
    return i === p.length ? { ast } : undefined;
  } catch {
    return undefined;
  }
}

/** The fewest characters a match of these alternatives has. */
function altsLeast(alts: Atom[][]): number {
  let best = Infinity;
  for (const seq of alts) {
    let n = 0;
    for (const a of seq) n += a.min * (a.alts ? altsLeast(a.alts) : 1);
    best = Math.min(best, n);
  }
  return best === Infinity ? 0 : best;
}

function hasNestedRepeat(alts: Atom[][], inside = false): boolean {
  return alts.some((seq) =>
    seq.some((a) => {
      const repeats = a.max > 1;
      if (repeats && inside) return true;
      return a.alts !== undefined && hasNestedRepeat(a.alts, inside || repeats);
    }),
  );
}

/**
 * A string the alternatives match, at most `limit` characters (undefined past
 * it). Each repetition is drawn from its minimum to at most REPEAT_EXTRA more;
 * `least` takes every minimum and the shortest alternative.
 */
function genAlts(alts: Atom[][], ctx: Ctx, limit: number, least: boolean): string | undefined {
  const parts: string[] = [];
  let length = 0;
  const walk = (choices: Atom[][]): boolean => {
    const seq = least ? choices.reduce((a, b) => (altsLeast([b]) < altsLeast([a]) ? b : a)) : pick(ctx, choices);
    for (const a of seq) {
      const times = least ? a.min : int(ctx, a.min, Math.min(a.max, a.min + REPEAT_EXTRA));
      for (let n = times; n > 0; n--) {
        if (--ctx.work < 0) return false;
        if (a.alts) {
          if (!walk(a.alts)) return false;
        } else {
          parts.push(pick(ctx, a.set));
          if (++length > limit) return false;
        }
      }
    }
    return true;
  };
  return walk(alts) ? parts.join("") : undefined;
}

function compile(p: string): RegExp | undefined {
  try {
    return new RegExp(p, "u");
  } catch {
    return undefined;
  }
}
