// `openresponses-mock exam` on a client in another language: examples/exam/good_client.py, on the
// `openai` Python SDK. It runs when a Python with that package is found (OPENRESPONSES_MOCK_PYTHON,
// the repository's .venv, or python3 on PATH), and is skipped, saying why, otherwise. One dialect:
// the Node examples run in both, and the Python SDK is slow to start (5-15 s a run).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LESSON_NAMES } from "../../src/exam/index.js";
import { expectedResults, runExam } from "../support/exam.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLIENT = fileURLToPath(new URL("../../examples/exam/good_client.py", import.meta.url));

/** The first Python that can import openai, or why there is none. */
function findPython(): { python: string } | { why: string } {
  const candidates = [process.env.OPENRESPONSES_MOCK_PYTHON, `${ROOT}.venv/bin/python`, "python3"].filter(
    (p): p is string => p !== undefined && p !== "" && (p === "python3" || existsSync(p)),
  );
  for (const python of candidates) {
    const probe = spawnSync(python, ["-c", "import openai"], { stdio: "ignore" });
    if (!probe.error && probe.status === 0) return { python };
  }
  return { why: `no Python with the openai package (tried ${candidates.join(", ")}; set OPENRESPONSES_MOCK_PYTHON)` };
}

const found = findPython();
const title = "python" in found ? `good_client.py (${found.python})` : `good_client.py: skipped, ${found.why}`;

describe.skipIf(!("python" in found))("exam on a Python client", () => {
  it.each(["open-responses"])(
    `${title} passes every lesson that is not informational (%s)`,
    async (dialect) => {
      const python = (found as { python: string }).python;
      const only = LESSON_NAMES.filter((n) => n !== "stall");
      const { code, results, evidence } = await runExam([python, CLIENT, "{prompt}"], {
        dialect,
        timeoutMs: 40_000,
        only,
      });
      expect(results, evidence).toEqual(expectedResults(only));
      expect(code, evidence).toBe(0);
    },
    // The Python SDK is slow to start on a loaded machine (5-15 s a run): 14 lessons, 4 at a time.
    300_000,
  );
});

// Says why in the run's output when it is skipped (describe.skipIf shows only the title).
if (!("python" in found)) it.skip(title, () => {});
