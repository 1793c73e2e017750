// The exam's graders on facts built by hand: each lesson's PASS, FAIL and SKIP lines, and
// the evidence they give. The exam end to end (real clients, a real mock) is in exam-cli.test.ts.
import { describe, expect, it } from "vitest";
import {
  ENCRYPTED_CONTENT,
  LESSON_NAMES,
  LESSONS,
  MESSAGES,
  TEXTS,
  formatExamReport,
  jsonExamReport,
  lessonNamed,
  stackTrace,
  type CommandRun,
  type ExamRequest,
  type LessonName,
  type LessonRun,
} from "../../src/exam/index.js";
import type { ExpectationReport } from "../../src/scenario/expect.js";
import { validateScenario } from "../../src/scenario/parse.js";

const TOOLS = [{ type: "function", name: "get_weather", parameters: { type: "object", properties: {} } }];

let seq = 0;
function request(over: Partial<ExamRequest> = {}): ExamRequest {
  const body = over.body ?? { model: "m", input: "hi", stream: true, tools: TOOLS };
  return {
    seq: seq++,
    at: 1_000,
    endedAt: 1_010,
    status: 200,
    streamed: true,
    outcome: "completed",
    errorCode: null,
    events: 20,
    body,
    rawBody: JSON.stringify(body),
    ...over,
  };
}

function command(over: Partial<CommandRun> = {}): CommandRun {
  return { exitCode: 0, signal: null, timedOut: false, durationMs: 300, stdout: "", stderr: "", ...over };
}

function grade(
  name: LessonName,
  requests: ExamRequest[],
  cmd: Partial<CommandRun>,
  expectations: ExpectationReport[] = [],
) {
  const run: LessonRun = { requests, expectations, command: command(cmd), limitMs: 30_000 };
  return lessonNamed(name)!.grade(run);
}

const report = (
  rule: ExpectationReport["rule"],
  status: ExpectationReport["status"],
  s: number | null,
  message = "m",
) => ({ status, rule, scenario: "x", turn: 0, seq: s, message }) satisfies ExpectationReport;

describe("the curriculum", () => {
  it("has the fifteen lessons of the issue, in order, the last two informational", () => {
    expect(LESSONS.map((l) => l.name)).toEqual([...LESSON_NAMES]);
    expect(LESSON_NAMES).toHaveLength(15);
    expect(LESSONS.filter((l) => l.informational).map((l) => l.name)).toEqual(["incomplete", "stall"]);
  });

  it.each(LESSONS.map((l) => [l.name, l] as const))(
    "%s: its scenario and queued turns are valid scenarios",
    (_n, l) => {
      expect(() => validateScenario(l.script.use, `lesson ${l.name}`)).not.toThrow();
      if (l.script.enqueue.length > 0)
        expect(() => validateScenario({ name: "q", turns: l.script.enqueue }, `lesson ${l.name}`)).not.toThrow();
    },
  );

  it("retry-429 scripts a 429 with retry-after: 1 and no retry-after-ms", () => {
    const end = lessonNamed("retry-429")!.script.enqueue[0].end as { status: number; headers: Record<string, string> };
    expect(end.status).toBe(429);
    expect(end.headers).toEqual({ "retry-after": "1" });
  });

  it("reasoning-return's reasoning carries encrypted_content", () => {
    expect(JSON.stringify(lessonNamed("reasoning-return")!.script.use)).toContain(ENCRYPTED_CONTENT);
  });
});

describe("stream-text and split-utf8", () => {
  it("PASS: exit 0, the whole text, the stream read to its end", () => {
    const g = grade("stream-text", [request()], { stdout: `${TEXTS.stream}\n` });
    expect(g.result).toBe("PASS");
    expect(g.evidence).toMatch(/^request #\d+ streamed 20 events, completed; the whole text is on stdout; exit 0/);
  });
  it("FAIL: the client left early (aborted), even with the text printed", () => {
    const g = grade("stream-text", [request({ outcome: "aborted" })], { stdout: TEXTS.stream, exitCode: 1 });
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain("the client left before the stream's end");
    expect(g.evidence).toContain("exit 1");
  });
  it("FAIL: text cut, with U+FFFD named as evidence", () => {
    const g = grade("split-utf8", [request()], { stdout: TEXTS.utf8.replace("東", "\uFFFD\uFFFD") });
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain("U+FFFD on stdout");
  });
  it("SKIP: the client did not stream", () => {
    const g = grade("split-utf8", [request({ streamed: false, events: null })], { stdout: TEXTS.utf8 });
    expect(g.result).toBe("SKIP");
    expect(g.evidence).toMatch(/did not stream/);
  });
  it("FAIL: no request at all", () => {
    const g = grade("stream-text", [], { stdout: "" });
    expect(g).toEqual({
      result: "FAIL",
      evidence: expect.stringMatching(/^no request came.*exit 0; stdout: nothing; stderr: nothing$/),
    });
  });
});

describe("tool-call, parallel-tools, reasoning-return", () => {
  it("PASS with the outputs met and the final answer printed", () => {
    const [a, b] = [request(), request()];
    const g = grade("tool-call", [a, b], { stdout: TEXTS.tool }, [report("tool_outputs", "met", b.seq, "got call_1")]);
    expect(g.result).toBe("PASS");
    expect(g.evidence).toContain(`met: got call_1 (request #${b.seq})`);
  });
  it("FAIL with the unmet message naming the call_id", () => {
    const [a, b] = [request(), request()];
    const message = "expected function_call_output for call_2; got outputs for call_1 only";
    const g = grade("parallel-tools", [a, b], { stdout: TEXTS.parallel }, [
      report("tool_outputs", "unmet", b.seq, message),
    ]);
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain(message);
  });
  it("FAIL when no request followed the call", () => {
    const a = request();
    const g = grade("parallel-tools", [a], { exitCode: 0, stdout: "ok" }, [report("tool_outputs", "pending", null)]);
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain(`no request sent the 3 outputs back after request #${a.seq}`);
  });
  it("SKIP when the client offered no function tool", () => {
    const g = grade("tool-call", [request({ body: { model: "m", input: "x" } })], { exitCode: 1 });
    expect(g.result).toBe("SKIP");
    expect(g.evidence).toMatch(/offered no function tool/);
  });
  it("reasoning-return: SKIP without store: false, PASS/FAIL on the expectation with it", () => {
    const first = request();
    const kept = request({ body: { model: "m", input: [], tools: TOOLS } });
    expect(grade("reasoning-return", [first, kept], {}, [report("reasoning_returned", "met", kept.seq)]).result).toBe(
      "SKIP",
    );
    const replayed = request({ body: { model: "m", input: [], store: false, tools: TOOLS } });
    expect(
      grade("reasoning-return", [first, replayed], {}, [report("reasoning_returned", "met", replayed.seq)]).result,
    ).toBe("PASS");
    const dropped = grade("reasoning-return", [first, replayed], {}, [
      report("reasoning_returned", "unmet", replayed.seq, "no rs_1"),
    ]);
    expect(dropped).toEqual({
      result: "FAIL",
      evidence: expect.stringContaining(`unmet: no rs_1 (request #${replayed.seq})`),
    });
  });
});

describe("retries", () => {
  it("retry-429: PASS at 950 ms or later, FAIL earlier, FAIL with no retry", () => {
    const first = request({ status: 429, streamed: false, outcome: "error", endedAt: 5_000 });
    const at = (ms: number) => request({ at: 5_000 + ms, rawBody: first.rawBody });
    expect(grade("retry-429", [first, at(996)], { stdout: TEXTS.retry429 }).result).toBe("PASS");
    expect(grade("retry-429", [first, at(950)], { stdout: TEXTS.retry429 }).result).toBe("PASS");
    const early = grade("retry-429", [first, at(949)], { stdout: TEXTS.retry429 });
    expect(early.result).toBe("FAIL");
    expect(early.evidence).toContain("came 949 ms after the 429");
    expect(early.evidence).toContain("retry-after: 1 asks for 1000 ms");
    expect(grade("retry-429", [first], { exitCode: 1 }).evidence).toMatch(/^no retry after the 429/);
  });
  it("retry-500: PASS with a retry and the text; FAIL with no retry", () => {
    const first = request({ status: 500, outcome: "error" });
    expect(grade("retry-500", [first, request()], { stdout: TEXTS.retry500 }).result).toBe("PASS");
    expect(grade("retry-500", [first], { exitCode: 1, stderr: MESSAGES.retry500 }).result).toBe("FAIL");
  });
  it("no-retry-400: PASS on exit 1; FAIL on a same-body retry within 2 s; FAIL on exit 0 with no message", () => {
    const first = request({ status: 400, outcome: "error", endedAt: 1_000 });
    expect(grade("no-retry-400", [first], { exitCode: 1 }).result).toBe("PASS");
    expect(grade("no-retry-400", [first], { exitCode: 0, stderr: `Error: ${MESSAGES.noRetry400}` }).result).toBe(
      "PASS",
    );
    const again = request({ at: 1_500, rawBody: first.rawBody, status: 400 });
    const retried = grade("no-retry-400", [first, again], { exitCode: 1 });
    expect(retried.result).toBe("FAIL");
    expect(retried.evidence).toContain(`#${again.seq} 500 ms after`);
    const later = request({ at: 3_100, rawBody: first.rawBody, status: 400 });
    expect(grade("no-retry-400", [first, later], { exitCode: 1 }).result).toBe("PASS");
    expect(grade("no-retry-400", [first], { exitCode: 0, stdout: "done" }).result).toBe("FAIL");
  });
});

describe("broken streams", () => {
  const cut = () => request({ outcome: "dropped", events: 7 });
  it("dropped-stream: PASS giving up (exit 1), PASS retrying and printing the retry's text", () => {
    expect(grade("dropped-stream", [cut()], { exitCode: 1 }).result).toBe("PASS");
    expect(grade("dropped-stream", [cut(), request()], { stdout: TEXTS.whole }).result).toBe("PASS");
  });
  it("dropped-stream: FAIL printing the cut text with exit 0", () => {
    const g = grade("dropped-stream", [cut()], { stdout: TEXTS.cut.slice(0, 20) });
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain("no retry; exit 0 as if the cut answer were whole");
  });
  it("failed-stream: PASS surfacing the error; FAIL on 3 retries or silence", () => {
    const failed = () => request({ outcome: "failed" });
    expect(grade("failed-stream", [failed()], { exitCode: 1 }).result).toBe("PASS");
    expect(grade("failed-stream", [failed()], { exitCode: 0, stdout: MESSAGES.failed }).result).toBe("PASS");
    expect(grade("failed-stream", [failed(), failed(), failed()], { exitCode: 1 }).result).toBe("PASS");
    const many = grade("failed-stream", [failed(), failed(), failed(), failed()], { exitCode: 1 });
    expect(many).toEqual({ result: "FAIL", evidence: expect.stringContaining("4 requests (3 retries, at most 2)") });
    expect(grade("failed-stream", [failed()], { exitCode: 0, stdout: TEXTS.failedPart }).result).toBe("FAIL");
  });
});

describe("refusal, vendor-item, error-message", () => {
  it("refusal: PASS with the text; FAIL on a stack trace or without the text", () => {
    expect(grade("refusal", [request()], { stdout: TEXTS.refusal }).result).toBe("PASS");
    const trace = `TypeError: Cannot read properties of undefined (reading 'text')\n    at parse (file:///x/index.mjs:12:7)\n`;
    const crashed = grade("refusal", [request()], { exitCode: 1, stderr: trace });
    expect(crashed.result).toBe("FAIL");
    expect(crashed.evidence).toContain("crashed: a stack trace");
    expect(grade("refusal", [request()], { stdout: "" }).result).toBe("FAIL");
  });
  it("vendor-item: PASS with the message's text and exit 0", () => {
    expect(grade("vendor-item", [request()], { stdout: TEXTS.vendor }).result).toBe("PASS");
    expect(grade("vendor-item", [request()], { exitCode: 1, stderr: "Invalid JSON response" }).result).toBe("FAIL");
  });
  it("error-message: PASS only with the server's message", () => {
    expect(
      grade("error-message", [request({ status: 403 })], { exitCode: 1, stderr: MESSAGES.errorMessage }).result,
    ).toBe("PASS");
    const g = grade("error-message", [request({ status: 403 })], { exitCode: 1, stderr: "Error: Forbidden" });
    expect(g.result).toBe("FAIL");
    expect(g.evidence).toContain('stderr: "Error: Forbidden"');
  });
});

describe("informational lessons", () => {
  it("incomplete says whether the partial text was printed and flagged", () => {
    const g = grade("incomplete", [request({ outcome: "incomplete" })], {
      stdout: TEXTS.incomplete,
      stderr: "answer incomplete: max_output_tokens",
    });
    expect(g).toEqual({
      result: "INFO",
      evidence: expect.stringMatching(/^printed the partial text; said it was cut short; exit 0/),
    });
  });
  it("stall reports a kill at the limit, or when the client gave up", () => {
    expect(
      grade("stall", [request({ outcome: "aborted" })], { timedOut: true, exitCode: null, signal: "SIGTERM" }).evidence,
    ).toMatch(/^still waiting when stopped at 30000 ms; killed at the 30000 ms limit/);
    expect(grade("stall", [request({ outcome: "aborted" })], { exitCode: 1, durationMs: 5_012.4 }).evidence).toMatch(
      /^gave up after 5012 ms; exit 1/,
    );
    expect(lessonNamed("stall")!.limitMs!(60_000)).toBe(15_000);
    expect(lessonNamed("stall")!.limitMs!(3_000)).toBe(3_000);
  });
});

describe("stack traces and the report", () => {
  it("finds Node and Python traces, not ordinary text", () => {
    expect(stackTrace("Error: boom\n    at Object.<anonymous> (/a/b.js:1:2)\n")).toBe(
      "at Object.<anonymous> (/a/b.js:1:2)",
    );
    expect(stackTrace("    at async main (file:///a/b.mjs:10:3)")).toBe("at async main (file:///a/b.mjs:10:3)");
    expect(stackTrace('Traceback (most recent call last):\n  File "x.py", line 1')).toBe(
      "Traceback (most recent call last):",
    );
    expect(stackTrace("we met at noon: 12:30")).toBeUndefined();
  });
  it("prints a table and a summary; JSON has name, result, evidence", () => {
    const outcomes = [
      { name: "stream-text" as const, result: "PASS" as const, evidence: "e1" },
      { name: "retry-429" as const, result: "FAIL" as const, evidence: "e2" },
    ];
    expect(formatExamReport(outcomes)).toBe(
      "result  lesson       evidence\nPASS    stream-text  e1\nFAIL    retry-429    e2\n\n2 lessons: 1 PASS, 1 FAIL\n",
    );
    expect(JSON.parse(jsonExamReport(outcomes))).toEqual({ lessons: outcomes });
  });
});
