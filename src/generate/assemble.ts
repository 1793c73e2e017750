/** The parts of a plan every generator fills the same way. */
import type { Fault, ScenarioTiming } from "../scenario/schema.js";
import type { CreateResponseBody } from "../spec/index.js";
import type { GenerateContext } from "./context.js";
import { countInputTokens } from "./input-tokens.js";
import type { Plan, PlanItem, PlanOutcome, RequestEcho } from "./plan.js";
import { buildBaseResponse } from "./response-base.js";

/** Stream options a request asks for: obfuscation padding, logprobs, queued start. */
export function planOptions(request: CreateResponseBody): Plan["options"] {
  return {
    obfuscation: request.stream_options?.include_obfuscation !== false,
    logprobs: request.include?.includes("message.output_text.logprobs") ? (request.top_logprobs ?? 0) : null,
  };
}

/** Whether the request asks for reasoning summaries (the request schema reads the older `generate_summary` as `summary`). */
export const wantsSummary = (request: CreateResponseBody): boolean => Boolean(request.reasoning?.summary);

/** The request fields a dialect may echo beyond the spec's. */
export function requestEcho(request: CreateResponseBody): RequestEcho {
  return {
    user: request.user,
    prompt_cache_retention: request.prompt_cache_retention,
    format: request.text?.format,
    reasoning: request.reasoning,
    service_tier: request.service_tier,
  };
}

/**
 * Assembles a plan from items and an outcome, with the request's echoes and budget. */
export function assemblePlan(
  ctx: GenerateContext,
  id: string,
  items: PlanItem[],
  outcome: PlanOutcome,
  scenario?: { model?: string; timing?: ScenarioTiming; fault?: Fault },
  budget?: number | null,
): Plan {
  // Summaries are sent only when the request asks for them; otherwise a reasoning item has `summary: []`.
  if (!wantsSummary(ctx.request)) for (const item of items) if (item.kind === "reasoning") item.summary = [];
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
    echo: requestEcho(ctx.request),
  };
}
