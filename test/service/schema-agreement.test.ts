/**
 * The published service.schema.json says what the parser says: compiled with
 * ajv (JSON Schema 2020-12, strict), it accepts the shipped example and every
 * service file the README shows, and refuses each broken document the parser
 * refuses, at the same place. The rules JSON Schema cannot state
 * (SERVICE_SEMANTIC_RULES) are the only exception: each is shown here to be
 * refused by the parser and accepted by the schema. The committed file is
 * what scripts/write-schema.mjs writes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { jsonPath } from "../../src/scenario/parse.js";
import { serviceJsonSchemaText } from "../../src/service/json-schema.js";
import { ServiceError, isServiceDocument, validateServiceFile } from "../../src/service/parse.js";
import { SERVICE_SEMANTIC_RULES } from "../../src/service/schema.js";
import { codeBlocks, readmeText } from "../support/readme-snippets.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCHEMA_TEXT = readFileSync(join(ROOT, "service.schema.json"), "utf8");
const SCHEMA = JSON.parse(SCHEMA_TEXT) as Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const schemaValidate = ajv.compile(SCHEMA);

type Path = (string | number)[];

/** The parser's verdict: [] when it accepts, else the JSON paths of its issues. */
function parserIssues(doc: unknown): string[] {
  try {
    validateServiceFile(doc, "doc.json");
    return [];
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return err.issues.map((i) => i.path);
  }
}

/** Where an ajv error points: `required`, `additionalProperties` and `propertyNames` errors name the key below their object. */
function errorPath(e: ErrorObject): Path {
  const at: Path =
    e.instancePath === ""
      ? []
      : e.instancePath
          .slice(1)
          .split("/")
          .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = e.params as { missingProperty?: string; propertyName?: string; additionalProperty?: string };
  if (e.keyword === "required" && params.missingProperty !== undefined) at.push(params.missingProperty);
  if (e.keyword === "additionalProperties" && params.additionalProperty !== undefined)
    at.push(params.additionalProperty);
  if (params.propertyName !== undefined) at.push(params.propertyName);
  return at;
}

const schemaErrors = (doc: unknown): string[] | null =>
  schemaValidate(doc) ? null : (schemaValidate.errors ?? []).map((e) => jsonPath(errorPath(e)));

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, "examples", "service.json"), "utf8")) as unknown;
const README_SERVICES = codeBlocks(readmeText())
  .filter((b) => b.lang === "json" && isServiceDocument(JSON.parse(b.code)))
  .map((b) => ({ line: b.line, doc: JSON.parse(b.code) as unknown }));

describe("service.schema.json and the parser accept the shipped example and the README's service files", () => {
  it("the README shows at least one service file", () => {
    expect(README_SERVICES.length).toBeGreaterThan(0);
  });

  for (const { name, doc } of [
    { name: "examples/service.json", doc: EXAMPLE },
    ...README_SERVICES.map((b) => ({ name: `README.md:${b.line}`, doc: b.doc })),
    { name: "an empty service", doc: {} },
  ]) {
    it(name, () => {
      expect(parserIssues(doc)).toEqual([]);
      expect(schemaErrors(doc)).toBeNull();
    });
  }
});

const PROFILE = { ttftMs: { median: 100, p99: 400 }, itlMs: { median: 10, p99: 30 } };
const doc = (extra: Record<string, unknown>) => ({ $schema: "./service.schema.json", ...extra });

/** Each: a broken document and where the mistake is (both must point there). */
const BROKEN: Record<string, { doc: unknown; at: Path }> = {
  "not an object": { doc: [], at: [] },
  "unknown top-level key": { doc: doc({ modles: {} }), at: ["modles"] },
  "empty description": { doc: doc({ description: "" }), at: ["description"] },
  "unknown key in defaults": { doc: doc({ defaults: { limit: {} } }), at: ["defaults", "limit"] },
  "negative default price": { doc: doc({ defaults: { prices: { input: -1 } } }), at: ["defaults", "prices", "input"] },
  "price as a string": {
    doc: doc({ models: { "gpt-x": { prices: { input: "2.5" } } } }),
    at: ["models", "gpt-x", "prices", "input"],
  },
  "unknown price": {
    doc: doc({ models: { "gpt-x": { prices: { inptu: 1 } } } }),
    at: ["models", "gpt-x", "prices", "inptu"],
  },
  "rpm 0": { doc: doc({ defaults: { limits: { rpm: 0 } } }), at: ["defaults", "limits", "rpm"] },
  "rpm not whole": { doc: doc({ models: { m: { limits: { rpm: 1.5 } } } }), at: ["models", "m", "limits", "rpm"] },
  "negative budget": { doc: doc({ keys: { "sk-1": { budgetUsd: -1 } } }), at: ["keys", "sk-1", "budgetUsd"] },
  "key with a space": { doc: doc({ keys: { "sk 1": { rpm: 1 } } }), at: ["keys", "sk 1"] },
  "empty model id": { doc: doc({ models: { "": {} } }), at: ["models", ""] },
  "maxConcurrent 0": { doc: doc({ maxConcurrent: 0 }), at: ["maxConcurrent"] },
  "negative queue of a model": { doc: doc({ models: { m: { queue: -1 } } }), at: ["models", "m", "queue"] },
  "queueTimeoutMs above an hour": { doc: doc({ queueTimeoutMs: 3_600_001 }), at: ["queueTimeoutMs"] },
  "created not whole": { doc: doc({ models: { m: { created: 1.5 } } }), at: ["models", "m", "created"] },
  "bad profile reference name": { doc: doc({ models: { m: { profile: "a b" } } }), at: ["models", "m", "profile"] },
  "profile without itlMs": {
    doc: doc({ profiles: { mine: { ttftMs: { median: 1, p99: 2 } } } }),
    at: ["profiles", "mine", "itlMs"],
  },
  "profile with an unknown key": {
    doc: doc({ profiles: { mine: { ...PROFILE, ttft: {} } } }),
    at: ["profiles", "mine", "ttft"],
  },
  "negative median": {
    doc: doc({ profiles: { mine: { ...PROFILE, ttftMs: { median: -1, p99: 2 } } } }),
    at: ["profiles", "mine", "ttftMs", "median"],
  },
  "slowdown without capacity": {
    doc: doc({ profiles: { mine: { ...PROFILE, slowdown: { k: 1 } } } }),
    at: ["profiles", "mine", "slowdown", "capacity"],
  },
  "profile name with a space": { doc: doc({ profiles: { "my profile": PROFILE } }), at: ["profiles", "my profile"] },
  "a built-in profile redefined": { doc: doc({ profiles: { typical: PROFILE } }), at: ["profiles", "typical"] },
};

describe("broken service files: the parser and the schema both refuse, at the same place", () => {
  for (const [name, { doc, at }] of Object.entries(BROKEN)) {
    it(name, () => {
      const where = jsonPath(at);
      expect(parserIssues(doc)).toEqual([where]);
      const schema = schemaErrors(doc);
      expect(schema, "the schema accepts it").not.toBeNull();
      expect(schema).toContain(where);
    });
  }
});

/** One document per semantic rule, in SERVICE_SEMANTIC_RULES' order, and where the parser points. */
const SEMANTIC_CASES: { doc: unknown; at: Path }[] = [
  { doc: doc({ models: { m: { profile: "typicl" } } }), at: ["models", "m", "profile"] },
  {
    doc: doc({ profiles: { mine: { ...PROFILE, itlMs: { median: 30, p99: 10 } } } }),
    at: ["profiles", "mine", "itlMs", "p99"],
  },
];

describe("rules JSON Schema cannot state", () => {
  it("are each listed in the schema's description", () => {
    expect(SEMANTIC_CASES).toHaveLength(SERVICE_SEMANTIC_RULES.length);
    for (const rule of SERVICE_SEMANTIC_RULES) expect(SCHEMA.description).toContain(rule);
  });

  SERVICE_SEMANTIC_RULES.forEach((rule, i) => {
    it(`(${i + 1}) ${rule}: the parser refuses; the schema accepts`, () => {
      expect(parserIssues(SEMANTIC_CASES[i].doc)).toEqual([jsonPath(SEMANTIC_CASES[i].at)]);
      expect(schemaErrors(SEMANTIC_CASES[i].doc)).toBeNull();
    });
  });
});

describe("service.schema.json is up to date", () => {
  it("equals, byte for byte, what scripts/write-schema.mjs writes from the zod schema now (npm run build regenerates it)", () => {
    expect(SCHEMA_TEXT).toBe(serviceJsonSchemaText());
  });

  it("scripts/write-schema.mjs (run by npm run build, from dist/) writes that same text", () => {
    const dir = mkdtempSync(join(tmpdir(), "orm-service-schema-"));
    try {
      const scenario = join(dir, "scenario.schema.json");
      const service = join(dir, "service.schema.json");
      execFileSync(process.execPath, [join(ROOT, "scripts", "write-schema.mjs"), scenario, service]);
      expect(readFileSync(service, "utf8")).toBe(SCHEMA_TEXT);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
