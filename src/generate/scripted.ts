/**
 * Scripted scenarios: the turn that answers a request is chosen by the
 * conversation (the number of assistant turns already in it), never by a
 * server-side counter, so parallel clients of one server cannot disturb each
 * other. The turn's steps become plan items; its end becomes the outcome, or
 * an HTTP error before any stream.
 */
import { assistantTurns, contentText, lastUserText, trailingToolOutputs } from "../scenario/conversation.js";
import type { Chunking, End, Scenario, Step, Turn } from "../scenario/schema.js";
import { ApiError, type ErrorPayload, type FunctionToolParam } from "../spec/index.js";
import { assemblePlan } from "./assemble.js";
import { chunkChars, chunkText } from "./chunk.js";
import type { GenerateContext } from "./context.js";
import { sampleJsonSchema } from "./json-schema-sample.js";
import type { Plan, PlanItem, PlanOutcome } from "./plan.js";
import type { Rng } from "./rng.js";
import { properNames } from "./words.js";

/** Splits text as a step asks, or in 1-3 token deltas from the seed. */
export function chunkWith(text: string, chunking: Chunking | undefined, rng: Rng): string[] {
  if (chunking?.chars) return chunkChars(text, chunking.chars);
  if (chunking?.tokens) return chunkText(text, rng, chunking.tokens, chunking.tokens);
  return chunkText(text, rng);
}

/** The turn a request gets: one per assistant turn already in the conversation; the last repeats. */
export function turnFor(turns: readonly Turn[], ctx: GenerateContext): { turn: Turn; index: number } {
  const index = Math.min(assistantTurns(ctx.items), turns.length - 1);
  return { turn: turns[index], index };
}

const DEFAULT_ERRORS: Record<number, { type: string; code: string; message: string }> = {
  400: { type: "invalid_request", code: "invalid_request", message: "The request was rejected (scripted 400)." },
  401: { type: "invalid_request", code: "invalid_api_key", message: "Incorrect API key provided (scripted 401)." },
  403: { type: "invalid_request", code: "permission_denied", message: "You do not have access to this resource (scripted 403)." },
  404: { type: "not_found", code: "not_found", message: "The requested resource was not found (scripted 404)." },
  409: { type: "invalid_request", code: "conflict", message: "The request conflicts with the current state (scripted 409)." },
  413: { type: "invalid_request", code: "request_too_large", message: "The request is too large (scripted 413)." },
  422: { type: "invalid_request", code: "unprocessable_entity", message: "The request could not be processed (scripted 422)." },
  429: { type: "too_many_requests", code: "rate_limit_exceeded", message: "Rate limit reached; retry after the time in the retry-after header (scripted 429)." },
  500: { type: "server_error", code: "internal_error", message: "The server had an error while processing the request (scripted 500)." },
  502: { type: "server_error", code: "bad_gateway", message: "Bad gateway (scripted 502)." },
  503: { type: "server_error", code: "service_unavailable", message: "The service is temporarily unavailable (scripted 503)." },
};

/** The HTTP error a turn ending in `http_error` is answered with. */
export function httpErrorOf(end: Extract<End, { type: "http_error" }>): ApiError {
  const d = DEFAULT_ERRORS[end.status] ?? DEFAULT_ERRORS[500];
  return new ApiError({
    status: end.status,
    type: end.error?.type ?? d.type,
    code: end.error?.code !== undefined ? end.error.code : d.code,
    param: end.error?.param ?? null,
    message: end.error?.message ?? d.message,
    headers: end.headers,
  });
}

function outcomeOf(end: End | undefined): PlanOutcome {
  if (!end || end.type === "completed") return { kind: "completed" };
  if (end.type === "incomplete") return { kind: "incomplete", reason: end.reason };
  if (end.type === "failed") {
    const error: ErrorPayload = {
      type: end.error?.type ?? "model_error",
      code: end.error?.code !== undefined ? end.error.code : "model_error",
      message: end.error?.message ?? "The model failed while generating the response (scripted failure).",
      param: end.error?.param ?? null,
    };
    return { kind: "failed", error, afterEvents: end.afterEvents };
  }
  throw new Error(`http_error ends are answered before planning`);
}

function fill(text: string, ctx: GenerateContext): string {
  if (!text.includes("{{")) return text;
  const outputs = trailingToolOutputs(ctx.items);
  const values: Record<string, string> = {
    input: lastUserText(ctx.items),
    tool_output: outputs.length ? contentText(outputs[outputs.length - 1].output) : "",
    tool_outputs: outputs.map((o) => contentText(o.output)).join("; "),
    model: ctx.request.model,
  };
  // A replacer function, so `$&` and friends in the values are taken literally.
  return text.replace(/\{\{(input|tool_outputs|tool_output|model)\}\}/g, (_m, name: string) => values[name]);
}

function argumentsOf(step: Extract<Step, { type: "function_call" }>, ctx: GenerateContext): string {
  if (typeof step.arguments === "string") return step.arguments;
  if (step.arguments) return JSON.stringify(step.arguments);
  const tool = (ctx.request.tools ?? []).find((t): t is FunctionToolParam => t.type === "function" && (t as FunctionToolParam).name === step.name);
  const userText = lastUserText(ctx.items);
  return JSON.stringify(sampleJsonSchema(tool?.parameters ?? { type: "object", properties: {} }, ctx.rng, { words: userText.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [], places: properNames(userText) }));
}

/** Turns scripted steps into plan items (ids drawn from the rng in order). */
export function planSteps(steps: readonly Step[], ctx: GenerateContext): PlanItem[] {
  const { rng } = ctx;
  return steps.map((step): PlanItem => {
    switch (step.type) {
      case "message": {
        const parts: Extract<PlanItem, { kind: "message" }>["parts"] = [];
        if (step.text !== undefined) {
          parts.push({ type: "output_text", chunks: chunkWith(fill(step.text, ctx), step.chunk, rng), annotations: step.annotations?.map((a) => ({ ...a, type: "url_citation" as const })) });
        }
        if (step.refusal !== undefined) parts.push({ type: "refusal", chunks: chunkWith(fill(step.refusal, ctx), step.chunk, rng) });
        return { kind: "message", id: ctx.ids.item("msg"), phase: step.phase, parts, delayMs: step.delayMs };
      }
      case "reasoning":
        return {
          kind: "reasoning",
          id: ctx.ids.item("rs"),
          summary: step.summary.map((s) => chunkWith(fill(s, ctx), step.chunk, rng)),
          content: step.text !== undefined ? [chunkWith(fill(step.text, ctx), step.chunk, rng)] : undefined,
          encrypted_content: step.encrypted_content,
          delayMs: step.delayMs,
        };
      case "function_call":
        return {
          kind: "function_call",
          id: ctx.ids.item("fc"),
          call_id: step.call_id ?? ctx.ids.call(),
          name: step.name,
          chunks: chunkWith(argumentsOf(step, ctx), step.chunk, rng),
          delayMs: step.delayMs,
        };
      case "vendor_item": {
        const id = step.item.id ?? ctx.ids.item(step.item.type.split(":")[1].replace(/[^A-Za-z0-9]/g, "").slice(0, 8) || "item");
        return { kind: "vendor_item", item: { ...step.item, id }, delayMs: step.delayMs };
      }
      case "vendor_event":
        return { kind: "vendor_event", event: { ...step.event }, delayMs: step.delayMs };
    }
  });
}

/** Plans the answer of a scripted scenario; throws the ApiError of an `http_error` turn. */
export function planScripted(scenario: Scenario & { turns: Turn[] }, ctx: GenerateContext): Plan {
  const { turn } = turnFor(scenario.turns, ctx);
  if (turn.end?.type === "http_error") throw httpErrorOf(turn.end);
  const id = ctx.ids.response();
  const plan = assemblePlan(ctx, id, planSteps(turn.steps, ctx), outcomeOf(turn.end), scenario);
  if (turn.timing) plan.timing = { ...plan.timing, ...turn.timing };
  if (turn.fault) plan.fault = { ...plan.fault, ...turn.fault };
  return plan;
}
