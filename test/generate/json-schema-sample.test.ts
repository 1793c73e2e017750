import { describe, it, expect } from "vitest";
import {
  sampleJsonSchema,
  sampleWithin,
  utf8Length,
  VALUE_BUDGET,
  type SampleRng,
  type SampleOptions,
} from "../../src/generate/json-schema-sample.js";
import { canon, isObj, validate, type S } from "./schema-check.js";

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
    properties: {
      kind: { const: "point" },
      level: { enum: [1, "two", null, { three: 3 }] },
      tag: { type: "string", enum: ["x", "y"] },
    },
    required: ["kind", "level", "tag"],
    additionalProperties: false,
  },
  uniqueArray: {
    type: "array",
    items: { type: "integer", minimum: 1, maximum: 5 },
    minItems: 2,
    maxItems: 4,
    uniqueItems: true,
  },
  tuple: {
    type: "array",
    prefixItems: [{ type: "string", minLength: 1 }, { type: "number" }, { type: "boolean" }],
    items: false,
    minItems: 2,
  },
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
      ["date", "date-time", "time", "email", "uri", "url", "uuid", "ipv4", "hostname"].map((f) => [
        f,
        { type: "string", format: f },
      ]),
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
    required: [
      "bounded",
      "exclusive",
      "draft4",
      "tinyExclusive",
      "multiple",
      "fraction",
      "integerHalf",
      "onlyMax",
      "onlyMin",
      "free",
    ],
  },
  unions: {
    type: "object",
    properties: {
      contact: {
        anyOf: [
          { type: "string", format: "email" },
          { type: "integer", minimum: 0 },
        ],
      },
      shape: {
        oneOf: [
          {
            type: "object",
            properties: { kind: { const: "circle" }, r: { type: "number", minimum: 0 } },
            required: ["kind", "r"],
            additionalProperties: false,
          },
          {
            type: "object",
            properties: { kind: { const: "square" }, side: { type: "number", minimum: 0 } },
            required: ["kind", "side"],
            additionalProperties: false,
          },
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
        properties: {
          street: { type: "string" },
          city: { type: "string" },
          zip: { type: "string", pattern: "^\\d{5}$" },
        },
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
          properties: {
            explanation: { type: "string" },
            output: { type: ["string", "null"] },
            score: { type: "number", minimum: 0, maximum: 1 },
          },
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
    expect(
      validate(SCHEMAS.refsAndRecursion, { root: { value: 1, children: [{ value: "x", children: [] }] }, home: {} }),
    ).toHaveLength(4);
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
    const cities = new Set([
      "Paris",
      "Tokyo",
      "Lisbon",
      "Nairobi",
      "Toronto",
      "Sydney",
      "Berlin",
      "Seoul",
      "Lima",
      "Oslo",
    ]);
    const loc = sampleJsonSchema(
      { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      rng(5),
    ) as S;
    expect(cities.has(loc.city as string)).toBe(true);
  });

  it("handles trivial and non-object schemas", () => {
    expect(typeof sampleJsonSchema({}, rng(1))).toBe("string");
    expect(typeof sampleJsonSchema(true, rng(1))).toBe("string");
    expect(sampleJsonSchema(null, rng(1))).toEqual({});
    expect(sampleJsonSchema(undefined, rng(1))).toEqual({});
  });

  it("terminates on recursive schemas, respecting maxDepth", () => {
    const list = {
      $defs: { l: { type: "object", properties: { next: { $ref: "#/$defs/l" } }, required: ["next"] } },
      $ref: "#/$defs/l",
    };
    const depthOf = (v: unknown): number => (isObj(v) && isObj(v.next) ? 1 + depthOf(v.next) : 0);
    const v = sampleJsonSchema(list, rng(1), { maxDepth: 2 });
    expect(depthOf(v)).toBeLessThan(20);
    const tree = SCHEMAS.refsAndRecursion;
    const height = (n: unknown): number =>
      isObj(n) && Array.isArray(n.children) ? 1 + Math.max(0, ...n.children.map(height)) : 0;
    for (const seed of SEEDS.slice(0, 20))
      expect(height((sampleJsonSchema(tree, rng(seed), { maxDepth: 3 }) as S).root)).toBeLessThanOrEqual(3);
  });

  it("never throws on weird schemas", () => {
    const weird: unknown[] = [
      { type: "object", required: "x" },
      { type: 42 },
      { items: 5 },
      { $ref: "#/nope" },
      { $ref: "#" },
      { $ref: "http://example.com/s.json" },
      { allOf: "x" },
      { anyOf: [] },
      { oneOf: [false] },
      { minimum: 10, maximum: 1 },
      { type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 1 },
      { type: "string", minLength: 10, maxLength: 2 },
      { pattern: "([" },
      { pattern: "^(?=a)\\b[^x]$" },
      { enum: [] },
      { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" },
      { $defs: { a: { allOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
      { anyOf: [{ anyOf: [{ type: "string" }] }], oneOf: [{ anyOf: [{ type: "number" }] }] },
      { type: "array", minItems: 3, maxItems: 1, uniqueItems: true, items: { enum: [1] } },
      { type: "number", multipleOf: -1 },
      { type: "number", minimum: -1e308, maximum: 1e308 },
      JSON.parse(
        '{"properties": {"__proto__": {"type": "string"}, "constructor": {"type": "integer"}}, "required": ["__proto__", "toString"]}',
      ),
      { type: "string", format: "constructor" },
      { type: "object", additionalProperties: false, required: ["a"] },
      false,
    ];
    for (const schema of weird)
      for (const seed of [1, 2, 3]) expect(() => sampleJsonSchema(schema, rng(seed))).not.toThrow();
  });
});

describe("sampleJsonSchema: values that fit the property's name", () => {
  const one = (key: string, schema: S, seed: number, options: SampleOptions = {}) =>
    (sampleJsonSchema({ type: "object", properties: { [key]: schema }, required: [key] }, rng(seed), options) as S)[
      key
    ];

  it("gives whole numbers in plausible ranges to durations, budgets, counts, pages, ports and ids, even for type number", () => {
    const ranges: [string, number, number][] = [
      ["yield_time_ms", 1000, 10000],
      ["timeout_ms", 1000, 10000],
      ["timeoutMs", 1000, 10000],
      ["timeout_seconds", 5, 60],
      ["timeout", 5, 60],
      ["max_output_tokens", 1000, 10000],
      ["max_tokens", 1000, 10000],
      ["page", 1, 5],
      ["limit", 5, 50],
      ["max_results", 5, 50],
      ["port", 1024, 65535],
      ["offset", 0, 20],
      ["session_id", 1, 9999],
      ["count", 5, 50],
      ["page_size", 5, 50],
      ["index", 0, 20],
    ];
    for (const [key, lo, hi] of ranges) {
      for (const seed of SEEDS.slice(0, 60)) {
        const v = one(key, { type: "number" }, seed);
        expect(Number.isInteger(v), `${key} = ${v}`).toBe(true);
        expect(v as number, key).toBeGreaterThanOrEqual(lo);
        expect(v as number, key).toBeLessThanOrEqual(hi);
      }
    }
    // Durations are round: 2500 ms, not 2731.
    expect((one("yield_time_ms", { type: "number" }, 9) as number) % 500).toBe(0);
    // Other numbers keep fractions.
    expect(SEEDS.slice(0, 50).some((seed) => !Number.isInteger(one("temperature", { type: "number" }, seed)))).toBe(
      true,
    );
  });

  it("keeps the schema's bounds and multipleOf over the name's range", () => {
    const schemas: [string, S][] = [
      ["yield_time_ms", { type: "number", minimum: 250, maximum: 800 }],
      ["yield_time_ms", { type: "number", minimum: 5000, maximum: 30000 }],
      ["limit", { type: "number", multipleOf: 7 }],
      ["page", { type: "integer", exclusiveMinimum: 3, maximum: 4 }],
      ["port", { type: "number", maximum: 80 }],
      ["max_tokens", { type: "number", multipleOf: 0.5, minimum: 1, maximum: 3 }],
    ];
    for (const [key, schema] of schemas) {
      for (const seed of SEEDS.slice(0, 60)) {
        const v = one(key, schema, seed);
        expect(validate(schema, v), `${key} ${JSON.stringify(schema)} → ${v}`).toEqual([]);
        expect(Number.isInteger(v), `${key} = ${v}`).toBe(true);
      }
    }
  });

  it("gives commands, working directories, paths, URLs, queries and reasons that fit their names", () => {
    for (const seed of SEEDS.slice(0, 30)) {
      expect(one("cmd", { type: "string" }, seed, { command: "git status" })).toBe("git status");
      expect(["ls -la", "pwd", "git status", "cat README.md", "ls", "git log --oneline -5"]).toContain(
        one("command", { type: "string" }, seed),
      );
      expect(one("command", { type: "array", items: { type: "string" } }, seed, { command: "ls -la" })).toEqual([
        "bash",
        "-lc",
        "ls -la",
      ]);
      expect(one("workdir", { type: "string" }, seed)).toBe(".");
      expect(one("cwd", { type: "string" }, seed)).toBe(".");
      expect(one("path", { type: "string" }, seed)).toMatch(/^[\w-]+(\/[\w-]+)*\.\w+$/);
      expect(one("path", { type: "string", description: "Path to an image file." }, seed)).toMatch(/\.png$/);
      expect(one("url", { type: "string" }, seed)).toMatch(/^https:\/\/\S+$/);
      expect(one("query", { type: "string" }, seed, { phrase: "weather Paris" })).toBe("weather Paris");
      expect(one("objective", { type: "string" }, seed, { sentence: "Fix the build" })).toBe("Fix the build");
      expect(one("justification", { type: "string" }, seed)).toMatch(/^[A-Z][^.]+\.$/);
      expect(one("due_date", { type: "string" }, seed)).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(one("created_at", { type: "string" }, seed)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });

  it("rarely sets risky flags or picks risky enum values", () => {
    const flags = SEEDS.filter((seed) => one("with_escalated_permissions", { type: "boolean" }, seed) === true).length;
    expect(flags).toBeLessThan(40);
    const escalated = SEEDS.filter(
      (seed) =>
        one("sandbox_permissions", { type: "string", enum: ["use_default", "require_escalated"] }, seed) ===
        "require_escalated",
    ).length;
    expect(escalated).toBeGreaterThan(0);
    expect(escalated).toBeLessThan(40);
  });

  it("lets the caller choose optional properties' chance and fix top-level values", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "string" },
        b: { type: "string", description: "Only set if a is set." },
        c: { type: "integer" },
      },
      required: ["a"],
    };
    for (const seed of SEEDS.slice(0, 50)) {
      const v = sampleJsonSchema(schema, rng(seed), {
        optionalChance: (key) => (key === "b" ? 0 : 1),
        overrides: { a: "fixed" },
      }) as S;
      expect(v).toEqual({ a: "fixed", c: v.c });
      expect(Number.isInteger(v.c)).toBe(true);
      const w = sampleJsonSchema(schema, rng(seed), { optionalChance: () => 0, overrides: { c: 7 } }) as S;
      expect(Object.keys(w)).toEqual(["a", "c"]);
      expect(w.c).toBe(7);
    }
  });
});

describe("sampleWithin: every sample has a budget", () => {
  const within = (schema: unknown, maxBytes: number, seed = 1) => sampleWithin(schema, rng(seed), { maxBytes });

  it("refuses, without drawing it, a schema whose smallest valid value is over the budget", () => {
    const cases: [unknown, number][] = [
      [{ type: "string", pattern: "^(a{1000}){1000}$" }, 1_000_002],
      [{ type: "string", minLength: 1e9 }, 1e9 + 2],
      [{ type: "array", minItems: 1e9, items: { type: "string", minLength: 100 } }, 2 + 1e9 * 103],
      [{ type: "object", required: ["a"], properties: { a: { type: "string", minLength: 5000 } } }, 2 + 1 + 4 + 5002],
      [
        {
          anyOf: [
            { type: "string", minLength: 9000 },
            { type: "array", minItems: 3000 },
          ],
        },
        5000,
      ],
    ];
    for (const [schema, least] of cases) {
      const sample = within(schema, 4096);
      expect(sample.ok, JSON.stringify(schema)).toBe(false);
      if (!sample.ok) expect(sample.least, JSON.stringify(schema)).toBeGreaterThanOrEqual(Math.min(least, 4097));
    }
  });

  it("draws large maxima small: the value fits the schema and the budget", () => {
    const schemas: S[] = [
      { type: "string", pattern: "^[a-z]{1,10000}$" },
      { type: "string", pattern: "^((ab|c){1,500}){1,500}$" },
      { type: "array", maxItems: 100_000, items: { type: "string", maxLength: 100_000 } },
      {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 300 }, (_, i) => [`k${i}`, { type: "string", minLength: 20 }]),
        ),
      },
      { type: "string", minLength: 3000 },
    ];
    for (const schema of schemas) {
      for (const seed of SEEDS.slice(0, 20)) {
        const sample = within(schema, 4096, seed);
        expect(sample.ok, JSON.stringify(schema).slice(0, 80)).toBe(true);
        if (!sample.ok) continue;
        expect(validate(schema, sample.value)).toEqual([]);
        expect(utf8Length(sample.json)).toBeLessThanOrEqual(4096);
        expect(sample.json).toBe(JSON.stringify(sample.value));
      }
    }
  });

  it("draws again as small as the schema allows when the first draw does not fit", () => {
    // Optional keys each need ~1 KB: a first draw that takes several does not fit 2 KB; the smallest (required only) does.
    const schema = {
      type: "object",
      required: ["id"],
      properties: {
        id: { type: "integer" },
        ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`o${i}`, { type: "string", minLength: 1000 }])),
      },
    };
    for (const seed of SEEDS.slice(0, 30)) {
      const sample = within(schema, 2048, seed);
      expect(sample.ok).toBe(true);
      if (sample.ok) expect(validate(schema, sample.value)).toEqual([]);
    }
  });

  it("refuses a schema that needs more values than VALUE_BUDGET, or endless required recursion", () => {
    const many = within({ type: "array", minItems: VALUE_BUDGET + 1, items: { type: "integer" } }, 1e9);
    expect(many).toMatchObject({ ok: false, reason: "values" });
    const endless = within(
      {
        $defs: {
          n: {
            type: "object",
            properties: { a: { $ref: "#/$defs/n" }, b: { $ref: "#/$defs/n" } },
            required: ["a", "b"],
          },
        },
        $ref: "#/$defs/n",
      },
      1e9,
    );
    expect(endless.ok).toBe(false);
  });

  it("stops on the work budget for huge combinations instead of taking seconds", () => {
    const allOf = {
      allOf: Array.from({ length: 10_000 }, (_, i) => ({
        properties: { [`k${i}`]: { type: "string" } },
        required: [`k${i}`],
      })),
    };
    expect(within(allOf, 65536)).toMatchObject({ ok: false, reason: "work" });
    // A big enum is fine once: the value is one of its values.
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const sample = within({ enum: values }, 65536);
    expect(sample.ok && values.includes(sample.value as string)).toBe(true);
  });

  it("keeps contradictory schemas best effort (small, no refusal)", () => {
    for (const schema of [
      { type: "string", minLength: 10, maxLength: 2 },
      { type: "integer", minimum: 5, maximum: 1 },
      { type: "array", minItems: 3, maxItems: 1 },
    ]) {
      const sample = within(schema, 4096);
      expect(sample.ok).toBe(true);
      if (sample.ok) expect(sample.json.length).toBeLessThan(100);
    }
  });

  it("counts bytes in UTF-8", () => {
    expect(utf8Length("aé€😀")).toBe(1 + 2 + 3 + 4);
    const sample = within({ type: "string", const: "é".repeat(3000) }, 4096);
    expect(sample.ok).toBe(false);
  });

  it("patterns with anchors in the middle are not parsed (the real regex would differ): the value is still a string", () => {
    const v = sampleJsonSchema({ type: "string", pattern: "a$b|c" }, rng(1));
    expect(typeof v).toBe("string");
  });
});
