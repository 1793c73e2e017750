// `openresponses-mock exam` on the example clients of examples/exam/, in both dialects: the
// good client passes every lesson that is not informational, and each broken one fails exactly
// the lessons of its bug. Runs the built CLI (npm run build) on real clients (the `openai` SDK).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LESSON_NAMES } from "../../src/exam/index.js";
import { expectedResults, runExam } from "../support/exam.js";

const example = (file: string) => fileURLToPath(new URL(`../../examples/exam/${file}`, import.meta.url));

/** The exam on an example client, run with node. */
const exam = (client: string, dialect: string, only?: readonly string[]) =>
  runExam([process.execPath, example(client), "{prompt}"], { dialect, timeoutMs: 8000, only });

/** The broken clients skip `stall` (informational, and the slowest lesson). */
const BUT_STALL = LESSON_NAMES.filter((n) => n !== "stall");

describe.each(["open-responses", "openai"])("exam in the %s dialect", (dialect) => {
  it("good-client.mjs passes every lesson that is not informational", async () => {
    const { code, results, evidence } = await exam("good-client.mjs", dialect);
    expect(results, evidence).toEqual(expectedResults(LESSON_NAMES));
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
      expect(results, evidence).toEqual(expectedResults(BUT_STALL, failed));
      expect(code, evidence).toBe(1);
    },
    120_000,
  );
});
