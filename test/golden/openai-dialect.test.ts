/**
 * Golden streams of the `openai` dialect: each scripted scenario of the
 * library, played with `x-mock-dialect: openai`, must be a stream
 * api.openai.com could have sent (test/compliance/openai-schemas.ts) and
 * equal test/golden/openai/NAME.ndjson.
 *
 * The files hold each event's `data:` payload exactly as sent, one per line:
 * unlike the spec goldens (which are re-serialised), the bytes matter here —
 * OpenAI writes `1.0`, and key order is part of what a byte comparison sees.
 *
 * UPDATE_GOLDEN=1 npx vitest run test/golden/openai-dialect.test.ts
 * rewrites them (only for streams that pass the validation).
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { formatViolation, parseOpenAISse, validateOpenAIHeaders, validateOpenAIStream, withoutVendor } from "../compliance/openai-schemas.js";
import { postResponses, TEST_NOW_MS, useServer } from "../support/server.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

const GOLDEN_DIR = fileURLToPath(new URL("./openai/", import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === "1";

const LIBRARY = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
const isHttpError = (s: Scenario) => s.turns?.[0].end?.type === "http_error";
const SCRIPTED = LIBRARY.filter((s) => s.turns !== undefined && !isHttpError(s));
const callsFunctions = (s: Scenario) => (s.turns ?? []).some((t) => t.steps.some((step) => step.type === "function_call"));
const hasVendorSteps = (s: Scenario) => (s.turns ?? []).some((t) => t.steps.some((step) => step.type.startsWith("vendor")));

const TOOLS = LIBRARY_TOOLS_NOT_STRICT;

/** The request each golden is played with; reasoning asks for a summary and the encrypted content. */
function bodyFor(s: Scenario): Record<string, unknown> {
  const body: Record<string, unknown> = { model: "mock-model-1", input: "Hello golden", stream: true };
  if (callsFunctions(s)) body.tools = TOOLS;
  if (s.turns!.some((t) => t.steps.some((step) => step.type === "reasoning"))) {
    body.reasoning = { effort: "medium", summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}

const server = useServer({ seed: 1 });

describe("openai-dialect golden streams", () => {
  it.each(SCRIPTED.map((s) => s.name))("%s matches its file in test/golden/openai/", async (name) => {
    const scenario = SCRIPTED.find((s) => s.name === name)!;
    const res = await postResponses(server(), bodyFor(scenario), { "x-mock-dialect": "openai", "x-mock-scenario": name, "x-mock-seed": "1" });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(validateOpenAIHeaders(res.headers, "sse").map(formatViolation)).toEqual([]);

    const { events, raw, violations } = parseOpenAISse(res.text);
    expect(violations.map(formatViolation)).toEqual([]);
    if (hasVendorSteps(scenario)) {
      // Scripted vendor extras play as written; everything else is OpenAI's.
      expect(validateOpenAIStream(events).length).toBeGreaterThan(0);
      expect(validateOpenAIStream(withoutVendor(events)).map(formatViolation)).toEqual([]);
    } else {
      expect(validateOpenAIStream(res.text).map(formatViolation)).toEqual([]);
    }
    expect((events[0] as { response: { created_at: number } }).response.created_at).toBe(TEST_NOW_MS / 1000);

    await matchGolden(GOLDEN_DIR, name, raw);
  });

  it.skipIf(UPDATE)("has a golden file for each scripted scenario, and none for a scenario that is gone", async () => {
    const files = existsSync(GOLDEN_DIR) ? (await readdir(GOLDEN_DIR)).filter((f) => f.endsWith(".ndjson")) : [];
    expect(files.map((f) => basename(f, ".ndjson")).sort()).toEqual(SCRIPTED.map((s) => s.name).sort());
  });
});

/** Compares a stream's raw lines with `dir/NAME.ndjson` line by line (so a failure names the first event that differs), or writes the file with UPDATE_GOLDEN=1. */
async function matchGolden(dir: string, name: string, raw: readonly string[]): Promise<void> {
  const file = join(dir, `${name}.ndjson`);
  const text = raw.join("\n") + "\n";
  if (UPDATE) {
    await mkdir(dir, { recursive: true });
    await writeFile(file, text);
    return;
  }
  if (!existsSync(file)) throw new Error(`missing golden file ${file}: run UPDATE_GOLDEN=1 npx vitest run test/golden/openai-dialect.test.ts`);
  const want = (await readFile(file, "utf8")).split("\n").filter((l) => l.length > 0);
  const got = text.split("\n").filter((l) => l.length > 0);
  for (let i = 0; i < Math.max(want.length, got.length); i++) expect(got[i], `event #${i}`).toBe(want[i]);
}

// ---- hosted tools: one stream per hosted type (test/fixtures/hosted-scenarios.json) ----------

const HOSTED: Scenario[] = JSON.parse(await readFile(fileURLToPath(new URL("../fixtures/hosted-scenarios.json", import.meta.url)), "utf8"));
const HOSTED_DIR = join(GOLDEN_DIR, "hosted");
const hostedServer = useServer({ seed: 1, library: false, scenarios: HOSTED as never });

describe("openai-dialect golden streams of hosted tools", () => {
  it.each(HOSTED.map((s) => s.name))("%s matches its file in test/golden/openai/hosted/", async (name) => {
    const body = { model: "gpt-5-mini", input: "golden", stream: true, include: ["web_search_call.action.sources", "code_interpreter_call.outputs", "file_search_call.results"] };
    const res = await postResponses(hostedServer(), body, { "x-mock-dialect": "openai", "x-mock-scenario": name, "x-mock-seed": "1" });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const { raw, violations } = parseOpenAISse(res.text);
    expect(violations.map(formatViolation)).toEqual([]);
    expect(validateOpenAIStream(res.text).map(formatViolation)).toEqual([]);
    await matchGolden(HOSTED_DIR, name, raw);
  });

  it.skipIf(UPDATE)("has a golden file for each hosted scenario, and none for one that is gone", async () => {
    const files = existsSync(HOSTED_DIR) ? (await readdir(HOSTED_DIR)).filter((f) => f.endsWith(".ndjson")) : [];
    expect(files.map((f) => basename(f, ".ndjson")).sort()).toEqual(HOSTED.map((s) => s.name).sort());
  });
});
