/**
 * The exam's report: a table of lessons (result, name, evidence) and a
 * summary line, or the JSON form `{"lessons": [{name, result, evidence}]}`.
 * Pure: the shell prints it.
 */
import type { LessonName, LessonResult } from "./lessons.js";

export interface LessonOutcome {
  name: LessonName;
  result: LessonResult;
  evidence: string;
}

/** The exam fails (exit 1) when any lesson does. */
export const examFailed = (outcomes: readonly LessonOutcome[]): boolean => outcomes.some((o) => o.result === "FAIL");

/** `11 PASS, 1 FAIL, 1 SKIP, 2 INFO`: the counts of the results that occur, in that order. */
export function summary(outcomes: readonly LessonOutcome[]): string {
  const counts = (["PASS", "FAIL", "SKIP", "INFO"] as const)
    .map((r) => [r, outcomes.filter((o) => o.result === r).length] as const)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${n} ${r}`);
  return `${outcomes.length} ${outcomes.length === 1 ? "lesson" : "lessons"}: ${counts.join(", ")}`;
}

/** The table: one line per lesson, `RESULT  name  evidence`, then the summary. */
export function formatExamReport(outcomes: readonly LessonOutcome[], notes: readonly string[] = []): string {
  const width = Math.max(...outcomes.map((o) => o.name.length), "lesson".length);
  const lines = [`result  ${"lesson".padEnd(width)}  evidence`];
  for (const o of outcomes) lines.push(`${o.result.padEnd(6)}  ${o.name.padEnd(width)}  ${o.evidence}`);
  lines.push("", summary(outcomes), ...notes);
  return lines.join("\n") + "\n";
}

/** The JSON report (`--json`). */
export function jsonExamReport(outcomes: readonly LessonOutcome[]): string {
  return (
    JSON.stringify({ lessons: outcomes.map(({ name, result, evidence }) => ({ name, result, evidence })) }, null, 2) +
    "\n"
  );
}
