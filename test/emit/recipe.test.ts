/**
 * PlanRecipe: what the store and the journal keep of an answer once its turn
 * has let go of the plan. Planned again from its recipe, every shipped
 * scenario's plan is the one first planned, key for key, in both dialects,
 * with and without a session and a repeat count; so are its events. A
 * continuation of a previous response is held, never planned again.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../../src/dialect/index.js";
import { planRequest } from "../../src/emit/answer.js";
import { emitStream } from "../../src/emit/emit-events.js";
import { PlanRecipe, RECIPE_MAX_BODY_BYTES } from "../../src/emit/recipe.js";
import { loadRegistry } from "../../src/server.js";
import type { CreateResponseBody } from "../../src/spec/index.js";
import { PlannedRecord } from "../../src/store/planned-record.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

const registry = await loadRegistry({
  scenarios: [fileURLToPath(new URL("../../bench/scenarios/long-1000.json", import.meta.url))],
  scenario: "auto",
  library: true,
});
const SCENARIOS = [...registry.byName.keys()].sort();
const CREATED_AT = 1_767_225_600;

const REQUESTS: CreateResponseBody[] = [
  { model: "mock-model-1", input: "Hello there, how are you today?" },
  {
    model: "mock-model-1",
    input: "What is the weather in Paris?",
    tools: LIBRARY_TOOLS_NOT_STRICT,
  } as CreateResponseBody,
  {
    model: "mock-model-1",
    input: [{ type: "message", role: "user", content: "Think hard about Paris" }],
    reasoning: { effort: "high", summary: "auto" },
    include: ["reasoning.encrypted_content"],
    instructions: "Be brief.",
  } as CreateResponseBody,
  {
    model: "mock-model-1",
    input: "A city, as JSON",
    text: {
      format: {
        type: "json_schema",
        name: "city",
        schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    },
  } as CreateResponseBody,
];

/** Plans a request as a turn does, and its recipe; undefined for an http_error turn (nothing to keep). */
function planned(
  scenario: string,
  dialect: string,
  request: CreateResponseBody,
  session: string | null,
  repeat: number,
) {
  const d = DIALECTS.get(dialect)!;
  try {
    const answer = planRequest({
      registry,
      request,
      seed: 7,
      scenario,
      createdAt: CREATED_AT,
      dialect: d,
      session,
      repeat,
    });
    const recipe = PlanRecipe.of(
      answer.plan,
      request,
      200,
      answer.scenario,
      answer.seed,
      d,
      session,
      repeat,
      CREATED_AT,
    );
    return { plan: answer.plan, recipe };
  } catch {
    return undefined;
  }
}

/** The scenarios whose plans were compared. */
const planned_ = new Set<string>();

describe("PlanRecipe", () => {
  for (const scenario of SCENARIOS)
    for (const dialect of DIALECTS.keys())
      it(`plans ${scenario} (${dialect}) again as it was planned`, () => {
        let compared = 0;
        for (const [r, request] of REQUESTS.entries())
          for (const [session, repeat] of [
            [null, 0],
            ["s1", 2],
          ] as const) {
            const got = planned(scenario, dialect, request, session, repeat);
            if (!got) continue;
            const { plan, recipe } = got;
            const first = JSON.stringify(plan);
            const events = JSON.stringify(emitStream(plan).events);
            expect(recipe.holds).toBe(true);
            expect(recipe.plan).toBe(plan);
            recipe.release();
            expect(recipe.holds, "a request of its own input is let go").toBe(false);
            const again = recipe.plan;
            expect(again).not.toBe(plan);
            expect(JSON.stringify(again), `request ${r}, session ${session}`).toBe(first);
            expect(JSON.stringify(emitStream(again).events)).toBe(events);
            expect(recipe.id).toBe(plan.base.id);
            compared++;
          }
        if (compared > 0) planned_.add(scenario);
      });

  it("compared nearly every scenario (only an http_error answer has no plan to keep)", () => {
    const missed = SCENARIOS.filter((s) => !planned_.has(s));
    expect(missed.length).toBeLessThan(SCENARIOS.length / 2);
    for (const name of missed) expect(name, "only an HTTP error scenario plans nothing").toMatch(/^error-\d{3}$/);
    expect(planned_.has("long-1000")).toBe(true);
  });

  it("plans each answer with its own session and repeat: another of either gives other ids", () => {
    const [a, b, c] = [
      planned("auto", "open-responses", REQUESTS[0], null, 0)!,
      planned("auto", "open-responses", REQUESTS[0], null, 1)!,
      planned("auto", "open-responses", REQUESTS[0], "s2", 0)!,
    ];
    for (const x of [a, b, c]) x.recipe.release();
    const ids = new Set([a, b, c].map((x) => x.recipe.plan.base.id));
    expect(ids.size).toBe(3);
  });

  it("holds the plan of a continuation: its conversation came from the store", () => {
    const request = {
      model: "mock-model-1",
      input: "And then?",
      previous_response_id: "resp_before",
    } as CreateResponseBody;
    const d = DIALECTS.get("open-responses")!;
    const answer = planRequest({ registry, request, seed: 7, createdAt: CREATED_AT, dialect: d, items: [] });
    const recipe = PlanRecipe.of(answer.plan, request, 200, answer.scenario, answer.seed, d, null, 0, CREATED_AT);
    recipe.release();
    expect(recipe.holds).toBe(true);
    expect(recipe.plan).toBe(answer.plan);
  });

  it("holds the plan of a background run: the run replaces its response", () => {
    const d = DIALECTS.get("open-responses")!;
    const request = { model: "mock-model-1", input: "Later, please", background: true } as CreateResponseBody;
    const answer = planRequest({ registry, request, seed: 7, createdAt: CREATED_AT, dialect: d });
    const recipe = PlanRecipe.of(answer.plan, request, 200, answer.scenario, answer.seed, d, null, 0, CREATED_AT);
    recipe.release();
    expect(recipe.holds).toBe(true);
    expect(recipe.plan).toBe(answer.plan);
  });

  it("holds the plan of a big request, or of one whose size is not known: a recipe would keep the whole request", () => {
    const d = DIALECTS.get("open-responses")!;
    const request = { model: "mock-model-1", input: "x".repeat(RECIPE_MAX_BODY_BYTES) } as CreateResponseBody;
    const answer = planRequest({ registry, request, seed: 7, createdAt: CREATED_AT, dialect: d });
    for (const bytes of [RECIPE_MAX_BODY_BYTES + 1, null]) {
      const recipe = PlanRecipe.of(answer.plan, request, bytes, answer.scenario, answer.seed, d, null, 0, CREATED_AT);
      recipe.release();
      expect(recipe.holds, String(bytes)).toBe(true);
      expect(recipe.plan).toBe(answer.plan);
    }
    const small = PlanRecipe.of(
      answer.plan,
      request,
      RECIPE_MAX_BODY_BYTES,
      answer.scenario,
      answer.seed,
      d,
      null,
      0,
      CREATED_AT,
    );
    small.release();
    expect(small.holds).toBe(false);
  });

  it("keeps a record's id, cost and response without the plan", () => {
    const { plan, recipe } = planned("auto", "openai", REQUESTS[1], null, 0)!;
    const record = new PlannedRecord(recipe, REQUESTS[1].input, null);
    const cost = record.keptBytes;
    recipe.release();
    expect(record.id).toBe(plan.base.id);
    expect(record.keptBytes).toBe(cost);
    expect(JSON.stringify(record.response)).toBe(JSON.stringify(emitStream(plan).response));
  });
});
