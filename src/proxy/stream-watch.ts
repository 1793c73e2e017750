/**
 * Watching a Responses stream that passes through the proxy untouched: what
 * it has said so far (the response snapshot, the items, the last sequence
 * number, whether it ended), so that when the upstream cuts it short the
 * proxy can end it the spec's way — an `error` event, then `response.failed`
 * with the sequence numbers going on — and the recorder can read it back.
 * It never throws on what an upstream sends. Pure.
 */
import { foldEvents } from "../emit/fold.js";
import type { ErrorPayload, ResponseResource, StreamEvent } from "../spec/index.js";
import { TERMINAL_EVENT_TYPES } from "../spec/index.js";

type Json = Record<string, unknown>;

/** One event as it arrived: parsed, and when (ms since the request reached the proxy). */
export interface TimedEvent {
  at: number;
  event: Json & { type: string };
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export class StreamWatch {
  /** The events read, in order. */
  readonly events: TimedEvent[] = [];
  /** The latest response snapshot the stream carried. */
  response: ResponseResource | null = null;
  /** The terminal event's type, once seen. */
  terminal: string | null = null;
  /** The highest sequence number seen, or null when none carried one. */
  lastSequence: number | null = null;
  /** Events seen (frames whose data was a JSON object with a type). */
  count = 0;
  /** Whether `data: [DONE]` was seen. */
  done = false;
  /** Output items by output_index, as added (and replaced when done). */
  private readonly items: Json[] = [];

  /** Reads one frame's data. */
  frame(data: string, at: number): void {
    if (data === "[DONE]") {
      this.done = true;
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (!isObject(event) || typeof event.type !== "string") return;
    this.count++;
    if (typeof event.sequence_number === "number")
      this.lastSequence = Math.max(this.lastSequence ?? -1, event.sequence_number);
    if (isObject(event.response) && event.response.object === "response")
      this.response = event.response as unknown as ResponseResource;
    const index = event.output_index;
    if (
      (event.type === "response.output_item.added" || event.type === "response.output_item.done") &&
      typeof index === "number" &&
      isObject(event.item) &&
      index >= 0 &&
      index <= 10_000
    ) {
      this.items[index] = event.item;
    }
    if (TERMINAL_EVENT_TYPES.has(event.type)) this.terminal = event.type;
    this.events.push({ at, event: event as TimedEvent["event"] });
  }

  /**
   * The output as the stream has built it: the fold of its events so far
   * (parts and text as streamed), or, for a stream the fold cannot read (an
   * upstream off the spec), the last copy of each item it sent.
   */
  private outputSoFar(): (Json & { status?: unknown })[] {
    try {
      return foldEvents(
        this.events.map((e) => e.event as unknown as StreamEvent),
        { partial: true },
      ).output as unknown as Json[];
    } catch {
      return this.items.filter(Boolean);
    }
  }

  /**
   * The events that end a cut stream: `error`, then `response.failed` with
   * the items so far (open ones `incomplete`), numbered after the last event
   * seen. `fallback` is the response to fail when the stream never sent one.
   */
  cutEvents(error: ErrorPayload, fallback: ResponseResource): StreamEvent[] {
    const out: StreamEvent[] = [];
    let seq = this.lastSequence !== null ? this.lastSequence + 1 : this.count;
    const base = this.response ?? fallback;
    if (this.count === 0) {
      // Nothing was sent: the stream still opens the spec's way.
      out.push({
        type: "response.created",
        sequence_number: seq++,
        response: { ...base, status: "in_progress", output: [] },
      } as unknown as StreamEvent);
      out.push({
        type: "response.in_progress",
        sequence_number: seq++,
        response: { ...base, status: "in_progress", output: [] },
      } as unknown as StreamEvent);
    }
    out.push({ type: "error", sequence_number: seq++, error } as StreamEvent);
    const output = this.outputSoFar().map((item) =>
      item.status === "in_progress" ? { ...item, status: "incomplete" } : item,
    );
    const response = {
      ...base,
      status: "failed",
      completed_at: null,
      output,
      error: { type: error.type, code: error.code ?? error.type, message: error.message },
      incomplete_details: null,
    };
    out.push({ type: "response.failed", sequence_number: seq, response } as unknown as StreamEvent);
    return out;
  }
}
