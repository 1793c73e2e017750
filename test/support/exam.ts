/** Running `openresponses-mock exam` (the built CLI) on a client in tests, and what a passing client should get. */
import { expect } from "vitest";
import { LESSON_NAMES, type LessonName } from "../../src/exam/index.js";
import { runCli } from "./run.js";

interface Report {
  lessons: { name: LessonName; result: string; evidence: string }[];
}

/**
 * Runs `exam --json` on `command` (its `{prompt}` filled in by the exam);
 * resolves with the exit code, each lesson's result, and every lesson's
 * evidence as one text for assertion messages.
 */
export async function runExam(
  command: readonly string[],
  options: { dialect: string; timeoutMs: number; only?: readonly string[] },
) {
  const only = options.only ?? LESSON_NAMES;
  const run = await runCli([
    "exam",
    "--json",
    "--dialect",
    options.dialect,
    "--timeout-ms",
    String(options.timeoutMs),
    "--only",
    ...only,
    "--",
    ...command,
  ]);
  expect(run.stdout, run.stderr).not.toBe("");
  const report = JSON.parse(run.stdout) as Report;
  const results = Object.fromEntries(report.lessons.map((l) => [l.name, l.result]));
  const evidence = report.lessons.map((l) => `${l.result} ${l.name}: ${l.evidence}`).join("\n");
  return { code: run.code, results, evidence };
}

/** Every lesson PASS but the informational ones (INFO), and those in `failed` FAIL. */
export function expectedResults(only: readonly LessonName[], failed: readonly LessonName[] = []) {
  return Object.fromEntries(
    only.map((name) => [
      name,
      failed.includes(name) ? "FAIL" : name === "incomplete" || name === "stall" ? "INFO" : "PASS",
    ]),
  );
}
