import { describe, it, expect } from "vitest";
import { sampleJsonSchema, type SampleRng, type SampleOptions } from "../../src/generate/json-schema-sample.js";

/** mulberry32: a tiny deterministic rng for tests. */
function rng(seed: number): SampleRng {
  let a = seed >>> 0;
  return {
    next() {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

type S = Record<string, unknown>;
const isObj = (v: unknown): v is S => typeof v === "object" && v !== null && !Array.isArray(v);
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (isObj(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  "date-time": /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  time: /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  email: /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i,
  uri: /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i,
  url: /^https?:\/\/[^\s]+$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
  ipv4: /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/,
  hostname: /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
};

function typeOk(t: string, v: unknown): boolean {
  switch (t) {
    case "null": return v === null;
    case "boolean": return typeof v === "boolean";
    case "integer": return Number.isInteger(v);
    case "number": return typeof v === "number" && Number.isFinite(v);
    case "string": return typeof v === "string";
    case "array": return Array.isArray(v);
    case "object": return isObj(v);
    default: return false;
  }
}

/** Small validator for the keywords the sampler supports; returns error messages. */
function validate(schema: unknown, v: unknown, root: unknown = schema, path = "$"): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${path}: false schema`];
  if (!isObj(schema)) return [];
  const s = schema;
  const errs: string[] = [];
  const err = (m: string) => errs.push(`${path}: ${m} (${JSON.stringify(v)})`);
  if (typeof s.$ref === "string") {
    let node: unknown = root;
    for (const seg of s.$ref.slice(1).split("/").slice(1)) node = (node as S)[seg];
    errs.push(...validate(node, v, root, path));
  }
  if (v === null && s.nullable === true) return errs;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => typeOk(t as string, v))) err(`type ${JSON.stringify(s.type)}`);
  }
  if ("const" in s && canon(s.const) !== canon(v)) err("const");
  if (Array.isArray(s.enum) && !s.enum.some((e) => canon(e) === canon(v))) err("enum");
  for (const kw of ["anyOf", "oneOf"]) {
    const branches = s[kw];
    if (Array.isArray(branches) && !branches.some((b) => validate(b, v, root, path).length === 0)) err(kw);
  }
  if (Array.isArray(s.allOf)) for (const b of s.allOf) errs.push(...validate(b, v, root, path));

  if (typeof v === "number") {
    const n = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
    const min = n("minimum"), max = n("maximum"), xmin = n("exclusiveMinimum"), xmax = n("exclusiveMaximum"), mult = n("multipleOf");
    if (min !== undefined && (s.exclusiveMinimum === true ? v <= min : v < min)) err("minimum");
    if (max !== undefined && (s.exclusiveMaximum === true ? v >= max : v > max)) err("maximum");
    if (xmin !== undefined && v <= xmin) err("exclusiveMinimum");
    if (xmax !== undefined && v >= xmax) err("exclusiveMaximum");
    if (mult !== undefined && Math.abs(v / mult - Math.round(v / mult)) > 1e-9) err("multipleOf");
  }
  if (typeof v === "string") {
    const len = Array.from(v).length;
    if (typeof s.minLength === "number" && len < s.minLength) err("minLength");
    if (typeof s.maxLength === "number" && len > s.maxLength) err("maxLength");
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) err(`pattern ${s.pattern}`);
    if (typeof s.format === "string" && FORMATS[s.format] && !FORMATS[s.format].test(v)) err(`format ${s.format}`);
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === "number" && v.length < s.minItems) err("minItems");
    if (typeof s.maxItems === "number" && v.length > s.maxItems) err("maxItems");
    if (s.uniqueItems === true && new Set(v.map(canon)).size !== v.length) err("uniqueItems");
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
    v.forEach((x, i) => {
      const item = i < prefix.length ? prefix[i] : s.items;
      errs.push(...validate(item, x, root, `${path}[${i}]`));
    });
  }
  if (isObj(v)) {
    const props = isObj(s.properties) ? s.properties : {};
    for (const r of Array.isArray(s.required) ? s.required : []) if (!Object.hasOwn(v, r as string)) err(`required ${String(r)}`);
    for (const [k, x] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) errs.push(...validate(props[k], x, root, `${path}.${k}`));
      else if (s.additionalProperties === false) err(`additional property ${k}`);
    }
  }
  return errs;
}

const SCHEMAS: Record<string, S> = {
  weatherTool: {
    type: "object",
    properties: {
      location: { type: "string", description: "City and country" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      days: { type: "integer", minimum: 1, maximum: 14 },
    },
    required: ["location"],
    additionalProperties: false,
  },
  typeArraysAndNullable: {
    type: "object",
    properties: {
      a: { type: ["string", "null"] },
      b: { type: "integer", nullable: true },
      c: { type: ["number", "boolean"] },
      d: { type: "null" },
      e: { type: "boolean" },
    },
    required: ["a", "b", "c", "d", "e"],
    additionalProperties: false,
  },
  constAndEnum: {
    properties: { kind: { const: "point" }, level: { enum: [1, "two", null, { three: 3 }] }, tag: { type: "string", enum: ["x", "y"] } },
    required: ["kind", "level", "tag"],
    additionalProperties: false,
  },
  uniqueArray: { type: "array", items: { type: "integer", minimum: 1, maximum: 5 }, minItems: 2, maxItems: 4, uniqueItems: true },
  tuple: { type: "array", prefixItems: [{ type: "string", minLength: 1 }, { type: "number" }, { type: "boolean" }], items: false, minItems: 2 },
  lengths: {
    type: "object",
    properties: {
      short: { type: "string", maxLength: 3 },
      long: { type: "string", minLength: 40, maxLength: 50 },
      exact: { type: "string", minLength: 5, maxLength: 5 },
      nonEmpty: { type: "string", minLength: 1 },
    },
    required: ["short", "long", "exact", "nonEmpty"],
  },
  patterns: {
    type: "object",
    properties: {
      lower: { type: "string", pattern: "^[a-z]+$" },
      digits: { type: "string", pattern: "^\\d+$" },
      country: { type: "string", pattern: "^[A-Z]{2}$" },
      code: { type: "string", pattern: "^(foo|bar)-\\d{3}$" },
      word: { type: "string", pattern: "^[A-Z][a-z]{2,5}$", maxLength: 5 },
      sku: { type: "string", pattern: "^SKU_[0-9A-F]{4}(-[a-z]+)?$" },
    },
    required: ["lower", "digits", "country", "code", "word", "sku"],
  },
  formats: {
    type: "object",
    properties: Object.fromEntries(
      ["date", "date-time", "time", "email", "uri", "url", "uuid", "ipv4", "hostname"].map((f) => [f, { type: "string", format: f }]),
    ),
    required: ["date", "date-time", "time", "email", "uri", "url", "uuid", "ipv4", "hostname"],
    additionalProperties: false,
  },
  numbers: {
    type: "object",
    properties: {
      bounded: { type: "number", minimum: -1.5, maximum: 2.5 },
      exclusive: { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 3 },
      draft4: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 2, exclusiveMaximum: true },
      tinyExclusive: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 0.01 },
      multiple: { type: "integer", multipleOf: 5, minimum: 12, maximum: 40 },
      fraction: { type: "number", multipleOf: 0.1, minimum: 0.3, maximum: 0.9 },
      integerHalf: { type: "integer", multipleOf: 0.5, minimum: -10, maximum: -1 },
      onlyMax: { type: "number", maximum: -50 },
      onlyMin: { type: "integer", minimum: 1000 },
      free: { type: "number" },
    },
    required: ["bounded", "exclusive", "draft4", "tinyExclusive", "multiple", "fraction", "integerHalf", "onlyMax", "onlyMin", "free"],
  },
  unions: {
    type: "object",
    properties: {
      contact: { anyOf: [{ type: "string", format: "email" }, { type: "integer", minimum: 0 }] },
      shape: {
        oneOf: [
          { type: "object", properties: { kind: { const: "circle" }, r: { type: "number", minimum: 0 } }, required: ["kind", "r"], additionalProperties: false },
          { type: "object", properties: { kind: { const: "square" }, side: { type: "number", minimum: 0 } }, required: ["kind", "side"], additionalProperties: false },
          { type: "null" },
        ],
      },
      note: { anyOf: [{ type: "string", maxLength: 10 }, { type: "null" }] },
    },
    required: ["contact", "shape", "note"],
  },
  allOfMerge: {
    allOf: [
      { type: "object", properties: { id: { type: "string", format: "uuid" } }, required: ["id"] },
      { properties: { count: { type: "integer", minimum: 0 }, id: { minLength: 36 } }, required: ["count"] },
      { $ref: "#/$defs/named" },
    ],
    $defs: { named: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  },
  refsAndRecursion: {
    type: "object",
    properties: { root: { $ref: "#/$defs/node" }, home: { $ref: "#/definitions/address" } },
    required: ["root", "home"],
    additionalProperties: false,
    $defs: {
      node: {
        type: "object",
        properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        required: ["value", "children"],
        additionalProperties: false,
      },
    },
    definitions: {
      address: {
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" }, zip: { type: "string", pattern: "^\\d{5}$" } },
        required: ["street", "city", "zip"],
        additionalProperties: false,
      },
    },
  },
  inferredTypes: {
    properties: {
      list: { items: { minimum: 0, maximum: 9 } },
      nested: { properties: { x: { type: "boolean" } }, required: ["x"] },
      plain: {},
      anything: true,
    },
    required: ["list", "nested", "plain", "anything"],
  },
  defaultsAndExamples: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["fast", "slow"], default: "fast" },
      n: { type: "integer", minimum: 0, maximum: 10, examples: [3, 4] },
      label: { type: "string", examples: ["alpha", "beta"], default: "gamma" },
    },
    required: ["mode", "n", "label"],
    additionalProperties: false,
  },
  openAiStrict: {
    type: "object",
    properties: {
      title: { type: "string" },
      steps: {
        type: "array",
        items: {
          type: "object",
          properties: { explanation: { type: "string" }, output: { type: ["string", "null"] }, score: { type: "number", minimum: 0, maximum: 1 } },
          required: ["explanation", "output", "score"],
          additionalProperties: false,
        },
      },
      final_answer: { anyOf: [{ type: "string" }, { type: "null" }] },
      tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, uniqueItems: true, maxItems: 3 },
    },
    required: ["title", "steps", "final_answer", "tags"],
    additionalProperties: false,
  },
};

const SEEDS = Array.from({ length: 200 }, (_, i) => i * 7919 + 1);

describe("sampleJsonSchema", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`produces valid values for ${name} over 200 seeds`, () => {
      for (const seed of SEEDS) {
        for (const options of [{}, { words: ["quick", "brown", "fox", "jumps"] }] as SampleOptions[]) {
          const value = sampleJsonSchema(schema, rng(seed), options);
          const errors = validate(schema, value);
          expect(errors, `seed ${seed}: ${JSON.stringify(value)}`).toEqual([]);
        }
      }
    });
  }

  it("has a validator that rejects invalid values (sanity check of the test itself)", () => {
    expect(validate(SCHEMAS.weatherTool, { unit: "kelvin" })).toHaveLength(2);
    expect(validate(SCHEMAS.weatherTool, { location: "x", extra: 1 })).toHaveLength(1);
    expect(validate(SCHEMAS.uniqueArray, [1, 1, 9])).toHaveLength(2);
    expect(validate({ type: "string", format: "uuid" }, "nope")).toHaveLength(1);
    expect(validate({ type: "number", multipleOf: 0.1, exclusiveMaximum: 1 }, 1.05)).toHaveLength(2);
    expect(validate(SCHEMAS.refsAndRecursion, { root: { value: 1, children: [{ value: "x", children: [] }] }, home: {} })).toHaveLength(4);
    expect(validate(SCHEMAS.unions.properties, {})).toEqual([]);
    expect(validate({ oneOf: [{ type: "string" }, { type: "null" }] }, 3)).toHaveLength(1);
  });

  it("is deterministic for a given seed and options", () => {
    for (const schema of Object.values(SCHEMAS)) {
      for (const seed of SEEDS.slice(0, 50)) {
        const opts = { words: ["hello", "world"] };
        expect(sampleJsonSchema(schema, rng(seed), opts)).toEqual(sampleJsonSchema(schema, rng(seed), opts));
      }
    }
  });

  it("gives varied values across seeds", () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const distinct = new Set(SEEDS.map((seed) => canon(sampleJsonSchema(schema, rng(seed)))));
      expect(distinct.size, name).toBeGreaterThan(5);
    }
  });

  it("always emits required properties, sometimes optional ones, in properties order", () => {
    const schema = SCHEMAS.weatherTool;
    let withUnit = 0;
    for (const seed of SEEDS) {
      const v = sampleJsonSchema(schema, rng(seed)) as S;
      expect(Object.keys(v)[0]).toBe("location");
      const order = Object.keys(v).map((k) => ["location", "unit", "days"].indexOf(k));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      if ("unit" in v) withUnit++;
    }
    expect(withUnit).toBeGreaterThan(50);
    expect(withUnit).toBeLessThan(150);
  });

  it("builds strings from the given words and uses property-name hints", () => {
    const words = ["zebra", "quasar"];
    const v = sampleJsonSchema({ type: "string" }, rng(3), { words }) as string;
    expect(v.split(" ").every((w) => words.includes(w))).toBe(true);
    const cities = new Set(["Paris", "Tokyo", "Lisbon", "Nairobi", "Toronto", "Sydney", "Berlin", "Seoul", "Lima", "Oslo"]);
    const loc = sampleJsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }, rng(5)) as S;
    expect(cities.has(loc.city as string)).toBe(true);
  });

  it("handles trivial and non-object schemas", () => {
    expect(typeof sampleJsonSchema({}, rng(1))).toBe("string");
    expect(typeof sampleJsonSchema(true, rng(1))).toBe("string");
    expect(sampleJsonSchema(null, rng(1))).toEqual({});
    expect(sampleJsonSchema(undefined, rng(1))).toEqual({});
  });

  it("terminates on recursive schemas, respecting maxDepth", () => {
    const list = { $defs: { l: { type: "object", properties: { next: { $ref: "#/$defs/l" } }, required: ["next"] } }, $ref: "#/$defs/l" };
    const depthOf = (v: unknown): number => (isObj(v) && isObj(v.next) ? 1 + depthOf(v.next) : 0);
    const v = sampleJsonSchema(list, rng(1), { maxDepth: 2 });
    expect(depthOf(v)).toBeLessThan(20);
    const tree = SCHEMAS.refsAndRecursion;
    const height = (n: unknown): number => (isObj(n) && Array.isArray(n.children) ? 1 + Math.max(0, ...n.children.map(height)) : 0);
    for (const seed of SEEDS.slice(0, 20)) expect(height((sampleJsonSchema(tree, rng(seed), { maxDepth: 3 }) as S).root)).toBeLessThanOrEqual(3);
  });

  it("never throws on weird schemas", () => {
    const weird: unknown[] = [
      { type: "object", required: "x" }, { type: 42 }, { items: 5 }, { $ref: "#/nope" }, { $ref: "#" },
      { $ref: "http://example.com/s.json" }, { allOf: "x" }, { anyOf: [] }, { oneOf: [false] },
      { minimum: 10, maximum: 1 }, { type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 1 },
      { type: "string", minLength: 10, maxLength: 2 }, { pattern: "([" }, { pattern: "^(?=a)\\b[^x]$" }, { enum: [] },
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      { $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
      { anyOf: [{ anyOf: [{ type: "string" }] }], oneOf: [{ anyOf: [{ type: "number" }] }] },
      { type: "array", minItems: 3, maxItems: 1, uniqueItems: true, items: { enum: [1] } },
      { type: "number", multipleOf: -1 }, { type: "number", minimum: -1e308, maximum: 1e308 },
      JSON.parse('{"properties": {"__proto__": {"type": "string"}, "constructor": {"type": "integer"}}, "required": ["__proto__", "toString"]}'),
      { type: "string", format: "constructor" }, { type: "object", additionalProperties: false, required: ["a"] },
      false,
    ];
    for (const schema of weird) for (const seed of [1, 2, 3]) expect(() => sampleJsonSchema(schema, rng(seed))).not.toThrow();
  });
});
