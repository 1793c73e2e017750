/** Hand-made plans covering every item kind and outcome, for engine tests. */
import { buildBaseResponse } from "../../src/generate/response-base.js";
import type { Plan, PlanItem, PlanOutcome } from "../../src/generate/plan.js";
import type { CreateResponseBody } from "../../src/spec/index.js";

export const baseRequest: CreateResponseBody = { model: "mock-model-1", input: "Hello" };

export function makePlan(
  items: PlanItem[],
  extra: Partial<Omit<Plan, "items">> = {},
  request: CreateResponseBody = baseRequest,
): Plan {
  return {
    base: buildBaseResponse(request, { id: "resp_test", createdAt: 1_767_225_600 }),
    items,
    outcome: { kind: "completed" },
    budget: null,
    inputTokens: 7,
    completedAt: 1_767_225_601,
    options: { obfuscation: false, logprobs: null },
    echo: {},
    ...extra,
  };
}

export const text = (id: string, ...chunks: string[]): PlanItem => ({
  kind: "message",
  id,
  parts: [{ type: "output_text", chunks }],
});
export const call = (id: string, name: string, ...chunks: string[]): PlanItem => ({
  kind: "function_call",
  id,
  call_id: `call_${id}`,
  name,
  chunks,
});

export const ITEMS: Record<string, PlanItem[]> = {
  text: [text("msg_1", "Hello", " there", "!")],
  emptyText: [text("msg_1")],
  refusal: [{ kind: "message", id: "msg_1", parts: [{ type: "refusal", chunks: ["I can't", " help with that."] }] }],
  textAndRefusal: [
    {
      kind: "message",
      id: "msg_1",
      phase: "final_answer",
      parts: [
        { type: "output_text", chunks: ["Part one."] },
        { type: "refusal", chunks: ["No more."] },
      ],
    },
  ],
  annotated: [
    {
      kind: "message",
      id: "msg_1",
      parts: [
        {
          type: "output_text",
          chunks: ["See ", "example.com", "."],
          annotations: [
            { type: "url_citation", url: "https://example.com", start_index: 4, end_index: 15, title: "Example" },
          ],
        },
      ],
    },
  ],
  reasoningThenText: [
    {
      kind: "reasoning",
      id: "rs_1",
      summary: [
        ["Need", " to think."],
        ["Second", " part."],
      ],
      content: [["raw ", "thoughts"]],
      encrypted_content: "opaque",
    },
    text("msg_1", "Answer", "."),
  ],
  parallelCalls: [call("fc_1", "get_weather", '{"city":', '"Paris"}'), call("fc_2", "get_time", '{"tz":"UTC"}')],
  vendor: [
    { kind: "vendor_event", event: { type: "acme:progress", percent: 10 } },
    { kind: "vendor_item", item: { type: "acme:search_call", id: "sc_1", query: "cats", results: [1, 2] } },
    { kind: "vendor_event", event: { type: "acme:progress", percent: 100 } },
    text("msg_1", "Found", " cats."),
  ],
  mixed: [
    { kind: "reasoning", id: "rs_1", summary: [["Plan", " it."]] },
    call("fc_1", "lookup", '{"q":"x"}'),
    { kind: "vendor_item", item: { type: "acme:note", id: "n_1", status: "completed", text: "hi" } },
    text("msg_1", "Done", " now", "."),
  ],
};

export const OUTCOMES: Record<string, PlanOutcome> = {
  completed: { kind: "completed" },
  incomplete: { kind: "incomplete", reason: "content_filter" },
  failedEnd: {
    kind: "failed",
    error: { type: "model_error", code: "model_error", message: "The model stopped.", param: null },
  },
  failedEarly: {
    kind: "failed",
    error: { type: "server_error", code: "server_error", message: "Boom.", param: null },
    afterEvents: 0,
  },
  failedMid: {
    kind: "failed",
    error: { type: "model_error", code: null, message: "Cut.", param: null },
    afterEvents: 5,
  },
};
