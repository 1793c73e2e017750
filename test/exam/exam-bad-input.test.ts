// `openresponses-mock exam` on commands that go wrong, and on bad flags: a plain message
// each, the right exit code, and nothing left running. Runs the built CLI (npm run build).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run.js";

const dir = mkdtempSync(join(tmpdir(), "exam-bad-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** True while a process with this pid runs (a zombie waiting for init to reap it does not count). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Whether the process is gone, waiting up to 2 s for the kernel to finish a SIGKILL already sent. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && running(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !running(pid);
}

describe("exam on commands that go wrong", () => {
  it("a command that is not found stops the exam with one plain line and exit 1", async () => {
    const run = await runCli(["exam", "--only", "stream-text", "--", "no-such-client-8f2e", "{prompt}"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("openresponses-mock: cannot run 'no-such-client-8f2e': not found");
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe("");
  });

  it("a command that never exits is killed at the limit with its whole process group", async () => {
    const pids = join(dir, "pids");
    // A shell that starts a background sleeper, records both pids, then waits forever.
    const script = `sleep 60 & echo $$ $! > ${pids}; wait`;
    const run = await runCli([
      "exam",
      "--only",
      "stream-text",
      "--timeout-ms",
      "700",
      "--json",
      "--",
      "sh",
      "-c",
      script,
    ]);
    expect(run.code).toBe(1);
    const [lesson] = (JSON.parse(run.stdout) as { lessons: { name: string; result: string; evidence: string }[] })
      .lessons;
    expect(lesson).toEqual({
      name: "stream-text",
      result: "FAIL",
      evidence: expect.stringContaining("killed at the 700 ms limit"),
    });
    expect(lesson.evidence).toMatch(/^no request came/);
    const started = readFileSync(pids, "utf8").trim().split(/\s+/).map(Number);
    expect(started).toHaveLength(2);
    for (const pid of started) expect(await gone(pid), `pid ${pid} still running`).toBe(true);
  });

  it("what a command leaves behind when it exits is killed too", async () => {
    const pids = join(dir, "orphan");
    // Exits at once, leaving a sleeper in its group (with the pipes closed, so the exam does not wait on them).
    const script = `sleep 60 >/dev/null 2>&1 & echo $! > ${pids}; echo hello`;
    const run = await runCli(["exam", "--only", "refusal", "--", "sh", "-c", script]);
    expect(run.code).toBe(1);
    const [pid] = readFileSync(pids, "utf8").trim().split(/\s+/).map(Number);
    expect(await gone(pid), `pid ${pid} still running`).toBe(true);
  });

  it("a command that prints nothing gets evidence saying so, and a note at the end", async () => {
    const run = await runCli(["exam", "--only", "stream-text", "vendor-item", "--", process.execPath, "-e", ""]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^FAIL\s+stream-text\s+no request came: the command sent nothing to OPENAI_BASE_URL; exit 0; stdout: nothing; stderr: nothing$/m,
    );
    expect(run.stdout).toMatch(/^FAIL\s+vendor-item\s+no request came/m);
    expect(run.stdout).toContain("2 lessons: 2 FAIL");
    expect(run.stdout).toContain("note: the command printed nothing on stdout in any lesson");
  });

  it("gives the command its environment and the prompt in place of {prompt}", async () => {
    const out = join(dir, "env.json");
    const script = `require("fs").writeFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: process.argv.slice(1), env: { base: process.env.OPENAI_BASE_URL, url: process.env.OPENRESPONSES_MOCK_URL, key: process.env.OPENAI_API_KEY, prompt: process.env.OPENRESPONSES_MOCK_PROMPT } }))`;
    await runCli([
      "exam",
      "--only",
      "refusal",
      "--",
      process.execPath,
      "-e",
      script,
      "--",
      "say: {prompt}",
      "{prompt}",
    ]);
    const seen = JSON.parse(readFileSync(out, "utf8")) as { argv: string[]; env: Record<string, string> };
    const prompt = "Exam lesson refusal: ask for something the model declines.";
    expect(seen.argv).toEqual([`say: ${prompt}`, prompt]);
    expect(seen.env.prompt).toBe(prompt);
    expect(seen.env.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(seen.env.url).toBe(seen.env.base.replace(/\/v1$/, ""));
    expect(seen.env.key).toMatch(/^exam-[0-9a-f]{8}-refusal$/);
  });
});

describe("exam's flags", () => {
  it.each([
    [["exam"], "exam needs the command that runs your client after '--'"],
    [
      ["exam", "--only", "stream-txt", "--", "node"],
      "--only: unknown lesson 'stream-txt'; did you mean 'stream-text'?",
    ],
    [
      ["exam", "--timeout-ms", "soon", "--", "node"],
      "--timeout-ms: expected a whole number from 100 to 3600000, got 'soon'",
    ],
    [["exam", "--jobs", "0", "--", "node"], "--jobs: expected a whole number from 1 to 16, got '0'"],
    [["exam", "--dialect", "openia", "--", "node"], "--dialect: unknown dialect 'openia'; did you mean 'openai'?"],
    [["exam", "--onyl", "retry-429", "--", "node"], "unknown option '--onyl'; did you mean '--only'?"],
  ])("%j: %s", async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`openresponses-mock: ${message}`);
    expect(run.stdout).toBe("");
  });

  it("--help lists the flags and the lessons", async () => {
    const run = await runCli(["exam", "--help"]);
    expect(run.code).toBe(0);
    for (const flag of ["--json", "--only", "--timeout-ms", "--dialect", "--jobs"]) expect(run.stdout).toContain(flag);
    expect(run.stdout).toContain("parallel-tools");
  });
});
