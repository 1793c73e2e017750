/**
 * The engine: a plan becomes the exact, ordered list of streaming events of
 * DIGEST §5.3 — sequence numbers from 0, indices, snapshots, budget cuts,
 * `error` then `response.failed`. Pure: no clock, no I/O, no randomness.
 */
import { hashString, fnv1a } from "../generate/hash.js";
import type { Plan, PlanFunctionCall, PlanItem, PlanMessage, PlanReasoning, PlanVendorItem } from "../generate/plan.js";
import { countTokens, takeTokens, tokenize } from "../generate/tokens.js";
import type {
  ErrorPayload,
  LogProb,
  OutputItem,
  ResponseResource,
  StreamEvent,
} from "../spec/index.js";

/** Thrown inside the emitter when the planned failure point is reached. */
class FailurePoint {}

/** Raised when the output token budget runs out. */
class BudgetExhausted {}

const LOGPROB_ALTERNATIVES = [" the", " a", " and", " of", " to", " is", " in", " it", ",", "."];

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

class Emitter {
  readonly events: StreamEvent[] = [];
  /** Extra pauses before events, by event index (from per-step delays). */
  readonly pauses = new Map<number, number>();
  /** Output items as emitted so far; the terminal snapshot's `output`. */
  readonly output: OutputItem[] = [];
  outputTokens = 0;
  reasoningTokens = 0;
  cutByBudget = false;
  private readonly failAt: number | undefined;

  constructor(private readonly plan: Plan) {
    const o = plan.outcome;
    this.failAt = o.kind === "failed" && o.afterEvents !== undefined ? Math.max(o.afterEvents, plan.options.queued ? 3 : 2) : undefined;
  }

  /** Appends an event with the next sequence number, or stops at the failure point. */
  push<T extends Record<string, unknown>>(type: string, fields: T): void {
    if (this.failAt !== undefined && this.events.length >= this.failAt) throw new FailurePoint();
    this.events.push({ type, sequence_number: this.events.length, ...fields } as unknown as StreamEvent);
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

  private obfuscation(delta: string): Record<string, string> {
    if (!this.plan.options.obfuscation) return {};
    const len = Math.max(2, 16 - (delta.length % 16));
    return { obfuscation: hashString(`${this.plan.base.id}:${this.events.length}`, len) };
  }

  snapshot(overrides: Partial<ResponseResource>): ResponseResource {
    return { ...this.plan.base, ...overrides };
  }

  // ---- items ----------------------------------------------------------------

  message(step: PlanMessage, outputIndex: number, lastItem: boolean): void {
    const item: OutputItem = { type: "message", id: step.id, status: "in_progress", role: "assistant", content: [] };
    if (step.phase) (item as { phase?: string }).phase = step.phase;
    this.push("response.output_item.added", { output_index: outputIndex, item: structuredClone(item) });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    const logprobTop = this.plan.options.logprobs;
    let cut = false;
    for (let ci = 0; ci < step.parts.length && !cut; ci++) {
      const spec = step.parts[ci];
      const where = { ...at, content_index: ci };
      if (spec.type === "output_text") {
        const part: { type: "output_text"; text: string; annotations: never[]; logprobs?: LogProb[] } = { type: "output_text", text: "", annotations: [] };
        if (logprobTop !== null) part.logprobs = [];
        this.push("response.content_part.added", { ...where, part: structuredClone(part) });
        item.content.push(part);
        for (const chunk of spec.chunks) {
          const spent = this.spend(chunk, false);
          if (spent.text.length > 0) {
            const lp = logprobTop !== null ? logprobsOf(spent.text, logprobTop, `${step.id}:${ci}:${part.text.length}`) : [];
            this.push("response.output_text.delta", { ...where, delta: spent.text, logprobs: lp, ...this.obfuscation(spent.text) });
            part.text += spent.text;
            if (part.logprobs) part.logprobs.push(...lp);
          }
          if (spent.cut) { cut = true; break; }
        }
        if (!cut && spec.annotations) {
          for (const [ai, annotation] of spec.annotations.entries()) {
            this.push("response.output_text.annotation.added", { ...where, annotation_index: ai, annotation: { ...annotation } });
            (part.annotations as unknown[]).push({ ...annotation });
          }
        }
        this.push("response.output_text.done", { ...where, text: part.text, logprobs: part.logprobs ? [...part.logprobs] : [] });
        this.push("response.content_part.done", { ...where, part: structuredClone(part) });
      } else {
        const part = { type: "refusal" as const, refusal: "" };
        this.push("response.content_part.added", { ...where, part: { ...part } });
        item.content.push(part);
        for (const chunk of spec.chunks) {
          const spent = this.spend(chunk, false);
          if (spent.text.length > 0) {
            this.push("response.refusal.delta", { ...where, delta: spent.text });
            part.refusal += spent.text;
          }
          if (spent.cut) { cut = true; break; }
        }
        this.push("response.refusal.done", { ...where, refusal: part.refusal });
        this.push("response.content_part.done", { ...where, part: { ...part } });
      }
    }
    // The live item changes only once output_item.done is out: a failure on that event leaves it in progress.
    const status = cut || (lastItem && this.plan.outcome.kind === "incomplete") ? "incomplete" : "completed";
    this.push("response.output_item.done", { output_index: outputIndex, item: { ...structuredClone(item), status } });
    item.status = status;
    if (cut) throw new BudgetExhausted();
  }

  functionCall(step: PlanFunctionCall, outputIndex: number, lastItem: boolean): void {
    const item = { type: "function_call" as const, id: step.id, call_id: step.call_id, name: step.name, arguments: "", status: "in_progress" as "in_progress" | "completed" | "incomplete" };
    this.push("response.output_item.added", { output_index: outputIndex, item: { ...item } });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    let cut = false;
    for (const chunk of step.chunks) {
      const spent = this.spend(chunk, false);
      if (spent.text.length > 0) {
        this.push("response.function_call_arguments.delta", { ...at, delta: spent.text, ...this.obfuscation(spent.text) });
        item.arguments += spent.text;
      }
      if (spent.cut) { cut = true; break; }
    }
    this.push("response.function_call_arguments.done", { ...at, arguments: item.arguments });
    const status = cut || (lastItem && this.plan.outcome.kind === "incomplete") ? "incomplete" : "completed";
    this.push("response.output_item.done", { output_index: outputIndex, item: { ...item, status } });
    item.status = status;
    if (cut) throw new BudgetExhausted();
  }

  reasoning(step: PlanReasoning, outputIndex: number): void {
    const item: { type: "reasoning"; id: string; summary: { type: "summary_text"; text: string }[]; content?: { type: "reasoning_text"; text: string }[]; encrypted_content?: string } = {
      type: "reasoning",
      id: step.id,
      summary: [],
    };
    if (step.content) item.content = [];
    this.push("response.output_item.added", { output_index: outputIndex, item: structuredClone(item) });
    this.output.push(item);
    const at = { item_id: step.id, output_index: outputIndex };
    let cut = false;
    for (let si = 0; si < step.summary.length && !cut; si++) {
      const where = { ...at, summary_index: si };
      const part = { type: "summary_text" as const, text: "" };
      this.push("response.reasoning_summary_part.added", { ...where, part: { ...part } });
      item.summary.push(part);
      for (const chunk of step.summary[si]) {
        const spent = this.spend(chunk, true);
        if (spent.text.length > 0) {
          this.push("response.reasoning_summary_text.delta", { ...where, delta: spent.text, ...this.obfuscation(spent.text) });
          part.text += spent.text;
        }
        if (spent.cut) { cut = true; break; }
      }
      this.push("response.reasoning_summary_text.done", { ...where, text: part.text });
      this.push("response.reasoning_summary_part.done", { ...where, part: { ...part } });
    }
    for (let ci = 0; step.content && ci < step.content.length && !cut; ci++) {
      const where = { ...at, content_index: ci };
      const part = { type: "reasoning_text" as const, text: "" };
      this.push("response.content_part.added", { ...where, part: { ...part } });
      item.content!.push(part);
      for (const chunk of step.content[ci]) {
        const spent = this.spend(chunk, true);
        if (spent.text.length > 0) {
          this.push("response.reasoning.delta", { ...where, delta: spent.text, ...this.obfuscation(spent.text) });
          part.text += spent.text;
        }
        if (spent.cut) { cut = true; break; }
      }
      this.push("response.reasoning.done", { ...where, text: part.text });
      this.push("response.content_part.done", { ...where, part: { ...part } });
    }
    const final = structuredClone(item);
    if (step.encrypted_content !== undefined && !cut) final.encrypted_content = step.encrypted_content;
    this.push("response.output_item.done", { output_index: outputIndex, item: final });
    if (final.encrypted_content !== undefined) item.encrypted_content = final.encrypted_content;
    if (cut) throw new BudgetExhausted();
  }

  vendorItem(step: PlanVendorItem, outputIndex: number, lastItem: boolean): void {
    const { status, ...rest } = step.item;
    const added = { ...rest, status: "in_progress" };
    this.push("response.output_item.added", { output_index: outputIndex, item: structuredClone(added) });
    const done = { ...rest, status: lastItem && this.plan.outcome.kind === "incomplete" ? "incomplete" : (status ?? "completed") };
    this.output.push(added as unknown as OutputItem);
    this.push("response.output_item.done", { output_index: outputIndex, item: structuredClone(done) });
    this.output[outputIndex] = done as unknown as OutputItem;
  }

  items(items: PlanItem[]): void {
    const lastOutput = items.reduce((last, it, i) => (it.kind === "vendor_event" ? last : i), -1);
    items.forEach((step, i) => {
      if (step.delayMs) this.pauses.set(this.events.length, (this.pauses.get(this.events.length) ?? 0) + step.delayMs);
      const outputIndex = this.output.length;
      const last = i === lastOutput;
      switch (step.kind) {
        case "message": return this.message(step, outputIndex, last);
        case "function_call": return this.functionCall(step, outputIndex, last);
        case "reasoning": return this.reasoning(step, outputIndex);
        case "vendor_item": return this.vendorItem(step, outputIndex, last);
        case "vendor_event": {
          const { type, ...data } = step.event;
          return this.push(type, data);
        }
        default: {
          const never: never = step;
          throw new Error(`unknown plan step ${JSON.stringify(never)}`);
        }
      }
    });
  }

  usage(): ResponseResource["usage"] {
    const input = this.plan.inputTokens;
    return {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: this.outputTokens,
      output_tokens_details: { reasoning_tokens: this.reasoningTokens },
      total_tokens: input + this.outputTokens,
    };
  }
}

/** Closes items cut off by a failure: what was open ends `incomplete`. */
function closeOpenItems(output: OutputItem[]): OutputItem[] {
  return output.map((item) => {
    const copy = structuredClone(item) as OutputItem & { status?: string };
    if (copy.status === "in_progress") copy.status = "incomplete";
    return copy;
  });
}

/** A plan's events, and the extra pauses its steps ask for before some of them. */
export interface EmittedStream {
  events: StreamEvent[];
  pauses: ReadonlyMap<number, number>;
}

/** Turns a plan into its complete, ordered list of streaming events. */
export function emitEvents(plan: Plan): StreamEvent[] {
  return emitStream(plan).events;
}

/** Like emitEvents, with the per-step pauses for the timing schedule. */
export function emitStream(plan: Plan): EmittedStream {
  const e = new Emitter(plan);
  const events = play(e, plan);
  return { events, pauses: e.pauses };
}

function play(e: Emitter, plan: Plan): StreamEvent[] {
  const starting = plan.options.queued ? "queued" : "in_progress";
  e.push("response.created", { response: e.snapshot({ status: starting }) });
  if (plan.options.queued) e.push("response.queued", { response: e.snapshot({ status: "queued" }) });
  e.push("response.in_progress", { response: e.snapshot({ status: "in_progress" }) });

  const outcome = plan.outcome;
  let stoppedBy: "failure" | "budget" | null = null;
  try {
    e.items(plan.items);
  } catch (stop) {
    if (stop instanceof FailurePoint) stoppedBy = "failure";
    else if (stop instanceof BudgetExhausted) stoppedBy = "budget";
    else throw stop;
  }

  // A budget that runs out before the planned failure point pre-empts it.
  if (outcome.kind === "failed" && stoppedBy !== "budget") {
    const error: ErrorPayload = { ...outcome.error };
    e.events.push({ type: "error", sequence_number: e.events.length, error } as StreamEvent);
    e.events.push({
      type: "response.failed",
      sequence_number: e.events.length,
      response: e.snapshot({
        status: "failed",
        output: closeOpenItems(e.output),
        error: { code: error.code ?? error.type, message: error.message },
      }),
    } as StreamEvent);
    return e.events;
  }
  if (stoppedBy === "budget" || outcome.kind === "incomplete") {
    const reason = stoppedBy === "budget" ? "max_output_tokens" : (outcome as { reason: string }).reason;
    e.events.push({
      type: "response.incomplete",
      sequence_number: e.events.length,
      response: e.snapshot({ status: "incomplete", incomplete_details: { reason }, output: e.output, usage: e.usage() }),
    } as StreamEvent);
    return e.events;
  }
  e.events.push({
    type: "response.completed",
    sequence_number: e.events.length,
    response: e.snapshot({ status: "completed", completed_at: plan.completedAt, output: e.output, usage: e.usage() }),
  } as StreamEvent);
  return e.events;
}
