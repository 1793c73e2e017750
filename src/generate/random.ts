/**
 * Seeded-random scenarios: each answer is drawn from the seed — its kind by
 * weight (text, tool calls, reasoning + text, refusal, incomplete, failure,
 * vendor item), its lengths from ranges, tool arguments from the request's
 * tool schemas. A different seed gives a different, still conformant answer.
 */
import { lastUserText } from "../scenario/conversation.js";
import type { RandomSettings } from "../scenario/schema.js";
import type { FunctionToolParam } from "../spec/index.js";
import { assemblePlan } from "./assemble.js";
import { callableTools } from "./auto.js";
import { chunkText } from "./chunk.js";
import type { GenerateContext } from "./context.js";
import { hashString } from "./hash.js";
import { ANSWER_BYTES, CALL_BYTES, MAX_CALLS, MAX_DELTAS, schemaTooLarge, userTextWithin } from "./budgets.js";
import { sampleWithin } from "./json-schema-sample.js";
import type { Plan, PlanItem, PlanOutcome } from "./plan.js";
import type { Rng } from "./rng.js";
import { countTokens } from "./tokens.js";
import { properNames, sentenceFrom } from "./words.js";

export const ANSWER_KINDS = [
  "text",
  "tool_calls",
  "reasoning_text",
  "refusal",
  "incomplete",
  "failure",
  "vendor_item",
] as const;
export type AnswerKind = (typeof ANSWER_KINDS)[number];

const between = (rng: Rng, range: readonly [number, number]) => rng.int(range[0], range[1]);

/** Draws a kind of answer by weight; tool calls only when the request allows tools, vendor items only when the dialect sends them. */
export function drawKind(
  weights: RandomSettings["weights"],
  rng: Rng,
  toolsAllowed: boolean,
  vendorExtensions = true,
): AnswerKind {
  const w = ANSWER_KINDS.map((k) =>
    (k === "tool_calls" && !toolsAllowed) || (k === "vendor_item" && !vendorExtensions) ? 0 : (weights?.[k] ?? 1),
  );
  const total = w.reduce((a, b) => a + b, 0);
  if (total <= 0) return "text";
  let x = rng.next() * total;
  for (let i = 0; i < w.length; i++) {
    x -= w[i];
    if (x < 0 && w[i] > 0) return ANSWER_KINDS[i];
  }
  return ANSWER_KINDS[w.findLastIndex((v) => v > 0)];
}

export function planRandom(settings: RandomSettings, ctx: GenerateContext, scenario?: { model?: string }): Plan {
  const { rng, request } = ctx;
  const id = ctx.ids.response();
  const chunkRange = settings.chunkTokens ?? [1, 3];
  const chunks = (text: string) =>
    chunkText(text, rng, Math.max(1, chunkRange[0]), Math.max(1, chunkRange[1]), MAX_DELTAS);
  const paragraph = () => {
    const n = between(rng, settings.sentences ?? [1, 4]);
    return Array.from({ length: Math.max(1, n) }, () => sentenceFrom(rng.pick)).join(" ");
  };
  const message = (text: string): PlanItem => ({
    kind: "message",
    id: ctx.ids.item("msg"),
    parts: [{ type: "output_text", chunks: chunks(text) }],
  });

  const { tools, required } = callableTools(request);
  const kind = required ? "tool_calls" : drawKind(settings.weights, rng, tools.length > 0, ctx.vendorExtensions);
  const items: PlanItem[] = [];
  let outcome: PlanOutcome = { kind: "completed" };
  let budget = request.max_output_tokens ?? null;

  switch (kind) {
    case "text":
      items.push(message(paragraph()));
      break;
    case "tool_calls": {
      const parallel = request.parallel_tool_calls ?? true;
      let n = parallel ? Math.max(1, between(rng, settings.toolCalls ?? [1, 3])) : 1;
      if (request.max_tool_calls) n = Math.min(n, request.max_tool_calls);
      n = Math.min(n, MAX_CALLS);
      const userText = userTextWithin(lastUserText(ctx.items));
      // Each call's arguments within CALL_BYTES, all of them within ANSWER_BYTES: past that, no more calls.
      let left = ANSWER_BYTES;
      for (let i = 0; i < n; i++) {
        const tool: FunctionToolParam = rng.pick(tools);
        const budget = Math.min(CALL_BYTES, left);
        const args = sampleWithin(tool.parameters ?? { type: "object", properties: {} }, rng, {
          places: properNames(userText),
          maxBytes: budget,
        });
        if (!args.ok) {
          if (i > 0 && budget < CALL_BYTES) break;
          throw schemaTooLarge(
            `tools[${(request.tools ?? []).indexOf(tool)}].parameters`,
            `tool '${tool.name}'`,
            args,
            CALL_BYTES,
          );
        }
        left -= args.json.length;
        items.push({
          kind: "function_call",
          id: ctx.ids.item("fc"),
          call_id: ctx.ids.call(),
          name: tool.name,
          chunks: chunks(args.json),
        });
      }
      break;
    }
    case "reasoning_text": {
      const summary = paragraph();
      items.push({ kind: "reasoning", id: ctx.ids.item("rs"), summary: [chunks(summary)] });
      if (request.include?.includes("reasoning.encrypted_content"))
        (items[0] as Extract<PlanItem, { kind: "reasoning" }>).encrypted_content =
          `enc_${hashString(`${id}:${summary}`, 64)}`;
      items.push(message(paragraph()));
      break;
    }
    case "refusal":
      items.push({
        kind: "message",
        id: ctx.ids.item("msg"),
        parts: [{ type: "refusal", chunks: chunks("I'm sorry, but I can't help with that request.") }],
      });
      break;
    case "incomplete": {
      // As if a token budget ran out part-way through the text.
      const text = paragraph() + " " + paragraph();
      const cut = Math.max(1, Math.floor(countTokens(text) * (0.2 + 0.6 * rng.next())));
      budget = budget === null ? cut : Math.min(budget, cut);
      items.push(message(text));
      break;
    }
    case "failure": {
      items.push(message(paragraph()));
      outcome = {
        kind: "failed",
        afterEvents: between(rng, settings.failAfterEvents ?? [2, 12]),
        error: {
          type: "server_error",
          code: "server_error",
          message: "The model backend stopped unexpectedly (random failure).",
          param: null,
        },
      };
      break;
    }
    case "vendor_item": {
      items.push({ kind: "vendor_event", event: { type: "mock:progress", stage: "searching" } });
      items.push({
        kind: "vendor_item",
        item: {
          type: "mock:search_call",
          id: ctx.ids.item("sc"),
          status: "completed",
          query: userTextWithin(lastUserText(ctx.items)).slice(0, 80),
          results: between(rng, [0, 5]),
        },
      });
      items.push(message(paragraph()));
      break;
    }
  }
  return assemblePlan(ctx, id, items, outcome, scenario, budget);
}
