/**
 * What the journal keeps of a request's answer for the inspector, besides the
 * entry itself: its timeline, and where its events and final response come
 * from. A mock answer keeps only a reference to its plan and dialect (its
 * events are re-emitted from the plan when asked: the engine is
 * deterministic); a proxied one keeps the upstream's events as they were
 * forwarded (they cannot be re-emitted); an error keeps the error.
 */
import { PackedChunks, type Chunks } from "../generate/packed-chunks.js";
import type { Dialect } from "../dialect/render.js";
import type { PlanRecipe } from "../emit/recipe.js";
import type { Plan } from "../generate/plan.js";
import type { ApiError } from "../spec/errors.js";
import type { StreamEvent } from "../spec/index.js";
import type { Timeline } from "./timeline.js";

/** An event as it was forwarded, and when (ms since the request arrived). */
export interface ForwardedEvent {
  at: number;
  event: Record<string, unknown> & { type: string };
}

export type AnswerSource =
  /** The mock's own answer: streamed (SSE) or not; `events` when they differ from the plan's (a cancelled run). */
  | {
      kind: "mock";
      plan: Plan;
      dialect: Dialect;
      streamed: boolean;
      events?: readonly StreamEvent[];
      websocket?: boolean;
    }
  /**
   * A proxied stream: the events as forwarded (the first of them, when the
   * journal's bound cut them; `total` were sent), whether `[DONE]` ended it.
   * `render` when the events are the core's, rendered in a dialect as they were sent (a chat upstream).
   */
  | {
      kind: "forwarded";
      events: readonly ForwardedEvent[];
      total: number;
      done: boolean;
      render?: { dialect: Dialect; plan: Plan };
    }
  /** A proxied JSON answer: its body (parsed), when it was sent. */
  | { kind: "forwarded-json"; body: unknown; at: number }
  /** An error object answered (rendered in the request's dialect when asked). */
  | { kind: "error"; error: ApiError };

/**
 * The mock's own answer as the journal keeps it: its plan's recipe (the plan
 * is planned again when the inspector reads it: src/emit/recipe.ts), its
 * dialect and how it was sent.
 */
export class MockSource {
  readonly kind = "mock" as const;
  /** Set when the events sent differ from the plan's (a cancelled run). */
  events?: readonly StreamEvent[];

  constructor(
    private readonly recipe: PlanRecipe,
    readonly dialect: Dialect,
    readonly streamed: boolean,
    readonly websocket?: boolean,
  ) {}

  get plan(): Plan {
    return this.recipe.plan;
  }
}

export interface Trace {
  /** The marks of the answer, in order; null until the shell starts one. */
  timeline: Timeline | null;
  source: AnswerSource | null;
  /** What `source` costs, as charged to the journal. */
  sourceCost: number;
}

/** What a string costs in a plan: its characters and the string itself, roughly. */
const STRING_BYTES = 24;

/** The text pieces of a plan's chunked parts, counted. */
function chunksCost(chunks: Chunks): number {
  // A packed list is one string and a typed array of ends (a few bytes per delta).
  if (chunks instanceof PackedChunks) return chunks.text.length + STRING_BYTES + 4 * chunks.length;
  let n = 0;
  for (const c of chunks) n += c.length + STRING_BYTES;
  return n;
}

/** The length of a value's JSON (0 for none): what an echoed request field costs, roughly. */
const jsonLength = (value: unknown): number =>
  value === undefined || value === null ? 0 : typeof value === "string" ? value.length : JSON.stringify(value).length;

/**
 * What keeping a plan costs, estimated: its chunks of text and arguments,
 * and what its base response echoes of the request that can be big
 * (instructions, tools, a text format's schema). Whole items (vendor,
 * hosted) are counted by their JSON length.
 */
export function planCost(plan: Plan): number {
  let n =
    1024 +
    jsonLength(plan.base.instructions) +
    (plan.base.tools.length > 0 ? jsonLength(plan.base.tools) : 0) +
    jsonLength(plan.echo.format);
  for (const item of plan.items) {
    switch (item.kind) {
      case "message":
        for (const part of item.parts) n += chunksCost(part.chunks);
        break;
      case "function_call":
        n += chunksCost(item.chunks);
        break;
      case "reasoning":
        for (const s of item.summary) n += chunksCost(s);
        for (const c of item.content ?? []) n += chunksCost(c);
        n += item.encrypted_content?.length ?? 0;
        break;
      default:
        n += JSON.stringify(item).length;
    }
  }
  return n;
}
