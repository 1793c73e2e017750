/**
 * `useMockServer({ verify: true })`: an unmet expectation fails the test that
 * left it, with the verify() message. Runs a small test file in a vitest of
 * its own (a failing hook cannot be caught inside this one).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(ROOT, ".verify-vitest-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE = `
import { expect, it } from "vitest";
import { useMockServer } from ${JSON.stringify(join(ROOT, "src/vitest.ts"))};

const mock = useMockServer({ verify: true });
const post = (body: object) =>
  fetch(mock.baseURL + "/responses", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", ...body }),
  }).then((r) => r.json() as Promise<{ id: string }>);

it("a loop that drops call_2", async () => {
  mock.use({
    name: "two-calls",
    turns: [
      {
        steps: [
          { type: "function_call", name: "f", call_id: "call_1", arguments: {} },
          { type: "function_call", name: "f", call_id: "call_2", arguments: {} },
        ],
        expect: { tool_outputs: true },
      },
      { steps: [{ type: "message", text: "done" }] },
    ],
  });
  const first = await post({ input: "go" });
  await post({ previous_response_id: first.id, input: [{ type: "function_call_output", call_id: "call_1", output: "1" }] });
  expect(first.id).toBeTruthy();
});

it("a test with nothing unmet passes (the reset forgot the last one)", async () => {
  expect(mock.expectations).toEqual([]);
});
`;

it("fails the test that left an unmet expectation, with the message; the next test passes", () => {
  writeFileSync(join(dir, "verify.test.ts"), FIXTURE);
  writeFileSync(join(dir, "vitest.config.mjs"), `export default { test: { include: ["*.test.ts"] } };`);
  const run = spawnSync(process.execPath, [join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--root", dir], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    timeout: 60_000,
  });
  const out = run.stdout + run.stderr;
  expect(run.status, out).toBe(1);
  expect(out).toContain("expected function_call_output for call_2; got outputs for call_1 only");
  expect(out).toMatch(/1 failed \| 1 passed/);
});
