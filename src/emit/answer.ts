/**
 * One request's answer, from a validated request: pick the seed, select the
 * scenario, plan — then emit either the whole stream or only the final
 * response. Pure. The HTTP handler, the WebSocket handler and `play` all
 * answer through it, so they cannot differ.
 */
import { createRng, planScenario, requestSeed, type Plan } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario, type ScenarioRegistry, type SelectionReason } from "../scenario/registry.js";
import type { Scenario } from "../scenario/schema.js";
import type { CreateResponseBody, ItemParam, ResponseResource, StreamEvent } from "../spec/index.js";
import { emitFinal, emitStream } from "./emit-events.js";

export interface AnswerInput {
  registry: ScenarioRegistry;
  request: CreateResponseBody;
  /** The seed: an `x-mock-seed` value, or the server's seed. */
  seed: number;
  /** The `x-mock-scenario` header, if any. */
  scenario?: string;
  /** Unix seconds for `created_at`. */
  createdAt: number;
  /** The conversation, when it is more than the request's input (previous_response_id). */
  items?: ItemParam[];
  /** A queued answer or `use()` scenario of the request's session (the header still wins). */
  forced?: { scenario: Scenario; reason: SelectionReason };
}

export interface PlannedAnswer {
  scenario: Scenario;
  reason: SelectionReason;
  plan: Plan;
  /** The seed string the answer was drawn from; the timing rng derives from it. */
  seed: string;
}

export interface Answer extends PlannedAnswer {
  events: StreamEvent[];
  /** Per-step pauses, by event index, for the timing schedule. */
  pauses: ReadonlyMap<number, number>;
  /** The final response (the terminal event's). */
  response: ResponseResource;
}

/** Selects and plans the answer to a validated request. Throws the ApiError of an unknown scenario or an `http_error` turn. */
export function planRequest(input: AnswerInput): PlannedAnswer {
  const { request } = input;
  const seed = requestSeed(input.seed, request);
  const items = input.items ?? inputItems(request.input);
  const { scenario, reason } = selectScenario(input.registry, request, items, input.scenario || undefined, input.forced);
  const plan = planScenario(scenario, { request, items, rng: createRng(seed), createdAt: input.createdAt });
  // Background responses start queued (a response.queued event when streamed).
  if (request.background) plan.options.queued = true;
  return { scenario, reason, plan, seed };
}

/** The planned answer with its whole stream of events. */
export function withEvents(planned: PlannedAnswer): Answer {
  const { events, pauses, response } = emitStream(planned.plan);
  return { scenario: planned.scenario, reason: planned.reason, plan: planned.plan, seed: planned.seed, events, pauses, response };
}

const NO_PAUSES: ReadonlyMap<number, number> = new Map();

/** The planned answer's final response only, with no events built (a non-streamed answer with no timing). */
export function finalOnly(planned: PlannedAnswer): Answer {
  return { scenario: planned.scenario, reason: planned.reason, plan: planned.plan, seed: planned.seed, events: [], pauses: NO_PAUSES, response: emitFinal(planned.plan) };
}

/** Answers a validated request with its whole stream. */
export function answerRequest(input: AnswerInput): Answer {
  return withEvents(planRequest(input));
}
