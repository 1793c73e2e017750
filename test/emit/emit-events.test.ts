import { describe, expect, it } from "vitest";
import { emitEvents, emitFinal, emitStream } from "../../src/emit/emit-events.js";
import { foldEvents, FoldError } from "../../src/emit/fold.js";
import { countTokens } from "../../src/generate/tokens.js";
import { expectConformantStream } from "../support/conformance.js";
import { ITEMS, OUTCOMES, makePlan, text } from "../support/plans.js";

const types = (plan: ReturnType<typeof makePlan>) => emitEvents(plan).map((e) => e.type);

describe("emitEvents", () => {
  it("plays a text answer as the exact event sequence of the spec", () => {
    expect(types(makePlan(ITEMS.text))).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const events = emitEvents(makePlan(ITEMS.text));
    const done = events.find((e) => e.type === "response.output_text.done") as { text: string };
    expect(done.text).toBe("Hello there!");
    const completed = events.at(-1) as { response: any };
    expect(completed.response.usage).toEqual({
      input_tokens: 7,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 10,
    });
    expect(completed.response.completed_at).toBe(1_767_225_601);
  });

  it("streams reasoning summary parts, raw reasoning text and encrypted content", () => {
    const seq = types(makePlan(ITEMS.reasoningThenText));
    expect(seq.slice(2, 17)).toEqual([
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.content_part.added",
      "response.reasoning.delta",
      "response.reasoning.delta",
      "response.reasoning.done",
    ]);
    const final = emitEvents(makePlan(ITEMS.reasoningThenText)).at(-1) as { response: any };
    expect(final.response.output[0]).toEqual({
      type: "reasoning",
      id: "rs_1",
      summary: [
        { type: "summary_text", text: "Need to think." },
        { type: "summary_text", text: "Second part." },
      ],
      content: [{ type: "reasoning_text", text: "raw thoughts" }],
      encrypted_content: "opaque",
    });
    expect(final.response.usage.output_tokens_details.reasoning_tokens).toBe(
      ["Need", " to think.", "Second", " part.", "raw ", "thoughts"].reduce((n, c) => n + countTokens(c), 0),
    );
  });

  it("streams parallel function calls with argument deltas", () => {
    const events = emitEvents(makePlan(ITEMS.parallelCalls));
    const final = (events.at(-1) as { response: any }).response;
    expect(final.output.map((o: any) => [o.name, o.arguments, o.status])).toEqual([
      ["get_weather", '{"city":"Paris"}', "completed"],
      ["get_time", '{"tz":"UTC"}', "completed"],
    ]);
    expect(events.filter((e) => e.type === "response.function_call_arguments.delta")).toHaveLength(3);
  });

  it("puts vendor events between items and vendor items whole in added/done", () => {
    const events = emitEvents(makePlan(ITEMS.vendor));
    expect(events[2]).toEqual({ type: "acme:progress", sequence_number: 2, percent: 10 });
    expect(events[3]).toMatchObject({
      type: "response.output_item.added",
      item: { type: "acme:search_call", status: "in_progress", query: "cats" },
    });
    expect(events[4]).toMatchObject({
      type: "response.output_item.done",
      item: { type: "acme:search_call", status: "completed", results: [1, 2] },
    });
  });

  it("cuts text at the token budget: the item and the response end incomplete", () => {
    const plan = makePlan([text("msg_1", "one two three", " four five six", " seven")], { budget: 4 });
    const events = emitEvents(plan);
    const final = events.at(-1) as { type: string; response: any };
    expect(final.type).toBe("response.incomplete");
    expect(final.response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(final.response.output[0].status).toBe("incomplete");
    expect(final.response.output[0].content[0].text).toBe("one two three four");
    expect(final.response.usage.output_tokens).toBe(4);
    expectConformantStream(events as never);
  });

  it("stops before later items when the budget runs out", () => {
    const plan = makePlan([...ITEMS.parallelCalls, text("msg_1", "never")], { budget: 3 });
    const final = (emitEvents(plan).at(-1) as { response: any }).response;
    expect(final.output).toHaveLength(1);
    expect(final.output[0]).toMatchObject({ type: "function_call", status: "incomplete", arguments: '{"city' });
  });

  it("fails mid-stream after N events with error then response.failed, keeping started items", () => {
    const events = emitEvents(makePlan(ITEMS.text, { outcome: OUTCOMES.failedMid }));
    expect(events.map((e) => e.type).slice(4)).toEqual(["response.output_text.delta", "error", "response.failed"]);
    const failed = (events.at(-1) as { response: any }).response;
    expect(failed.status).toBe("failed");
    expect(failed.error).toEqual({ type: "model_error", code: "model_error", message: "Cut." });
    expect(failed.output[0]).toMatchObject({ status: "incomplete", content: [{ text: "Hello" }] });
    expect(failed.usage).toBeNull();
  });

  it("never fails before response.in_progress", () => {
    expect(types(makePlan(ITEMS.text, { outcome: OUTCOMES.failedEarly }))).toEqual([
      "response.created",
      "response.in_progress",
      "error",
      "response.failed",
    ]);
  });

  it("adds response.queued for a queued start", () => {
    const events = emitEvents(makePlan(ITEMS.text, { options: { obfuscation: false, logprobs: null, queued: true } }));
    expect(events.slice(0, 3).map((e) => [e.type, (e as any).response.status])).toEqual([
      ["response.created", "queued"],
      ["response.queued", "queued"],
      ["response.in_progress", "in_progress"],
    ]);
    expectConformantStream(events as never);
  });

  it("adds obfuscation only when asked, deterministically", () => {
    const on = emitEvents(makePlan(ITEMS.text, { options: { obfuscation: true, logprobs: null } }));
    const off = emitEvents(makePlan(ITEMS.text));
    const deltas = on.filter((e) => e.type.endsWith(".delta")) as { obfuscation?: string }[];
    expect(deltas.every((d) => typeof d.obfuscation === "string" && d.obfuscation.length >= 2)).toBe(true);
    expect(off.some((e) => "obfuscation" in e)).toBe(false);
    expect(emitEvents(makePlan(ITEMS.text, { options: { obfuscation: true, logprobs: null } }))).toEqual(on);
  });

  it("attaches logprobs with the asked number of alternatives", () => {
    const events = emitEvents(makePlan(ITEMS.text, { options: { obfuscation: false, logprobs: 2 } }));
    const delta = events.find((e) => e.type === "response.output_text.delta") as { logprobs: any[] };
    expect(delta.logprobs[0]).toMatchObject({ token: "Hello", bytes: [72, 101, 108, 108, 111] });
    expect(delta.logprobs[0].top_logprobs).toHaveLength(2);
    const final = (events.at(-1) as { response: any }).response;
    expect(final.output[0].content[0].logprobs).toHaveLength(3);
    expectConformantStream(events as never);
  });
});

describe("every plan × outcome is conformant and folds to its terminal snapshot", () => {
  for (const [itemsName, items] of Object.entries(ITEMS)) {
    for (const [outcomeName, outcome] of Object.entries(OUTCOMES)) {
      for (const budget of [null, 16, 2]) {
        it(`${itemsName} / ${outcomeName} / budget ${budget}`, () => {
          const events = emitEvents(
            makePlan(items, { outcome, budget, options: { obfuscation: true, logprobs: budget === 2 ? 1 : null } }),
          );
          expectConformantStream(events as never);
        });
      }
    }
  }
});

describe("a failure at every possible point is conformant", () => {
  for (const [itemsName, items] of Object.entries(ITEMS)) {
    it(itemsName, () => {
      const full = emitEvents(makePlan(items)).length;
      for (let n = 0; n <= full; n++) {
        const events = emitEvents(
          makePlan(items, {
            outcome: {
              kind: "failed",
              error: { type: "model_error", code: null, message: "cut", param: null },
              afterEvents: n,
            },
          }),
        );
        expect(events.at(-1)!.type).toBe("response.failed");
        expectConformantStream(events as never);
      }
    });
  }
});

describe("foldEvents is strict", () => {
  const events = () => structuredClone(emitEvents(makePlan(ITEMS.text))) as any[];

  it("rejects a gap in sequence numbers", () => {
    const ev = events();
    ev.splice(4, 1);
    expect(() => foldEvents(ev)).toThrow(FoldError);
  });
  it("rejects a done text that differs from its deltas", () => {
    const ev = events();
    ev.find((e) => e.type === "response.output_text.done").text = "other";
    expect(() => foldEvents(ev)).toThrow(/differs/);
  });
  it("rejects a stream without a terminal event", () => {
    expect(() => foldEvents(events().slice(0, -1))).toThrow(/terminal/);
  });
  it("rejects an unknown non-vendor event type", () => {
    const ev = events();
    ev.splice(2, 0, { type: "response.mystery", sequence_number: 2 });
    ev.forEach((e, i) => (e.sequence_number = i));
    expect(() => foldEvents(ev)).toThrow(/unknown event type/);
  });
});

describe("emitFinal", () => {
  for (const [itemsName, items] of Object.entries(ITEMS)) {
    it(`${itemsName}: gives the terminal event's response without building events`, () => {
      for (const outcome of Object.values(OUTCOMES)) {
        for (const budget of [null, 2]) {
          const plan = makePlan(items, { outcome, budget, options: { obfuscation: true, logprobs: 1 } });
          const { events, response } = emitStream(plan);
          expect(emitFinal(plan)).toEqual(response);
          expect(foldEvents(events)).toEqual(response);
        }
      }
    });
  }
});
