/**
 * One request's answer, from a validated request: pick the seed, select the
 * scenario, plan — then emit either the whole stream or only the final
 * response. Pure. The HTTP handler, the WebSocket handler and `play` all
 * answer through it, so they cannot differ.
 */
import { DEFAULT_DIALECT, type Dialect } from "../dialect/index.js";
import { answerIds, createRng, planScenario, requestSeed, type Plan } from "../generate/index.js";
import { isPacked, packPlan } from "../generate/packed-chunks.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario, type ScenarioRegistry, type SelectionReason } from "../scenario/registry.js";
import type { Scenario } from "../scenario/schema.js";
import {
  ApiError,
  type CreateResponseBody,
  type ItemParam,
  type ResponseResource,
  type StreamEvent,
} from "../spec/index.js";
import { emitStream, EventWindow } from "./emit-events.js";
import { finalResponse } from "./final.js";

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
  /** The dialect the answer is sent in (its ids, whether vendor extensions are drawn, where annotations go). */
  dialect?: Dialect;
  /** The request's session (mixed into its ids, so sessions never share one). */
  session?: string | null;
  /** How many identical requests (same seed string and session) came before: their ids are not reused. */
  repeat?: number;
  /** The seed string, when the caller already has it (`requestSeed(seed, request)`). */
  seedString?: string;
  /** The scenario, when the caller has selected it already (the turn selects once, before it plans). */
  selected?: { scenario: Scenario; reason: SelectionReason };
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
  const dialect = input.dialect ?? DEFAULT_DIALECT;
  const seed = input.seedString ?? requestSeed(input.seed, request);
  const items = input.items ?? inputItems(request.input);
  const { scenario, reason } =
    input.selected ?? selectScenario(input.registry, request, items, input.scenario || undefined, input.forced);
  const plan = planWith(
    scenario,
    request,
    items,
    seed,
    dialect,
    input.session ?? null,
    input.repeat ?? 0,
    input.createdAt,
  );
  return { scenario, reason, plan, seed };
}

/**
 * The plan of a selected scenario for a request: every input that decides it
 * is an argument, so that the same arguments give the same plan, key for key
 * (a PlanRecipe plans again from them).
 */
export function planWith(
  scenario: Scenario,
  request: CreateResponseBody,
  items: ItemParam[],
  seed: string,
  dialect: Dialect,
  session: string | null,
  repeat: number,
  createdAt: number,
): Plan {
  const rng = createRng(seed);
  const ids = answerIds(rng, dialect.ids, seed, session, repeat);
  let plan: Plan;
  try {
    plan = planScenario(scenario, {
      request,
      items,
      rng,
      ids,
      vendorExtensions: dialect.vendorExtensions,
      hostedItems: dialect.hostedItems,
      createdAt,
    });
  } catch (err) {
    // An `http_error` turn names its scenario like every answer does.
    if (err instanceof ApiError) (err.headers as Record<string, string>)["x-mock-scenario"] = scenario.name;
    throw err;
  }
  // Background responses start queued (a response.queued event when streamed).
  if (request.background) plan.options.queued = true;
  if (dialect.annotationsInline) plan.options.annotationsInline = true;
  // A long answer's deltas are kept packed: its plan lives as long as its stream, and as its stored response.
  return packPlan(plan);
}

/** The planned answer with its whole stream of events. */
export function withEvents(planned: PlannedAnswer): Answer {
  const { events, pauses, response } = emitStream(planned.plan);
  return {
    scenario: planned.scenario,
    reason: planned.reason,
    plan: planned.plan,
    seed: planned.seed,
    events,
    pauses,
    response,
  };
}

const NO_PAUSES: ReadonlyMap<number, number> = new Map();

/** The planned answer's final response only, with no events built (a non-streamed answer with no timing). */
export function finalOnly(planned: PlannedAnswer): Answer {
  return {
    scenario: planned.scenario,
    reason: planned.reason,
    plan: planned.plan,
    seed: planned.seed,
    events: [],
    pauses: NO_PAUSES,
    response: finalResponse(planned.plan),
  };
}

/** A planned answer whose events are produced as they are sent. */
export interface LazyAnswer extends PlannedAnswer {
  /** The events, each built when it is first asked for; the per-step pauses with them. */
  events: EventWindow;
  /** The final response (the terminal event's), built up front without the events. */
  response: ResponseResource;
}

/**
 * The planned answer with its events to come: the final response now (the
 * store and the journal need it before the stream has been played), the
 * events one at a time as the stream reaches them.
 */
export function withLazyEvents(planned: PlannedAnswer): LazyAnswer {
  return {
    scenario: planned.scenario,
    reason: planned.reason,
    plan: planned.plan,
    seed: planned.seed,
    events: new EventWindow(planned.plan),
    response: finalResponse(planned.plan),
  };
}

/**
 * The planned answer with its events, for a stream: built up front in one pass
 * for a short answer (a lazy stream emits twice, its final response first,
 * which costs a short answer more than its events weigh), one at a time for a
 * long one (its plan was packed: holding its events would cost ~300 kB a stream).
 */
export function withStreamEvents(planned: PlannedAnswer): Answer | LazyAnswer {
  return isPacked(planned.plan) ? withLazyEvents(planned) : withEvents(planned);
}

/** Answers a validated request with its whole stream. */
export function answerRequest(input: AnswerInput): Answer {
  return withEvents(planRequest(input));
}
