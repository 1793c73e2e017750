/**
 * The final response of a plan built straight from it, without playing its
 * events: what a non-streamed answer needs, and a lazy stream needs up front.
 * It takes the plans whose end needs no event count and no cut — no failure
 * point, a budget that every delta fits in, no logprobs — which is nearly
 * every answer, and declines the rest (`undefined`), which the emitter plays.
 * The emitter stays the truth: a test holds this to `emitFinal`, key order
 * included, on every shipped scenario, random plans and random requests. Pure.
 */
import { PackedChunks, type Chunks } from "../generate/packed-chunks.js";
import type { Plan } from "../generate/plan.js";
import { countTokens } from "../generate/tokens.js";
import type { OutputItem, ResponseResource } from "../spec/index.js";
import { emitFinal, endedResponse, lastOutputIndex } from "./emit-events.js";

/** A list of deltas joined, and the tokens they spend one by one (as the emitter counts them). */
function joined(chunks: Chunks): { text: string; tokens: number } {
  let tokens = 0;
  if (chunks instanceof PackedChunks) {
    for (let i = 0; i < chunks.length; i++) tokens += countTokens(chunks.at(i)!);
    return { text: chunks.text, tokens };
  }
  for (let i = 0; i < chunks.length; i++) tokens += countTokens(chunks[i]);
  // Joined flat, as the emitter joins them: a `+=` chain would be kept as a rope of every delta.
  return { text: chunks.length === 1 ? chunks[0] : chunks.join(""), tokens };
}

/** The final response of a plan, or undefined for a plan it leaves to the emitter (see the top of this file). */
export function directFinal(plan: Plan): ResponseResource | undefined {
  const outcome = plan.outcome;
  if (outcome.kind === "failed" || plan.options.logprobs !== null) return undefined;
  const items = plan.items;
  const lastOutput = lastOutputIndex(items);
  const output: OutputItem[] = [];
  let outputTokens = 0;
  let reasoningTokens = 0;
  let webSearches = 0;
  for (let i = 0; i < items.length; i++) {
    const step = items[i];
    const status = i === lastOutput && outcome.kind === "incomplete" ? "incomplete" : "completed";
    switch (step.kind) {
      case "message": {
        const content: unknown[] = [];
        for (const spec of step.parts) {
          const { text, tokens } = joined(spec.chunks);
          outputTokens += tokens;
          if (spec.type === "output_text")
            content.push({ type: "output_text", text, annotations: (spec.annotations ?? []).map((a) => ({ ...a })) });
          else content.push({ type: "refusal", refusal: text });
        }
        const item: Record<string, unknown> = { type: "message", id: step.id, status, role: "assistant", content };
        if (step.phase) item.phase = step.phase;
        output.push(item as unknown as OutputItem);
        break;
      }
      case "function_call": {
        const { text, tokens } = joined(step.chunks);
        outputTokens += tokens;
        output.push({
          type: "function_call",
          id: step.id,
          call_id: step.call_id,
          name: step.name,
          arguments: text,
          status,
        } as OutputItem);
        break;
      }
      case "reasoning": {
        const summary: unknown[] = [];
        const item: Record<string, unknown> = { type: "reasoning", id: step.id, summary };
        for (const chunks of step.summary) {
          const { text, tokens } = joined(chunks);
          outputTokens += tokens;
          reasoningTokens += tokens;
          summary.push({ type: "summary_text", text });
        }
        if (step.content) {
          const content: unknown[] = [];
          item.content = content;
          for (const chunks of step.content) {
            const { text, tokens } = joined(chunks);
            outputTokens += tokens;
            reasoningTokens += tokens;
            content.push({ type: "reasoning_text", text });
          }
        }
        if (step.encrypted_content !== undefined) item.encrypted_content = step.encrypted_content;
        output.push(item as unknown as OutputItem);
        break;
      }
      case "vendor_item": {
        const { status: own, ...rest } = step.item;
        output.push({
          ...rest,
          status: status === "incomplete" ? "incomplete" : (own ?? "completed"),
        } as unknown as OutputItem);
        break;
      }
      case "hosted_call": {
        if (step.added.type === "web_search_call") webSearches++;
        for (const ev of step.events) if (ev.delta) outputTokens += countTokens(ev.delta.text);
        const done: Record<string, unknown> = { ...step.done };
        if (status === "incomplete" && "status" in done) done.status = "incomplete";
        output.push(done as unknown as OutputItem);
        break;
      }
      case "vendor_event":
        break;
      default:
        return undefined;
    }
  }
  // A budget that every delta fits in cuts nothing; one that some delta passes is the emitter's to cut.
  if (plan.budget !== null && outputTokens > plan.budget) return undefined;
  return endedResponse(
    plan,
    outcome.kind === "incomplete" ? { status: "incomplete", reason: outcome.reason } : { status: "completed" },
    output,
    outputTokens,
    reasoningTokens,
    webSearches,
  );
}

/** The final response of a plan: built directly where it can be, played through the emitter otherwise. */
export function finalResponse(plan: Plan): ResponseResource {
  return directFinal(plan) ?? emitFinal(plan);
}
