/**
 * `play`: the SSE text a request would get, without a server. Pure (no I/O,
 * no clock: the time is passed in) and built from the very steps of
 * `POST /v1/responses` — validate the body, seed = requestSeed(server seed,
 * request), select, plan, emit, frame — so its output is byte for byte what
 * the server streams for the same request, seed and time.
 */
import { emitEvents } from "../emit/index.js";
import { createRng, planScenario, requestSeed } from "../generate/index.js";
import { parseOrThrow } from "../http/validate.js";
import { DONE_FRAME, sseFrame } from "../http/sse.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario, type ScenarioRegistry } from "../scenario/registry.js";
import type { Scenario } from "../scenario/schema.js";
import { CreateResponseBody, type StreamEvent } from "../spec/index.js";

/** The request body `play` sends: `{model, input, stream: true}`. */
export const DEFAULT_PLAY_MODEL = "mock-model-1";
export const DEFAULT_PLAY_INPUT = "Hello!";

export interface PlayInput {
  registry: ScenarioRegistry;
  /** The request body as a client would send it (it is validated like the server does). */
  body: unknown;
  /** The server seed (the server's `--seed`, default 0), or an `x-mock-seed` value. */
  seed: number;
  /** The `x-mock-scenario` header, if any; without it the server's selection rules apply. */
  scenario?: string;
  /** Milliseconds since the epoch: `created_at` is this, in seconds. */
  now: number;
}

export interface PlayResult {
  scenario: Scenario;
  events: StreamEvent[];
  /** The whole SSE body: one frame per event, then `data: [DONE]`. */
  text: string;
}

/** The SSE body of an event list, exactly as the server writes it. */
export function sseText(events: readonly StreamEvent[]): string {
  return events.map(sseFrame).join("") + DONE_FRAME;
}

/**
 * Answers one request as the server would. Throws the server's `ApiError`
 * for an invalid body, an unknown scenario, or a turn that ends in
 * `http_error` — the caller renders it like the HTTP layer does.
 */
export function playRequest(input: PlayInput): PlayResult {
  const request = parseOrThrow(CreateResponseBody, input.body);
  const rng = createRng(requestSeed(input.seed, request));
  const createdAt = Math.floor(input.now / 1000);
  const items = inputItems(request.input);
  const { scenario } = selectScenario(input.registry, request, items, input.scenario || undefined);
  const plan = planScenario(scenario, { request, items, rng, createdAt });
  const events = emitEvents(plan);
  return { scenario, events, text: sseText(events) };
}
