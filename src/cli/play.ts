/**
 * `play`: the SSE text a request would get, without a server. Pure (no I/O,
 * no clock: the time is passed in); it validates the body and answers it with
 * `answerRequest`, as `POST /v1/responses` does, so its output is byte for
 * byte what the server streams for the same request, seed and time (timing
 * aside: play prints no heartbeats).
 */
import { DEFAULT_DIALECT, type Dialect } from "../dialect/index.js";
import { EventSource, planRequest } from "../emit/index.js";
import type { Plan } from "../generate/plan.js";
import { parseCreateRequest } from "../http/validate.js";
import { doneFrame, sseFrame } from "../http/sse.js";
import type { ScenarioRegistry } from "../scenario/registry.js";
import type { Scenario } from "../scenario/schema.js";
import type { StreamEvent } from "../spec/index.js";

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
  /** The dialect the stream is written in (the spec's by default). */
  dialect?: Dialect;
  /** Validate the body against the spec alone, as `serve --strict` does (default false). */
  strict?: boolean;
}

export interface PlayResult {
  scenario: Scenario;
  events: StreamEvent[];
  /** The whole SSE body: one frame per event, then `data: [DONE]` where the dialect sends it. */
  text: string;
}

/** The SSE body of an event list, exactly as the server writes it in a dialect. */
export function sseText(events: readonly StreamEvent[], dialect: Dialect = DEFAULT_DIALECT, plan?: Plan): string {
  return events.map((e) => sseFrame(e, dialect, plan)).join("") + doneFrame(dialect);
}

/**
 * Answers one request as the server would. Throws the server's `ApiError`
 * for an invalid body, an unknown scenario, or a turn that ends in
 * `http_error` — the caller renders it like the HTTP layer does.
 */
export function playRequest(input: PlayInput): PlayResult {
  const request = parseCreateRequest(input.body, { strict: input.strict ?? false });
  const dialect = input.dialect ?? DEFAULT_DIALECT;
  const { scenario, plan } = planRequest({
    registry: input.registry,
    request,
    seed: input.seed,
    scenario: input.scenario,
    createdAt: Math.floor(input.now / 1000),
    dialect,
  });
  // Each event becomes its frame as it is produced; only the frames are kept for the text.
  const source = new EventSource(plan);
  const events: StreamEvent[] = [];
  const frames: string[] = [];
  for (let e = source.next(); e !== undefined; e = source.next()) {
    events.push(e);
    frames.push(sseFrame(e, dialect, plan));
  }
  return { scenario, events, text: frames.join("") + doneFrame(dialect) };
}
