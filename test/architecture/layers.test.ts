/**
 * The import rules can fail: `npm run lint`'s check (scripts/lint-imports.mjs
 * with .dependency-cruiser.cjs) run over a small fixture tree that breaks each
 * rule once, and keeps a type-only cycle and an allowed downward import that
 * must pass. Whether src/ itself keeps the rules is `npm run lint`'s job, not
 * this test's.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../../scripts/lint-imports.mjs", import.meta.url));

/** The fixture: path under the root → text. */
const FILES: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true },
    include: ["src"],
  }),
  // Allowed: downward imports, a type-only import of a lower layer.
  "src/spec/s.ts": `export type Item = { id: string };\nexport const ITEM = "item";\n`,
  "src/http/y.ts": `import { ITEM } from "../spec/s.js";\nexport const route = ITEM;\n`,
  "src/proxy/p.ts": `import { route } from "../http/y.js";\nexport const proxied = route;\n`,
  // layer-state: the store imports http (at runtime).
  "src/store/x.ts": `import { route } from "../http/y.js";\nexport const stored = route;\n`,
  // layer-util: a type-only import upward counts too.
  "src/util/t.ts": `import type { Item } from "../spec/s.js";\nexport const id = (i: Item) => i.id;\n`,
  // no-circular: a runtime cycle a -> b -> a.
  "src/generate/a.ts": `import { b } from "./b.js";\nexport const a = () => b;\n`,
  "src/generate/b.ts": `import { a } from "./a.js";\nexport const b = () => a;\n`,
  // Allowed: a cycle with an import type in it (c -> d is type-only).
  "src/emit/c.ts": `import type { D } from "./d.js";\nexport const c = (d: D) => d;\n`,
  "src/emit/d.ts": `import { c } from "./c.js";\nexport type D = number;\nexport const d = c;\n`,
  // no-circular that dependency-cruiser's search alone passes over: the runtime cycle
  // p -> q -> r -> p, where the first cycle it tries through each import has a
  // type-only import in it (q -> k1 -> p, r -> k2 -> q, p -> k3 -> r).
  "src/timing/p.ts": `import type { K3 } from "./k3.js";\nimport { q } from "./q.js";\nexport const p = (x?: K3) => [q, x];\n`,
  "src/timing/q.ts": `import type { K1 } from "./k1.js";\nimport { r } from "./r.js";\nexport const q = (x?: K1) => [r, x];\n`,
  "src/timing/r.ts": `import type { K2 } from "./k2.js";\nimport { p } from "./p.js";\nexport const r = (x?: K2) => [p, x];\n`,
  "src/timing/k1.ts": `import { p } from "./p.js";\nexport type K1 = string;\nexport const k1 = p;\n`,
  "src/timing/k2.ts": `import { q } from "./q.js";\nexport type K2 = string;\nexport const k2 = q;\n`,
  "src/timing/k3.ts": `import { r } from "./r.js";\nexport type K3 = string;\nexport const k3 = r;\n`,
  // inspector-page-alone / inspector-page-not-imported.
  "src/inspector/page/app.ts": `import { ITEM } from "../../spec/s.js";\nexport const shown = ITEM;\n`,
  "src/inspector/view.ts": `import { shown } from "./page/app.js";\nexport const view = shown;\n`,
  // not-in-a-layer: a folder no layer names.
  "src/elsewhere/z.ts": `export const z = 1;\n`,
  "src/cli/m.ts": `import { z } from "../elsewhere/z.js";\nimport { proxied } from "../proxy/p.js";\nexport const main = [z, proxied];\n`,
};

interface Violation {
  rule: string;
  severity: string;
  from: string;
  to: string;
  cycle: string[];
}

let root: string;
let result: { violations: Violation[]; text: string };
let exitCode: number;

function lint(at: string): Promise<{ stdout: string; code: number }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, "--root", at, "--json"], { maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ stdout, code: error ? Number(error.code) : 0 });
    });
  });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = await lint(root);
  result = JSON.parse(run.stdout);
  exitCode = run.code;
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const edges = (rule: string) =>
  result.violations
    .filter((v) => v.rule === rule)
    .map((v) => `${v.from} -> ${v.to}`)
    .sort();

describe("the import rules (.dependency-cruiser.cjs, via npm run lint's script)", () => {
  it("report a lower layer importing a higher one, at runtime or type-only, under the lower layer's rule", () => {
    expect(edges("layer-state")).toEqual(["src/store/x.ts -> src/http/y.ts"]);
    expect(edges("layer-util")).toEqual(["src/util/t.ts -> src/spec/s.ts"]);
  });

  it("leave downward imports alone", () => {
    const from = new Set(result.violations.map((v) => v.from));
    for (const module of ["src/http/y.ts", "src/proxy/p.ts", "src/spec/s.ts"]) expect(from).not.toContain(module);
  });

  it("report a runtime cycle, and not a cycle made through an import type", () => {
    const cycles = result.violations.filter((v) => v.rule === "no-circular");
    const inCycles = new Set(cycles.flatMap((v) => [v.from, ...v.cycle]));
    expect(inCycles).toContain("src/generate/a.ts");
    expect(inCycles).toContain("src/generate/b.ts");
    expect(inCycles).not.toContain("src/emit/c.ts");
    expect(inCycles).not.toContain("src/emit/d.ts");
  });

  it("report a runtime cycle hidden behind type-only ones from dependency-cruiser's own search", () => {
    const hidden = result.violations.find((v) => v.rule === "no-circular" && v.from.startsWith("src/timing/"));
    expect(hidden).toBeDefined();
    expect([hidden!.from, ...hidden!.cycle].slice(0, -1).sort()).toEqual([
      "src/timing/p.ts",
      "src/timing/q.ts",
      "src/timing/r.ts",
    ]);
    expect(result.text).toContain("passed over");
  });

  it("keep the inspector's page to itself, both ways", () => {
    expect(edges("inspector-page-alone")).toEqual(["src/inspector/page/app.ts -> src/spec/s.ts"]);
    expect(edges("inspector-page-not-imported")).toEqual(["src/inspector/view.ts -> src/inspector/page/app.ts"]);
  });

  it("report an import of a module in no layer", () => {
    expect(edges("not-in-a-layer")).toEqual(["src/cli/m.ts -> src/elsewhere/z.ts"]);
  });

  it("print each violation readably (rule, from → to, why) and fail with the number of errors", () => {
    expect(result.text).toMatch(
      /error layer-state: src\/store\/x\.ts → src\/http\/y\.ts\n\s+A lower layer imports a higher one/,
    );
    expect(result.violations.every((v) => v.severity === "error")).toBe(true);
    expect(exitCode).toBe(result.violations.length);
  });
});
