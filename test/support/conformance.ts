/**
 * Conformance checks written from the spec, not from our emitter: every event
 * and response validates against the zod spec schemas; the stream obeys the
 * ordering rules of the spec's streaming rules (https://www.openresponses.org/specification, "Streaming HTTP Responses"); and the fold of the stream equals the
 * terminal event's response, field for field.
 */
import { expect } from "vitest";
import { foldEvents } from "../../src/emit/fold.js";
import {
  ErrorBody,
  ResponseResource,
  StreamEvent,
  TERMINAL_EVENT_TYPES as TERMINAL,
  isVendorType,
} from "../../src/spec/index.js";

type Ev = { type: string; sequence_number: number; [k: string]: any };

export function expectValidResponse(response: unknown): asserts response is ResponseResource {
  const r = ResponseResource.safeParse(response);
  if (!r.success)
    throw new Error(
      `invalid ResponseResource: ${JSON.stringify(r.error.issues.slice(0, 3))}\n${JSON.stringify(response).slice(0, 500)}`,
    );
  const res = response as ResponseResource;
  // All 31 keys present, even the nullable ones.
  expect(Object.keys(res).length).toBeGreaterThanOrEqual(31);
  if (res.usage) expect(res.usage.total_tokens).toBe(res.usage.input_tokens + res.usage.output_tokens);
  if (res.usage) expect(res.usage.output_tokens_details.reasoning_tokens).toBeLessThanOrEqual(res.usage.output_tokens);
  switch (res.status) {
    case "completed":
      expect(res.completed_at).not.toBeNull();
      expect(res.error).toBeNull();
      expect(res.incomplete_details).toBeNull();
      expect(res.usage).not.toBeNull();
      for (const item of res.output) if ("status" in item) expect(item.status).not.toBe("in_progress");
      break;
    case "incomplete": {
      expect(res.incomplete_details?.reason).toBeTruthy();
      expect(res.completed_at).toBeNull();
      expect(res.error).toBeNull();
      // Only the last item may be incomplete.
      res.output.slice(0, -1).forEach((item) => "status" in item && expect(item.status).toBe("completed"));
      break;
    }
    case "failed":
      expect(res.error).not.toBeNull();
      expect(res.completed_at).toBeNull();
      break;
    default:
      throw new Error(`unexpected terminal status ${res.status}`);
  }
}

export function expectErrorBody(body: unknown): asserts body is ErrorBody {
  const r = ErrorBody.safeParse(body);
  if (!r.success) throw new Error(`not a spec error body: ${JSON.stringify(body)}`);
  expect(r.data.error.message.length).toBeGreaterThan(10);
}

/** Checks one whole stream and returns its fold. */
export function expectConformantStream(events: readonly Ev[]): ResponseResource {
  expect(events.length).toBeGreaterThanOrEqual(3);
  for (const ev of events) {
    const r = StreamEvent.safeParse(ev);
    if (!r.success)
      throw new Error(
        `invalid event ${ev.type}: ${JSON.stringify(r.error.issues.slice(0, 3))}\n${JSON.stringify(ev).slice(0, 400)}`,
      );
  }
  events.forEach((ev, i) => expect(ev.sequence_number).toBe(i));

  // Response level: created, [queued], in_progress, …, one terminal last.
  expect(events[0].type).toBe("response.created");
  let i = 1;
  if (events[1].type === "response.queued") i = 2;
  expect(events[i].type).toBe("response.in_progress");
  const terminals = events.filter((e) => TERMINAL.has(e.type));
  expect(terminals).toHaveLength(1);
  const terminal = events[events.length - 1];
  expect(TERMINAL.has(terminal.type)).toBe(true);
  for (const e of events.slice(0, i + 1)) expect(e.response.output).toEqual([]);
  expect(events[0].response.status).toBe(i === 2 ? "queued" : "in_progress");
  expect(events[i].response.status).toBe("in_progress");
  const ids = new Set(events.filter((e) => e.response).map((e) => e.response.id));
  expect(ids.size).toBe(1);

  // Item level: one item open at a time, parts bracketed, deltas inside parts.
  let openItem: { index: number; id: string; type: string } | null = null;
  let openPart: { kind: "content" | "summary"; index: number; type: string } | null = null;
  let nextOutput = 0;
  let sawError = false;
  for (const ev of events.slice(i + 1, -1)) {
    if (sawError) throw new Error(`event ${ev.type} after error (only response.failed may follow)`);
    const where = () => {
      expect(openItem).not.toBeNull();
      expect(ev.output_index).toBe(openItem!.index);
      if (ev.item_id !== undefined) expect(ev.item_id).toBe(openItem!.id);
    };
    switch (ev.type) {
      case "response.output_item.added":
        expect(openItem).toBeNull();
        expect(ev.output_index).toBe(nextOutput++);
        if (ev.item.status !== undefined) expect(ev.item.status).toBe("in_progress");
        if (ev.item.type === "message") expect(ev.item.content).toEqual([]);
        if (ev.item.type === "function_call") expect(ev.item.arguments).toBe("");
        if (ev.item.type === "reasoning") expect(ev.item.summary).toEqual([]);
        openItem = { index: ev.output_index, id: ev.item.id, type: ev.item.type };
        break;
      case "response.output_item.done":
        where();
        expect(openPart).toBeNull();
        expect(ev.item.id).toBe(openItem!.id);
        if (ev.item.status !== undefined) expect(["completed", "incomplete"]).toContain(ev.item.status);
        openItem = null;
        break;
      case "response.content_part.added":
      case "response.reasoning_summary_part.added":
        where();
        expect(openPart).toBeNull();
        openPart = {
          kind: ev.type.includes("summary") ? "summary" : "content",
          index: ev.content_index ?? ev.summary_index,
          type: ev.part.type,
        };
        expect(ev.part.text ?? ev.part.refusal).toBe("");
        break;
      case "response.content_part.done":
      case "response.reasoning_summary_part.done":
        where();
        expect(openPart?.index).toBe(ev.content_index ?? ev.summary_index);
        openPart = null;
        break;
      case "response.output_text.delta":
      case "response.output_text.done":
      case "response.output_text.annotation.added":
        where();
        expect(openPart?.type).toBe("output_text");
        break;
      case "response.refusal.delta":
      case "response.refusal.done":
        where();
        expect(openPart?.type).toBe("refusal");
        break;
      case "response.reasoning.delta":
      case "response.reasoning.done":
        where();
        expect(openPart?.type).toBe("reasoning_text");
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_summary_text.done":
        where();
        expect(openPart?.type).toBe("summary_text");
        break;
      case "response.function_call_arguments.delta":
      case "response.function_call_arguments.done":
        where();
        expect(openItem!.type).toBe("function_call");
        break;
      case "error":
        sawError = true;
        break;
      default:
        if (!isVendorType(ev.type)) throw new Error(`unexpected event ${ev.type} mid-stream`);
        expect(openItem).toBeNull(); // vendor events come between items
    }
  }
  if (terminal.type === "response.failed") expect(events[events.length - 2].type).toBe("error");
  else {
    expect(sawError).toBe(false);
    expect(openItem).toBeNull();
  }

  expectValidResponse(terminal.response);
  const folded = foldEvents(events as never);
  expect(folded).toEqual(terminal.response);
  return folded;
}
