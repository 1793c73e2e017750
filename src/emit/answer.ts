/**
 * One request's answer, from a validated request to its events: pick the
 * seed, select the scenario, plan, emit. Pure. The HTTP handler, the
 * WebSocket handler and `play` all answer through it, so they cannot differ.
 */
import { createRng, planScenario, requestSeed, type Plan } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario, type ScenarioRegistry, type SelectionReason } from "../scenario/registry.js";
import type { Scenario } from "../scenario/schema.js";
import type { CreateResponseBody, ItemParam, StreamEvent } from "../spec/index.js";
import { emitStream } from "./emit-events.js";

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

export interface Answer {
  scenario: Scenario;
  reason: SelectionReason;
  plan: Plan;
  events: StreamEvent[];
  /** Per-step pauses, by event index, for the timing schedule. */
  pauses: ReadonlyMap<number, number>;
  /** The seed string the answer was drawn from; the timing rng derives from it. */
  seed: string;
}

/** Answers a validated request. Throws the ApiError of an unknown scenario or an `http_error` turn. */
export function answerRequest(input: AnswerInput): Answer {
  const { request } = input;
  const seed = requestSeed(input.seed, request);
  const items = input.items ?? inputItems(request.input);
  const { scenario, reason } = selectScenario(input.registry, request, items, input.scenario || undefined, input.forced);
  const plan = planScenario(scenario, { request, items, rng: createRng(seed), createdAt: input.createdAt });
  // Background responses start queued (a response.queued event when streamed).
  if (request.background) plan.options.queued = true;
  const { events, pauses } = emitStream(plan);
  return { scenario, reason, plan, events, pauses, seed };
}
