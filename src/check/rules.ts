/**
 * The rules the checker applies, by stable id, and the violation it reports.
 * The ids are part of the public contract (the `--json` report, the proxy's
 * journal entries): a rule may be refined, never renamed. docs/check.md lists
 * each rule with the place in the spec it comes from.
 */

export const RULES = {
  "http.status": "A valid request is answered 200; a bad one 4xx with an error object.",
  "http.content-type": "JSON answers are application/json; streams are text/event-stream.",
  "json.body": "A JSON answer's body parses as JSON.",
  "sse.framing": "Each SSE message has one data: line holding one JSON object, and ends with a blank line.",
  "sse.event-name": "The event: line of each SSE message equals the JSON type.",
  "sse.id-line": "Servers should not send id: lines.",
  "sse.done": "open-responses: the stream ends with data: [DONE] after the terminal event; openai: no [DONE].",
  schema: "Every event and object validates against its schema in openapi.json (required keys, types, enums).",
  "event.type": "Each event type is one the spec (or the dialect) defines, or a vendor type slug:name.",
  "sequence-number": "Every event has an integer sequence_number, 0 first, then +1 per event.",
  "stream.order":
    "response.created first, [response.queued], response.in_progress, the items, then one terminal event.",
  "stream.terminal": "Exactly one terminal event (response.completed, response.incomplete or response.failed), last.",
  "stream.error": "An error event is followed by response.failed.",
  "response.status": "Each snapshot's status fits its event, and is one the spec uses.",
  "response.stable": "id, created_at and model are the same in every snapshot of a stream.",
  "response.terminal":
    "completed: completed_at and usage set, no error; incomplete: incomplete_details.reason; failed: error set.",
  "item.order": "output_item.added at the next output_index, one item at a time; item events name the open item.",
  "item.added": 'The item in output_item.added is in_progress and empty (content [], arguments "", summary []).',
  "item.done":
    "Every item gets output_item.done with status completed or incomplete, its id, type, name and call_id, and the streamed content.",
  "item.status":
    "In a finished response no item is in_progress; an incomplete item is last and the response is incomplete.",
  "part.order":
    "content_part.added, the deltas, the .done event, content_part.done: at the next index, one part at a time, of the part's kind.",
  "part.added": "A content part opens empty.",
  "text.done": "The deltas joined equal the .done text, which equals the part in content_part.done.",
  fold: "The fold of the stream's events equals the terminal snapshot's output.",
  echo: "The response echoes the request's fields (model, instructions, tools, tool_choice, text, sampling, …) or their defaults.",
  usage: "total_tokens = input_tokens + output_tokens; cached ≤ input, reasoning ≤ output; none negative.",
  "error.shape": "An HTTP error body is {error: {type, code, param, message}}.",
  "error.type":
    "The error type is one of the dialect's (the spec: invalid_request, not_found, too_many_requests, server_error, model_error).",
  "error.param": "An error about one parameter names it in param.",
  "behaviour.tool-choice": "tool_choice required, or a named function, is obeyed.",
  "behaviour.max-output-tokens": "max_output_tokens is not exceeded: the response ends incomplete instead.",
  "behaviour.json-schema": "With a json_schema text format, the output text is JSON that fits the schema.",
  "behaviour.previous-response": "A response can be continued with previous_response_id.",
  "http.unreachable": "The server answers within the time allowed.",
  "websocket.upgrade":
    "WebSocket mode: the upgrade at /v1/responses switches protocols (101), or is refused as not served (404, 405, 426, 501: skipped).",
  "websocket.message":
    "WebSocket mode: each message is a text frame holding one whole JSON event object: no SSE framing, no binary frames, no batches.",
  "websocket.turn":
    "WebSocket mode: a valid response.create is answered with its events up to a terminal event, on the open connection.",
  "websocket.error":
    "WebSocket mode: a bad response.create gets a WebSocketErrorEvent {type: error, status, error: {code, message}} and the connection stays open.",
  "compact.item": "POST /responses/compact: the compacted output holds a compaction item.",
  "compact.continue":
    "POST /responses/compact: the compacted output, sent back as input to POST /responses, is accepted.",
  "upstream.input":
    "Bridge: a string input goes upstream as one user message holding the whole string (a Responses upstream: that string, or that message); input items keep their meaning.",
  "upstream.instructions":
    "Bridge: instructions go upstream as a system (or developer) message, first (a Responses upstream: as instructions, or that message).",
  "upstream.tool-output":
    "Bridge: function_call + function_call_output items go upstream as an assistant tool_calls message and a tool message with the same tool_call_id (a Responses upstream: the same items, same call_id).",
  "upstream.tools":
    "Bridge: function tools go upstream as Chat Completions tools (type function, function.name/description/parameters), or as they are to a Responses upstream.",
  "upstream.tool-choice":
    "Bridge: tool_choice none/required/auto and a named function go upstream as Chat Completions tool_choice, or as they are to a Responses upstream.",
  "upstream.response-format":
    "Bridge: text.format json_schema goes upstream as response_format json_schema (name, schema, strict), or as it is to a Responses upstream.",
  "upstream.params":
    "Bridge: max_output_tokens (to Chat Completions as max_completion_tokens or max_tokens), temperature, top_p, parallel_tool_calls and stream: true go upstream.",
  "fault.status":
    "Bridge: an upstream 4xx/5xx becomes an error of the same class (a 4xx: the same error type) or response.failed, never a 200 with a lone error event.",
  "fault.retry-after": "Bridge: an upstream 429's retry-after header reaches the client.",
  "fault.cut": "Bridge: an upstream cut mid-stream ends in error then response.failed, never response.completed.",
  "fidelity.text": "Bridge: the downstream output text is the upstream's.",
  "fidelity.tool-call": "Bridge: downstream function calls carry the upstream's names, arguments and call ids.",
} as const;

export type RuleId = keyof typeof RULES;

/** One thing the server did that the spec (or the dialect) does not allow. */
export interface Violation {
  /** A stable rule id (see RULES). */
  rule: RuleId;
  /** What is wrong, naming the field or event at fault. */
  message: string;
  /** A JSON path into the event (streams) or the body (JSON answers): `$.response.usage.total_tokens`. `$` is the whole. */
  path: string;
  /** The 0-based index of the SSE message (streams only; `[DONE]` counts as a message). */
  event?: number;
  /** The event's `type`, when it has one. */
  eventType?: string;
  /**
   * How many occurrences this one violation stands for, when the checker
   * folded a fault repeated on many events (or many events of one item) into
   * it. Absent: one.
   */
  count?: number;
  /**
   * `"note"`: something worth saying that the spec allows (`usage: null`).
   * Notes are kept apart (`ViolationList.notes`) and fail nothing.
   */
  level?: "note";
}

/** Where a violation was found: an event of a stream, or a body. */
export interface Where {
  event?: number;
  eventType?: string;
}

/** A JSON path from its segments: `$.output[0].content`. */
export function jsonPath(segments: readonly (string | number)[]): string {
  let out = "$";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Appends to a path: `subPath("$.response", "output", 0)` → `$.response.output[0]`. */
export function subPath(base: string, ...segments: (string | number)[]): string {
  return base + jsonPath(segments).slice(1);
}

export interface ViolationLimits {
  /** Most violations kept per rule (default 25); the rest are counted in `suppressed`. */
  perRule?: number;
  /** Most violations kept in all (default 500). */
  total?: number;
}

/**
 * Collects violations within limits, so a stream broken on every event (no
 * `sequence_number` on 10,000 events) costs bounded memory and reads well.
 */
export class ViolationList {
  readonly items: Violation[] = [];
  /** Notes (`level: "note"`): what the spec allows but is worth saying. At most `perRule` of them. */
  readonly notes: Violation[] = [];
  /** Violations found but not kept, by rule. */
  readonly suppressed: Partial<Record<RuleId, number>> = {};
  private readonly perRule: number;
  private readonly total: number;
  private readonly counts = new Map<RuleId, number>();

  constructor(limits: ViolationLimits = {}) {
    this.perRule = limits.perRule ?? 25;
    this.total = limits.total ?? 500;
  }

  /** Adds a violation; returns it if it was kept. */
  add(v: Violation): Violation | undefined {
    if (v.level === "note") {
      if (this.notes.length >= this.perRule) return undefined;
      if (!this.notes.some((n) => n.rule === v.rule && n.path === v.path && n.message === v.message))
        this.notes.push(v);
      return undefined;
    }
    const n = (this.counts.get(v.rule) ?? 0) + 1;
    this.counts.set(v.rule, n);
    if (n > this.perRule || this.items.length >= this.total) {
      this.suppressed[v.rule] = (this.suppressed[v.rule] ?? 0) + 1;
      return undefined;
    }
    this.items.push(v);
    return v;
  }

  /** How many violations were found in all, kept or not. */
  get found(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
}

/**
 * The path with its indexes generalized (`$.output[2].content[0]` →
 * `$.output[*].content[*]`), so the same fault on different items, parts or
 * events reads as one.
 */
export function pathPattern(path: string): string {
  return path.replace(/\[\d+\]/g, "[*]");
}

/** A short, quoted rendering of a value for messages. */
export function show(value: unknown, max = 60): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
