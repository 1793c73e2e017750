/**
 * The fold: any event list back into the response object. Pure, like the
 * accumulator of openai-node, and strict: an event that does not fit the
 * stream so far (a gap in sequence numbers, a delta for a part that was never
 * opened, a `.done` whose text differs from its deltas) throws a FoldError.
 * The non-streaming body is the fold of the events we would have streamed.
 */
import { isVendorType } from "../spec/common.js";
import { copyJson } from "./emit-events.js";
import type { OutputItem, ResponseResource, StandardStreamEvent, StreamEvent } from "../spec/index.js";

export class FoldError extends Error {
  constructor(
    message: string,
    readonly event?: unknown,
  ) {
    super(message);
    this.name = "FoldError";
  }
}

type HostedEvent = { type: string; output_index: number; item_id?: string; delta?: unknown; [key: string]: unknown };
type AnyItem = Record<string, unknown> & { type: string; id?: string; status?: string };
type TextPart = { type: string; text?: string; refusal?: string; annotations?: unknown[]; logprobs?: unknown[] };

const clone = <T>(v: T): T => copyJson(v);

/** OpenAI's hosted-tool items: their final item fills what the added one left null or empty (a search's action, a call's output). */
const HOSTED_ITEMS = new Set([
  "web_search_call",
  "file_search_call",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_list_tools",
  "mcp_call",
  "mcp_approval_request",
]);

/** OpenAI's hosted-tool status events: they change nothing, but must name an open item. */
const HOSTED_PHASE =
  /^response\.(web_search_call|file_search_call|code_interpreter_call|image_generation_call|mcp_call|mcp_list_tools)\.(in_progress|searching|interpreting|generating|partial_image|completed|failed)$/;

/** Hosted deltas and their `.done`: the item key they build. */
const HOSTED_DELTAS: Record<string, string> = {
  "response.code_interpreter_call_code": "code",
  "response.mcp_call_arguments": "arguments",
};

/** A value an item may send empty on `added` and fill on `done`. */
const unfilled = (v: unknown) => v === null || (Array.isArray(v) && v.length === 0);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface FoldOptions {
  /**
   * Fold a stream that has not ended yet: returns the response as it stands
   * (items still open keep status in_progress) instead of throwing.
   */
  partial?: boolean;
}

/** Folds a complete stream (through its terminal event) into the final response. */
export function foldEvents(events: readonly StreamEvent[], options: FoldOptions = {}): ResponseResource {
  let snapshot: ResponseResource | undefined;
  const output: AnyItem[] = [];
  const done = new Set<number>();
  let terminal = false;

  const fail = (msg: string, ev: unknown): never => {
    throw new FoldError(msg, ev);
  };
  const itemAt = (ev: { output_index: number; item_id?: string }): AnyItem => {
    const item = output[ev.output_index];
    if (!item) return fail(`no item at output_index ${ev.output_index}`, ev);
    if (done.has(ev.output_index)) return fail(`item at output_index ${ev.output_index} is already done`, ev);
    if (ev.item_id !== undefined && item.id !== ev.item_id)
      return fail(`item_id ${ev.item_id} does not match item ${item.id}`, ev);
    return item;
  };
  const partAt = (
    ev: { output_index: number; item_id?: string; content_index: number },
    list = "content",
  ): TextPart => {
    const item = itemAt(ev);
    const part = (item[list] as TextPart[] | undefined)?.[ev.content_index];
    if (!part) return fail(`no ${list} part ${ev.content_index} on item ${item.id}`, ev);
    return part;
  };
  const summaryAt = (ev: { output_index: number; item_id: string; summary_index: number }): TextPart =>
    partAt({ ...ev, content_index: ev.summary_index }, "summary");

  /** Folds one of OpenAI's hosted-tool events; false when `type` is not one. */
  const foldHosted = (type: string, ev: HostedEvent): boolean => {
    if (HOSTED_PHASE.test(type)) {
      itemAt(ev);
      return true;
    }
    const dot = type.lastIndexOf(".");
    const key = HOSTED_DELTAS[type.slice(0, dot)];
    if (key === undefined) return false;
    const item = itemAt(ev);
    if (type.endsWith(".delta")) item[key] = String(item[key] ?? "") + String(ev.delta);
    else if (type.endsWith(".done")) {
      if (item[key] !== ev[key]) fail(`${type} differs from its deltas`, ev);
    } else return false;
    return true;
  };

  events.forEach((raw, i) => {
    const event = raw as StandardStreamEvent;
    if (terminal) fail(`event after the terminal event: ${event.type}`, event);
    if (event.sequence_number !== i) fail(`sequence_number ${event.sequence_number} at position ${i}`, event);
    if (!snapshot && event.type !== "response.created")
      fail(`first event must be response.created, got ${event.type}`, event);
    switch (event.type) {
      case "response.created":
        if (snapshot) fail("second response.created", event);
        snapshot = clone(event.response);
        output.push(...(snapshot.output as AnyItem[]));
        break;
      case "response.queued":
      case "response.in_progress":
        snapshot = { ...clone(event.response), output: snapshot!.output };
        break;
      case "response.output_item.added": {
        if (event.output_index !== output.length)
          fail(`output_index ${event.output_index}, expected ${output.length}`, event);
        if (!event.item) fail("output_item.added without an item", event);
        output.push(clone(event.item) as AnyItem);
        break;
      }
      case "response.output_item.done": {
        const built = itemAt(event);
        const final = clone(event.item) as AnyItem;
        // What was streamed must match; `done` may add keys (e.g. encrypted_content) and sets the status.
        const hosted = HOSTED_ITEMS.has(built.type);
        for (const key of Object.keys(built)) {
          if (hosted && unfilled(built[key])) continue;
          if (key !== "status" && !same(built[key], final[key]))
            fail(`output_item.done item differs from the streamed item ${built.id} in '${key}'`, event);
        }
        output[event.output_index] = final;
        done.add(event.output_index);
        break;
      }
      case "response.content_part.added": {
        const item = itemAt(event);
        const content = (item.content ??= []) as unknown[];
        if (event.content_index !== content.length)
          fail(`content_index ${event.content_index}, expected ${content.length}`, event);
        content.push(clone(event.part));
        break;
      }
      case "response.content_part.done": {
        const part = partAt(event);
        if (!same(part, event.part)) fail(`content_part.done part differs from the streamed part`, event);
        break;
      }
      case "response.output_text.delta": {
        const part = partAt(event);
        part.text = (part.text ?? "") + event.delta;
        if (part.logprobs && event.logprobs) part.logprobs.push(...clone(event.logprobs));
        break;
      }
      case "response.output_text.done": {
        const part = partAt(event);
        if (part.text !== event.text) fail(`output_text.done text differs from its deltas`, event);
        break;
      }
      case "response.output_text.annotation.added": {
        const part = partAt(event);
        const list = (part.annotations ??= []);
        if (event.annotation_index !== list.length)
          fail(`annotation_index ${event.annotation_index}, expected ${list.length}`, event);
        list.push(clone(event.annotation));
        break;
      }
      case "response.refusal.delta":
        {
          const p = partAt(event);
          p.refusal = (p.refusal ?? "") + event.delta;
        }
        break;
      case "response.refusal.done":
        if (partAt(event).refusal !== event.refusal) fail("refusal.done differs from its deltas", event);
        break;
      case "response.reasoning.delta":
        {
          const p = partAt(event);
          p.text = (p.text ?? "") + event.delta;
        }
        break;
      case "response.reasoning.done":
        if (partAt(event).text !== event.text) fail("reasoning.done differs from its deltas", event);
        break;
      case "response.reasoning_summary_part.added": {
        const item = itemAt(event);
        const summary = (item.summary ??= []) as unknown[];
        if (event.summary_index !== summary.length)
          fail(`summary_index ${event.summary_index}, expected ${summary.length}`, event);
        summary.push(clone(event.part));
        break;
      }
      case "response.reasoning_summary_part.done":
        if (!same(summaryAt(event), event.part)) fail("reasoning_summary_part.done part differs", event);
        break;
      case "response.reasoning_summary_text.delta":
        {
          const p = summaryAt(event);
          p.text = (p.text ?? "") + event.delta;
        }
        break;
      case "response.reasoning_summary_text.done":
        if (summaryAt(event).text !== event.text) fail("reasoning_summary_text.done differs from its deltas", event);
        break;
      case "response.function_call_arguments.delta":
        (itemAt(event) as unknown as { arguments: string }).arguments += event.delta;
        break;
      case "response.function_call_arguments.done":
        if ((itemAt(event) as unknown as { arguments: string }).arguments !== event.arguments)
          fail("function_call_arguments.done differs from its deltas", event);
        break;
      case "error":
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed": {
        terminal = true;
        const open = output.map((item, idx) =>
          done.has(idx) ? item : { ...item, status: item.status === "in_progress" ? "incomplete" : item.status },
        );
        if (event.type !== "response.failed" && open.some((_, idx) => !done.has(idx)))
          fail(`${event.type} while an item is still open`, event);
        snapshot = { ...clone(event.response), output: open as OutputItem[] };
        break;
      }
      default: {
        // Every standard event is handled above (this fails to compile if one is not); what is left must be a vendor event.
        event satisfies never;
        const type = (raw as { type: unknown }).type;
        if (typeof type === "string" && foldHosted(type, raw as unknown as HostedEvent)) break;
        if (!isVendorType(type)) fail(`unknown event type ${String(type)}`, raw);
      }
    }
  });
  if (!snapshot) throw new FoldError("no events");
  if (!terminal) {
    if (!options.partial) throw new FoldError("the stream has no terminal event");
    return { ...snapshot, output: output as OutputItem[] };
  }
  return snapshot;
}
