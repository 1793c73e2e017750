/**
 * `openresponses-mock exam [--json] [--only NAME...] [--timeout-ms N]
 * [--dialect NAME] [--jobs N] -- COMMAND ARGS...`: grades any client, in any
 * language, on how it handles what real servers send.
 *
 * It starts one mock in this process, on a free port, where a request's API
 * key is its session (`sessionFromKey`). Each lesson (src/exam/lessons.ts)
 * gets a key of its own: the lesson's session is scripted, then COMMAND runs
 * with OPENAI_BASE_URL and OPENRESPONSES_MOCK_URL pointing at the mock,
 * OPENAI_API_KEY set to that key, and the lesson's prompt in
 * OPENRESPONSES_MOCK_PROMPT and in place of `{prompt}` in its arguments. When
 * the command has ended (or was killed at the limit, with its process group),
 * the lesson is graded from the session's journal and expectations and the
 * command's output, exit and time.
 *
 * Exit codes: 0 no lesson failed; 1 a lesson failed, a bad flag, or the
 * command could not be run at all.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Argv } from "yargs";
import { DIALECT_NAMES } from "../dialect/index.js";
import {
  LESSON_NAMES,
  LESSONS,
  examFailed,
  formatExamReport,
  jsonExamReport,
  type ExamRequest,
  type Lesson,
  type LessonOutcome,
} from "../exam/index.js";
import type { JournalEntry } from "../journal/journal.js";
import { startServer, type MockServer } from "../server.js";
import { nearestName } from "../util/nearest-name.js";
import { CommandStartError, killAllCommands, runCommand } from "./run-command.js";

export const DEFAULT_EXAM_TIMEOUT_MS = 30_000;
export const DEFAULT_EXAM_JOBS = 4;
const MAX_EXAM_JOBS = 16;
/** How long to wait, after the command ended, for the answers it left to end (their journal entries close). */
const SETTLE_MS = 2_000;

export interface ExamArgs {
  json: boolean;
  only?: string[];
  "timeout-ms"?: string;
  dialect?: string;
  jobs?: string;
}

/** The `exam` command's flags. */
export function examOptions<T>(y: Argv<T>) {
  return y
    .option("json", { type: "boolean", default: false, describe: 'Print {"lessons": [{name, result, evidence}]}' })
    .option("only", { type: "string", array: true, describe: `Run only these lessons: ${LESSON_NAMES.join(", ")}` })
    .option("timeout-ms", {
      type: "string",
      describe: `Longest run of COMMAND per lesson, in ms; past it, it is killed with its process group (default ${DEFAULT_EXAM_TIMEOUT_MS})`,
    })
    .option("dialect", {
      type: "string",
      describe: `The dialect the mock answers in: ${DIALECT_NAMES.join(", ")} (default open-responses)`,
    })
    .option("jobs", {
      type: "string",
      describe: `Lessons run at once, each in its own session (default ${DEFAULT_EXAM_JOBS})`,
    });
}

export interface ExamSettings {
  lessons: Lesson[];
  timeoutMs: number;
  dialect: string;
  jobs: number;
  json: boolean;
  command: string[];
}

/** A whole number flag within [min, max], or an error naming the flag as typed. */
function wholeFlag(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const typed = Array.isArray(value) ? String(value[value.length - 1]) : String(value);
  const n = Number(typed);
  if (typed.trim() === "" || !Number.isInteger(n) || n < min || n > max)
    throw new Error(`${flag}: expected a whole number from ${min} to ${max}, got '${typed.slice(0, 80)}'`);
  return n;
}

/** The flags and the command, checked; a bad one is named as typed. */
export function examSettings(argv: ExamArgs, command: readonly string[] | undefined): ExamSettings {
  if (command === undefined || command.length === 0)
    throw new Error(
      "exam needs the command that runs your client after '--', e.g. openresponses-mock exam -- node my-client.mjs {prompt}",
    );
  const only = (argv.only ?? []).flatMap((word) => word.split(",")).filter((w) => w !== "");
  for (const name of only) {
    if ((LESSON_NAMES as readonly string[]).includes(name)) continue;
    const near = nearestName(name, LESSON_NAMES);
    throw new Error(
      `--only: unknown lesson '${name.slice(0, 80)}'${near ? `; did you mean '${near}'?` : ""} Lessons: ${LESSON_NAMES.join(", ")}`,
    );
  }
  if (argv.only !== undefined && only.length === 0)
    throw new Error(`--only: needs lesson names: ${LESSON_NAMES.join(", ")}`);
  const dialect = argv.dialect ?? "open-responses";
  if (!(DIALECT_NAMES as readonly string[]).includes(dialect)) {
    const near = nearestName(dialect, DIALECT_NAMES);
    throw new Error(
      `--dialect: unknown dialect '${dialect.slice(0, 80)}'${near ? `; did you mean '${near}'?` : ""} Dialects: ${DIALECT_NAMES.join(", ")}`,
    );
  }
  return {
    lessons: only.length === 0 ? [...LESSONS] : LESSONS.filter((l) => only.includes(l.name)),
    timeoutMs: wholeFlag("--timeout-ms", argv["timeout-ms"], DEFAULT_EXAM_TIMEOUT_MS, 100, 3_600_000),
    dialect,
    jobs: wholeFlag("--jobs", argv.jobs, DEFAULT_EXAM_JOBS, 1, MAX_EXAM_JOBS),
    json: argv.json,
    command: [...command],
  };
}

/** A journal entry as the graders read it. */
const examRequest = (e: JournalEntry): ExamRequest => ({
  seq: e.seq,
  at: e.at,
  endedAt: e.endedAt,
  status: e.status,
  streamed: e.streamed,
  outcome: e.outcome,
  errorCode: e.errorCode,
  events: e.events,
  body: e.body,
  rawBody: e.rawBody,
});

/** The requests of a session that asked for an answer: `POST /v1/responses` and WebSocket turns. */
const answerRequests = (entries: readonly JournalEntry[]) =>
  entries.filter((e) => e.path === "/v1/responses" && (e.method === "POST" || e.method === "WS"));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every request of the session has ended (a killed client's connections close a moment later). */
async function settled(mock: MockServer, session: string): Promise<JournalEntry[]> {
  const until = performance.now() + SETTLE_MS;
  for (;;) {
    const entries = mock.session(session).requests;
    if (entries.every((e) => e.endedAt !== null) || performance.now() > until) return entries;
    await sleep(10);
  }
}

/** Runs one lesson: scripts its session, runs the command, grades what happened. */
async function runLesson(mock: MockServer, lesson: Lesson, settings: ExamSettings, nonce: string) {
  const key = `exam-${nonce}-${lesson.name}`;
  const session = mock.session(key);
  if (lesson.script.enqueue.length > 0) session.enqueue(...lesson.script.enqueue);
  session.use(lesson.script.use);
  const limitMs = lesson.limitMs?.(settings.timeoutMs) ?? settings.timeoutMs;
  const argv = settings.command.map((word) => word.replaceAll("{prompt}", lesson.prompt));
  const command = await runCommand(argv, {
    env: {
      ...process.env,
      OPENAI_BASE_URL: mock.baseURL,
      OPENRESPONSES_MOCK_URL: mock.url,
      OPENAI_API_KEY: key,
      OPENRESPONSES_MOCK_PROMPT: lesson.prompt,
    },
    limitMs,
    now: () => performance.now(),
  });
  const entries = await settled(mock, key);
  const graded = lesson.grade({
    requests: answerRequests(entries).map(examRequest),
    expectations: session.expectations,
    command,
    limitMs,
  });
  return { outcome: { name: lesson.name, ...graded } satisfies LessonOutcome, command };
}

/** Runs the exam; resolves with the outcomes in lesson order and the notes the report ends with. */
export async function runExam(
  settings: ExamSettings,
  progress: (line: string) => void = () => {},
): Promise<{ outcomes: LessonOutcome[]; notes: string[] }> {
  const mock = await startServer({ port: 0, sessionFromKey: true, dialect: settings.dialect });
  const stop = () => {
    killAllCommands();
    void mock.close();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    progress(
      `exam: ${settings.lessons.length} ${settings.lessons.length === 1 ? "lesson" : "lessons"} against ${mock.baseURL} (dialect ${settings.dialect}), running: ${settings.command.join(" ")}`,
    );
    const nonce = randomBytes(4).toString("hex");
    const results: ({ outcome: LessonOutcome; command: { stdout: string } } | undefined)[] = [];
    let next = 0;
    let startError: CommandStartError | undefined;
    const worker = async () => {
      while (next < settings.lessons.length && startError === undefined) {
        const i = next++;
        const lesson = settings.lessons[i];
        const began = performance.now();
        try {
          results[i] = await runLesson(mock, lesson, settings, nonce);
        } catch (err) {
          if (!(err instanceof CommandStartError)) throw err;
          startError ??= err;
          return;
        }
        const { outcome } = results[i]!;
        progress(`exam: ${outcome.result} ${lesson.name} (${((performance.now() - began) / 1000).toFixed(1)} s)`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.jobs, settings.lessons.length) }, worker));
    if (startError !== undefined) throw new Error(startError.message);
    const done = results.filter((r) => r !== undefined);
    const notes: string[] = [];
    if (done.every((r) => r.command.stdout.trim() === ""))
      notes.push(
        "note: the command printed nothing on stdout in any lesson. It should print the model's answer (the prompt is in OPENRESPONSES_MOCK_PROMPT and {prompt}); see docs/exam.md.",
      );
    return { outcomes: done.map((r) => r.outcome), notes };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    killAllCommands();
    await mock.close();
  }
}

/** The command: runs the exam, prints the report, sets the exit code. */
export async function runExamCommand(
  argv: ExamArgs,
  command: readonly string[] | undefined,
  write: (text: string) => Promise<void>,
): Promise<void> {
  const settings = examSettings(argv, command);
  const { outcomes, notes } = await runExam(settings, (line) => process.stderr.write(`${line}\n`));
  await write(settings.json ? jsonExamReport(outcomes) : formatExamReport(outcomes, notes));
  if (settings.json) for (const note of notes) process.stderr.write(`${note}\n`);
  if (examFailed(outcomes)) process.exitCode = 1;
}
