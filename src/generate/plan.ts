/**
 * A plan: what one response will say, before it is turned into events. The
 * generator (scenario + request + rng) builds it; the pure emitter plays it.
 * Every id, every chunk boundary and every timestamp is already decided here.
 */
import type { Fault, ScenarioTiming } from "../scenario/schema.js";
import type { ErrorPayload, OutputAnnotation, ResponseResource } from "../spec/index.js";
import type { Chunks } from "./packed-chunks.js";

/** A text part of an assistant message; its text is `chunks.join("")` (chunks are packed in a long answer: packed-chunks.ts). */
export interface PlanTextPart {
  type: "output_text";
  chunks: Chunks;
  /** url_citation (any dialect) or file_citation (only where OpenAI's types are spoken). */
  annotations?: OutputAnnotation[];
}

/** A refusal part of an assistant message. */
export interface PlanRefusalPart {
  type: "refusal";
  chunks: Chunks;
}

export interface PlanMessage {
  kind: "message";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  id: string;
  phase?: "commentary" | "final_answer";
  parts: (PlanTextPart | PlanRefusalPart)[];
}

export interface PlanFunctionCall {
  kind: "function_call";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  id: string;
  call_id: string;
  name: string;
  /** The argument JSON text, as the deltas that stream it. */
  chunks: Chunks;
}

export interface PlanReasoning {
  kind: "reasoning";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  id: string;
  /** One entry per summary part, each the deltas of its text. */
  summary: Chunks[];
  /** Raw reasoning text parts (`reasoning_text`), each as its deltas. */
  content?: Chunks[];
  encrypted_content?: string;
}

/** A vendor custom item (`acme:search_call`), sent whole in added/done. */
export interface PlanVendorItem {
  kind: "vendor_item";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  item: { type: string; id: string; status?: string; [key: string]: unknown };
}

/** A vendor custom event (`acme:progress`) between items. */
export interface PlanVendorEvent {
  kind: "vendor_event";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  event: { type: string; [key: string]: unknown };
}

/** One of a hosted call's own events (`response.web_search_call.searching`, a code delta, …). */
export interface PlanHostedEvent {
  type: string;
  /** Fields after `output_index` and `item_id` (e.g. `code` on `.done`, `partial_image_b64`). */
  fields?: Record<string, unknown>;
  /** A delta event: this text is appended to the item's `code` or `arguments`. */
  delta?: { text: string; into: "code" | "arguments" };
}

/**
 * An OpenAI hosted-tool call (`web_search_call`, `mcp_call`, …) as api.openai.com
 * streams it: `added` on output_item.added, the tool's own events, `done` on
 * output_item.done. Planned only in a dialect that speaks OpenAI's types; the
 * spec dialect gets `openai:`-prefixed vendor items instead (generate/hosted.ts).
 */
export interface PlanHostedCall {
  kind: "hosted_call";
  /** Extra pause before this step's first event, in ms (scripted per-step delays). */
  delayMs?: number;
  added: { type: string; id: string; [key: string]: unknown };
  events: PlanHostedEvent[];
  done: { type: string; id: string; [key: string]: unknown };
}

export type PlanItem =
  PlanMessage | PlanFunctionCall | PlanReasoning | PlanVendorItem | PlanVendorEvent | PlanHostedCall;

export type PlanOutcome =
  | { kind: "completed" }
  /** Ends `incomplete` with this reason; the last item ends `incomplete`. */
  | { kind: "incomplete"; reason: string }
  /**
   * Ends with `error` then `response.failed`. With `afterEvents: N` the
   * failure comes after the first N events of the stream (never before
   * `response.in_progress`); without it, after the last item.
   */
  | { kind: "failed"; error: ErrorPayload; afterEvents?: number };

export interface PlanOptions {
  /** Put `obfuscation` padding on delta events (stream_options.include_obfuscation). */
  obfuscation: boolean;
  /** Number of `top_logprobs` when logprobs were asked for, else null. */
  logprobs: number | null;
  /** Start `queued` (background mode): adds `response.queued`. */
  queued?: boolean;
  /**
   * Send each `output_text.annotation.added` right after the delta that
   * completes the cited span (as api.openai.com does), instead of after the
   * whole text.
   */
  annotationsInline?: boolean;
}

/**
 * What a dialect may echo of the request beyond the spec's response fields
 * (kept with the plan, so a stored response renders the same later).
 */
export interface RequestEcho {
  user?: string | null;
  prompt_cache_retention?: string | null;
  /** `text.format` as sent (a json_schema format with its schema). */
  format?: unknown;
  /** `reasoning` as sent. */
  reasoning?: { effort?: string | null; summary?: string | null } | null;
  /** `service_tier` as sent. */
  service_tier?: string | null;
}

export interface Plan {
  /** The response as it starts: every echo filled, `output: []`, `usage: null`. */
  base: ResponseResource;
  items: PlanItem[];
  outcome: PlanOutcome;
  /** Output token budget (`max_output_tokens`); past it the response is incomplete. */
  budget: number | null;
  /** Tokens of the whole context, for `usage.input_tokens`. */
  inputTokens: number;
  /** Unix seconds written as `completed_at` when the response completes. */
  completedAt: number;
  options: PlanOptions;
  /** The request fields a dialect may echo. */
  echo: RequestEcho;
  /** Timing asked for by the scenario and its turn (the server's and the request's are merged around it). */
  timing?: ScenarioTiming;
  /** Faults asked for by the scenario and its turn. */
  fault?: Fault;
}
