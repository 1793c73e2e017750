/** The exam (`openresponses-mock exam`): its lessons, their graders and the report. Pure; src/cli/exam.ts runs it. */
export * from "./lessons.js";
export * from "./report.js";
