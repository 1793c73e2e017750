/** The parts of a plan every generator fills the same way. */
import type { Fault, ScenarioTiming } from "../scenario/schema.js";
import type { CreateResponseBody } from "../spec/index.js";
import type { GenerateContext } from "./context.js";
import { countInputTokens } from "./input-tokens.js";
import type { Plan, PlanItem, PlanOutcome } from "./plan.js";
import { buildBaseResponse } from "./response-base.js";

/** Stream options a request asks for: obfuscation padding, logprobs, queued start. */
export function planOptions(request: CreateResponseBody): Plan["options"] {
  return {
    obfuscation: request.stream_options?.include_obfuscation !== false,
    logprobs: request.include?.includes("message.output_text.logprobs") ? (request.top_logprobs ?? 0) : null,
  };
}

/** Assembles a plan from items and an outcome, with the request's echoes and budget. */
export function assemblePlan(
  ctx: GenerateContext,
  id: string,
  items: PlanItem[],
  outcome: PlanOutcome,
  scenario?: { model?: string; timing?: ScenarioTiming; fault?: Fault },
  budget?: number | null,
): Plan {
  return {
    timing: scenario?.timing,
    fault: scenario?.fault,
    base: buildBaseResponse(ctx.request, { id, createdAt: ctx.createdAt, model: scenario?.model }),
    items,
    outcome,
    budget: budget !== undefined ? budget : (ctx.request.max_output_tokens ?? null),
    inputTokens: countInputTokens(ctx.request, ctx.items),
    completedAt: ctx.createdAt,
    options: planOptions(ctx.request),
  };
}

