/**
 * The exam's curriculum: fifteen lessons, each a script for one session of
 * the mock (turns queued with `enqueue`, then a scenario `use`d for whatever
 * comes after) and a grader that reads what happened: the requests the
 * session's journal holds, the expectations judged on them, and what the
 * client's command printed, its exit and its time. Pure: the shell
 * (src/cli/exam.ts) starts the mock and the command and hands the facts in.
 *
 * Each grader says PASS, FAIL or SKIP (INFO for the informational ones) and
 * one line of evidence: request seqs, gaps in ms, the exit, the first line
 * of output. docs/exam.md says why a client should pass each lesson.
 */
import type { ExpectationReport } from "../scenario/expect.js";
import type { ScenarioInput, Turn } from "../scenario/schema.js";
import type { z } from "zod";

/** The lesson names, in the order they run and are reported (`--only` takes them). */
export const LESSON_NAMES = [
  "stream-text",
  "split-utf8",
  "tool-call",
  "parallel-tools",
  "reasoning-return",
  "retry-429",
  "retry-500",
  "no-retry-400",
  "dropped-stream",
  "failed-stream",
  "refusal",
  "vendor-item",
  "error-message",
  "incomplete",
  "stall",
] as const;

export type LessonName = (typeof LESSON_NAMES)[number];
export type LessonResult = "PASS" | "FAIL" | "SKIP" | "INFO";

/** A turn as `enqueue()` takes it. */
export type TurnScript = z.input<typeof Turn>;

/** What the mock answers in a lesson: one-shot turns first, then `use` for every request after them. */
export interface LessonScript {
  enqueue: TurnScript[];
  use: ScenarioInput;
}

/** One request of the lesson's session, as its journal entry has it. */
export interface ExamRequest {
  /** The journal's seq. */
  seq: number;
  /** When it arrived, and when its answer ended (ms since the epoch; null while in progress). */
  at: number;
  endedAt: number | null;
  status: number;
  streamed: boolean;
  /** How the answer ended (a response status, `error`, `dropped`, `hung`, `aborted`), null while in progress. */
  outcome: string | null;
  errorCode: string | null;
  /** Events sent (streamed answers), null otherwise. */
  events: number | null;
  /** The body as JSON, or null (unreadable or truncated). */
  body: unknown;
  /** The body's text, for comparing a retry's with the original's. */
  rawBody: string | null;
}

/** How the command ran. */
export interface CommandRun {
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: string | null;
  /** Killed by the exam at the lesson's limit. */
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** What a grader reads. */
export interface LessonRun {
  /** The session's `POST /v1/responses` requests (and WebSocket turns), oldest first. */
  requests: ExamRequest[];
  /** The session's expectations as `verify` reports them, after the command ended. */
  expectations: ExpectationReport[];
  command: CommandRun;
  /** The lesson's limit in ms (the command was killed past it). */
  limitMs: number;
}

export interface Graded {
  result: LessonResult;
  evidence: string;
}

export interface Lesson {
  name: LessonName;
  /** Informational lessons report INFO and never fail the exam. */
  informational: boolean;
  /** The prompt the command sends (OPENRESPONSES_MOCK_PROMPT, `{prompt}`). */
  prompt: string;
  /** The lesson's own limit, when shorter than `--timeout-ms`. */
  limitMs?(timeoutMs: number): number;
  script: LessonScript;
  grade(run: LessonRun): Graded;
}

// ---------------------------------------------------------------- limits

/** retry-429: what `retry-after: 1` asks for, and how early a retry may come (timers and clocks differ a little). */
export const RETRY_AFTER_MS = 1_000;
export const RETRY_TOLERANCE_MS = 50;
/** no-retry-400: no retry of the same body within this long. */
export const NO_RETRY_MS = 2_000;
/** dropped-stream: the connection is cut after the first three text deltas (created, in_progress, item and part added, 3 deltas). */
export const DROP_AFTER_EVENTS = 7;
/** failed-stream: at most this many retries of a failed response. */
export const MAX_FAILED_RETRIES = 2;
/** stall: the lesson's own limit (a shorter --timeout-ms wins), and how long the stream stays quiet (past any limit). */
export const STALL_LIMIT_MS = 15_000;
export const STALL_MS = 3_600_000;

// ---------------------------------------------------------------- the texts the mock sends

/** Every answer's text is distinct, so that stdout tells which answer the client printed. */
export const TEXTS = {
  stream:
    "Server-sent events are a one-way stream over plain HTTP: each event names its type, carries a little JSON, and a blank line ends it. Clients skip what they do not know.",
  utf8: "Grüße aus 東京 and 서울! 🌸🍣 naïve café, 𝄞 music, 👩‍💻 at work, Ελληνικά, עברית, 中文字符, done ✅",
  tool: "The tool answered, and this is the final answer of the tool-call lesson.",
  parallel: "All three tools answered; this is the final answer of the parallel-tools lesson.",
  reasoning: "Thanks for sending my reasoning back; this is the final answer of the reasoning-return lesson.",
  retry429: "Answered after a polite wait: the final answer of the retry-429 lesson.",
  retry500: "Answered on the second try: the final answer of the retry-500 lesson.",
  cut: "This answer is cut off after three deltas and must never be printed as if it were whole, because the stream ended without its terminal event.",
  whole: "This is the whole answer of the dropped-stream lesson, sent on the retry.",
  failedPart: "This answer starts, then the response fails in the middle of",
  refusal: "I can't help with that request (refusal text of the exam's refusal lesson).",
  vendor: "The message after a vendor item: the final answer of the vendor-item lesson.",
  incomplete:
    "This answer runs out of output tokens in the middle of its second sentence, so the response ends incomplete and the client",
  stall: "This stream stalls after a few words and does not",
} as const;

/** The error messages, distinctive enough to find in a client's output. */
export const MESSAGES = {
  retry429: "Rate limit reached for requests (exam lesson retry-429). Please retry after 1 second.",
  retry500: "The server had an error while processing your request (exam lesson retry-500).",
  noRetry400: "Invalid value for 'input' (exam lesson no-retry-400): this request will never succeed as sent.",
  failed: "The model failed in the middle of its answer (exam lesson failed-stream, ref EXAM-F10).",
  errorMessage:
    "Project exam-13 may not use this model: ask its owner for access (exam lesson error-message, ref EXAM-E13).",
} as const;

/** The encrypted_content of the reasoning-return lesson's reasoning item. */
export const ENCRYPTED_CONTENT = "gAAAAexam-reasoning-return-encrypted-content-0001";

const text = (t: string, chunk: { tokens: number } | { chars: number } = { tokens: 2 }) =>
  ({ type: "message", text: t, chunk }) as const;

/** A one-turn scenario for the session's `use`. */
const oneTurn = (name: string, turn: TurnScript): ScenarioInput => ({ name: `exam-${name}`, turns: [turn] });

// ---------------------------------------------------------------- reading the facts

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The exit as a reader wants it: `exit 0`, `killed at the 30000 ms limit`, `killed by SIGSEGV`. */
export function describeExit(run: CommandRun, limitMs: number): string {
  if (run.timedOut) return `killed at the ${limitMs} ms limit`;
  if (run.exitCode === null) return `ended by ${run.signal ?? "a signal"}`;
  return `exit ${run.exitCode}`;
}

/** The first non-empty line of a text, quoted and cut to 80 characters; `nothing` when there is none. */
export function firstLine(label: string, output: string): string {
  const line = output.split(/\r?\n/).find((l) => l.trim() !== "");
  if (line === undefined) return `${label}: nothing`;
  const cut = line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return `${label}: ${JSON.stringify(cut)}`;
}

/** A stack trace in the output: Node's `    at f (file:1:2)` lines, or Python's traceback header. */
export function stackTrace(output: string): string | undefined {
  const node = /^\s+at (?:.+ \()?(?:[^()\s]+):\d+:\d+\)?\s*$/m.exec(output);
  if (node) return node[0].trim();
  const python = /^Traceback \(most recent call last\):$/m.exec(output);
  return python ? python[0] : undefined;
}

const exitedOk = (run: CommandRun) => !run.timedOut && run.exitCode === 0;
const exitedWithError = (run: CommandRun) => !run.timedOut && (run.exitCode ?? 1) !== 0;
const said = (run: CommandRun, t: string) => run.stdout.includes(t) || run.stderr.includes(t);

/** `#3` for a request, with its status when it was an error. */
const ref = (r: ExamRequest) => `#${r.seq}`;

/** Evidence parts every lesson ends with: the exit, and the first line of stdout (stderr too when stdout is empty). */
function tail(run: LessonRun): string[] {
  const parts = [describeExit(run.command, run.limitMs), firstLine("stdout", run.command.stdout)];
  if (run.command.stdout.trim() === "" || !exitedOk(run.command)) parts.push(firstLine("stderr", run.command.stderr));
  return parts;
}

const graded = (result: LessonResult, parts: (string | undefined | false)[]): Graded => ({
  result,
  evidence: parts.filter((p): p is string => typeof p === "string" && p !== "").join("; "),
});

/** The function tools a request offered (by name). */
function functionTools(body: unknown): string[] {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: { type?: unknown; name?: unknown }) =>
    t?.type === "function" && typeof t.name === "string" ? [t.name] : [],
  );
}

/** Requests the mock refused for a reason of its own (a 4xx the lesson did not script): worth saying. */
function refusedBy(run: LessonRun, scripted: readonly number[] = []): string | undefined {
  const refused = run.requests.find(
    (r) => r.status >= 400 && r.status < 500 && !scripted.includes(r.status) && r.errorCode !== "no_function_tool",
  );
  return refused && `the mock refused request ${ref(refused)}: ${refused.status} ${refused.errorCode ?? ""}`.trim();
}

/** `request #3 streamed 41 events, completed` / `request #3 (JSON), completed`. */
function describeRequest(r: ExamRequest): string {
  const how = r.streamed ? `streamed ${plural(r.events ?? 0, "event")}` : `not streamed (status ${r.status})`;
  return `request ${ref(r)} ${how}, ${r.outcome ?? "in progress"}`;
}

const NO_REQUEST = "no request came: the command sent nothing to OPENAI_BASE_URL";

/** Replacement characters in stdout: bytes decoded one read at a time. */
const mangled = (run: CommandRun) =>
  run.stdout.includes("\uFFFD") ? "U+FFFD on stdout (a character split across reads was decoded in halves)" : undefined;

// ---------------------------------------------------------------- graders shared by several lessons

/** Lessons whose whole answer is one streamed text: PASS with exit 0 and the exact text on stdout, after a stream read to its end. */
function streamedText(expected: string) {
  return (run: LessonRun): Graded => {
    const first = run.requests[0];
    if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
    const streamed = run.requests.find((r) => r.streamed);
    if (streamed === undefined)
      return graded("SKIP", [`the client did not stream (request ${ref(first)} had no stream: true)`, ...tail(run)]);
    const printed = run.command.stdout.includes(expected);
    const readToEnd = run.requests.some((r) => r.streamed && r.outcome === "completed");
    const ok = exitedOk(run.command) && printed && readToEnd;
    return graded(ok ? "PASS" : "FAIL", [
      describeRequest(streamed),
      !readToEnd && "the client left before the stream's end",
      printed ? "the whole text is on stdout" : "the whole text is not on stdout",
      mangled(run.command),
      refusedBy(run),
      ...tail(run),
    ]);
  };
}

/** The expectations of one rule, and a summary: the first unmet, else the first met, else pending. */
function ruleStatus(run: LessonRun, rule: string): ExpectationReport | undefined {
  const reports = run.expectations.filter((e) => e.rule === rule);
  return reports.find((e) => e.status === "unmet") ?? reports.find((e) => e.status === "met") ?? reports[0];
}

/** tool-call and parallel-tools: the outputs come back with their call_ids, then the final text is printed. */
function toolLoop(calls: number, finalText: string) {
  return (run: LessonRun): Graded => {
    const first = run.requests[0];
    if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
    if (functionTools(first.body).length === 0)
      return graded("SKIP", [`the client offered no function tool (request ${ref(first)})`, ...tail(run)]);
    const status = ruleStatus(run, "tool_outputs");
    const printed = run.command.stdout.includes(finalText);
    const met = status?.status === "met";
    const judged =
      status === undefined || status.status === "pending"
        ? `no request sent the ${plural(calls, "output")} back after request ${ref(first)}`
        : `${status.status}: ${status.message}${status.seq === null ? "" : ` (request #${status.seq})`}`;
    return graded(met && printed && exitedOk(run.command) ? "PASS" : "FAIL", [
      judged,
      met && !printed && "the final answer is not on stdout",
      refusedBy(run),
      ...tail(run),
    ]);
  };
}

/** The requests after `first` whose body is the same as its (a retry). */
const retriesOf = (run: LessonRun, first: ExamRequest) =>
  run.requests.filter((r) => r.seq > first.seq && r.rawBody !== null && r.rawBody === first.rawBody);

// ---------------------------------------------------------------- the lessons

export const LESSONS: readonly Lesson[] = [
  {
    name: "stream-text",
    informational: false,
    prompt: "Exam lesson stream-text: explain server-sent events in two sentences.",
    script: {
      enqueue: [],
      use: oneTurn("stream-text", {
        timing: { chunkMs: 12, heartbeatMs: 4 },
        steps: [
          { type: "vendor_event", event: { type: "acme:progress", stage: "thinking", percent: 10 } },
          text(TEXTS.stream),
          { type: "vendor_event", event: { type: "exam:not_yet_invented", detail: { level: 1, note: "ignore me" } } },
        ],
      }),
    },
    grade: streamedText(TEXTS.stream),
  },
  {
    name: "split-utf8",
    informational: false,
    prompt: "Exam lesson split-utf8: greet me in several scripts.",
    script: {
      enqueue: [],
      use: oneTurn("split-utf8", {
        timing: { chunkMs: 3 },
        fault: { splitUtf8: true },
        steps: [text(TEXTS.utf8, { chars: 1 })],
      }),
    },
    grade: streamedText(TEXTS.utf8),
  },
  {
    name: "tool-call",
    informational: false,
    prompt: "Exam lesson tool-call: what is the weather in Paris? Use your tool.",
    script: {
      enqueue: [],
      use: {
        name: "exam-tool-call",
        turns: [{ steps: [{ type: "function_call" }], expect: { tool_outputs: true } }, { steps: [text(TEXTS.tool)] }],
      },
    },
    grade: toolLoop(1, TEXTS.tool),
  },
  {
    name: "parallel-tools",
    informational: false,
    prompt: "Exam lesson parallel-tools: what is the weather in Paris, Tokyo and Lima? Use your tool.",
    script: {
      enqueue: [],
      use: {
        name: "exam-parallel-tools",
        turns: [
          {
            steps: [{ type: "function_call" }, { type: "function_call" }, { type: "function_call" }],
            expect: { tool_outputs: true },
          },
          { steps: [text(TEXTS.parallel)] },
        ],
      },
    },
    grade: toolLoop(3, TEXTS.parallel),
  },
  {
    name: "reasoning-return",
    informational: false,
    prompt: "Exam lesson reasoning-return: think, then use your tool for the weather in Oslo.",
    script: {
      enqueue: [],
      use: {
        name: "exam-reasoning-return",
        turns: [
          {
            steps: [
              {
                type: "reasoning",
                summary: ["The user wants the weather; call the tool first."],
                encrypted_content: ENCRYPTED_CONTENT,
              },
              { type: "function_call" },
            ],
            expect: { reasoning_returned: true },
          },
          { steps: [text(TEXTS.reasoning)] },
        ],
      },
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      if (functionTools(first.body).length === 0)
        return graded("SKIP", [
          `the client offered no function tool (request ${ref(first)}), so nothing follows the reasoning`,
          ...tail(run),
        ]);
      const status = ruleStatus(run, "reasoning_returned");
      const judgedOn = status?.seq == null ? undefined : run.requests.find((r) => r.seq === status.seq);
      if (status === undefined || judgedOn === undefined)
        return graded("SKIP", [
          `no request followed the function call of request ${ref(first)} (see tool-call)`,
          ...tail(run),
        ]);
      if ((judgedOn.body as { store?: unknown } | null)?.store !== false)
        return graded("SKIP", [
          `request ${ref(judgedOn)} did not send store: false (the server keeps the reasoning)`,
          ...tail(run),
        ]);
      return graded(status.status === "met" ? "PASS" : "FAIL", [
        `${status.status}: ${status.message} (request ${ref(judgedOn)})`,
        ...tail(run),
      ]);
    },
  },
  {
    name: "retry-429",
    informational: false,
    prompt: "Exam lesson retry-429: say something after a rate limit.",
    script: {
      enqueue: [
        {
          end: {
            type: "http_error",
            status: 429,
            headers: { "retry-after": "1" },
            error: { type: "too_many_requests", code: "rate_limit_exceeded", param: null, message: MESSAGES.retry429 },
          },
        },
      ],
      use: oneTurn("retry-429", { steps: [text(TEXTS.retry429)] }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const retry = run.requests[1];
      if (retry === undefined || first.endedAt === null)
        return graded("FAIL", [`no retry after the 429 of request ${ref(first)}`, ...tail(run)]);
      const gap = Math.round(retry.at - first.endedAt);
      const waited = gap >= RETRY_AFTER_MS - RETRY_TOLERANCE_MS;
      const printed = run.command.stdout.includes(TEXTS.retry429);
      return graded(waited && printed && exitedOk(run.command) ? "PASS" : "FAIL", [
        `request ${ref(retry)} came ${gap} ms after the 429 of ${ref(first)}${waited ? "" : ` (retry-after: 1 asks for ${RETRY_AFTER_MS} ms)`}`,
        !printed && "the answer is not on stdout",
        ...tail(run),
      ]);
    },
  },
  {
    name: "retry-500",
    informational: false,
    prompt: "Exam lesson retry-500: say something after a server error.",
    script: {
      enqueue: [
        {
          end: {
            type: "http_error",
            status: 500,
            error: { type: "server_error", code: "internal_error", param: null, message: MESSAGES.retry500 },
          },
        },
      ],
      use: oneTurn("retry-500", { steps: [text(TEXTS.retry500)] }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const retry = run.requests[1];
      if (retry === undefined) return graded("FAIL", [`no retry after the 500 of request ${ref(first)}`, ...tail(run)]);
      const gap = first.endedAt === null ? undefined : Math.round(retry.at - first.endedAt);
      const printed = run.command.stdout.includes(TEXTS.retry500);
      return graded(printed && exitedOk(run.command) ? "PASS" : "FAIL", [
        `request ${ref(retry)} retried ${gap === undefined ? "" : `${gap} ms `}after the 500 of ${ref(first)}`,
        !printed && "the answer is not on stdout",
        ...tail(run),
      ]);
    },
  },
  {
    name: "no-retry-400",
    informational: false,
    prompt: "Exam lesson no-retry-400: this request is refused.",
    script: {
      enqueue: [],
      use: oneTurn("no-retry-400", {
        end: {
          type: "http_error",
          status: 400,
          error: { type: "invalid_request", code: "invalid_value", param: "input", message: MESSAGES.noRetry400 },
        },
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const end = first.endedAt ?? first.at;
      const early = retriesOf(run, first).filter((r) => r.at - end < NO_RETRY_MS);
      const surfaced = exitedWithError(run.command) || run.command.stderr.includes(MESSAGES.noRetry400);
      const ok = early.length === 0 && surfaced && !run.command.timedOut;
      return graded(ok ? "PASS" : "FAIL", [
        early.length === 0
          ? `no retry of request ${ref(first)}'s body`
          : `retried the 400 of ${ref(first)}: ${early.map((r) => `${ref(r)} ${Math.round(r.at - end)} ms after`).join(", ")}`,
        !surfaced && "exit 0 and the error's message is not on stderr",
        ...tail(run),
      ]);
    },
  },
  {
    name: "dropped-stream",
    informational: false,
    prompt: "Exam lesson dropped-stream: tell me something long.",
    script: {
      enqueue: [{ fault: { dropAfterEvents: DROP_AFTER_EVENTS }, timing: { chunkMs: 5 }, steps: [text(TEXTS.cut)] }],
      use: oneTurn("dropped-stream", { steps: [text(TEXTS.whole)] }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const retry = run.requests[1];
      const cut = `request ${ref(first)} cut after ${plural(first.events ?? 0, "event")} (${first.outcome ?? "?"})`;
      if (exitedWithError(run.command))
        return graded("PASS", [cut, retry && `retried as ${ref(retry)}`, "gave up", ...tail(run)]);
      if (run.command.timedOut) return graded("FAIL", [cut, ...tail(run)]);
      const whole = run.command.stdout.includes(TEXTS.whole);
      if (retry !== undefined && whole)
        return graded("PASS", [cut, `retried as ${ref(retry)}`, "printed the retry's answer", ...tail(run)]);
      return graded("FAIL", [
        cut,
        retry === undefined ? "no retry" : `retried as ${ref(retry)} but did not print its answer`,
        "exit 0 as if the cut answer were whole",
        ...tail(run),
      ]);
    },
  },
  {
    name: "failed-stream",
    informational: false,
    prompt: "Exam lesson failed-stream: start answering, then fail.",
    script: {
      enqueue: [],
      use: oneTurn("failed-stream", {
        steps: [text(TEXTS.failedPart)],
        end: {
          type: "failed",
          afterEvents: 6,
          error: { type: "server_error", code: "server_error", message: MESSAGES.failed },
        },
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const retries = run.requests.length - 1;
      const surfaced = exitedWithError(run.command) || said(run.command, MESSAGES.failed);
      const ok = retries <= MAX_FAILED_RETRIES && surfaced && !run.command.timedOut;
      return graded(ok ? "PASS" : "FAIL", [
        `${plural(run.requests.length, "request")} (${plural(retries, "retry", "retries")}${retries > MAX_FAILED_RETRIES ? `, at most ${MAX_FAILED_RETRIES}` : ""})`,
        said(run.command, MESSAGES.failed) ? "the error's message is shown" : "the error's message is not shown",
        !surfaced && "exit 0 as if nothing failed",
        ...tail(run),
      ]);
    },
  },
  {
    name: "refusal",
    informational: false,
    prompt: "Exam lesson refusal: ask for something the model declines.",
    script: { enqueue: [], use: oneTurn("refusal", { steps: [{ type: "message", refusal: TEXTS.refusal }] }) },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const trace = stackTrace(run.command.stderr) ?? stackTrace(run.command.stdout);
      const shown = said(run.command, TEXTS.refusal);
      const ok = shown && trace === undefined && !run.command.timedOut;
      return graded(ok ? "PASS" : "FAIL", [
        shown ? "the refusal's text is shown" : "the refusal's text is on neither stdout nor stderr",
        trace !== undefined && `crashed: a stack trace (${JSON.stringify(trace.slice(0, 60))})`,
        refusedBy(run),
        ...tail(run),
      ]);
    },
  },
  {
    name: "vendor-item",
    informational: false,
    prompt: "Exam lesson vendor-item: search, then answer.",
    script: {
      enqueue: [],
      use: oneTurn("vendor-item", {
        steps: [
          {
            type: "vendor_item",
            item: { type: "exam:search_call", status: "completed", query: "exam vendor items", hits: 2 },
          },
          text(TEXTS.vendor),
        ],
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const printed = run.command.stdout.includes(TEXTS.vendor);
      return graded(printed && exitedOk(run.command) ? "PASS" : "FAIL", [
        describeRequest(first),
        printed ? "the message's text is on stdout" : "the message's text is not on stdout",
        ...tail(run),
      ]);
    },
  },
  {
    name: "error-message",
    informational: false,
    prompt: "Exam lesson error-message: this request is refused with a message.",
    script: {
      enqueue: [],
      use: oneTurn("error-message", {
        end: {
          type: "http_error",
          status: 403,
          error: { type: "invalid_request", code: "permission_denied", param: null, message: MESSAGES.errorMessage },
        },
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("FAIL", [NO_REQUEST, ...tail(run)]);
      const shown = said(run.command, MESSAGES.errorMessage);
      return graded(shown && !run.command.timedOut ? "PASS" : "FAIL", [
        shown ? "the server's message is shown" : "the server's message (param: null) is on neither stdout nor stderr",
        ...tail(run),
      ]);
    },
  },
  {
    name: "incomplete",
    informational: true,
    prompt: "Exam lesson incomplete: answer at length.",
    script: {
      enqueue: [],
      use: oneTurn("incomplete", {
        steps: [text(TEXTS.incomplete)],
        end: { type: "incomplete", reason: "max_output_tokens" },
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("INFO", [NO_REQUEST, ...tail(run)]);
      const printed = run.command.stdout.includes(TEXTS.incomplete);
      const flagged = /incomplete|max_output_tokens|truncat|cut (off|short)/i.test(
        run.command.stderr + run.command.stdout.replace(TEXTS.incomplete, ""),
      );
      return graded("INFO", [
        printed ? "printed the partial text" : "did not print the partial text",
        flagged ? "said it was cut short" : "did not say it was cut short",
        ...tail(run),
      ]);
    },
  },
  {
    name: "stall",
    informational: true,
    prompt: "Exam lesson stall: start answering, then go quiet.",
    limitMs: (timeoutMs) => Math.min(timeoutMs, STALL_LIMIT_MS),
    script: {
      enqueue: [],
      use: oneTurn("stall", {
        fault: { stall: { afterEvents: 6, ms: STALL_MS } },
        steps: [text(TEXTS.stall)],
      }),
    },
    grade(run) {
      const first = run.requests[0];
      if (first === undefined) return graded("INFO", [NO_REQUEST, ...tail(run)]);
      const gaveUp = run.command.timedOut
        ? `still waiting when stopped at ${run.limitMs} ms`
        : `gave up after ${Math.round(run.command.durationMs)} ms`;
      return graded("INFO", [
        gaveUp,
        run.requests.length > 1 && `${plural(run.requests.length - 1, "retry", "retries")}`,
        ...tail(run),
      ]);
    },
  },
];

export const lessonNamed = (name: string): Lesson | undefined => LESSONS.find((l) => l.name === name);
