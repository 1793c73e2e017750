/**
 * Hosted-tool calls through the pure core: scripted steps planned in each
 * dialect's form (generate/hosted.ts), emitted (OpenAI's events, in order),
 * folded back into exactly the final response, and the fold refusing hosted
 * events that do not fit the stream.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emitFinal, emitStream } from "../../src/emit/emit-events.js";
import { FoldError, foldEvents } from "../../src/emit/fold.js";
import type { GenerateContext } from "../../src/generate/context.js";
import { planHosted } from "../../src/generate/hosted.js";
import { answerIds } from "../../src/generate/ids.js";
import type { PlanItem } from "../../src/generate/plan.js";
import { createRng } from "../../src/generate/rng.js";
import { Step, type HostedStep } from "../../src/scenario/schema.js";
import type { StreamEvent } from "../../src/spec/index.js";
import { makePlan, text } from "../support/plans.js";
import { fuzzRuns } from "../support/robust.js";
import { hostedStep } from "../robust/arbitraries.js";

function ctx(hostedItems: "native" | "vendor", include: string[] = []): GenerateContext {
  const rng = createRng("hosted");
  return {
    request: { model: "m", input: "hello", include } as GenerateContext["request"],
    items: [],
    rng,
    ids: answerIds(rng, "openai", "hosted", null, 0),
    vendorExtensions: hostedItems === "vendor",
    hostedItems,
    createdAt: 0,
  };
}

const helpers = {
  fill: (t: string) => t.replace("{{input}}", "hello"),
  chunk: (t: string) => t.match(/.{1,4}/gs) ?? [],
};
const plan = (step: unknown, c: GenerateContext): PlanItem => planHosted(Step.parse(step) as HostedStep, c, helpers);

const STEPS = [
  { type: "web_search_call", query: "{{input}} news", sources: ["https://example.com/a"] },
  { type: "code_interpreter_call", code: "print(1)\n", outputs: [{ type: "logs", logs: "1\n" }] },
  { type: "image_generation_call", partial_images: 3 },
  { type: "file_search_call", queries: ["q"], results: [{ file_id: "f1", filename: "a.md", score: 0.5, text: "t" }] },
  { type: "mcp_list_tools", server_label: "s", tools: [{ name: "t" }] },
  { type: "mcp_call", server_label: "s", name: "t", arguments: { a: 1 }, output: "ok" },
  { type: "mcp_call", server_label: "s", name: "t", error: "boom" },
  { type: "mcp_approval_request", server_label: "s", name: "t" },
];

describe("hosted calls in the core", () => {
  it.each(STEPS.map((s, i) => [`${s.type} #${i}`, s] as const))(
    "%s: the fold of its stream is the final response, and emitFinal gives the same",
    (_name, step) => {
      const c = ctx("native", [
        "web_search_call.action.sources",
        "code_interpreter_call.outputs",
        "file_search_call.results",
      ]);
      const p = makePlan([plan(step, c), text("msg_1", "Done.")]);
      const { events, response } = emitStream(p);
      expect(foldEvents(events)).toEqual(response);
      expect(emitFinal(p)).toEqual(response);
      expect(events.at(-1)!.type).toBe("response.completed");
    },
  );

  it("plays the tool's own events between added and done, in OpenAI's order", () => {
    const c = ctx("native");
    const events = emitStream(makePlan([plan(STEPS[5], c)])).events;
    expect(events.map((e) => e.type).slice(2, -1)).toEqual([
      "response.output_item.added",
      "response.mcp_call.in_progress",
      "response.mcp_call_arguments.delta",
      "response.mcp_call_arguments.delta",
      "response.mcp_call_arguments.done",
      "response.mcp_call.completed",
      "response.output_item.done",
    ]);
    expect(Object.keys(events[3])).toEqual(["type", "sequence_number", "output_index", "item_id"]);
  });

  it("leaves sources, outputs and results out unless include asks for them", () => {
    const c = ctx("native");
    const final = (s: unknown) => emitFinal(makePlan([plan(s, c)])).output[0] as Record<string, any>;
    expect(final(STEPS[0]).action).toEqual({ type: "search", query: "hello news" });
    expect(final(STEPS[1]).outputs).toBeNull();
    expect(final(STEPS[3]).results).toBeNull();
  });

  it("in the spec dialect, plans an openai:-prefixed vendor item holding the final item, and no tool events", () => {
    const c = ctx("vendor", ["web_search_call.action.sources"]);
    const item = plan(STEPS[0], c);
    expect(item).toMatchObject({
      kind: "vendor_item",
      item: {
        type: "openai:web_search_call",
        status: "completed",
        action: { type: "search", query: "hello news", sources: [{ type: "url", url: "https://example.com/a" }] },
      },
    });
    const { events, response } = emitStream(makePlan([item]));
    expect(events.map((e) => e.type).slice(2, -1)).toEqual(["response.output_item.added", "response.output_item.done"]);
    expect(foldEvents(events)).toEqual(response);
  });

  it("the fold refuses code that differs from its deltas, a hosted event for an item that is not open, and an unknown hosted event", () => {
    const c = ctx("native");
    const events = emitStream(makePlan([plan(STEPS[1], c), text("msg_1", "Done.")])).events;
    const doneAt = events.findIndex((e) => e.type === ("response.code_interpreter_call_code.done" as string));
    const wrong = events.map((e, i) => (i === doneAt ? { ...e, code: "print(2)\n" } : e)) as StreamEvent[];
    expect(() => foldEvents(wrong)).toThrow(FoldError);
    expect(() => foldEvents(wrong)).toThrow(/differs from its deltas/);
    const interpreting = events.findIndex((e) => e.type === ("response.code_interpreter_call.interpreting" as string));
    const late = events.map((e, i) => (i === interpreting ? { ...e, output_index: 1 } : e)) as StreamEvent[];
    expect(() => foldEvents(late)).toThrow(/no item at output_index 1/);
    const unknown = events.map((e, i) =>
      i === interpreting ? { ...e, type: "response.code_interpreter_call.dreaming" } : e,
    ) as StreamEvent[];
    expect(() => foldEvents(unknown)).toThrow(/unknown event type/);
  });

  it("ends the last hosted item incomplete when the turn does", () => {
    const c = ctx("native");
    const { response } = emitStream(
      makePlan([plan(STEPS[0], c)], { outcome: { kind: "incomplete", reason: "max_output_tokens" } }),
    );
    expect(response.status).toBe("incomplete");
    expect((response.output[0] as { status: string }).status).toBe("incomplete");
  });

  it("any scripted hosted steps, in either form and with any include: the fold of the stream is the final response", () => {
    const include = fc.subarray([
      "web_search_call.action.sources",
      "code_interpreter_call.outputs",
      "file_search_call.results",
    ]);
    fc.assert(
      fc.property(
        fc.array(hostedStep, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("native" as const, "vendor" as const),
        include,
        (steps, form, inc) => {
          const c = ctx(form, inc);
          const p = makePlan([...steps.map((s) => plan(s, c)), text("msg_1", "Done.")]);
          const { events, response } = emitStream(p);
          expect(foldEvents(events)).toEqual(response);
          expect(emitFinal(p)).toEqual(response);
        },
      ),
      { numRuns: fuzzRuns(100) },
    );
  });
});
