/**
 * Self-checks of the compliance validators (no server): the hand-written
 * schemas accept well-formed objects and reject each missing required key,
 * and the SSE parser reports what it must.
 */
import { describe, expect, it } from "vitest";
import {
  CompactResource,
  ItemField,
  RESPONSE_RESOURCE_KEYS,
  ResponseResource,
  STREAMING_EVENT_TYPES,
  StreamingEvent,
  WebSocketErrorEvent,
} from "./schemas.js";
import { parseSseStream } from "./sse.js";

const usage = {
  input_tokens: 3,
  output_tokens: 4,
  total_tokens: 7,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
};
const message = {
  type: "message",
  id: "msg_1",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text: "Hi.", annotations: [] }],
};

function response(): Record<string, unknown> {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1700000000,
    completed_at: 1700000001,
    status: "completed",
    incomplete_details: null,
    model: "m",
    previous_response_id: null,
    instructions: null,
    output: [message],
    error: null,
    tools: [{ type: "function", name: "f", description: null, parameters: { type: "object" }, strict: true }],
    tool_choice: "auto",
    truncation: "disabled",
    parallel_tool_calls: true,
    text: { format: { type: "text" } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage,
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: "default",
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
  };
}

/** One well-formed example of each of the 24 streaming events. */
function sampleEvents(): Record<string, unknown>[] {
  const ci = { item_id: "msg_1", output_index: 0, content_index: 0 };
  const si = { item_id: "rs_1", output_index: 0, summary_index: 0 };
  const events: Record<string, unknown>[] = [
    ...["created", "queued", "in_progress", "completed", "failed", "incomplete"].map((s) => ({
      type: `response.${s}`,
      response: response(),
    })),
    { type: "response.output_item.added", output_index: 0, item: message },
    { type: "response.output_item.done", output_index: 0, item: null },
    { type: "response.reasoning_summary_part.added", ...si, part: { type: "summary_text", text: "" } },
    { type: "response.reasoning_summary_part.done", ...si, part: { type: "summary_text", text: "x" } },
    { type: "response.content_part.added", ...ci, part: { type: "output_text", text: "", annotations: [] } },
    { type: "response.content_part.done", ...ci, part: { type: "refusal", refusal: "no" } },
    { type: "response.output_text.delta", ...ci, delta: "H" },
    { type: "response.output_text.done", ...ci, text: "Hi." },
    { type: "response.refusal.delta", ...ci, delta: "n" },
    { type: "response.refusal.done", ...ci, refusal: "no" },
    { type: "response.reasoning.delta", ...ci, delta: "t" },
    { type: "response.reasoning.done", ...ci, text: "t" },
    { type: "response.reasoning_summary_text.delta", ...si, delta: "s" },
    { type: "response.reasoning_summary_text.done", ...si, text: "s" },
    {
      type: "response.output_text.annotation.added",
      ...ci,
      annotation_index: 0,
      annotation: { type: "url_citation", url: "https://x", start_index: 0, end_index: 1, title: "x" },
    },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: "{" },
    { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 0, arguments: "{}" },
    { type: "error", error: { type: "server_error", code: null, message: "boom", param: null } },
  ];
  return events.map((e, i) => ({ ...e, sequence_number: i }));
}

describe("compliance validators", () => {
  it("ResponseResource accepts a full response and rejects each of the 31 keys missing", () => {
    expect(RESPONSE_RESOURCE_KEYS).toHaveLength(31);
    expect(ResponseResource.safeParse(response()).success).toBe(true);
    for (const key of RESPONSE_RESOURCE_KEYS) {
      const r = response();
      delete r[key];
      expect(ResponseResource.safeParse(r).success, `without ${key}`).toBe(false);
    }
  });

  it("ResponseResource checks types and enums", () => {
    const bad: [string, unknown][] = [
      ["object", "thing"],
      ["created_at", 1.5],
      ["completed_at", "now"],
      ["truncation", "sometimes"],
      ["tool_choice", "maybe"],
      ["tools", [{ type: "function", name: "f" }]],
      ["usage", { ...usage, input_tokens_details: {} }],
      ["reasoning", {}],
      ["output", [{ ...message, id: undefined }]],
      ["text", { format: { type: "text" }, verbosity: null }],
      ["error", { code: "x" }],
    ];
    for (const [key, value] of bad)
      expect(ResponseResource.safeParse({ ...response(), [key]: value }).success, key).toBe(false);
  });

  it("the streaming union covers 24 types, accepts each sample and rejects each with a required key removed", () => {
    expect(new Set(STREAMING_EVENT_TYPES).size).toBe(24);
    const samples = sampleEvents();
    expect(new Set(samples.map((e) => e.type))).toEqual(new Set(STREAMING_EVENT_TYPES));
    for (const event of samples) {
      const ok = StreamingEvent.safeParse(event);
      expect(ok.success, `${String(event.type)}: ${JSON.stringify(ok.error?.issues)}`).toBe(true);
      for (const key of Object.keys(event)) {
        if (key === "type") continue;
        const copy = { ...event };
        delete copy[key];
        expect(StreamingEvent.safeParse(copy).success, `${String(event.type)} without ${key}`).toBe(false);
      }
    }
    expect(StreamingEvent.safeParse({ type: "response.unknown", sequence_number: 0 }).success).toBe(false);
  });

  it("items, WebSocket errors and CompactResource follow their required keys", () => {
    expect(ItemField.safeParse({ type: "reasoning", id: "rs", summary: [], encrypted_content: null }).success).toBe(
      false,
    );
    expect(ItemField.safeParse({ type: "compaction", id: "cmp" }).success).toBe(false);
    expect(
      ItemField.safeParse({
        type: "function_call",
        id: "fc",
        call_id: "c",
        name: "f",
        arguments: "{}",
        status: "completed",
      }).success,
    ).toBe(true);
    expect(
      WebSocketErrorEvent.safeParse({ type: "error", status: 400, error: { code: "x", message: "y", extra: 1 } })
        .success,
    ).toBe(true);
    expect(WebSocketErrorEvent.safeParse({ type: "error", status: 400, error: { message: "y" } }).success).toBe(false);
    expect(WebSocketErrorEvent.safeParse({ type: "error", error: { code: "x", message: "y" } }).success).toBe(false);
    const compacted = {
      id: "c",
      object: "response.compaction",
      output: [{ type: "compaction", id: "cmp", encrypted_content: "e" }],
      created_at: 1,
      usage,
    };
    expect(CompactResource.safeParse(compacted).success).toBe(true);
    expect(CompactResource.safeParse({ ...compacted, usage: null }).success).toBe(false);
  });

  /** A fetch Response whose body arrives in pieces of `size` bytes. */
  function chunked(text: string, size: number): Response {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      },
    });
    return new Response(body);
  }

  it("the SSE parser reads messages split across chunks, takes the terminal response and sees [DONE]", async () => {
    const events = [
      {
        type: "response.created",
        sequence_number: 0,
        response: { ...response(), status: "in_progress", completed_at: null, usage: null, output: [] },
      },
      { type: "response.completed", sequence_number: 1, response: response() },
    ];
    const text = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
    const result = await parseSseStream(chunked(text.replaceAll("\n", "\r\n"), 7));
    expect(result.errors).toEqual([]);
    expect(result.events).toHaveLength(2);
    expect(result.sawDone).toBe(true);
    expect((result.finalResponse as { id: string }).id).toBe("resp_1");
  });

  it("the SSE parser reports a mismatched event line, invalid JSON and schema errors", async () => {
    const delta = {
      type: "response.output_text.delta",
      sequence_number: 0,
      item_id: "m",
      output_index: 0,
      content_index: 0,
      delta: "x",
    };
    const text = [
      `event: response.output_text.done\ndata: ${JSON.stringify(delta)}\n\n`,
      `event: response.output_text.delta\ndata: {"type":\ndata: "x"}\n\n`,
      `event: response.output_text.delta\ndata: ${JSON.stringify({ ...delta, sequence_number: undefined })}\n\n`,
    ].join("");
    const result = await parseSseStream(chunked(text, 1000));
    expect(result.errors.some((e) => e.includes("does not match"))).toBe(true);
    expect(result.errors.filter((e) => e.startsWith("Failed to parse"))).toHaveLength(2);
    expect(result.errors.some((e) => e.startsWith("Event validation failed for response.output_text.delta"))).toBe(
      true,
    );
    expect(result.finalResponse).toBeNull();
    expect(result.sawDone).toBe(false);
  });
});
