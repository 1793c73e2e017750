/**
 * The engine: a plan becomes the exact, ordered list of streaming events of
 * the spec's streaming rules (https://www.openresponses.org/specification,
 * "Streaming HTTP Responses" and "Items are state machines"): sequence
 * numbers from 0, indices, snapshots, budget cuts, `error` then
 * `response.failed`. Pure: no clock, no I/O, no randomness.
 */
import { fnv1a, fnv1aNumbered, hashChars } from "../generate/hash.js";
import { chunkPrefix, PackedChunks, type Chunks } from "../generate/packed-chunks.js";
import type {
  Plan,
  PlanFunctionCall,
  PlanHostedCall,
  PlanItem,
  PlanMessage,
  PlanReasoning,
  PlanVendorItem,
} from "../generate/plan.js";
import { countTokens, takeTokens, tokenize } from "../generate/tokens.js";
import type {
  ErrorPayload,
  LogProb,
  OutputAnnotation,
  OutputItem,
  ResponseResource,
  StreamEvent,
} from "../spec/index.js";

/** A copy of a plain JSON value (much cheaper than structuredClone for small objects). */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key in value) {
    const v = copyJson((value as Record<string, unknown>)[key]);
    // A JSON key "__proto__" is data: assignment would set the prototype instead.
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out as T;
}

/** Thrown inside the emitter when the planned failure point is reached. */
class FailurePoint {}

/** Raised when the output token budget runs out. */
class BudgetExhausted {}

const LOGPROB_ALTERNATIVES = [" the", " a", " and", " of", " to", " is", " in", " it", ",", "."];

/** Where an annotation's cited text ends: a url_citation's span end, a file_citation's `index` (the end of the cited sentence). */
function citedEnd(a: OutputAnnotation): number {
  return a.type === "file_citation" ? a.index : a.end_index;
}

function logprobsOf(delta: string, top: number, salt: string): LogProb[] {
  return tokenize(delta).map((token, i) => {
    const h = fnv1a(`${salt}:${i}:${token}`);
    const logprob = -Math.round((h % 2000) / 10) / 100; // 0 … -19.99, two decimals
    const bytes = [...new TextEncoder().encode(token)];
    const top_logprobs = [];
    for (let k = 0; k < top; k++) {
      const alt = k === 0 ? token : LOGPROB_ALTERNATIVES[(h + k) % LOGPROB_ALTERNATIVES.length];
      top_logprobs.push({
        token: alt,
        logprob: k === 0 ? logprob : Math.round((logprob - k * 1.25) * 100) / 100,
        bytes: [...new TextEncoder().encode(alt)],
      });
    }
    return { token, logprob, bytes, top_logprobs };
  });
}

/**
 * A run of events as the emitter produces them (undefined for each one
 * counted but not built), or a DeltaRun that produces the next ones itself.
 */
type Events = Generator<StreamEvent | undefined | DeltaRun, void, undefined>;

/** What a DeltaRun returns once its deltas are all out. */
const RUN_OVER = Symbol("run over");

/**
 * One list of deltas, produced by plain calls rather than by resuming the
 * emitter's generators: a delta is most of a stream's events, and each one
 * taken through `play → items → message → deltas` resumed four generators.
 * The emitter yields the run once; its consumer (EventSource) takes the
 * deltas from it, then resumes the emitter, which reads how the run ended.
 * The very steps of `Emitter.deltas`, in the same order: spend the budget,
 * build the event (which may throw at the failure point: the consumer throws
 * it into the emitter, where the run was yielded), keep count.
 */
class DeltaRun {
  private c = 0;
  private readonly packed: PackedChunks | null;
  /** Deltas sent whole; the text of the one the budget cut; the length sent. */
  whole = 0;
  tail = "";
  length = 0;
  cut = false;

  constructor(
    private readonly emitter: Emitter,
    readonly chunks: Chunks,
    private readonly reasoning: boolean,
    private readonly emit: (text: string, offset: number) => StreamEvent | undefined,
  ) {
    this.packed = chunks instanceof PackedChunks ? chunks : null;
  }

  next(): StreamEvent | undefined | typeof RUN_OVER {
    const { chunks } = this;
    while (!this.cut && this.c < chunks.length) {
      const chunk = this.packed !== null ? this.packed.at(this.c)! : (chunks as string[])[this.c];
      this.c++;
      const spent = this.emitter.spend(chunk, this.reasoning);
      const sent = spent.text.length > 0;
      const event = sent ? this.emit(spent.text, this.length) : undefined;
      if (spent.cut) {
        this.tail = spent.text;
        this.cut = true;
      } else this.whole++;
      if (sent) {
        this.length += spent.text.length;
        return event;
      }
    }
    return RUN_OVER;
  }
}

class Emitter {
  /** Events emitted so far (counted even when they are not collected). */
  count = 0;
  /** The extra pause (ms, from per-step delays) before the next event out; taken by it. */
  pause = 0;
  /** Output items as emitted so far; the terminal snapshot's `output`. */
  readonly output: OutputItem[] = [];
  outputTokens = 0;
  reasoningTokens = 0;
  cutByBudget = false;
  /** OpenAI web searches played (`tool_usage.web_search.num_requests` of the final response). */
  webSearches = 0;
  private readonly failAt: number | undefined;

  /**
   * @param collect keep the events (a stream); without it only the final
   * response is built, with no per-event allocation (a non-streamed answer).
   */
  /** Lists of deltas are yielded as DeltaRuns (set by EventSource, which takes them). */
  runs = false;

  constructor(
    private readonly plan: Plan,
    readonly collect = true,
  ) {
    const o = plan.outcome;
    this.failAt =
      o.kind === "failed" && o.afterEvents !== undefined
        ? Math.max(o.afterEvents, plan.options.queued ? 3 : 2)
        : undefined;
  }

  /** The next event (undefined when not collecting), with the next sequence number; or stops at the failure point. */
  push(type: string, fields: Record<string, unknown>, more?: Record<string, unknown>): StreamEvent | undefined {
    if (this.failAt !== undefined && this.count >= this.failAt) throw new FailurePoint();
    // Spread into a literal, never `{ ...where, part }`: a copy that gains a key gets a hidden class of its
    // own in V8 (a new map per event, and megamorphic code wherever it goes); `more` is the key it gains.
    const event = this.collect
      ? ({ type, sequence_number: this.count, ...fields, ...more } as unknown as StreamEvent)
      : undefined;
    this.count++;
    return event;
  }

  /** Counts an event that is not collected (the failure point still applies). */
  tick(): undefined {
    if (this.failAt !== undefined && this.count >= this.failAt) throw new FailurePoint();
    this.count++;
    return undefined;
  }

  /** A copy for an event's payload (the live object changes later); nothing to copy when not collecting. */
  snap<T>(value: T): T {
    return this.collect ? copyJson(value) : value;
  }

  /** Spends tokens of the budget; returns the part of `chunk` that fits. */
  spend(chunk: string, reasoning: boolean): { text: string; cut: boolean } {
    const budget = this.plan.budget;
    const n = countTokens(chunk);
    if (budget === null || this.outputTokens + n <= budget) {
      this.outputTokens += n;
      if (reasoning) this.reasoningTokens += n;
      return { text: chunk, cut: false };
    }
    const text = takeTokens(chunk, budget - this.outputTokens);
    const used = countTokens(text);
    this.outputTokens += used;
    if (reasoning) this.reasoningTokens += used;
    this.cutByBudget = true;
    return { text, cut: true };
  }

  /** FNV-1a of the answer's id, the prefix of every obfuscation key (hashed once). */
  private idHash: number | undefined;

  /**
   * The `obfuscation` of the event about to be counted, for a delta of
   * `length` characters: `hashString("<id>:<sequence number>", n)`, padding
   * every delta's length to a multiple of 16 (at least 2 characters).
   */
  private obfuscation(length: number): string {
    this.idHash ??= fnv1a(this.plan.base.id);
    return hashChars(fnv1aNumbered(this.idHash, this.count), Math.max(2, 16 - (length % 16)));
  }

  /**
   * Appends a text delta event, built in one go (deltas are most of a stream):
   * `type, sequence_number, item_id, output_index[, indexKey], delta[, logprobs][, obfuscation]`.
   */
  private pushDelta(
    type: string,
    at: { item_id: string; output_index: number },
    indexKey: string | null,
    index: number,
    delta: string,
    logprobs?: LogProb[],
    obfuscate = true,
  ): StreamEvent {
    if (this.failAt !== undefined && this.count >= this.failAt) throw new FailurePoint();
    const event: Record<string, unknown> = {
      type,
      sequence_number: this.count,
      item_id: at.item_id,
      output_index: at.output_index,
    };
    if (indexKey !== null) event[indexKey] = index;
    event.delta = delta;
    if (logprobs !== undefined) event.logprobs = logprobs;
    if (obfuscate && this.plan.options.obfuscation) event.obfuscation = this.obfuscation(delta.length);
    this.count++;
    return event as unknown as StreamEvent;
  }

  snapshot(overrides: Partial<ResponseResource>): ResponseResource {
    return { ...this.plan.base, ...overrides };
  }

  /**
   * Streams one list of deltas, spending the budget: yields each delta's
   * event (`emit` gets its text and the length sent before it), then runs
   * `sent` (with the length sent so far). The text sent is handed to `into`
   * once, as one flat string, when the list ends or the stream stops inside
   * it — not built up delta by delta, which would leave a chain of a
   * thousand concatenations in a long answer's snapshots. Returns whether the
   * budget cut it.
   */
  private *deltas(
    chunks: Chunks,
    reasoning: boolean,
    emit: (text: string, offset: number) => StreamEvent | undefined,
    into: (text: string) => void,
    sent?: (text: string, length: number) => Events,
  ): Generator<StreamEvent | undefined | DeltaRun, boolean, undefined> {
    if (this.runs && sent === undefined) {
      const run = new DeltaRun(this, chunks, reasoning, emit);
      try {
        yield run;
      } finally {
        into(run.tail === "" ? chunkPrefix(chunks, run.whole) : chunkPrefix(chunks, run.whole) + run.tail);
      }
      return run.cut;
    }
    let whole = 0;
    let tail = "";
    let length = 0;
    try {
      // By index, not `for…of`: a packed list's iterator is one more generator to resume for every delta.
      const packed = chunks instanceof PackedChunks ? chunks : null;
      for (let c = 0; c < chunks.length; c++) {
        const chunk = packed !== null ? packed.at(c)! : (chunks as string[])[c];
        const spent = this.spend(chunk, reasoning);
        if (spent.text.length > 0) yield emit(spent.text, length);
        if (spent.cut) tail = spent.text;
        else whole++;
        if (spent.text.length > 0) {
          length += spent.text.length;
          if (sent) yield* sent(spent.text, length);
        }
        if (spent.cut) return true;
      }
      return false;
    } finally {
      into(tail === "" ? chunkPrefix(chunks, whole) : chunkPrefix(chunks, whole) + tail);
    }
  }

  // ---- items ----------------------------------------------------------------

  *message(step: PlanMessage, outputIndex: number, lastItem: boolean): Events {
    const item: OutputItem = { type: "message", id: step.id, status: "in_progress", role: "assistant", content: [] };
    if (step.phase) (item as { phase?: string }).phase = step.phase;
    yield this.push("response.output_item.added", { output_index: outputIndex, item: this.snap(item) });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    const logprobTop = this.plan.options.logprobs;
    let cut = false;
    for (let ci = 0; ci < step.parts.length && !cut; ci++) {
      const spec = step.parts[ci];
      const where = { item_id: at.item_id, output_index: at.output_index, content_index: ci };
      if (spec.type === "output_text") {
        const part: { type: "output_text"; text: string; annotations: never[]; logprobs?: LogProb[] } = {
          type: "output_text",
          text: "",
          annotations: [],
        };
        if (logprobTop !== null) part.logprobs = [];
        yield this.push("response.content_part.added", where, { part: this.snap(part) });
        item.content.push(part);
        const annotations = spec.annotations ?? [];
        /** Sends the annotations from `part.annotations.length` on whose cited span has been sent (all of them with `all`). */
        const push = this.push.bind(this);
        const annotate = function* (all: boolean, length = 0): Events {
          for (
            let ai = part.annotations.length;
            ai < annotations.length && (all || citedEnd(annotations[ai]) <= length);
            ai++
          ) {
            yield push("response.output_text.annotation.added", where, {
              annotation_index: ai,
              annotation: { ...annotations[ai] },
            });
            (part.annotations as unknown[]).push({ ...annotations[ai] });
          }
        };
        const inline = this.plan.options.annotationsInline === true && annotations.length > 0;
        let lp: LogProb[] = [];
        cut = yield* this.deltas(
          spec.chunks,
          false,
          (text, offset) => {
            lp = logprobTop !== null ? logprobsOf(text, logprobTop, `${outputIndex}:${ci}:${offset}`) : [];
            return this.collect
              ? this.pushDelta("response.output_text.delta", at, "content_index", ci, text, lp)
              : this.tick();
          },
          (text) => void (part.text = text),
          part.logprobs || inline
            ? function* (_text, length) {
                if (part.logprobs) part.logprobs.push(...lp);
                if (inline) yield* annotate(false, length);
              }
            : undefined,
        );
        // Only where there are annotations: the first run of a generator function made here costs V8 four new hidden classes.
        if (!cut && annotations.length > 0) yield* annotate(true);
        yield this.push("response.output_text.done", where, {
          text: part.text,
          logprobs: part.logprobs ? [...part.logprobs] : [],
        });
        yield this.push("response.content_part.done", where, { part: this.snap(part) });
      } else {
        const part = { type: "refusal" as const, refusal: "" };
        yield this.push("response.content_part.added", where, { part: { ...part } });
        item.content.push(part);
        cut = yield* this.deltas(
          spec.chunks,
          false,
          (text) =>
            this.collect
              ? this.pushDelta("response.refusal.delta", at, "content_index", ci, text, undefined, false)
              : this.tick(),
          (text) => void (part.refusal = text),
        );
        yield this.push("response.refusal.done", where, { refusal: part.refusal });
        yield this.push("response.content_part.done", where, { part: { ...part } });
      }
    }
    // The live item changes only once output_item.done is out: a failure on that event leaves it in progress.
    const status = cut || (lastItem && this.plan.outcome.kind === "incomplete") ? "incomplete" : "completed";
    yield this.push("response.output_item.done", { output_index: outputIndex, item: { ...this.snap(item), status } });
    item.status = status;
    if (cut) throw new BudgetExhausted();
  }

  *functionCall(step: PlanFunctionCall, outputIndex: number, lastItem: boolean): Events {
    const item = {
      type: "function_call" as const,
      id: step.id,
      call_id: step.call_id,
      name: step.name,
      arguments: "",
      status: "in_progress" as "in_progress" | "completed" | "incomplete",
    };
    yield this.push("response.output_item.added", { output_index: outputIndex, item: { ...item } });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    const cut = yield* this.deltas(
      step.chunks,
      false,
      (text) =>
        this.collect ? this.pushDelta("response.function_call_arguments.delta", at, null, 0, text) : this.tick(),
      (text) => void (item.arguments = text),
    );
    yield this.push("response.function_call_arguments.done", at, { arguments: item.arguments });
    const status = cut || (lastItem && this.plan.outcome.kind === "incomplete") ? "incomplete" : "completed";
    yield this.push("response.output_item.done", { output_index: outputIndex, item: { ...item, status } });
    item.status = status;
    if (cut) throw new BudgetExhausted();
  }

  *reasoning(step: PlanReasoning, outputIndex: number): Events {
    const item: {
      type: "reasoning";
      id: string;
      summary: { type: "summary_text"; text: string }[];
      content?: { type: "reasoning_text"; text: string }[];
      encrypted_content?: string;
    } = {
      type: "reasoning",
      id: step.id,
      summary: [],
    };
    if (step.content) item.content = [];
    yield this.push("response.output_item.added", { output_index: outputIndex, item: this.snap(item) });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    let cut = false;
    for (let si = 0; si < step.summary.length && !cut; si++) {
      const where = { item_id: at.item_id, output_index: at.output_index, summary_index: si };
      const part = { type: "summary_text" as const, text: "" };
      yield this.push("response.reasoning_summary_part.added", where, { part: { ...part } });
      item.summary.push(part);
      cut = yield* this.deltas(
        step.summary[si],
        true,
        (text) =>
          this.collect
            ? this.pushDelta("response.reasoning_summary_text.delta", at, "summary_index", si, text)
            : this.tick(),
        (text) => void (part.text = text),
      );
      yield this.push("response.reasoning_summary_text.done", where, { text: part.text });
      yield this.push("response.reasoning_summary_part.done", where, { part: { ...part } });
    }
    for (let ci = 0; step.content && ci < step.content.length && !cut; ci++) {
      const where = { item_id: at.item_id, output_index: at.output_index, content_index: ci };
      const part = { type: "reasoning_text" as const, text: "" };
      yield this.push("response.content_part.added", where, { part: { ...part } });
      item.content!.push(part);
      cut = yield* this.deltas(
        step.content[ci],
        true,
        (text) =>
          this.collect ? this.pushDelta("response.reasoning.delta", at, "content_index", ci, text) : this.tick(),
        (text) => void (part.text = text),
      );
      yield this.push("response.reasoning.done", where, { text: part.text });
      yield this.push("response.content_part.done", where, { part: { ...part } });
    }
    const final = this.snap(item);
    if (step.encrypted_content !== undefined && !cut) final.encrypted_content = step.encrypted_content;
    yield this.push("response.output_item.done", { output_index: outputIndex, item: final });
    if (final.encrypted_content !== undefined) item.encrypted_content = final.encrypted_content;
    if (cut) throw new BudgetExhausted();
  }

  *vendorItem(step: PlanVendorItem, outputIndex: number, lastItem: boolean): Events {
    const { status, ...rest } = step.item;
    const added = { ...rest, status: "in_progress" };
    yield this.push("response.output_item.added", { output_index: outputIndex, item: this.snap(added) });
    const done = {
      ...rest,
      status: lastItem && this.plan.outcome.kind === "incomplete" ? "incomplete" : (status ?? "completed"),
    };
    this.output.push(added as unknown as OutputItem);
    yield this.push("response.output_item.done", { output_index: outputIndex, item: this.snap(done) });
    this.output[outputIndex] = done as unknown as OutputItem;
  }

  /**
   * An OpenAI hosted-tool call: added (in progress), the tool's own events as
   * `type, sequence_number, output_index, item_id, …` (the recorded key
   * order), then done. Code and MCP argument deltas build the live item and
   * count as output tokens; they are not cut by the budget (a hosted call is
   * played whole or not at all).
   */
  *hostedCall(step: PlanHostedCall, outputIndex: number, lastItem: boolean): Events {
    yield this.push("response.output_item.added", { output_index: outputIndex, item: this.snap(step.added) });
    if (step.added.type === "web_search_call") this.webSearches++;
    const item = copyJson(step.added) as Record<string, unknown>;
    this.output.push(item as unknown as OutputItem);
    for (const ev of step.events) {
      const at = { output_index: outputIndex, item_id: step.added.id };
      if (ev.delta) {
        this.outputTokens += countTokens(ev.delta.text);
        const fields: Record<string, unknown> = {
          output_index: at.output_index,
          item_id: at.item_id,
          delta: ev.delta.text,
        };
        if (this.plan.options.obfuscation) fields.obfuscation = this.obfuscation(ev.delta.text.length);
        yield this.push(ev.type, fields);
        item[ev.delta.into] = String(item[ev.delta.into] ?? "") + ev.delta.text;
      } else {
        yield this.push(ev.type, at, ev.fields ? this.snap(ev.fields) : undefined);
      }
    }
    const done: Record<string, unknown> = { ...step.done };
    if (lastItem && this.plan.outcome.kind === "incomplete" && "status" in done) done.status = "incomplete";
    yield this.push("response.output_item.done", { output_index: outputIndex, item: this.snap(done) });
    this.output[outputIndex] = done as unknown as OutputItem;
  }

  *items(items: PlanItem[]): Events {
    const lastOutput = lastOutputIndex(items);
    for (let i = 0; i < items.length; i++) {
      const step = items[i];
      // A step's pause comes before its first event (the next one out, whatever it is).
      if (step.delayMs) this.pause += step.delayMs;
      const outputIndex = this.output.length;
      const last = i === lastOutput;
      switch (step.kind) {
        case "message":
          yield* this.message(step, outputIndex, last);
          break;
        case "function_call":
          yield* this.functionCall(step, outputIndex, last);
          break;
        case "reasoning":
          yield* this.reasoning(step, outputIndex);
          break;
        case "vendor_item":
          yield* this.vendorItem(step, outputIndex, last);
          break;
        case "hosted_call":
          yield* this.hostedCall(step, outputIndex, last);
          break;
        case "vendor_event": {
          const { type, ...data } = step.event;
          yield this.push(type, data);
          break;
        }
        default: {
          const never: never = step;
          throw new Error(`unknown plan step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  /** The response this emitter's answer ends with, completed or incomplete. */
  ended(end: AnswerEnd): ResponseResource {
    return endedResponse(this.plan, end, this.output, this.outputTokens, this.reasoningTokens, this.webSearches);
  }
}

/** The index of the last plan item that is an output item (a vendor event is not); -1 when none is. */
export function lastOutputIndex(items: readonly PlanItem[]): number {
  return items.reduce((last, it, i) => (it.kind === "vendor_event" ? last : i), -1);
}

/** How an answer that did not fail ends. */
export type AnswerEnd = { status: "completed" } | { status: "incomplete"; reason: string };

/**
 * The final response of an answer that did not fail: the plan's base with
 * its status, output and usage — and, where the answer searched the web,
 * what api.openai.com adds: `tool_usage: {web_search: {num_requests}}` (never
 * in the spec dialect, where no web_search_call is played). The emitter's
 * terminal event and the direct final response (final.ts) both end here.
 */
export function endedResponse(
  plan: Plan,
  end: AnswerEnd,
  output: OutputItem[],
  outputTokens: number,
  reasoningTokens: number,
  webSearches: number,
): ResponseResource {
  const input = plan.inputTokens;
  const usage: ResponseResource["usage"] = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input + outputTokens,
  };
  const toolUsage =
    webSearches > 0 ? ({ tool_usage: { web_search: { num_requests: webSearches } } } as Partial<ResponseResource>) : {};
  if (end.status === "incomplete")
    return {
      ...plan.base,
      status: "incomplete",
      incomplete_details: { reason: end.reason },
      output,
      usage,
      ...toolUsage,
    };
  return { ...plan.base, status: "completed", completed_at: plan.completedAt, output, usage, ...toolUsage };
}

/** Closes items cut off by a failure: what was open ends `incomplete`. */
function closeOpenItems(output: OutputItem[]): OutputItem[] {
  return output.map((item) => {
    const copy = copyJson(item) as OutputItem & { status?: string };
    if (copy.status === "in_progress") copy.status = "incomplete";
    return copy;
  });
}

/** A plan's events, the extra pauses its steps ask for before some of them, and the final response. */
export interface EmittedStream {
  events: StreamEvent[];
  pauses: ReadonlyMap<number, number>;
  /** The response as the terminal event carries it (what the fold of `events` gives). */
  response: ResponseResource;
}

/**
 * A plan's events, produced one at a time as they are asked for: event `i`
 * is built (with its sequence number, snapshot or delta) only when the
 * consumer gets to it, so an open stream holds the plan and the emitter's
 * place in it, not its events. The same emitter builds `emitStream`'s array,
 * so the two cannot differ.
 */
export class EventSource {
  private readonly emitter: Emitter;
  private readonly run: Events;
  private finished = false;
  private pauseOfLast = 0;
  private final: ResponseResource | undefined;

  /** The run of deltas being taken, if any. */
  private current: DeltaRun | null = null;

  /**
   * @param options.runs take lists of deltas as DeltaRuns (the default); false
   * resumes the generators for every delta, as the emitter did before runs
   * (tests hold the two to the same events)
   */
  constructor(
    readonly plan: Plan,
    options: { runs?: boolean } = {},
  ) {
    this.emitter = new Emitter(plan);
    this.emitter.runs = options.runs ?? true;
    this.run = play(this.emitter, plan, (response) => void (this.final = response));
  }

  /** The next event, or undefined once the terminal one has been produced. */
  next(): StreamEvent | undefined {
    if (this.finished) return undefined;
    for (;;) {
      let step: IteratorResult<StreamEvent | undefined | DeltaRun, void> | undefined;
      const run = this.current;
      if (run === null) step = this.run.next();
      else {
        let event: StreamEvent | undefined | typeof RUN_OVER = RUN_OVER;
        try {
          event = run.next();
        } catch (err) {
          // Where the emitter would have thrown it: inside its list of deltas.
          this.current = null;
          step = this.run.throw(err);
        }
        if (step === undefined) {
          if (event !== RUN_OVER) return this.out(event);
          this.current = null;
          step = this.run.next();
        }
      }
      if (step.done) {
        this.finished = true;
        return undefined;
      }
      // A list of deltas is taken from on the next turn of the loop.
      if (step.value instanceof DeltaRun) this.current = step.value;
      else return this.out(step.value);
    }
  }

  /** An event out, with the pause its step asked for before it. */
  private out(event: StreamEvent | undefined): StreamEvent | undefined {
    this.pauseOfLast = this.emitter.pause;
    this.emitter.pause = 0;
    return event;
  }

  /** How many events have been produced so far. */
  get produced(): number {
    return this.emitter.count;
  }

  /** The extra pause (ms) a scripted step asks for before the event last produced. */
  get pause(): number {
    return this.pauseOfLast;
  }

  /** The final response, once the terminal event has been produced (the object that event carries). */
  get response(): ResponseResource | undefined {
    return this.final;
  }
}

/** Turns a plan into its complete, ordered list of streaming events. */
export function emitEvents(plan: Plan): StreamEvent[] {
  return emitStream(plan).events;
}

/** Like emitEvents, with the per-step pauses for the timing schedule and the final response. */
export function emitStream(plan: Plan): EmittedStream {
  const source = new EventSource(plan);
  const events: StreamEvent[] = [];
  const pauses = new Map<number, number>();
  for (let e = source.next(); e !== undefined; e = source.next()) {
    if (source.pause > 0) pauses.set(events.length, source.pause);
    events.push(e);
  }
  return { events, pauses, response: source.response! };
}

/**
 * Only the final response of a plan — the same object the terminal event
 * would carry — without building the events (for non-streamed answers).
 */
export function emitFinal(plan: Plan): ResponseResource {
  let final: ResponseResource | undefined;
  const run = play(new Emitter(plan, false), plan, (response) => void (final = response));
  while (!run.next().done);
  return final!;
}

/** Plays a plan into an emitter, event by event; hands the terminal response to `end` as its event is produced. */
function* play(e: Emitter, plan: Plan, end: (response: ResponseResource) => void): Events {
  const lifecycle = (type: string, status: ResponseResource["status"]) =>
    e.push(type, e.collect ? { response: e.snapshot({ status }) } : {});
  yield lifecycle("response.created", plan.options.queued ? "queued" : "in_progress");
  if (plan.options.queued) yield lifecycle("response.queued", "queued");
  yield lifecycle("response.in_progress", "in_progress");

  const outcome = plan.outcome;
  let stoppedBy: "failure" | "budget" | null = null;
  try {
    yield* e.items(plan.items);
  } catch (stop) {
    if (stop instanceof FailurePoint) stoppedBy = "failure";
    else if (stop instanceof BudgetExhausted) stoppedBy = "budget";
    else throw stop;
  }

  /** The terminal event, always emitted (past any failure point). */
  const terminal = (type: string, response: ResponseResource) => {
    end(response);
    const event = e.collect ? ({ type, sequence_number: e.count, response } as StreamEvent) : undefined;
    e.count++;
    return event;
  };

  // A budget that runs out before the planned failure point pre-empts it.
  if (outcome.kind === "failed" && stoppedBy !== "budget") {
    const error: ErrorPayload = { ...outcome.error };
    const event = e.collect ? ({ type: "error", sequence_number: e.count, error } as StreamEvent) : undefined;
    e.count++;
    yield event;
    yield terminal(
      "response.failed",
      e.snapshot({
        status: "failed",
        output: closeOpenItems(e.output),
        error: { type: error.type, code: error.code ?? error.type, message: error.message },
      }),
    );
    return;
  }
  if (stoppedBy === "budget" || outcome.kind === "incomplete") {
    const reason = stoppedBy === "budget" ? "max_output_tokens" : (outcome as { reason: string }).reason;
    yield terminal("response.incomplete", e.ended({ status: "incomplete", reason }));
    return;
  }
  yield terminal("response.completed", e.ended({ status: "completed" }));
}

/** How many of the latest events a window keeps (the pacer reads one ahead of what it sends). */
const WINDOW = 4;

/**
 * A stream's events for a schedule and a sink to share: `at(i)` produces
 * events up to `i` from the plan as they are first asked for, and keeps only
 * the last few (the schedule reads event `i + 1` to time it while the sink is
 * still to send event `i`). Asking for an event older than that throws: a
 * stream is played forward.
 */
export class EventWindow {
  private readonly source: EventSource;
  private readonly ring: (StreamEvent | undefined)[] = new Array(WINDOW);
  /** A plain array, not a Float64Array: a typed array costs an ArrayBuffer besides, for every stream. */
  private readonly pauses: number[] = new Array<number>(WINDOW).fill(0);

  constructor(plan: Plan) {
    this.source = new EventSource(plan);
  }

  /** Event `index`, produced now if it was not yet; undefined past the terminal event. */
  at(index: number): StreamEvent | undefined {
    while (this.source.produced <= index) {
      const n = this.source.produced;
      const event = this.source.next();
      if (event === undefined) return undefined;
      this.ring[n % WINDOW] = event;
      this.pauses[n % WINDOW] = this.source.pause;
    }
    if (index < this.source.produced - WINDOW || index < 0)
      throw new RangeError(`event ${index} is no longer held (the stream is at ${this.source.produced})`);
    return this.ring[index % WINDOW];
  }

  /** The extra pause before event `index` (read once `at(index)` has produced it). */
  pauseBefore(index: number): number {
    this.at(index);
    return this.pauses[index % WINDOW];
  }

  /** How many events have been produced so far. */
  get produced(): number {
    return this.source.produced;
  }

  /** The final response, once the terminal event has been produced. */
  get response(): ResponseResource | undefined {
    return this.source.response;
  }
}
