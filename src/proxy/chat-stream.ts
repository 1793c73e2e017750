/**
 * Chat Completions chunks → Responses streaming events, as a state machine.
 * Each chunk in gives the events it completes, in the exact shapes the
 * mock's own emitter (src/emit) sends: `response.created` and
 * `response.in_progress`; an item per thing the model says (reasoning text,
 * the message, each tool call), each bracketed by `output_item.added` and
 * `.done`, its parts by `content_part.added`/`.done`, its text in deltas;
 * sequence numbers from 0; then the one terminal event. A non-streamed
 * completion is read as the chunks it would have been, so both transports
 * give the same response. Pure: no clock (times are passed in), no I/O.
 */
import { countTokens } from "../generate/tokens.js";
import type { IdSource } from "../generate/ids.js";
import type { ErrorPayload, LogProb, OutputItem, ResponseResource, StreamEvent } from "../spec/index.js";

type Json = Record<string, unknown>;

export interface ChatTranslatorInit {
  /** The response as it starts (status in_progress, `output: []`, `usage: null`). */
  base: ResponseResource;
  /** Item and call ids. */
  ids: Pick<IdSource, "item" | "call">;
  /** Whether output_text parts carry `logprobs` (the request included `message.output_text.logprobs`). */
  logprobs: boolean;
  /** Tokens of the request's context, for `usage.input_tokens` when the upstream sends no usage. */
  inputTokens: number;
}

type TextPart =
  | { type: "output_text"; text: string; annotations: never[]; logprobs?: LogProb[] }
  | { type: "refusal"; refusal: string };
type MessageItem = { type: "message"; id: string; status: string; role: "assistant"; content: TextPart[] };
type CallItem = { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: string };
type ReasoningItem = {
  type: "reasoning";
  id: string;
  summary: never[];
  content: { type: "reasoning_text"; text: string }[];
};

/** A tool call the upstream has begun, by its `index`. */
interface PendingCall {
  id: string | null;
  name: string;
  /** Argument text received before the item could be opened (no name yet). */
  buffered: string;
  /** Its output index once opened. */
  outputIndex: number | null;
  closed: boolean;
}

/** What ends a response, from `finish_reason`. */
type Finish = { kind: "completed" } | { kind: "incomplete"; reason: string };

/** The reason a `finish_reason` gives, or null for one that completes the response. */
export function finishOf(reason: unknown): Finish {
  if (reason === "length") return { kind: "incomplete", reason: "max_output_tokens" };
  if (reason === "content_filter") return { kind: "incomplete", reason: "content_filter" };
  return { kind: "completed" };
}

/** Chat Completions logprobs entries as the Responses `logprobs` of a delta (the same fields). */
function logprobsOf(entries: unknown): LogProb[] {
  if (!Array.isArray(entries)) return [];
  return entries.map((e: Json) => ({
    token: String(e.token ?? ""),
    logprob: typeof e.logprob === "number" ? e.logprob : 0,
    bytes: Array.isArray(e.bytes) ? (e.bytes as number[]) : [...new TextEncoder().encode(String(e.token ?? ""))],
    top_logprobs: Array.isArray(e.top_logprobs)
      ? (e.top_logprobs as Json[]).map((t) => ({
          token: String(t.token ?? ""),
          logprob: typeof t.logprob === "number" ? t.logprob : 0,
          bytes: Array.isArray(t.bytes) ? (t.bytes as number[]) : [...new TextEncoder().encode(String(t.token ?? ""))],
        }))
      : [],
  }));
}

/** A copy of a plain JSON value. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** An upstream failure as the payload of an `error` event. */
export function upstreamError(code: string, message: string, type = "server_error"): ErrorPayload {
  return { type, code, message, param: null };
}

/** Translates one Chat Completions stream into Responses events. */
export class ChatTranslator {
  private readonly base: ResponseResource;
  private seq = 0;
  private started = false;
  private terminal: ResponseResource | null = null;
  private readonly output: (MessageItem | CallItem | ReasoningItem)[] = [];
  /** The item being streamed, with its part, if any. */
  private open:
    | { kind: "message"; item: MessageItem; part: TextPart | null }
    | { kind: "call"; item: CallItem; call: PendingCall }
    | { kind: "reasoning"; item: ReasoningItem }
    | null = null;
  private readonly calls = new Map<number, PendingCall>();
  private finish: Finish | null = null;
  private usage: ResponseResource["usage"] = null;
  private outputText = "";
  private reasoningText = "";

  constructor(private readonly init: ChatTranslatorInit) {
    this.base = copy(init.base);
  }

  /** Whether the terminal event has been produced. */
  get ended(): boolean {
    return this.terminal !== null;
  }

  /** The terminal response, once ended. */
  get response(): ResponseResource | null {
    return this.terminal;
  }

  /** Whether a `finish_reason` was received. */
  get finished(): boolean {
    return this.finish !== null;
  }

  /** Events emitted so far. */
  get count(): number {
    return this.seq;
  }

  private push(out: StreamEvent[], type: string, fields: Json): void {
    out.push({ type, sequence_number: this.seq++, ...fields } as unknown as StreamEvent);
  }

  private snapshot(overrides: Partial<ResponseResource>): ResponseResource {
    return { ...copy(this.base), ...overrides };
  }

  /** `response.created` and `response.in_progress`, once; `model` is what the upstream reports. */
  start(model?: unknown): StreamEvent[] {
    const out: StreamEvent[] = [];
    if (this.started) return out;
    this.started = true;
    if (typeof model === "string" && model !== "") this.base.model = model;
    this.push(out, "response.created", { response: this.snapshot({ status: "in_progress" }) });
    this.push(out, "response.in_progress", { response: this.snapshot({ status: "in_progress" }) });
    return out;
  }

  // ---- items ----------------------------------------------------------------

  /** Closes the open item (its part first); the last item of an incomplete response ends incomplete. */
  private closeItem(out: StreamEvent[], status: "completed" | "incomplete" = "completed"): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    const outputIndex = this.output.indexOf(open.item);
    if (open.kind === "message") {
      this.closePart(out, open);
      const item = { ...copy(open.item), status };
      this.push(out, "response.output_item.done", { output_index: outputIndex, item });
      open.item.status = status;
    } else if (open.kind === "call") {
      const at = { item_id: open.item.id, output_index: outputIndex };
      this.push(out, "response.function_call_arguments.done", { ...at, arguments: open.item.arguments });
      this.push(out, "response.output_item.done", { output_index: outputIndex, item: { ...copy(open.item), status } });
      open.item.status = status;
      open.call.closed = true;
    } else {
      const at = { item_id: open.item.id, output_index: outputIndex, content_index: 0 };
      const part = open.item.content[0];
      this.push(out, "response.reasoning.done", { ...at, text: part.text });
      this.push(out, "response.content_part.done", { ...at, part: copy(part) });
      this.push(out, "response.output_item.done", { output_index: outputIndex, item: copy(open.item) });
    }
  }

  private closePart(out: StreamEvent[], open: { item: MessageItem; part: TextPart | null }): void {
    const part = open.part;
    if (!part) return;
    open.part = null;
    const where = {
      item_id: open.item.id,
      output_index: this.output.indexOf(open.item),
      content_index: open.item.content.indexOf(part),
    };
    if (part.type === "output_text")
      this.push(out, "response.output_text.done", {
        ...where,
        text: part.text,
        logprobs: part.logprobs ? copy(part.logprobs) : [],
      });
    else this.push(out, "response.refusal.done", { ...where, refusal: part.refusal });
    this.push(out, "response.content_part.done", { ...where, part: copy(part) });
  }

  private openMessage(out: StreamEvent[]): { kind: "message"; item: MessageItem; part: TextPart | null } {
    if (this.open?.kind === "message") return this.open;
    this.closeItem(out);
    const item: MessageItem = {
      type: "message",
      id: this.init.ids.item("msg"),
      status: "in_progress",
      role: "assistant",
      content: [],
    };
    this.push(out, "response.output_item.added", { output_index: this.output.length, item: copy(item) });
    this.output.push(item);
    return (this.open = { kind: "message", item, part: null });
  }

  private text(out: StreamEvent[], delta: string, logprobs: LogProb[]): void {
    const open = this.openMessage(out);
    if (open.part?.type !== "output_text") {
      this.closePart(out, open);
      const part: TextPart = { type: "output_text", text: "", annotations: [] };
      if (this.init.logprobs) part.logprobs = [];
      this.push(out, "response.content_part.added", {
        item_id: open.item.id,
        output_index: this.output.indexOf(open.item),
        content_index: open.item.content.length,
        part: copy(part),
      });
      open.item.content.push(part);
      open.part = part;
    }
    const part = open.part as Extract<TextPart, { type: "output_text" }>;
    this.push(out, "response.output_text.delta", {
      item_id: open.item.id,
      output_index: this.output.indexOf(open.item),
      content_index: open.item.content.indexOf(part),
      delta,
      logprobs,
    });
    part.text += delta;
    if (part.logprobs) part.logprobs.push(...logprobs);
    this.outputText += delta;
  }

  private refusal(out: StreamEvent[], delta: string): void {
    const open = this.openMessage(out);
    if (open.part?.type !== "refusal") {
      this.closePart(out, open);
      const part: TextPart = { type: "refusal", refusal: "" };
      this.push(out, "response.content_part.added", {
        item_id: open.item.id,
        output_index: this.output.indexOf(open.item),
        content_index: open.item.content.length,
        part: copy(part),
      });
      open.item.content.push(part);
      open.part = part;
    }
    const part = open.part as Extract<TextPart, { type: "refusal" }>;
    this.push(out, "response.refusal.delta", {
      item_id: open.item.id,
      output_index: this.output.indexOf(open.item),
      content_index: open.item.content.indexOf(part),
      delta,
    });
    part.refusal += delta;
    this.outputText += delta;
  }

  private reasoning(out: StreamEvent[], delta: string): void {
    if (this.open?.kind !== "reasoning") {
      this.closeItem(out);
      const item: ReasoningItem = { type: "reasoning", id: this.init.ids.item("rs"), summary: [], content: [] };
      const outputIndex = this.output.length;
      this.push(out, "response.output_item.added", { output_index: outputIndex, item: copy(item) });
      this.output.push(item);
      const part = { type: "reasoning_text" as const, text: "" };
      this.push(out, "response.content_part.added", {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: copy(part),
      });
      item.content.push(part);
      this.open = { kind: "reasoning", item };
    }
    const item = this.open.item;
    this.push(out, "response.reasoning.delta", {
      item_id: item.id,
      output_index: this.output.indexOf(item),
      content_index: 0,
      delta,
    });
    item.content[0].text += delta;
    this.reasoningText += delta;
  }

  /** Opens the item of a tool call, once its name is known. */
  private openCall(out: StreamEvent[], call: PendingCall): void {
    this.closeItem(out);
    const item: CallItem = {
      type: "function_call",
      id: this.init.ids.item("fc"),
      call_id: call.id ?? this.init.ids.call(),
      name: call.name,
      arguments: "",
      status: "in_progress",
    };
    call.outputIndex = this.output.length;
    this.push(out, "response.output_item.added", { output_index: call.outputIndex, item: copy(item) });
    this.output.push(item);
    this.open = { kind: "call", item, call };
    if (call.buffered !== "") {
      const text = call.buffered;
      call.buffered = "";
      this.arguments(out, call, text);
    }
  }

  private arguments(out: StreamEvent[], call: PendingCall, delta: string): void {
    const open = this.open;
    if (open?.kind !== "call" || open.call !== call) {
      call.buffered += delta;
      return;
    }
    this.push(out, "response.function_call_arguments.delta", {
      item_id: open.item.id,
      output_index: call.outputIndex,
      delta,
    });
    open.item.arguments += delta;
    this.outputText += delta;
  }

  /**
   * The call an entry belongs to. OpenAI numbers them (`index`); Gemini's
   * OpenAI-compatible endpoint leaves `index` out, each call whole in one
   * delta or its arguments spread over the deltas that follow. Without an
   * index, an entry with an `id` or a name other than the latest call's
   * starts the next call; anything else goes on with the latest call.
   */
  private callIndex(entry: Json, fn: Json): number {
    if (typeof entry.index === "number") return entry.index;
    const keys = [...this.calls.keys()];
    if (keys.length === 0) return 0;
    const latest = keys[keys.length - 1];
    const call = this.calls.get(latest)!;
    const id = typeof entry.id === "string" && entry.id !== "" ? entry.id : null;
    const name = typeof fn.name === "string" && fn.name !== "" ? fn.name : null;
    const known = call.outputIndex !== null ? this.output[call.outputIndex] : null;
    const callId = call.id ?? (known?.type === "function_call" ? known.call_id : null);
    const other =
      (id !== null && callId !== null && id !== callId) ||
      (id === null && name !== null && call.name !== "" && name !== call.name);
    return other ? Math.max(...keys) + 1 : latest;
  }

  /** One `tool_calls` entry of a delta. Calls stream one after the other; one that comes back after another began is an upstream fault. */
  private toolCall(out: StreamEvent[], entry: Json): string | null {
    const fn = (entry.function ?? {}) as Json;
    const index = this.callIndex(entry, fn);
    let call = this.calls.get(index);
    if (!call) {
      call = { id: null, name: "", buffered: "", outputIndex: null, closed: false };
      this.calls.set(index, call);
    } else if (call.closed || (call.outputIndex !== null && !(this.open?.kind === "call" && this.open.call === call))) {
      return `the upstream sent more of tool call ${index} after the next item had begun`;
    }
    if (typeof entry.id === "string" && entry.id !== "" && call.outputIndex === null) call.id = entry.id;
    if (typeof fn.name === "string" && fn.name !== "") {
      if (call.outputIndex !== null) {
        if (fn.name !== call.name) return `the upstream renamed tool call ${index} after it had begun`;
      } else if (fn.name !== call.name) call.name += fn.name; // the whole name again (NVIDIA NIM, Fireworks send it in every delta) is no new part of it
    }
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    // Open the item once there is a name and something follows it (arguments, or another item).
    if (call.outputIndex === null && call.name !== "" && args !== "") this.openCall(out, call);
    if (args !== "") this.arguments(out, call, args);
    return null;
  }

  /** Opens the tool calls that got a name but no arguments yet (before anything else is streamed, or at the end). */
  private openWaitingCalls(out: StreamEvent[]): void {
    for (const call of this.calls.values()) if (call.outputIndex === null && call.name !== "") this.openCall(out, call);
  }

  // ---- chunks -----------------------------------------------------------------

  /**
   * One parsed chunk (`chat.completion.chunk`), or an `{error}` object sent
   * mid-stream. Returns the events it completes (the terminal ones for an error).
   */
  chunk(chunk: unknown): StreamEvent[] {
    if (this.terminal) return [];
    const out = this.start((chunk as Json | null)?.model);
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) {
      return [
        ...out,
        ...this.fail(
          upstreamError("upstream_invalid_chunk", "The upstream sent a stream chunk that is not a JSON object."),
        ),
      ];
    }
    const c = chunk as Json;
    if (c.error !== undefined && c.error !== null) {
      const e = (typeof c.error === "object" ? c.error : { message: String(c.error) }) as Json;
      const message =
        typeof e.message === "string" && e.message !== "" ? e.message : "The upstream reported an error mid-stream.";
      return [
        ...out,
        ...this.fail({
          type: "server_error",
          code: typeof e.code === "string" ? e.code : "upstream_error",
          message: `Upstream error: ${message}`,
          param: null,
        }),
      ];
    }
    if (c.usage && typeof c.usage === "object") this.usage = this.usageOf(c.usage as Json);
    const choices = Array.isArray(c.choices) ? (c.choices as Json[]) : null;
    if (choices === null) {
      if (c.usage) return out;
      return [
        ...out,
        ...this.fail(upstreamError("upstream_invalid_chunk", "The upstream sent a stream chunk without 'choices'.")),
      ];
    }
    for (const choice of choices) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = (choice.delta ?? choice.message ?? {}) as Json;
      const reasoning =
        typeof delta.reasoning_content === "string"
          ? delta.reasoning_content
          : typeof delta.reasoning === "string"
            ? delta.reasoning
            : "";
      if (reasoning !== "") this.reasoning(out, reasoning);
      if (typeof delta.content === "string" && delta.content !== "") {
        this.openWaitingCalls(out);
        this.text(out, delta.content, logprobsOf((choice.logprobs as Json | null)?.content));
      }
      if (typeof delta.refusal === "string" && delta.refusal !== "") {
        this.openWaitingCalls(out);
        this.refusal(out, delta.refusal);
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const entry of delta.tool_calls as Json[]) {
          const fault = this.toolCall(out, entry ?? {});
          if (fault)
            return [...out, ...this.fail(upstreamError("upstream_invalid_chunk", `Upstream fault: ${fault}.`))];
        }
      }
      if (typeof choice.finish_reason === "string" && this.finish === null) {
        this.finish = finishOf(choice.finish_reason);
        this.openWaitingCalls(out);
        this.closeItem(out, this.finish.kind === "incomplete" ? "incomplete" : "completed");
      }
    }
    return out;
  }

  private usageOf(u: Json): NonNullable<ResponseResource["usage"]> {
    const input = typeof u.prompt_tokens === "number" ? u.prompt_tokens : 0;
    const output = typeof u.completion_tokens === "number" ? u.completion_tokens : 0;
    const cached = ((u.prompt_tokens_details as Json | undefined)?.cached_tokens as number | undefined) ?? 0;
    const reasoning = ((u.completion_tokens_details as Json | undefined)?.reasoning_tokens as number | undefined) ?? 0;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: Math.min(cached, input) },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: Math.min(reasoning, output) },
      total_tokens: input + output,
    };
  }

  /** Usage as the upstream sent it, or counted by the mock's tokenizer when it sent none. */
  private finalUsage(): NonNullable<ResponseResource["usage"]> {
    if (this.usage) return this.usage;
    const reasoning = countTokens(this.reasoningText);
    const output = countTokens(this.outputText) + reasoning;
    const input = this.init.inputTokens;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: reasoning },
      total_tokens: input + output,
    };
  }

  /**
   * The stream ended well (`[DONE]`, or the end of the body after a
   * `finish_reason`): closes what is open and sends the terminal event.
   * `completedAt` is Unix seconds.
   */
  end(completedAt: number): StreamEvent[] {
    if (this.terminal) return [];
    const out = this.start();
    for (const [index, call] of this.calls) {
      if (call.outputIndex === null && call.name === "")
        return [
          ...out,
          ...this.fail(
            upstreamError("upstream_invalid_chunk", `Upstream fault: tool call ${index} never got a function name.`),
          ),
        ];
    }
    const finish = this.finish ?? { kind: "completed" };
    this.openWaitingCalls(out);
    this.closeItem(out, finish.kind === "incomplete" ? "incomplete" : "completed");
    const output = copy(this.output) as unknown as OutputItem[];
    const usage = this.finalUsage();
    const response =
      finish.kind === "incomplete"
        ? this.snapshot({
            status: "incomplete",
            incomplete_details: { reason: finish.reason } as ResponseResource["incomplete_details"],
            output,
            usage,
          })
        : this.snapshot({ status: "completed", completed_at: completedAt, output, usage });
    this.push(out, finish.kind === "incomplete" ? "response.incomplete" : "response.completed", { response });
    this.terminal = response;
    return out;
  }

  /**
   * The stream failed (an upstream error, a cut, a stall): `error`, then
   * `response.failed` with what was sent so far, open items `incomplete`.
   */
  fail(error: ErrorPayload): StreamEvent[] {
    if (this.terminal) return [];
    const out = this.start();
    this.push(out, "error", { error: { ...error } });
    const output = (copy(this.output) as (Json & { status?: string })[]).map((item) =>
      item.status === "in_progress" ? { ...item, status: "incomplete" } : item,
    );
    const response = this.snapshot({
      status: "failed",
      output: output as unknown as OutputItem[],
      error: { type: error.type, code: error.code ?? error.type, message: error.message } as ResponseResource["error"],
    });
    this.push(out, "response.failed", { response });
    this.terminal = response;
    return out;
  }
}

/**
 * A whole (non-streamed) `chat.completion` as the chunks that would have
 * streamed it: reasoning, content, refusal and each tool call as one delta,
 * then the finish reason and the usage.
 */
export function completionAsChunks(completion: unknown): Json[] {
  const c = (completion ?? {}) as Json;
  const choice = ((Array.isArray(c.choices) ? c.choices : []) as Json[]).find((ch) => (ch.index ?? 0) === 0);
  const chunks: Json[] = [];
  const chunk = (delta: Json, extra: Json = {}) =>
    chunks.push({ model: c.model, choices: [{ index: 0, delta, ...extra }] });
  if (choice) {
    const m = (choice.message ?? {}) as Json;
    const reasoning =
      typeof m.reasoning_content === "string"
        ? m.reasoning_content
        : typeof m.reasoning === "string"
          ? m.reasoning
          : "";
    if (reasoning !== "") chunk({ reasoning_content: reasoning });
    if (typeof m.content === "string" && m.content !== "")
      chunk({ content: m.content }, { logprobs: choice.logprobs ?? null });
    if (typeof m.refusal === "string" && m.refusal !== "") chunk({ refusal: m.refusal });
    if (Array.isArray(m.tool_calls))
      (m.tool_calls as Json[]).forEach((call, index) => chunk({ tool_calls: [{ ...call, index }] }));
    chunk({}, { finish_reason: choice.finish_reason ?? "stop" });
  } else chunks.push({ model: c.model, choices: null });
  if (c.usage) chunks.push({ model: c.model, choices: [], usage: c.usage });
  return chunks;
}
