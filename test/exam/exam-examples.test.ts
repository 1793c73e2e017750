// `openresponses-mock exam` on the example clients of examples/exam/, in both dialects: the
// good client passes every lesson that is not informational, and each broken one fails exactly
// the lessons of its bug. Runs the built CLI (npm run build) on real clients (the `openai` SDK).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LESSON_NAMES, type LessonName } from "../../src/exam/index.js";
import { runCli } from "../support/run.js";

const example = (file: string) => fileURLToPath(new URL(`../../examples/exam/${file}`, import.meta.url));

interface Report {
  lessons: { name: LessonName; result: string; evidence: string }[];
}

/** Runs the exam on a client; resolves with its exit code and results by lesson. */
async function exam(client: string, dialect: string, only: readonly string[] = LESSON_NAMES) {
  const run = await runCli([
    "exam",
    "--json",
    "--dialect",
    dialect,
    "--timeout-ms",
    "8000",
    "--only",
    ...only,
    "--",
    process.execPath,
    example(client),
    "{prompt}",
  ]);
  expect(run.stdout, run.stderr).not.toBe("");
  const report = JSON.parse(run.stdout) as Report;
  const results = Object.fromEntries(report.lessons.map((l) => [l.name, l.result]));
  const evidence = report.lessons.map((l) => `${l.result} ${l.name}: ${l.evidence}`).join("\n");
  return { code: run.code, results, evidence };
}

/** Every lesson PASS but the informational ones (INFO), and `failed` FAIL. */
function expected(only: readonly LessonName[], failed: readonly LessonName[] = []) {
  return Object.fromEntries(
    only.map((name) => [
      name,
      failed.includes(name) ? "FAIL" : name === "incomplete" || name === "stall" ? "INFO" : "PASS",
    ]),
  );
}

/** The broken clients skip `stall` (informational, and the slowest lesson). */
const BUT_STALL = LESSON_NAMES.filter((n) => n !== "stall");

describe.each(["open-responses", "openai"])("exam in the %s dialect", (dialect) => {
  it("good-client.mjs passes every lesson that is not informational", async () => {
    const { code, results, evidence } = await exam("good-client.mjs", dialect);
    expect(results, evidence).toEqual(expected(LESSON_NAMES));
    expect(code, evidence).toBe(0);
  }, 120_000);

  it.each([
    ["no-retry-client.mjs", ["retry-429", "retry-500"]],
    ["drops-call-id-client.mjs", ["tool-call", "parallel-tools"]],
    ["strict-events-client.mjs", ["stream-text"]],
    ["trusts-cut-stream-client.mjs", ["dropped-stream"]],
  ] as const)(
    "%s fails exactly %j",
    async (client, failed) => {
      const { code, results, evidence } = await exam(client, dialect, BUT_STALL);
      expect(results, evidence).toEqual(expected(BUT_STALL, failed));
      expect(code, evidence).toBe(1);
    },
    120_000,
  );
});
