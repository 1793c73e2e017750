/**
 * The stream checker: a state machine fed one SSE message (or one event
 * object) at a time, as they arrive, that returns the violations each one
 * shows, and gives a verdict when the stream ends. It follows the stream the
 * way a client must read it: the response lifecycle, each item from
 * `output_item.added` to `output_item.done`, each content part between its
 * brackets, the deltas against their `.done` text, and at the terminal event
 * the fold of everything streamed against the terminal snapshot.
 *
 * It never throws on what a server sends: a fault is a violation, and the
 * checker carries on with the best reading it can (a live proxy keeps
 * forwarding while it checks).
 */
import { dialectRules, type CheckDialect, type DialectRules } from "./dialects.js";
import { jsonEqual } from "./echo.js";
import { responseViolations, type ResponseRole } from "./response.js";
import {
  show,
  subPath,
  ViolationList,
  type RuleId,
  type Violation,
  type ViolationLimits,
  type Where,
} from "./rules.js";
import { OPENAI_HOSTED_ITEMS, schemasFor, type Schemas } from "./schemas.js";
import { isObject, isVendorType, shapeViolations } from "./shape.js";
import { SseDecoder, type SseFrame } from "./sse.js";

export interface StreamCheckOptions {
  /** The parsed request body: the echo rules compare the final response with it. */
  request?: unknown;
  /** The dialect the stream is judged by (default `open-responses`). */
  dialect?: CheckDialect;
  /** The HTTP status of the answer, when known. */
  status?: number;
  /** The `content-type` of the answer, when known. */
  contentType?: string | null;
  /** Bounds on the violations kept. */
  limits?: ViolationLimits;
}

export interface StreamVerdict {
  /** No violation found. */
  ok: boolean;
  /** The violations kept, in the order found. */
  violations: Violation[];
  /** Violations found beyond the limits, by rule. */
  suppressed: Partial<Record<RuleId, number>>;
  /** SSE messages (or event objects) seen, `[DONE]` included. */
  messages: number;
  /** The terminal event's type, if one came. */
  terminal?: string;
  /** The terminal snapshot (`response` of the terminal event), if one came. */
  response?: Record<string, unknown>;
  /** The output items as folded from the events (done items as sent in `output_item.done`). */
  output: unknown[];
  /** Whether `data: [DONE]` came. */
  done: boolean;
  /** Notes: what the spec allows but is worth saying (`usage: null`). They fail nothing. */
  notes: Violation[];
}

type Kind = "content" | "summary";

interface PartState {
  kind: Kind;
  index: number;
  type: string;
  text: string;
  annotations: unknown[];
  annotationsStreamed: boolean;
  /** The text of the type's `.done` event, once it came. */
  textDone?: string;
  closed: boolean;
}

interface ItemState {
  index: number;
  id: unknown;
  type: string;
  added: Record<string, unknown>;
  content: PartState[];
  summary: PartState[];
  args: string;
  argsStreamed: boolean;
  argsDone?: string;
  /** The item of `output_item.done`, once it came. */
  done?: Record<string, unknown>;
  /** Some part event named a part that no `*_part.added` opened: its parts are not compared at output_item.done. */
  orphanParts?: boolean;
}

/**
 * A fault that makes the later rules of one item (or part) meaningless: the
 * first event reports it, the later events of that item are counted, not
 * judged, and the violation says how many.
 */
interface Orphan {
  violation?: Violation;
  count: number;
}

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);
const LIFECYCLE = new Set(["response.created", "response.queued", "response.in_progress", ...TERMINAL]);
/** Spec item types whose schema has a `status` (reasoning has none). */
const HAS_STATUS = new Set(["message", "function_call", "function_call_output"]);
const SPEC_ITEMS = new Set(["message", "function_call", "function_call_output", "reasoning", "compaction"]);
/** The keys of an item that grow while it streams: compared by their own rules, not as "changed". */
const STREAMED_KEYS = new Set(["status", "content", "summary", "arguments", "encrypted_content"]);

/** The media type of a content-type header, lower case, without parameters. */
export const mediaType = (contentType: string | null | undefined): string =>
  (contentType ?? "").split(";")[0].trim().toLowerCase();

/** Where two strings first differ, for messages: `at character 12: "…lo wor" vs "…lo Wor"`. */
export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 12);
  const cut = (s: string) => (from > 0 ? "…" : "") + s.slice(from, i + 12) + (s.length > i + 12 ? "…" : "");
  return `at character ${i}: ${JSON.stringify(cut(a))} vs ${JSON.stringify(cut(b))} (lengths ${a.length} and ${b.length})`;
}

/** Paths where two JSON values differ (at most `max`). */
function differences(
  a: unknown,
  b: unknown,
  path: (string | number)[] = [],
  out: (string | number)[][] = [],
  max = 3,
): (string | number)[][] {
  if (out.length >= max || jsonEqual(a, b)) return out;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[k], b[k], [...path, k], out, max);
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => differences(v, b[i], [...path, i], out, max));
  } else {
    out.push(path);
  }
  return out;
}

const valueAt = (v: unknown, path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>(
    (x, k) => (x !== null && typeof x === "object" ? (x as Record<string | number, unknown>)[k] : undefined),
    v,
  );

/** The text a part carries: `text`, or `refusal` for refusals. */
const partText = (part: Record<string, unknown>): unknown => (part.type === "refusal" ? part.refusal : part.text);

export class StreamChecker {
  private readonly rules: DialectRules;
  private readonly schemas: Schemas;
  private readonly request: unknown;
  private readonly list: ViolationList;
  private readonly decoder = new SseDecoder();
  private readonly utf8 = new TextDecoder();

  private index = 0;
  private phase: "start" | "created" | "queued" | "running" | "terminal" = "start";
  private first?: Record<string, unknown>;
  private terminalType?: string;
  private terminalResponse?: Record<string, unknown>;
  private doneSeen = false;
  private errorAt?: number;
  private lastSeq?: number;
  /** Events (JSON objects) seen, for the position of the first sequence_number. */
  private eventsSeen = 0;
  private seqMissing?: { violation?: Violation; count: number };
  private readonly items: ItemState[] = [];
  private open?: ItemState;
  private incompleteAt?: number;
  private ended?: StreamVerdict;
  /** Items events named that no output_item.added opened, by output_index. */
  private readonly orphanItems = new Map<string, Orphan>();
  /** Parts events named that no part.added opened, by output_index, kind and index. */
  private readonly orphanParts = new Map<string, Orphan>();

  constructor(options: StreamCheckOptions = {}) {
    this.rules = dialectRules(options.dialect);
    this.schemas = schemasFor(this.rules);
    this.request = options.request;
    this.list = new ViolationList(options.limits);
    if (options.status !== undefined && options.status !== 200) {
      this.add({
        rule: "http.status",
        message: `a streamed answer must have status 200, got ${options.status}`,
        path: "$",
      });
    }
    if (options.contentType !== undefined && mediaType(options.contentType) !== "text/event-stream") {
      this.add({
        rule: "http.content-type",
        message: `a streamed answer must be text/event-stream, got ${show(options.contentType ?? "none")}`,
        path: "$",
      });
    }
  }

  /** The violations kept so far. */
  get violations(): readonly Violation[] {
    return this.list.items;
  }

  /** Feeds raw SSE text (or bytes, decoded as UTF-8) as it arrives; returns the violations of the messages it completed. */
  write(chunk: string | Uint8Array): Violation[] {
    const text = typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true });
    return this.decoder.push(text).flatMap((f) => this.frame(f));
  }

  /** Checks one SSE message. */
  frame(frame: SseFrame): Violation[] {
    const before = this.list.items.length;
    const i = this.index++;
    const where: Where = { event: i };
    if (frame.id !== undefined)
      this.add({ rule: "sse.id-line", message: "an `id:` line: servers should not send them", path: "$", ...where });
    if (frame.data === undefined) {
      this.add({
        rule: "sse.framing",
        message: `an SSE message with no \`data:\` line${frame.event !== undefined ? ` (event: ${frame.event})` : ""}`,
        path: "$",
        ...where,
      });
      return this.since(before);
    }
    if (this.doneSeen) {
      this.add({ rule: "sse.done", message: "data after `[DONE]`: nothing may follow it", path: "$", ...where });
      return this.since(before);
    }
    if (frame.data === "[DONE]") {
      this.doneSeen = true;
      if (!this.rules.done)
        this.add({
          rule: "sse.done",
          message: `\`data: [DONE]\`: the ${this.rules.name} dialect ends the stream after the terminal event with no [DONE]`,
          path: "$",
          ...where,
        });
      else if (this.phase !== "terminal")
        this.add({
          rule: "sse.done",
          message:
            "`data: [DONE]` before the terminal event (response.completed, response.incomplete or response.failed)",
          path: "$",
          ...where,
        });
      return this.since(before);
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.data);
    } catch (err) {
      this.add({
        rule: "sse.framing",
        message: `\`data:\` is not JSON (${(err as Error).message}): ${show(frame.data)}`,
        path: "$",
        ...where,
      });
      return this.since(before);
    }
    if (!isObject(value)) {
      this.add({ rule: "sse.framing", message: `\`data:\` is ${show(value)}, not a JSON object`, path: "$", ...where });
      return this.since(before);
    }
    const type = typeof value.type === "string" ? value.type : undefined;
    if (frame.event === undefined) {
      this.add({
        rule: "sse.event-name",
        message: `no \`event:\` line: it must be \`event: ${type ?? "TYPE"}\`, the JSON type`,
        path: "$.type",
        event: i,
        eventType: type,
      });
    } else if (type !== undefined && frame.event !== type) {
      this.add({
        rule: "sse.event-name",
        message: `\`event: ${frame.event}\` differs from the JSON type ${show(type)}`,
        path: "$.type",
        event: i,
        eventType: type,
      });
    }
    this.process(value, i);
    return this.since(before);
  }

  /** Checks one event object that came without SSE framing (a WebSocket message). */
  event(value: unknown): Violation[] {
    const before = this.list.items.length;
    const i = this.index++;
    if (!isObject(value))
      this.add({ rule: "schema", message: `the event is ${show(value)}, not a JSON object`, path: "$", event: i });
    else this.process(value, i);
    return this.since(before);
  }

  /**
   * Ends the stream and gives the verdict. `framing: "none"` for events that
   * came without SSE (a WebSocket turn): no `[DONE]` rule then.
   */
  end(options: { framing?: "sse" | "none" } = {}): StreamVerdict {
    if (this.ended) return this.ended;
    const framing = options.framing ?? "sse";
    if (framing === "sse") {
      const rest = this.utf8.decode();
      if (rest) for (const f of this.decoder.push(rest)) this.frame(f);
      const tail = this.decoder.end();
      for (const f of tail.frames) this.frame(f);
      if (tail.unterminated)
        this.add({
          rule: "sse.framing",
          message: "the stream ended in the middle of a message (no blank line after the last one)",
          path: "$",
          event: this.index - 1,
        });
    }
    if (this.seqMissing?.violation && this.seqMissing.count > 1) {
      this.seqMissing.violation.message += ` (missing on ${this.seqMissing.count} events in all)`;
      this.seqMissing.violation.count = this.seqMissing.count;
    }
    for (const orphan of [...this.orphanItems.values(), ...this.orphanParts.values()]) {
      if (!orphan.violation) continue;
      orphan.violation.count = orphan.count;
      if (orphan.count > 1)
        orphan.violation.message += ` (${orphan.count - 1} later event(s) of it counted, not judged)`;
    }
    if (this.index === 0) this.add({ rule: "stream.terminal", message: "the stream has no events at all", path: "$" });
    else if (this.phase !== "terminal") {
      if (this.errorAt !== undefined)
        this.add({
          rule: "stream.error",
          message: `the \`error\` event (event ${this.errorAt}) is not followed by response.failed`,
          path: "$",
          event: this.errorAt,
          eventType: "error",
        });
      this.add({
        rule: "stream.terminal",
        message:
          "the stream ended without a terminal event (response.completed, response.incomplete or response.failed)",
        path: "$",
        event: this.index - 1,
      });
    }
    if (framing === "sse" && this.rules.done && !this.doneSeen && this.index > 0) {
      this.add({
        rule: "sse.done",
        message: "the stream ended without `data: [DONE]` after the terminal event",
        path: "$",
        event: this.index - 1,
      });
    }
    this.ended = {
      ok: this.list.found === 0,
      violations: this.list.items,
      suppressed: this.list.suppressed,
      messages: this.index,
      terminal: this.terminalType,
      response: this.terminalResponse,
      output: this.folded(),
      done: this.doneSeen,
      notes: this.list.notes,
    };
    return this.ended;
  }

  // ---------------------------------------------------------------- internals

  private add(v: Violation): Violation | undefined {
    return this.list.add(v);
  }

  private since(before: number): Violation[] {
    return this.list.items.slice(before);
  }

  private process(ev: Record<string, unknown>, i: number): void {
    const type = typeof ev.type === "string" ? ev.type : undefined;
    const where: Where = { event: i, eventType: type };
    const bad = (rule: RuleId, message: string, ...path: (string | number)[]) =>
      this.add({ rule, message, path: subPath("$", ...path), ...where });

    this.checkSequence(ev, where);
    if (type === undefined) {
      bad("event.type", `the event has no \`type\`${ev.type !== undefined ? ` (got ${show(ev.type)})` : ""}`, "type");
      return;
    }
    if (this.phase === "terminal") {
      bad(
        "stream.terminal",
        `\`${type}\` after the terminal event ${this.terminalType}: nothing may follow it`,
        "type",
      );
      return;
    }
    const schema = this.schemas.event(type);
    if (!schema) {
      const other = this.rules.foreignReasoning[type];
      bad(
        "event.type",
        other
          ? `\`${type}\` is not an event of the ${this.rules.name} dialect: it names it \`${other}\``
          : `\`${type}\` is not an event the spec defines, and not a vendor type 'slug:name'`,
        "type",
      );
      return;
    }
    // sequence_number is judged by its own rule above, not twice.
    for (const v of shapeViolations(schema, { ...ev, sequence_number: 0 }, "$", where)) this.add(v);

    if (this.phase === "start" && type !== "response.created")
      bad("stream.order", `the first event is \`${type}\`; a stream must start with response.created`, "type");
    if (this.errorAt !== undefined && type !== "response.failed")
      bad(
        "stream.error",
        `\`${type}\` after the \`error\` event (event ${this.errorAt}): only response.failed may follow it`,
        "type",
      );

    if (LIFECYCLE.has(type)) return this.lifecycle(type, ev, where);
    if (type === "error") {
      if (this.phase === "start") return;
      this.errorAt = i;
      return;
    }
    if (!type.startsWith("response.") || !this.schemas.event(type) || isVendorType(type)) return; // vendor or hosted: no state of ours
    if (this.phase === "created" || this.phase === "queued")
      bad("stream.order", `\`${type}\` before response.in_progress`, "type");
    this.item(type, ev, where);
  }

  private checkSequence(ev: Record<string, unknown>, where: Where): void {
    this.eventsSeen++;
    const seq = ev.sequence_number;
    if (seq === undefined || seq === null) {
      if (!this.seqMissing) this.seqMissing = { count: 0 };
      this.seqMissing.count++;
      if (this.seqMissing.count === 1)
        this.seqMissing.violation = this.add({
          rule: "sequence-number",
          message: `\`sequence_number\` is missing on \`${where.eventType ?? "the event"}\``,
          path: "$.sequence_number",
          ...where,
        });
      return;
    }
    if (typeof seq !== "number" || !Number.isInteger(seq)) {
      this.add({
        rule: "sequence-number",
        message: `\`sequence_number\` is ${show(seq)}, not an integer`,
        path: "$.sequence_number",
        ...where,
      });
      return;
    }
    if (this.lastSeq === undefined) {
      // The first number seen: 0 on the first event; after events that had none, the event's position.
      const want = this.eventsSeen - 1;
      if (seq !== want)
        this.add({
          rule: "sequence-number",
          message:
            want === 0
              ? `\`sequence_number\` starts at ${seq}; it must start at 0`
              : `\`sequence_number\` is ${seq} on the event at position ${want}; it must be ${want}`,
          path: "$.sequence_number",
          ...where,
        });
    } else if (seq !== this.lastSeq + 1) {
      this.add({
        rule: "sequence-number",
        message: `\`sequence_number\` is ${seq} after ${this.lastSeq}; it must rise by 1 (${this.lastSeq + 1})`,
        path: "$.sequence_number",
        ...where,
      });
    }
    this.lastSeq = seq;
  }

  private lifecycle(type: string, ev: Record<string, unknown>, where: Where): void {
    const bad = (rule: RuleId, message: string, ...path: (string | number)[]) =>
      this.add({ rule, message, path: subPath("$", ...path), ...where });
    const res = isObject(ev.response) ? ev.response : undefined;
    const terminal = TERMINAL.has(type);
    for (const v of responseViolations(ev.response, {
      rules: this.rules,
      schemas: this.schemas,
      request: terminal ? this.request : undefined,
      base: "$.response",
      where,
      role: type as ResponseRole,
    })) {
      // The schema was checked with the event; only the response-level rules are new here.
      if (v.rule !== "schema") this.add(v);
    }
    switch (type) {
      case "response.created":
        if (this.phase !== "start") bad("stream.order", "a second response.created", "type");
        else {
          this.phase = "created";
          this.first = res;
          if (res && Array.isArray(res.output) && res.output.length > 0)
            bad(
              "stream.order",
              `response.created carries ${res.output.length} output item(s); a response starts with \`output: []\``,
              "response",
              "output",
            );
        }
        break;
      case "response.queued":
        // (A stream that did not start with response.created is reported once, by the first-event rule.)
        if (this.phase !== "created" && this.phase !== "start")
          bad(
            "stream.order",
            `response.queued must come right after response.created, not after ${this.describePhase()}`,
            "type",
          );
        else this.phase = "queued";
        break;
      case "response.in_progress":
        if (this.phase !== "created" && this.phase !== "queued" && this.phase !== "start")
          bad(
            "stream.order",
            `response.in_progress must follow response.created (or response.queued), not ${this.describePhase()}`,
            "type",
          );
        this.phase = "running";
        break;
      default: {
        // The terminal event.
        if (this.phase === "created" || this.phase === "queued")
          bad("stream.order", `\`${type}\` before response.in_progress`, "type");
        this.phase = "terminal";
        this.terminalType = type;
        this.terminalResponse = res;
        this.errorAt = undefined;
        for (const item of this.items) {
          if (item.done || type === "response.failed") continue;
          bad(
            "item.done",
            `no \`output_item.done\` for item ${show(item.id)} (output_index ${item.index}) before ${type}`,
            "response",
            "output",
            item.index,
          );
        }
        if (res) this.compareFold(res, where);
      }
    }
    if (res && this.first && res !== this.first) {
      for (const key of ["id", "created_at", "model"]) {
        if (key in res && !jsonEqual(res[key], this.first[key]))
          bad(
            "response.stable",
            `\`response.${key}\` is ${show(res[key])} in ${type}, but ${show(this.first[key])} in response.created`,
            "response",
            key,
          );
      }
    }
  }

  private describePhase(): string {
    return {
      start: "nothing",
      created: "response.created",
      queued: "response.queued",
      running: "response.in_progress",
      terminal: "the terminal event",
    }[this.phase];
  }

  /** The item an event names by output_index (and item_id); undefined, with a violation, if it names none that is open. */
  private itemFor(ev: Record<string, unknown>, type: string, where: Where): ItemState | undefined {
    const bad = (message: string, ...path: (string | number)[]) =>
      this.add({ rule: "item.order", message, path: subPath("$", ...path), ...where });
    const idx = ev.output_index;
    const item = typeof idx === "number" ? this.items[idx] : undefined;
    if (!item) {
      this.orphanItem(
        idx,
        `\`${type}\` names output_index ${show(idx)}, where no output_item.added came; the item's later events are not judged (part.order, text.done, item.done, and the fold of the stream)`,
        where,
      );
      return undefined;
    }
    if (item.done) {
      bad(
        `\`${type}\` for item ${show(item.id)} (output_index ${item.index}) after its output_item.done`,
        "output_index",
      );
      return undefined;
    }
    if (ev.item_id !== undefined && ev.item_id !== item.id) {
      bad(
        `\`item_id\` ${show(ev.item_id)} is not the id of the item at output_index ${item.index} (${show(item.id)})`,
        "item_id",
      );
    }
    if (this.open && this.open !== item)
      bad(
        `\`${type}\` for output_index ${item.index} while item ${show(this.open.id)} (output_index ${this.open.index}) is the one open`,
        "output_index",
      );
    return item;
  }

  /** The part of an item an event names by content_index or summary_index. */
  private partFor(
    item: ItemState,
    kind: Kind,
    ev: Record<string, unknown>,
    type: string,
    where: Where,
  ): PartState | undefined {
    const key = kind === "content" ? "content_index" : "summary_index";
    const list = kind === "content" ? item.content : item.summary;
    const idx = ev[key];
    const part = typeof idx === "number" ? list[idx] : undefined;
    const opener = kind === "content" ? "content_part.added" : "reasoning_summary_part.added";
    if (!part) {
      item.orphanParts = true;
      const orphanKey = `${item.index}\u0000${kind}\u0000${show(idx)}`;
      const seen = this.orphanParts.get(orphanKey);
      if (seen) {
        seen.count++;
        return undefined;
      }
      this.orphanParts.set(orphanKey, {
        count: 1,
        violation: this.add({
          rule: "part.order",
          message: `\`${type}\` for ${key} ${show(idx)}, which no ${opener} opened; the part's later events are not judged, nor the item's parts at output_item.done`,
          path: subPath("$", key),
          ...where,
        }),
      });
      return undefined;
    }
    return part;
  }

  private item(type: string, ev: Record<string, unknown>, where: Where): void {
    const bad = (rule: RuleId, message: string, ...path: (string | number)[]) =>
      this.add({ rule, message, path: subPath("$", ...path), ...where });
    const rd = this.rules;
    switch (type) {
      case "response.output_item.added": {
        const index = this.items.length;
        if (ev.output_index !== index)
          bad(
            "item.order",
            `\`output_index\` is ${show(ev.output_index)}; the next item's is ${index}`,
            "output_index",
          );
        if (this.open)
          bad(
            "item.order",
            `output_item.added while item ${show(this.open.id)} (output_index ${this.open.index}) is still open: items stream one at a time`,
            "output_index",
          );
        if (this.incompleteAt !== undefined)
          bad(
            "item.status",
            `an item after the incomplete item at output_index ${this.incompleteAt}: an incomplete item must be the last`,
            "output_index",
          );
        const item = isObject(ev.item) ? ev.item : undefined;
        if (!item) {
          bad("item.added", "`item` is missing or null in output_item.added", "item");
          return;
        }
        const itemType = typeof item.type === "string" ? item.type : "";
        // OpenAI's hosted-tool items have statuses of their own (searching, failed, …): not judged here.
        if (this.rules.hosted && OPENAI_HOSTED_ITEMS.has(itemType)) {
          // nothing: their shape is theirs
        } else if ("status" in item && item.status !== "in_progress")
          bad(
            "item.added",
            `\`item.status\` is ${show(item.status)} in output_item.added; it must be "in_progress"`,
            "item",
            "status",
          );
        else if (!("status" in item) && HAS_STATUS.has(itemType))
          bad(
            "item.added",
            '`item.status` is missing in output_item.added; it must be "in_progress"',
            "item",
            "status",
          );
        if (itemType === "message" && Array.isArray(item.content) && item.content.length > 0)
          bad(
            "item.added",
            "a message opens with `content: []`; its parts come with content_part.added",
            "item",
            "content",
          );
        if (itemType === "function_call" && typeof item.arguments === "string" && item.arguments !== "")
          bad(
            "item.added",
            `a function_call opens with \`arguments: ""\`, got ${show(item.arguments)}; they stream with function_call_arguments.delta`,
            "item",
            "arguments",
          );
        if (itemType === "reasoning" && Array.isArray(item.summary) && item.summary.length > 0)
          bad(
            "item.added",
            "a reasoning item opens with `summary: []`; its parts come with reasoning_summary_part.added",
            "item",
            "summary",
          );
        if (itemType === "reasoning" && Array.isArray(item.content) && item.content.length > 0)
          bad(
            "item.added",
            "a reasoning item opens with no content parts; they come with content_part.added",
            "item",
            "content",
          );
        if (item.id !== undefined && this.items.some((o) => o.id === item.id))
          bad("item.added", `\`item.id\` ${show(item.id)} is already the id of an earlier item`, "item", "id");
        const state: ItemState = {
          index,
          id: item.id,
          type: itemType,
          added: item,
          content: [],
          summary: [],
          args: "",
          argsStreamed: false,
        };
        this.items.push(state);
        this.open = state;
        return;
      }
      case "response.output_item.done":
        return this.itemDone(ev, where);
      case "response.content_part.added":
      case "response.reasoning_summary_part.added": {
        const kind: Kind = type === "response.content_part.added" ? "content" : "summary";
        const item = this.itemFor(ev, type, where);
        if (!item) return;
        if (kind === "summary" && item.type !== "reasoning")
          bad(
            "part.order",
            `\`${type}\` on a ${show(item.type)} item: summary parts belong to reasoning items`,
            "output_index",
          );
        if (kind === "content" && item.type !== "message" && item.type !== "reasoning")
          bad(
            "part.order",
            `\`${type}\` on a ${show(item.type)} item: content parts belong to messages (and reasoning text)`,
            "output_index",
          );
        const list = kind === "content" ? item.content : item.summary;
        const key = kind === "content" ? "content_index" : "summary_index";
        if (ev[key] !== list.length)
          bad("part.order", `\`${key}\` is ${show(ev[key])}; the next part's is ${list.length}`, key);
        const openPart = [...item.content, ...item.summary].find((p) => !p.closed);
        if (openPart)
          bad(
            "part.order",
            `\`${type}\` while ${openPart.kind} part ${openPart.index} is still open: parts stream one at a time`,
            key,
          );
        const part = isObject(ev.part) ? ev.part : {};
        const text = partText(part);
        if (typeof text === "string" && text !== "")
          bad(
            "part.added",
            `the part opens with text ${show(text)}; it must open empty and fill with deltas`,
            "part",
            part.type === "refusal" ? "refusal" : "text",
          );
        if (Array.isArray(part.annotations) && part.annotations.length > 0)
          bad(
            "part.added",
            "the part opens with annotations; they come with output_text.annotation.added",
            "part",
            "annotations",
          );
        list.push({
          kind,
          index: list.length,
          type: typeof part.type === "string" ? part.type : "",
          text: "",
          annotations: Array.isArray(part.annotations) ? [...part.annotations] : [],
          annotationsStreamed: false,
          closed: false,
        });
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
      case rd.reasoningDelta:
      case "response.reasoning_summary_text.delta": {
        const kind: Kind = type === "response.reasoning_summary_text.delta" ? "summary" : "content";
        const item = this.itemFor(ev, type, where);
        const part = item && this.partFor(item, kind, ev, type, where);
        if (!part) return;
        const want =
          type === "response.output_text.delta"
            ? "output_text"
            : type === "response.refusal.delta"
              ? "refusal"
              : type === rd.reasoningDelta
                ? "reasoning_text"
                : "summary_text";
        if (part.type !== want)
          bad("part.order", `\`${type}\` into a \`${part.type}\` part (it belongs in a \`${want}\` part)`, "type");
        if (part.closed)
          bad(
            "part.order",
            `\`${type}\` after the part's ${kind === "content" ? "content_part.done" : "reasoning_summary_part.done"}`,
            "type",
          );
        else if (part.textDone !== undefined) bad("part.order", `\`${type}\` after the part's .done event`, "type");
        if (typeof ev.delta === "string") part.text += ev.delta;
        return;
      }
      case "response.output_text.done":
      case "response.refusal.done":
      case rd.reasoningDone:
      case "response.reasoning_summary_text.done": {
        const kind: Kind = type === "response.reasoning_summary_text.done" ? "summary" : "content";
        const item = this.itemFor(ev, type, where);
        const part = item && this.partFor(item, kind, ev, type, where);
        if (!part) return;
        const field = type === "response.refusal.done" ? "refusal" : "text";
        if (part.closed) bad("part.order", `\`${type}\` after the part was closed`, "type");
        if (part.textDone !== undefined) bad("part.order", `a second \`${type}\` for the same part`, "type");
        const value = ev[field];
        if (typeof value === "string") {
          if (value !== part.text)
            bad(
              "text.done",
              `\`${type}\` ${field} differs from its deltas joined, ${firstDifference(value, part.text)}`,
              field,
            );
          part.textDone = value;
        }
        return;
      }
      case "response.output_text.annotation.added": {
        const item = this.itemFor(ev, type, where);
        const part = item && this.partFor(item, "content", ev, type, where);
        if (!part) return;
        if (part.type !== "output_text")
          bad("part.order", `\`${type}\` on a \`${part.type}\` part: annotations belong to output_text`, "type");
        if (part.closed) bad("part.order", `\`${type}\` after the part's content_part.done`, "type");
        if (ev.annotation_index !== part.annotations.length)
          bad(
            "part.order",
            `\`annotation_index\` is ${show(ev.annotation_index)}; the next annotation's is ${part.annotations.length}`,
            "annotation_index",
          );
        part.annotations.push(ev.annotation);
        part.annotationsStreamed = true;
        return;
      }
      case "response.content_part.done":
      case "response.reasoning_summary_part.done": {
        const kind: Kind = type === "response.content_part.done" ? "content" : "summary";
        const item = this.itemFor(ev, type, where);
        const part = item && this.partFor(item, kind, ev, type, where);
        if (!part) return;
        if (part.closed) {
          bad("part.order", `a second \`${type}\` for the same part`, "type");
          return;
        }
        const closer =
          kind === "summary"
            ? "reasoning_summary_text.done"
            : part.type === "refusal"
              ? "refusal.done"
              : part.type === "reasoning_text"
                ? rd.reasoningDone.replace(/^response\./, "")
                : "output_text.done";
        if (
          part.textDone === undefined &&
          ["output_text", "refusal", "reasoning_text", "summary_text"].includes(part.type)
        )
          bad("part.order", `\`${type}\` before \`${closer}\`: the part's text must be closed first`, "type");
        const done = isObject(ev.part) ? ev.part : {};
        if (done.type !== part.type)
          bad(
            "part.order",
            `the part in \`${type}\` is ${show(done.type)}, but it opened as ${show(part.type)}`,
            "part",
            "type",
          );
        const text = partText(done);
        const streamed = part.textDone ?? part.text;
        if (typeof text === "string" && text !== streamed)
          bad(
            "text.done",
            `the part in \`${type}\` differs from the streamed text, ${firstDifference(text, streamed)}`,
            "part",
            done.type === "refusal" ? "refusal" : "text",
          );
        if (part.annotationsStreamed && !jsonEqual(done.annotations, part.annotations))
          bad(
            "text.done",
            `the part's \`annotations\` in \`${type}\` differ from those streamed with output_text.annotation.added`,
            "part",
            "annotations",
          );
        part.closed = true;
        return;
      }
      case "response.function_call_arguments.delta": {
        const item = this.itemFor(ev, type, where);
        if (!item) return;
        if (item.type !== "function_call")
          bad("part.order", `\`${type}\` on a ${show(item.type)} item`, "output_index");
        if (item.argsDone !== undefined) bad("part.order", `\`${type}\` after function_call_arguments.done`, "type");
        if (typeof ev.delta === "string") item.args += ev.delta;
        item.argsStreamed = true;
        return;
      }
      case "response.function_call_arguments.done": {
        const item = this.itemFor(ev, type, where);
        if (!item) return;
        if (item.type !== "function_call")
          bad("part.order", `\`${type}\` on a ${show(item.type)} item`, "output_index");
        if (item.argsDone !== undefined) bad("part.order", `a second \`${type}\``, "type");
        if (typeof ev.arguments === "string") {
          if (ev.arguments !== item.args)
            bad(
              "text.done",
              `\`${type}\` arguments differ from the deltas joined, ${firstDifference(ev.arguments, item.args)}`,
              "arguments",
            );
          item.argsDone = ev.arguments;
        }
        return;
      }
    }
  }

  private itemDone(ev: Record<string, unknown>, where: Where): void {
    const bad = (rule: RuleId, message: string, ...path: (string | number)[]) =>
      this.add({ rule, message, path: subPath("$", ...path), ...where });
    const idx = ev.output_index;
    const state = typeof idx === "number" ? this.items[idx] : undefined;
    if (!state) {
      this.orphanItem(
        idx,
        `output_item.done for output_index ${show(idx)}, where no output_item.added came; the fold of the stream is not judged`,
        where,
      );
      return;
    }
    if (state.done) {
      bad(
        "item.done",
        `a second output_item.done for item ${show(state.id)} (output_index ${state.index})`,
        "output_index",
      );
      return;
    }
    if (this.open && this.open !== state)
      bad(
        "item.order",
        `output_item.done for output_index ${state.index} while item ${show(this.open.id)} (output_index ${this.open.index}) is the one open`,
        "output_index",
      );
    const item = isObject(ev.item) ? ev.item : undefined;
    if (!item) {
      bad("item.done", "`item` is missing or null in output_item.done", "item");
      state.done = {};
      if (this.open === state) this.open = undefined;
      return;
    }
    const openPart = [...state.content, ...state.summary].find((p) => !p.closed);
    if (openPart)
      bad(
        "part.order",
        `output_item.done while ${openPart.kind} part ${openPart.index} is still open (no ${openPart.kind === "content" ? "content_part.done" : "reasoning_summary_part.done"})`,
        "item",
      );
    if (item.id !== state.id)
      bad("item.done", `\`item.id\` is ${show(item.id)}; the item was added as ${show(state.id)}`, "item", "id");
    if (item.type !== state.type)
      bad(
        "item.done",
        `\`item.type\` is ${show(item.type)}; the item was added as ${show(state.type)}`,
        "item",
        "type",
      );
    if (
      !(this.rules.hosted && OPENAI_HOSTED_ITEMS.has(state.type)) &&
      ("status" in item || HAS_STATUS.has(state.type))
    ) {
      if (item.status !== "completed" && item.status !== "incomplete")
        bad(
          "item.done",
          `\`item.status\` is ${show(item.status)} in output_item.done; it must be "completed" or "incomplete"`,
          "item",
          "status",
        );
    }
    if (item.status === "incomplete") this.incompleteAt = state.index;

    if (SPEC_ITEMS.has(state.type) && item.type === state.type) {
      // Keys fixed when the item was added must not change (role, name, call_id, …).
      for (const key of Object.keys(state.added)) {
        if (STREAMED_KEYS.has(key) || key === "id" || key === "type") continue;
        if (!jsonEqual(state.added[key], item[key]))
          bad(
            "item.done",
            `\`item.${key}\` is ${show(item[key])} in output_item.done, but ${show(state.added[key])} in output_item.added`,
            "item",
            key,
          );
      }
      if (state.type === "function_call") {
        const streamed = state.argsDone ?? state.args;
        if (
          state.argsDone === undefined &&
          (state.argsStreamed || (typeof item.arguments === "string" && item.arguments !== ""))
        ) {
          bad(
            "text.done",
            "no function_call_arguments.done before output_item.done: the arguments stream as deltas, then .done",
            "item",
            "arguments",
          );
        }
        if (typeof item.arguments === "string" && item.arguments !== streamed)
          bad(
            "item.done",
            `\`item.arguments\` differs from the streamed arguments, ${firstDifference(item.arguments, streamed)}`,
            "item",
            "arguments",
          );
      }
      if (state.orphanParts) {
        // Parts streamed without their part.added: the part.order violation said so; comparing them means nothing.
      } else if (state.type === "message") this.compareParts(state.content, item.content, "content", where);
      else if (state.type === "reasoning") {
        this.compareParts(state.summary, item.summary, "summary", where);
        if (state.content.length > 0 || (Array.isArray(item.content) && item.content.length > 0))
          this.compareParts(state.content, item.content, "content", where);
      }
    }
    state.done = item;
    if (this.open === state) this.open = undefined;
  }

  /** An event for an item that no output_item.added opened: reported on its first event, counted after. */
  private orphanItem(idx: unknown, message: string, where: Where): void {
    const key = show(idx);
    const seen = this.orphanItems.get(key);
    if (seen) {
      seen.count++;
      return;
    }
    this.orphanItems.set(key, {
      count: 1,
      violation: this.add({ rule: "item.order", message, path: "$.output_index", ...where }),
    });
  }

  /** The parts of a done item against those streamed. */
  private compareParts(streamed: PartState[], parts: unknown, key: "content" | "summary", where: Where): void {
    const bad = (message: string, ...path: (string | number)[]) =>
      this.add({ rule: "item.done", message, path: subPath("$", "item", key, ...path), ...where });
    if (!Array.isArray(parts)) return; // the schema reports it
    if (parts.length !== streamed.length) {
      bad(`\`item.${key}\` has ${parts.length} part(s) in output_item.done, but ${streamed.length} were streamed`);
      return;
    }
    parts.forEach((p, i) => {
      if (!isObject(p)) return;
      const s = streamed[i];
      if (p.type !== s.type)
        return bad(
          `\`item.${key}[${i}].type\` is ${show(p.type)}, but the part streamed as ${show(s.type)}`,
          i,
          "type",
        );
      const text = partText(p);
      const want = s.textDone ?? s.text;
      if (typeof text === "string" && text !== want)
        bad(
          `\`item.${key}[${i}]\` text differs from the streamed text, ${firstDifference(text, want)}`,
          i,
          p.type === "refusal" ? "refusal" : "text",
        );
      if (s.annotationsStreamed && !jsonEqual(p.annotations, s.annotations))
        bad(`\`item.${key}[${i}].annotations\` differ from those streamed`, i, "annotations");
    });
  }

  /** The output as the events built it: each done item as sent; an unfinished one as it stands. */
  private folded(): unknown[] {
    return this.items.map((s) => {
      if (s.done) return s.done;
      const built: Record<string, unknown> = { ...s.added };
      if (s.type === "message" || s.content.length > 0)
        built.content = s.content.map((p) =>
          p.type === "refusal"
            ? { type: p.type, refusal: p.textDone ?? p.text }
            : {
                type: p.type,
                text: p.textDone ?? p.text,
                ...(p.type === "output_text" ? { annotations: p.annotations } : {}),
              },
        );
      if (s.type === "reasoning") built.summary = s.summary.map((p) => ({ type: p.type, text: p.textDone ?? p.text }));
      if (s.type === "function_call") built.arguments = s.argsDone ?? s.args;
      return built;
    });
  }

  /** The fold of the stream against the terminal snapshot's output. */
  private compareFold(res: Record<string, unknown>, where: Where): void {
    if (!Array.isArray(res.output)) return;
    // Items streamed without output_item.added: the fold cannot be built (the item.order violation said so).
    if (this.orphanItems.size > 0) return;
    const bad = (message: string, ...path: (string | number)[]) =>
      this.add({ rule: "fold", message, path: subPath("$", "response", "output", ...path), ...where });
    const fold = this.folded();
    if (res.output.length !== fold.length) {
      bad(`the terminal snapshot has ${res.output.length} output item(s), but the stream added ${fold.length}`);
    }
    const n = Math.min(res.output.length, fold.length);
    for (let i = 0; i < n; i++) {
      const want = fold[i] as Record<string, unknown>;
      const got = res.output[i];
      if (!this.items[i].done) {
        // An item the failure cut short: its identity must match; its content may be as it stood.
        if (isObject(got) && (got.id !== want.id || got.type !== want.type))
          bad(
            `\`output[${i}]\` is ${show(got.type)} ${show(got.id)}, but the stream's item ${i} is ${show(want.type)} ${show(want.id)}`,
            i,
          );
        continue;
      }
      for (const path of differences(want, got)) {
        const label = `output[${i}]${path.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("")}`;
        bad(
          `\`${label}\` in the terminal snapshot is ${show(valueAt(got, path))}, but the stream's output_item.done had ${show(valueAt(want, path))}`,
          i,
          ...path,
        );
      }
    }
  }
}

/** Checks a whole stream: its SSE text, or its messages already split. */
export function checkStream(input: string | readonly SseFrame[], options: StreamCheckOptions = {}): StreamVerdict {
  const checker = new StreamChecker(options);
  if (typeof input === "string") checker.write(input);
  else for (const f of input) checker.frame(f);
  return checker.end();
}
