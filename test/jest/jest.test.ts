/**
 * `openresponses-mock/jest` in jest itself: this vitest file runs jest (ESM, under
 * `node --experimental-vm-modules`, as the package is ESM) on test/jest/ with
 * test/jest/jest.config.mjs, and reads its JSON report. The jest files
 * (`*.jest.mjs`, `*.fixture.mjs`) are not vitest's: vitest collects `*.test.ts` only.
 *
 * Needs `npm run build` (dist/) first: the jest files import the built package.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runProcess } from "../support/run.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const JEST = join(ROOT, "node_modules/jest/bin/jest.js");
const CONFIG = fileURLToPath(new URL("jest.config.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "openresponses-mock-jest-"));

afterAll(() => rmSync(work, { recursive: true, force: true }));

interface JestReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{
    name: string;
    assertionResults: Array<{ title: string; status: string; failureMessages: string[] }>;
  }>;
}

/** Runs jest with the config and `args`; resolves with its exit code, output and JSON report. */
async function jest(name: string, args: string[] = []) {
  const outputFile = join(work, `${name}.json`);
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("VITEST")) delete env[key];
  const result = await runProcess(
    process.execPath,
    [
      "--experimental-vm-modules",
      JEST,
      "--config",
      CONFIG,
      "--ci",
      "--cacheDirectory",
      join(work, "cache"),
      "--json",
      "--outputFile",
      outputFile,
      ...args,
    ],
    { cwd: ROOT, env },
  );
  const report = JSON.parse(readFileSync(outputFile, "utf8")) as JestReport;
  const tests = report.testResults.flatMap((f) => f.assertionResults);
  return { ...result, report, tests };
}

describe("openresponses-mock/jest, run by jest", () => {
  it("passes a test file that uses useMockServer with the openai SDK, and jest exits by itself", async () => {
    // No --forceExit: a server left open would keep jest from exiting, and this test would time out.
    const run = await jest("helper");
    expect(run.code, run.stderr).toBe(0);
    expect(run.report.testResults.map((f) => f.name)).toEqual([join(ROOT, "test/jest/helper.jest.mjs")]);
    expect(run.report.success).toBe(true);
    expect(run.report.numTotalTests).toBe(3);
    expect(run.report.numPassedTests).toBe(3);
    expect(run.tests.map((t) => t.status)).toEqual(["passed", "passed", "passed"]);
  }, 120_000);

  it("with verify: true, an unmet expectation fails its test (and only that one)", async () => {
    const run = await jest("verify", ["--testMatch", "**/verify-unmet.fixture.mjs"]);
    expect(run.code).toBe(1);
    expect(run.report.numTotalTests).toBe(2);
    expect(run.tests.map((t) => [t.title, t.status])).toEqual([
      ["sends back only one of two tool outputs", "failed"],
      ["meets its expectation", "passed"],
    ]);
    expect(run.tests[0].failureMessages.join("\n")).toContain(
      "tool_outputs (scenario 'two-calls', turn 0), request #1: expected function_call_output for call_2; got outputs for call_1 only",
    );
  }, 120_000);
});
