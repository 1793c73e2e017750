/**
 * The README's code is checked, not trusted:
 *
 * - every ```ts block is type-checked against the built package (`openresponses-mock`
 *   resolves to dist/ through the package's exports, as in a user's project), then run:
 *   a complete program with node, a node:test file with `node --test` (each of its tests
 *   must pass), a jest file with jest in its ESM mode, and a fragment
 *   that uses `mock` inside a harness that starts a server on port 0 — it must print an
 *   answer, and the server must have answered its requests. Vitest examples run in
 *   test/readme-vitest.test.ts. A TS or JS block spelt other than ```ts fails: it would
 *   go unchecked;
 * - the CI recipe (the shell snippet and the GitHub Actions step) runs with bash on a free
 *   port, with `npm test` standing for a request through the SDK's environment variables;
 *   the workflow that uses the Action gives it only inputs action.yml declares and reads
 *   only outputs it declares (test/action/action.test.ts runs the Action itself);
 * - every JSON block that is a scenario file parses as one;
 * - the Headers table holds every `x-mock-*` header of src/, and the Options table every
 *   option and `serve` flag (a row marked PENDING may name a flag not there yet).
 *
 * Needs `npm run build` (dist/) first, as `npm test` does.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerOptions } from "../src/options.js";
import { parseScenarioText } from "../src/scenario/parse.js";
import {
  ROOT,
  codeBlocks,
  readmeText,
  splitImports,
  tsSnippets,
  type CodeBlock,
  type SnippetKind,
} from "./support/readme-snippets.js";
import { runProcess, type Run } from "./support/run.js";

const root = fileURLToPath(ROOT);
/** The CLI as package.json's "bin" names it (what npm links into node_modules/.bin). */
const CLI = join(
  root,
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: Record<string, string> }).bin[
    "openresponses-mock"
  ],
);
/** jest's bin, run in its ESM mode for the README's jest example. */
const JEST = join(root, "node_modules/jest/bin/jest.js");
const readme = readmeText();
const snippets = tsSnippets(readme);
/** The harness prints this before the journal of a fragment's server. */
const MARKER = "@@readme-snippet-journal@@";

const run = (command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> =>
  runProcess(command, args, { cwd: options.cwd ?? root, env: options.env });

/** A generated file and, for each of its lines, the README line it came from (0: the harness's own). */
interface Generated {
  name: string;
  text: string;
  readmeLines: number[];
}

/** The file that type-checks and runs one snippet. */
function generate(snippet: CodeBlock & { kind: SnippetKind }, index: number): Generated {
  const name = `snippet-${String(index).padStart(2, "0")}`;
  const lines = snippet.code.replace(/\n$/, "").split("\n");
  if (snippet.kind !== "fragment")
    return { name, text: snippet.code, readmeLines: lines.map((_, i) => snippet.line + i) };
  const { imports, body, importLines } = splitImports(snippet.code);
  const out: Array<[string, number]> = [
    ...imports.map((l, i): [string, number] => [l, snippet.line + i]),
    ['import { startMockServer as startReadmeMock, type MockServer as ReadmeMock } from "openresponses-mock";', 0],
    ["async function readmeSnippet(mock: ReadmeMock): Promise<void> {", 0],
    ...body.map((l, i): [string, number] => [l, snippet.line + importLines + i]),
    ["}", 0],
    ["const readmeMock = await startReadmeMock();", 0],
    ["try {", 0],
    ["  await readmeSnippet(readmeMock);", 0],
    ["} finally {", 0],
    ["  await readmeMock.close();", 0],
    ["}", 0],
    [
      `process.stdout.write("\\n${MARKER}" + JSON.stringify(readmeMock.requests.map((r) => ({ method: r.method, path: r.path, status: r.status }))) + "\\n");`,
      0,
    ],
  ];
  return { name, text: out.map(([l]) => l).join("\n") + "\n", readmeLines: out.map(([, n]) => n) };
}

describe("README code blocks", () => {
  it("spell TypeScript as ```ts, so that each is checked", () => {
    const unchecked = codeBlocks(readme).filter(
      (b) => /^(typescript|tsx?|jsx?|javascript|mjs|cjs|mts|cts)$/i.test(b.lang) && b.lang !== "ts",
    );
    expect(unchecked.map((b) => `README.md:${b.line} \`\`\`${b.lang}`)).toEqual([]);
  });

  it("hold TypeScript snippets of every kind the checks know", () => {
    const kinds = new Set(snippets.map((s) => s.kind));
    for (const kind of ["vitest", "jest", "node-test", "program", "fragment"] as const)
      expect(kinds, kind).toContain(kind);
  });
});

describe("README TypeScript snippets", () => {
  let dir: string;
  let files: Generated[];
  const typeErrors = new Map<string, string[]>();

  beforeAll(async () => {
    // Inside the package, so that "openresponses-mock" resolves to it (dist/) as a dependency would.
    dir = mkdtempSync(join(root, ".readme-snippets-"));
    files = snippets.map(generate);
    for (const f of files) writeFileSync(join(dir, `${f.name}.ts`), f.text);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../tsconfig.json",
        compilerOptions: { rootDir: ".", outDir: "out", declaration: false, sourceMap: false, noEmitOnError: false },
        include: ["*.ts"],
      }),
    );
    const tsc = await run(process.execPath, [
      join(root, "node_modules/typescript/bin/tsc"),
      "-p",
      join(dir, "tsconfig.json"),
      "--pretty",
      "false",
    ]);
    // Each error as README.md:LINE (or the generated line, when the harness has it), by snippet.
    for (const l of (tsc.stdout + tsc.stderr).split("\n").filter((l) => l.trim() !== "")) {
      const m = /(snippet-\d+)\.ts\((\d+),(\d+)\): (.*)$/.exec(l);
      const file = m && files.find((f) => f.name === m[1]);
      if (!m || !file) {
        typeErrors.set("", [...(typeErrors.get("") ?? []), l]);
        continue;
      }
      const line = file.readmeLines[Number(m[2]) - 1];
      const message = line
        ? `README.md:${line}:${m[3]}: ${m[4]}`
        : `${m[1]} (harness) line ${m[2]}: ${m[4]}\n${file.text}`;
      typeErrors.set(file.name, [...(typeErrors.get(file.name) ?? []), message]);
    }
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("type-check against the built package", () => {
    expect(snippets.length).toBeGreaterThan(5);
    expect([...typeErrors.values()].flat().join("\n")).toBe("");
  });

  snippets.forEach((snippet, index) => {
    const title = `README.md:${snippet.line} (${snippet.section || "top"}), a ${snippet.kind}`;
    if (snippet.kind === "vitest") {
      it(`${title}: runs in test/readme-vitest.test.ts`, () => {
        const other = readFileSync(new URL("readme-vitest.test.ts", import.meta.url), "utf8");
        expect(other).toContain('tsSnippets().filter((s) => s.kind === "vitest")');
      });
      return;
    }
    it(`${title}: runs`, async () => {
      expect(
        [...(typeErrors.get("") ?? []), ...(typeErrors.get(files[index].name) ?? [])].join("\n"),
        "the snippet must type-check first",
      ).toBe("");
      const js = join(dir, "out", `${files[index].name}.js`);
      // Every test of a node:test or jest snippet must run and pass.
      const tests = (snippet.code.match(/^test\(/gm) ?? []).length;
      if (snippet.kind === "jest") {
        const config = { rootDir: join(dir, "out"), testMatch: [js], testEnvironment: "node", transform: {} };
        const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST")));
        const result = await run(
          process.execPath,
          ["--experimental-vm-modules", JEST, "--ci", "--config", JSON.stringify(config), "--json"],
          { cwd: dir, env },
        );
        expect(result.code, `exit code; stderr:\n${result.stderr}\nstdout:\n${result.stdout}`).toBe(0);
        const report = JSON.parse(result.stdout) as { numTotalTests: number; numPassedTests: number };
        expect(tests).toBeGreaterThan(0);
        expect(report).toMatchObject({ numTotalTests: tests, numPassedTests: tests });
        return;
      }
      const result = await run(process.execPath, snippet.kind === "node-test" ? ["--test", js] : [js], { cwd: dir });
      expect(result.code, `exit code; stderr:\n${result.stderr}\nstdout:\n${result.stdout}`).toBe(0);
      if (snippet.kind === "node-test") {
        expect(tests).toBeGreaterThan(0);
        expect(result.stdout).toMatch(new RegExp(`^# pass ${tests}$`, "m"));
        expect(result.stdout).toMatch(/^# fail 0$/m);
        return;
      }
      const [printed, journal] = result.stdout.split(MARKER);
      expect(printed.trim(), "the snippet prints an answer").not.toBe("");
      if (snippet.kind === "fragment") {
        const requests = JSON.parse(journal) as Array<{ method: string; path: string; status: number }>;
        expect(requests.length, "requests the mock answered").toBeGreaterThan(0);
        for (const r of requests) expect(r).toMatchObject({ method: "POST", path: "/v1/responses", status: 200 });
      }
    }, 120_000);
  });
});

/** A port nothing listens on, as far as one can tell. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The `run: |` script and the `env:` of the README's GitHub Actions step. */
function actionsStep(yaml: string): { script: string; env: Record<string, string> } {
  const lines = yaml.split("\n");
  const runAt = lines.findIndex((l) => /^\s*run: \|\s*$/.test(l));
  expect(runAt, "a `run: |` block").toBeGreaterThan(-1);
  const indent = (l: string) => l.length - l.trimStart().length;
  const runIndent = indent(lines[runAt]);
  const script: string[] = [];
  let i = runAt + 1;
  for (; i < lines.length && (lines[i].trim() === "" || indent(lines[i]) > runIndent); i++) script.push(lines[i]);
  const scriptIndent = Math.min(...script.filter((l) => l.trim() !== "").map(indent));
  const env: Record<string, string> = {};
  const envAt = lines.findIndex((l) => /^\s*env:\s*$/.test(l));
  if (envAt >= 0) {
    for (let j = envAt + 1; j < lines.length && indent(lines[j]) > indent(lines[envAt]); j++) {
      const m = /^\s*([A-Z_][A-Z0-9_]*):\s*(.*)$/.exec(lines[j]);
      if (m) env[m[1]] = m[2];
    }
  }
  return { script: script.map((l) => l.slice(scriptIndent)).join("\n") + "\n", env };
}

describe("README's CI recipe", () => {
  const ci = codeBlocks(readme).filter((b) => b.section === "Use it in CI");
  const sh = ci.find((b) => b.lang === "sh");
  const yaml = ci.find((b) => b.lang === "yaml" && /^\s*run: \|\s*$/m.test(b.code));
  let consumer: string;

  beforeAll(() => {
    // A project with the package installed: its bin in node_modules/.bin (what npm makes of "bin").
    consumer = mkdtempSync(join(tmpdir(), "readme-ci-"));
    mkdirSync(join(consumer, "node_modules/.bin"), { recursive: true });
    const bin = join(consumer, "node_modules/.bin/openresponses-mock");
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(bin, 0o755);
  });
  afterAll(() => {
    if (consumer) rmSync(consumer, { recursive: true, force: true });
  });

  /** Runs a recipe with bash -e (as GitHub Actions does), 4010 replaced by a free port; `npm test` sends one request. */
  async function runRecipe(script: string, env: Record<string, string>) {
    const port = await freePort();
    const onPort = (s: string) => s.replaceAll("4010", String(port));
    const stand_in = [
      "# The tests of the recipe: one request through the variables the openai SDKs read.",
      'npm() { curl -sf "$OPENAI_BASE_URL/responses" -H "authorization: Bearer $OPENAI_API_KEY" -H "content-type: application/json" -d \'{"model":"mock-model","input":"from the CI recipe"}\'; echo; }',
    ].join("\n");
    const file = join(consumer, `recipe-${port}.sh`);
    writeFileSync(file, `${stand_in}\n${onPort(script)}`);
    const envs = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, onPort(v)]));
    const result = await run("bash", ["-e", file], { cwd: consumer, env: { ...process.env, ...envs } });
    return { port, result };
  }

  /** Whether /health still answers; the recipe's trap must have stopped the server. */
  async function stopped(port: number): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/health`);
      } catch {
        return true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  it("is in the README as a shell snippet and a GitHub Actions step", () => {
    expect(sh?.code).toContain("/health");
    expect(yaml?.code).toContain("/health");
  });

  it("the shell snippet starts the server, waits for /health, runs the tests against it and stops it", async () => {
    const { port, result } = await runRecipe(sh!.code, {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('{"status":"ok"}');
    expect(result.stdout).toContain('"status":"completed"');
    expect(result.stdout).toContain("from the CI recipe");
    expect(await stopped(port)).toBe(true);
  }, 120_000);

  it("the GitHub Actions step does the same with its env", async () => {
    const step = actionsStep(yaml!.code);
    expect(Object.keys(step.env).sort()).toEqual(["OPENAI_API_KEY", "OPENAI_BASE_URL"]);
    const { port, result } = await runRecipe(step.script, step.env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('{"status":"ok"}');
    expect(result.stdout).toContain('"status":"completed"');
    expect(await stopped(port)).toBe(true);
  }, 120_000);
});

/** action.yml's input and output names, and its `runs` (a line parser: the file is plain YAML maps). */
function actionYml(): { inputs: string[]; outputs: string[]; runs: Record<string, string> } {
  const text = readFileSync(join(root, "action.yml"), "utf8");
  const keysUnder = (top: string) => {
    const lines = text.split("\n");
    const at = lines.indexOf(`${top}:`);
    expect(at, `action.yml has ${top}:`).toBeGreaterThan(-1);
    const keys: string[] = [];
    for (let i = at + 1; i < lines.length && (lines[i] === "" || lines[i].startsWith(" ")); i++) {
      const m = /^ {2}([a-z][a-z0-9-]*):(.*)$/.exec(lines[i]);
      if (m) keys.push(top === "runs" ? `${m[1]}=${m[2].trim()}` : m[1]);
    }
    return keys;
  };
  const runs = Object.fromEntries(keysUnder("runs").map((kv) => kv.split("=") as [string, string]));
  return { inputs: keysUnder("inputs"), outputs: keysUnder("outputs"), runs };
}

describe("README's GitHub Action workflow", () => {
  const ci = codeBlocks(readme).filter((b) => b.section === "Use it in CI");
  const workflow = ci.find((b) => b.lang === "yaml" && /uses: [^\s]+\/openresponses-mock@/.test(b.code));
  const action = actionYml();

  it("comes first in Use it in CI, before the shell recipe", () => {
    expect(workflow).toBeDefined();
    expect(ci.indexOf(workflow!)).toBe(0);
  });

  it("action.yml is a node20 JavaScript action with a main and a post step that exist", () => {
    expect(action.runs).toEqual({ using: "node20", main: "action/main.mjs", post: "action/post.mjs" });
    for (const file of [action.runs.main, action.runs.post])
      expect(readdirSync(join(root, "action"))).toContain(file.slice(7));
    expect(action.inputs.sort()).toEqual(["api-key", "args", "export-env", "port", "scenarios", "version"]);
    expect(action.outputs.sort()).toEqual(["base-url", "log-file", "url"]);
  });

  it("gives the action only inputs it declares and reads only outputs it declares", () => {
    const lines = workflow!.code.split("\n");
    const uses = lines.findIndex((l) => /uses: [^\s]+\/openresponses-mock@/.test(l));
    const withAt = lines.findIndex((l, i) => i > uses && /^\s+with:\s*$/.test(l));
    const given: string[] = [];
    for (let i = withAt + 1; i < lines.length && /^\s{10}\S/.test(lines[i]); i++)
      given.push(lines[i].trim().split(":")[0]);
    expect(given.length).toBeGreaterThan(0);
    for (const input of given) expect(action.inputs, input).toContain(input);
    const read = [...workflow!.code.matchAll(/steps\.mock\.outputs\.([a-z-]+)/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(0);
    for (const output of read) expect(action.outputs, output).toContain(output);
  });

  it("lists every input and output of action.yml in its tables", () => {
    const text = section("Use it in CI");
    for (const name of [...action.inputs, ...action.outputs]) expect(text, name).toContain(`| \`${name}\` |`);
  });
});

/** The text of a `## ` section. */
function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `section ${title}`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath ?? (e as { path?: string }).path ?? dir, e.name));
}

describe("README's reference tables", () => {
  it("hold no PENDING marker: everything the README describes is built", () => {
    expect(readme).not.toContain("PENDING");
    expect(readFileSync(new URL("../CHANGELOG.md", import.meta.url), "utf8")).not.toContain("PENDING");
  });

  it("Headers lists every x-mock-* header the code reads or sends", () => {
    const table = section("Headers");
    const names = new Set(
      sources(join(root, "src")).flatMap((f) => readFileSync(f, "utf8").match(/x-mock-[a-z]+(?:-[a-z]+)*/g) ?? []),
    );
    expect(names.size).toBeGreaterThan(8);
    for (const name of names) expect(table, name).toContain(`| \`${name}\` |`);
  });

  it("Options lists every option of startMockServer", () => {
    const table = section("Options");
    for (const key of Object.keys(ServerOptions.shape)) expect(table, key).toMatch(new RegExp(`\`${key}(?:\`|: )`));
  });

  it("Options lists every flag of serve and proxy, and names no flag they lack", async () => {
    const flagsOf = async (command: string) => {
      const help = await run(process.execPath, [CLI, command, "--help"]);
      expect(help.code).toBe(0);
      return new Set(
        [...help.stdout.matchAll(/^\s+(--[a-z-]+)/gm)]
          .map((m) => m[1])
          .filter((f) => f !== "--help" && f !== "--version"),
      );
    };
    const serve = await flagsOf("serve");
    const proxy = await flagsOf("proxy");
    expect(serve.size).toBeGreaterThan(10);
    const proxyOnly = [...proxy].filter((f) => !serve.has(f));
    expect(proxyOnly).toContain("--upstream");
    const table = section("Options");
    for (const flag of [...serve, ...proxy])
      expect(table, flag).toMatch(new RegExp(`\`(?:${flag}|--no-${flag.slice(2)})[\` ]`));
    const rows = table.split("\n").filter((l) => l.startsWith("| `--"));
    for (const row of rows) {
      const named = [...row.split(" | ")[0].matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]);
      // A row marked (`proxy`) names proxy-only flags; the others, serve's.
      const known = row.split(" | ")[0].includes("(`proxy`)") ? new Set(proxyOnly) : serve;
      for (const flag of named)
        expect(known.has(flag) || known.has(flag.replace(/^--no-/, "--")), `${flag} in: ${row}`).toBe(true);
    }
  });
});

describe("README's scenario examples", () => {
  const scenarios = codeBlocks(readme).filter(
    (b) => b.lang === "json" && /"name"/.test(b.code) && /"(?:turns|generate)"/.test(b.code),
  );

  it("are there", () => {
    expect(scenarios.length).toBeGreaterThan(1);
  });

  for (const block of scenarios) {
    it(`README.md:${block.line} parses as a scenario file`, () => {
      expect(() => parseScenarioText(block.code, `README.md:${block.line}`)).not.toThrow();
    });
  }
});
