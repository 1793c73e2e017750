/**
 * Lazy streams: the events a stream produces one at a time (EventSource,
 * EventWindow) are exactly the eager array's, for every shipped scenario,
 * both dialects and many seeds and requests; packed plans emit the same
 * events; the fold of the lazy stream is its terminal response.
 */
import fc from "fast-check";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../../src/dialect/index.js";
import { planRequest } from "../../src/emit/answer.js";
import { emitFinal, emitStream, EventSource, EventWindow } from "../../src/emit/emit-events.js";
import { directFinal, finalResponse } from "../../src/emit/final.js";
import { foldEvents } from "../../src/emit/fold.js";
import { PackedChunks, packPlan, type Chunks } from "../../src/generate/packed-chunks.js";
import type { Plan, PlanItem } from "../../src/generate/plan.js";
import { loadRegistry } from "../../src/server.js";
import type { CreateResponseBody, StreamEvent } from "../../src/spec/index.js";
import { ITEMS, OUTCOMES, makePlan } from "../support/plans.js";

const registry = await loadRegistry({
  scenarios: [fileURLToPath(new URL("../../bench/scenarios/long-1000.json", import.meta.url))],
  scenario: "auto",
  library: true,
});
const SCENARIOS = [...registry.byName.keys()];
const DIALECT_NAMES = [...DIALECTS.keys()];

/** Drains a source one event at a time, with the pause before each. */
function drain(plan: Plan): { events: StreamEvent[]; pauses: Map<number, number>; source: EventSource } {
  const source = new EventSource(plan);
  const events: StreamEvent[] = [];
  const pauses = new Map<number, number>();
  for (let e = source.next(); e !== undefined; e = source.next()) {
    if (source.pause > 0) pauses.set(events.length, source.pause);
    events.push(e);
    if (source.produced !== events.length) throw new Error(`produced ${source.produced} after ${events.length} events`);
  }
  return { events, pauses, source };
}

/** Every list of deltas packed, however short (packPlan leaves short ones as arrays). */
function packAll(plan: Plan): Plan {
  const pack = (c: Chunks) => new PackedChunks([...c]);
  const item = (it: PlanItem): PlanItem => {
    if (it.kind === "message") return { ...it, parts: it.parts.map((p) => ({ ...p, chunks: pack(p.chunks) })) };
    if (it.kind === "function_call") return { ...it, chunks: pack(it.chunks) };
    if (it.kind === "reasoning")
      return { ...it, summary: it.summary.map(pack), ...(it.content ? { content: it.content.map(pack) } : {}) };
    return it;
  };
  return { ...plan, items: plan.items.map(item) };
}

/** The lazy forms agree with the eager one, and with the fold. */
function expectSameStream(plan: Plan): void {
  const eager = emitStream(plan);
  // Serialised: the eager events must equal the lazy ones byte for byte, as the wire sees them.
  const eagerJson = eager.events.map((e) => JSON.stringify(e));
  const lazy = drain(plan);
  expect(lazy.events.map((e) => JSON.stringify(e))).toEqual(eagerJson);
  expect(lazy.pauses).toEqual(eager.pauses);
  expect(lazy.source.response).toEqual(eager.response);
  expect(emitFinal(plan)).toEqual(eager.response);
  // Built straight from the plan, where it takes the plan: the same response, key order included.
  const direct = directFinal(plan);
  if (direct !== undefined) expect(JSON.stringify(direct)).toBe(JSON.stringify(eager.response));
  expect(JSON.stringify(finalResponse(plan))).toBe(JSON.stringify(eager.response));
  expect(foldEvents(lazy.events)).toEqual(eager.response);

  const window = new EventWindow(plan);
  const windowed: string[] = [];
  const pauses: number[] = [];
  for (let i = 0; i < eagerJson.length; i++) {
    windowed.push(JSON.stringify(window.at(i)));
    pauses.push(window.pauseBefore(i));
  }
  expect(windowed).toEqual(eagerJson);
  expect(pauses).toEqual(eagerJson.map((_, i) => eager.pauses.get(i) ?? 0));
  expect(window.at(eagerJson.length)).toBeUndefined();
  expect(window.response).toEqual(eager.response);

  const packed = emitStream(packAll(plan));
  expect(packed.events.map((e) => JSON.stringify(e))).toEqual(eagerJson);
  expect(packed.response).toEqual(eager.response);
}

const REQUESTS: CreateResponseBody[] = [
  { model: "mock-model-1", input: "Hello there, how are you today?" },
  {
    model: "mock-model-1",
    input: "What is the weather in Paris?",
    tools: [
      {
        type: "function",
        name: "get_weather",
        description: "Weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
  },
  {
    model: "mock-model-1",
    input: "Think hard",
    reasoning: { effort: "high", summary: "auto" },
    include: ["reasoning.encrypted_content"],
  } as CreateResponseBody,
  {
    model: "mock-model-1",
    input: "Short please",
    max_output_tokens: 16,
    stream_options: { include_obfuscation: false },
  } as CreateResponseBody,
  {
    model: "mock-model-1",
    input: "With logprobs",
    top_logprobs: 2,
    include: ["message.output_text.logprobs"],
  } as CreateResponseBody,
];

function planOf(
  scenario: string,
  dialect: string,
  seed: number,
  request: CreateResponseBody,
  background = false,
): Plan | undefined {
  try {
    return planRequest({
      registry,
      request: { ...request, ...(background ? { background: true } : {}) },
      seed,
      scenario,
      createdAt: 1_767_225_600,
      dialect: DIALECTS.get(dialect),
    }).plan;
  } catch {
    return undefined; // an http_error turn: no stream to compare
  }
}

describe("lazy streams equal the eager array", () => {
  it("for the hand-made plans: every item kind and outcome", () => {
    for (const items of Object.values(ITEMS)) {
      for (const outcome of Object.values(OUTCOMES)) {
        expectSameStream(makePlan(items, { outcome }));
        expectSameStream(
          makePlan(items, { outcome, budget: 3, options: { obfuscation: true, logprobs: 2, queued: true } }),
        );
        expectSameStream(
          makePlan(
            items.map((it, i) => ({ ...it, delayMs: 100 * (i + 1) })),
            { outcome },
          ),
        );
      }
    }
  });

  it("for every shipped scenario, in both dialects, queued or not", () => {
    let compared = 0;
    for (const scenario of SCENARIOS) {
      for (const dialect of DIALECT_NAMES) {
        for (const [r, request] of REQUESTS.entries()) {
          const plan = planOf(scenario, dialect, r, request, r === 0);
          if (!plan) continue;
          expectSameStream(plan);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(SCENARIOS.length * 4);
  });

  it("for random seeds, requests, scenarios and dialects", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(...SCENARIOS),
        fc.constantFrom(...DIALECT_NAMES),
        fc.constantFrom(...REQUESTS),
        fc.string({ maxLength: 80 }),
        fc.boolean(),
        (seed, scenario, dialect, request, input, background) => {
          const plan = planOf(
            scenario,
            dialect,
            seed,
            { ...request, input: `${String(request.input)} ${input}` },
            background,
          );
          if (plan) expectSameStream(plan);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the direct final response takes every item kind, completed or incomplete, and declines only what the emitter must play", () => {
    for (const [name, items] of Object.entries(ITEMS)) {
      for (const outcome of [OUTCOMES.completed, OUTCOMES.incomplete]) {
        const plan = makePlan(items, { outcome });
        expect(directFinal(plan), `${name}, ${outcome.kind}`).toBeDefined();
        expect(JSON.stringify(directFinal(plan))).toBe(JSON.stringify(emitFinal(plan)));
        // A budget every delta fits in cuts nothing.
        expect(directFinal(makePlan(items, { outcome, budget: 10_000 }))).toEqual(emitFinal(plan));
      }
      // A failure (its point counts events), logprobs and a budget that cuts are the emitter's.
      expect(directFinal(makePlan(items, { outcome: OUTCOMES.failedMid }))).toBeUndefined();
      expect(directFinal(makePlan(items, { options: { obfuscation: false, logprobs: 2 } }))).toBeUndefined();
    }
    expect(directFinal(makePlan(ITEMS.text, { budget: 1 }))).toBeUndefined();
    // Across the shipped scenarios (the requests mix in budgets, logprobs and failures), many plans are taken, not all.
    let taken = 0;
    let declined = 0;
    for (const scenario of SCENARIOS) {
      for (const [r, request] of REQUESTS.entries()) {
        const plan = planOf(scenario, "open-responses", r, request);
        if (plan) directFinal(plan) === undefined ? declined++ : taken++;
      }
    }
    expect(taken).toBeGreaterThan(SCENARIOS.length);
    expect(declined).toBeGreaterThan(0);
  });

  it("a long answer's plan is packed, emits the same events, and its texts are flat", () => {
    const plan = planOf("long-1000", "open-responses", 1, REQUESTS[0])!;
    const part = (plan.items[0] as Extract<PlanItem, { kind: "message" }>).parts[0];
    expect(part.chunks).toBeInstanceOf(PackedChunks);
    expect(part.chunks.length).toBe(1000);
    const unpacked: Plan = {
      ...plan,
      items: plan.items.map((it) =>
        it.kind === "message" ? { ...it, parts: it.parts.map((p) => ({ ...p, chunks: [...p.chunks] })) } : it,
      ),
    };
    expect(emitStream(plan).events).toEqual(emitStream(unpacked).events);
    expect(packPlan(unpacked).items[0]).toEqual(plan.items[0]);
    // A short answer is left as planned.
    const short = planOf("text", "open-responses", 1, REQUESTS[0])!;
    expect(packPlan(short)).toBe(short);
  });

  it("PackedChunks reads like the array it replaces", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" }), { maxLength: 40 }), (chunks) => {
        const packed = new PackedChunks(chunks);
        expect(packed.length).toBe(chunks.length);
        expect([...packed]).toEqual(chunks);
        expect(packed.join("")).toBe(chunks.join(""));
        expect(packed.join("|")).toBe(chunks.join("|"));
        for (let i = -1; i <= chunks.length; i++) expect(packed.at(i)).toBe(chunks.at(i < 0 ? chunks.length + 10 : i));
        for (let n = 0; n <= chunks.length; n++) expect(packed.prefix(n)).toBe(chunks.slice(0, n).join(""));
        expect(JSON.parse(JSON.stringify(packed))).toEqual(chunks);
      }),
    );
  });

  it("an EventWindow holds only the latest events: an older one is refused, not rebuilt", () => {
    const window = new EventWindow(makePlan(ITEMS.text));
    expect(window.at(8)?.sequence_number).toBe(8);
    expect(window.produced).toBe(9);
    expect(window.at(5)?.sequence_number).toBe(5);
    expect(() => window.at(2)).toThrow(RangeError);
  });
});

/** A source drained to its events (as JSON), pauses and final response. */
function drainWith(plan: Plan, runs: boolean): { events: string[]; pauses: string; final: string } {
  const source = new EventSource(plan, { runs });
  const events: string[] = [];
  const pauses: [number, number][] = [];
  for (let e = source.next(); e !== undefined; e = source.next()) {
    if (source.pause > 0) pauses.push([events.length, source.pause]);
    events.push(JSON.stringify(e));
  }
  return { events, pauses: JSON.stringify(pauses), final: JSON.stringify(source.response) };
}

describe("runs of deltas (issue 30) produce the generators' events", () => {
  it("for every shipped scenario and dialect, seeds 1–4, every failure point and a range of budgets", () => {
    let compared = 0;
    for (const scenario of SCENARIOS) {
      for (const dialect of DIALECT_NAMES) {
        for (let seed = 1; seed <= (scenario === "long-1000" ? 1 : 4); seed++) {
          for (const request of REQUESTS) {
            const plan = planOf(scenario, dialect, seed, request);
            if (!plan) continue;
            const variants: Plan[] = [plan];
            if (seed === 1 && request === REQUESTS[0]) {
              const length = drainWith(plan, false).events.length;
              // A failure after every event (so inside every list of deltas), and budgets that cut each list.
              for (let k = 0; k < length; k += scenario === "long-1000" ? 97 : 1)
                variants.push({ ...plan, outcome: { ...OUTCOMES.failedMid, afterEvents: k } as Plan["outcome"] });
              for (const budget of [0, 1, 2, 3, 5, 8, 13, 40]) variants.push({ ...plan, budget });
            }
            for (const variant of variants) {
              const old = drainWith(variant, false);
              const runs = drainWith(variant, true);
              expect(runs.events).toEqual(old.events);
              expect(runs.pauses).toBe(old.pauses);
              expect(runs.final).toBe(old.final);
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(SCENARIOS.length * DIALECT_NAMES.length * 20);
  }, 120_000);

  it("for the hand-made plans: every item kind and outcome, with budgets", () => {
    for (const items of Object.values(ITEMS))
      for (const outcome of Object.values(OUTCOMES))
        for (const budget of [null, 0, 1, 2, 4, 9]) {
          const plan = makePlan(items, { outcome, budget, options: { obfuscation: true, logprobs: null } });
          expect(drainWith(plan, true)).toEqual(drainWith(plan, false));
        }
  });
});
