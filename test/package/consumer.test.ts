/**
 * The package as a user gets it: `npm pack`, the tarball installed into a new
 * project outside the repository (its dependencies from the registry), and
 * there: tsc with skipLibCheck off under node16 and bundler resolution (and a
 * CommonJS file under node20), `import` and `require` at runtime, the vitest
 * helper in a vitest run, `npx openresponses-mock --help` and `list`, and the
 * bin serving in the background until SIGTERM. It packs the dist/ that
 * `npm test` builds.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, cleanEnv, run } from "./run.js";

const FIXTURES = join(REPO, "test/package/consumer");
const TSC = join(REPO, "node_modules/typescript/bin/tsc");
const VITEST_VERSION = (
  JSON.parse(readFileSync(join(REPO, "node_modules/vitest/package.json"), "utf8")) as { version: string }
).version;
const INSTALL_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline"];

interface Packed {
  filename: string;
  files: { path: string }[];
}

/** What a user needs, and nothing else: the built code and its types, the inspector's page, the scenarios, the schema, the examples, the docs of the package. */
const ALLOWED = [
  /^dist\/.+\.(js|d\.ts)$/,
  /^dist\/inspector\/page\/[a-z0-9-]+\.(html|css)$/,
  /^scenarios\/[^/]+\.json$/,
  /^examples\/[^/]+\.json$/,
  /^examples\/exam\/[^/]+\.(mjs|py|md)$/,
  /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|scenario\.schema\.json|service\.schema\.json)$/,
];

describe("the packed package in a consumer project", { timeout: 240_000 }, () => {
  let work: string;
  let consumer: string;
  let packed: Packed;
  let packageJson: { bin: Record<string, string>; exports: Record<string, string | Record<string, string>> };

  beforeAll(async () => {
    if (!existsSync(join(REPO, "dist/index.js")))
      throw new Error("dist/ is missing: run `npm run build` first (`npm test` does).");
    work = mkdtempSync(join(tmpdir(), "openresponses-mock-pack-"));
    // --ignore-scripts: `prepare` would rebuild dist/ under the other test files that run it.
    const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], REPO);
    expect(pack.code, pack.output).toBe(0);
    packed = (JSON.parse(pack.stdout) as Packed[])[0];
    packageJson = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));

    consumer = join(work, "consumer");
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2),
    );
    for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(consumer, file));
    const compilerOptions = { target: "es2022", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] };
    const configs = {
      node16: { module: "node16", moduleResolution: "node16", file: "consumer.ts" },
      bundler: { module: "esnext", moduleResolution: "bundler", file: "consumer.ts" },
      // CommonJS TypeScript that require()s the package: node20 (TS 5.9) or nodenext; node16 cannot.
      "node20-require": { module: "node20", file: "consumer-require.cts" },
    };
    for (const [name, { file, ...resolution }] of Object.entries(configs)) {
      writeFileSync(
        join(consumer, `tsconfig.${name}.json`),
        JSON.stringify({ compilerOptions: { ...compilerOptions, ...resolution }, files: [file] }, null, 2),
      );
    }
    writeFileSync(join(consumer, "vitest.config.mjs"), `export default { test: { include: ["helper.spec.ts"] } };\n`);

    const install = await run(
      "npm",
      ["install", ...INSTALL_FLAGS, join(work, packed.filename), "@types/node@20", `vitest@${VITEST_VERSION}`],
      consumer,
    );
    expect(install.code, install.output).toBe(0);
  }, 300_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("holds the built code, its types, the scenarios and the license, and no sources, tests, benchmarks or source maps", () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths.filter((p) => !ALLOWED.some((allowed) => allowed.test(p)))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        "LICENSE",
        "README.md",
        "package.json",
        "scenario.schema.json",
        "service.schema.json",
        "examples/service.json",
        "examples/exam/good-client.mjs",
        "examples/exam/client.mjs",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/vitest.js",
        "dist/vitest.d.ts",
        "dist/jest.js",
        "dist/jest.d.ts",
        "dist/cli/main.js",
        "scenarios/text.json",
        "dist/inspector/page/index.html",
        "dist/inspector/page/app.js",
        "dist/inspector/page/app.css",
      ]),
    );
    // Every published entry point is in the tarball.
    const targets = [
      ...Object.values(packageJson.bin),
      ...Object.values(packageJson.exports).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t))),
    ];
    for (const target of targets) expect(paths, target).toContain(target.replace(/^\.\//, ""));
  });

  it("installs with no build step: dist/ is in the tarball and no script rebuilt it", () => {
    const installed = join(consumer, "node_modules/openresponses-mock");
    expect(existsSync(join(installed, "dist/index.js"))).toBe(true);
    expect(existsSync(join(installed, "src"))).toBe(false);
    expect(existsSync(join(consumer, "node_modules/typescript"))).toBe(false);
  });

  it.each(["node16", "bundler", "node20-require"])("type-checks with skipLibCheck off and strict: %s", async (name) => {
    const tsc = await run(process.execPath, [TSC, "-p", `tsconfig.${name}.json`], consumer);
    expect(tsc.code, tsc.output).toBe(0);
  });

  it("works through import and through require", async () => {
    for (const script of ["run-import.mjs", "run-require.cjs"]) {
      const ran = await run(process.execPath, [script], consumer);
      expect(ran.code, ran.output).toBe(0);
      const result = JSON.parse(ran.stdout) as { health: unknown; useMockServer: string; baseURL: string };
      expect(result.health, ran.output).toEqual({ status: "ok" });
      expect(result.useMockServer).toBe("function");
      expect(result.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    }
  });

  it("runs the vitest helper in the consumer's own vitest", async () => {
    const vitest = await run(process.execPath, [join(consumer, "node_modules/vitest/vitest.mjs"), "run"], consumer);
    expect(vitest.code, vitest.output).toBe(0);
    expect(vitest.stdout, vitest.output).toMatch(/1 passed/);
  });

  it("runs `npx openresponses-mock --help`", async () => {
    // --no: the installed bin or nothing, never a download.
    const help = await run("npx", ["--no", "--", "openresponses-mock", "--help"], consumer);
    expect(help.code, help.output).toBe(0);
    expect(help.stdout, help.output).toContain("openresponses-mock serve");
    expect(help.stdout, help.output).toContain("--port");
  });

  it("serves from node_modules/.bin in the background, and SIGTERM to that PID stops it (the CI recipe)", async () => {
    // The bin is node itself (its shebang execs node), unlike `npx`, which runs it under `sh -c`.
    const server = spawn(join(consumer, "node_modules/.bin/openresponses-mock"), ["serve", "--port", "0"], {
      cwd: consumer,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let output = "";
      const url = await new Promise<string>((resolve, reject) => {
        const look = (chunk: Buffer) => {
          output += chunk;
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(output);
          if (match) resolve(match[0]);
        };
        server.stdout.on("data", look);
        server.stderr.on("data", look);
        server.once("exit", (code, signal) =>
          reject(new Error(`serve ended (${code ?? signal}) before it listened:\n${output}`)),
        );
      });
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ status: "ok" });
      const exited = once(server, "exit");
      server.kill("SIGTERM");
      await exited;
      await expect(fetch(`${url}/health`), output).rejects.toThrow();
    } finally {
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    }
  });

  it("finds its shipped scenario library from node_modules", async () => {
    const list = await run("npx", ["--no", "--", "openresponses-mock", "list"], consumer);
    expect(list.code, list.output).toBe(0);
    const names = list.stdout.split("\n").map((line) => line.split(/\s+/)[0]);
    expect(names, list.output).toEqual(expect.arrayContaining(["text", "tool-call", "error-429"]));
  });
});
