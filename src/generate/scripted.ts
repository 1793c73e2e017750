/**
 * Scripted scenarios: the turn that answers a request is chosen by the
 * conversation (the number of assistant turns already in it), never by a
 * server-side counter, so parallel clients of one server cannot disturb each
 * other. The turn's steps become plan items; its end becomes the outcome, or
 * an HTTP error before any stream.
 */
import { assistantTurns, contentText, lastUserText, trailingToolOutputs } from "../scenario/conversation.js";
import type { Chunking, End, Scenario, Step, Turn } from "../scenario/schema.js";
import { ApiError, type ErrorPayload, type FunctionToolParam, type OutputAnnotation } from "../spec/index.js";
import { assemblePlan } from "./assemble.js";
import { planHosted } from "./hosted.js";
import { chunkChars, chunkSizes, chunkText } from "./chunk.js";
import { PACK_MIN_CHUNKS, PackedChunks, type Chunks } from "./packed-chunks.js";
import type { GenerateContext } from "./context.js";
import { CALL_BYTES, MAX_FILLED_DELTAS, schemaTooLarge, userTextWithin } from "./budgets.js";
import { sampleWithin } from "./json-schema-sample.js";
import type { Plan, PlanItem, PlanOutcome } from "./plan.js";
import type { Rng } from "./rng.js";
import { properNames } from "./words.js";

/** Splits text as a step asks, or in 1-3 token deltas from the seed; at most `maxDeltas` deltas (longer ones past that). */
export function chunkWith(text: string, chunking: Chunking | undefined, rng: Rng, maxDeltas = Infinity): string[] {
  if (chunking?.sizes) return chunkSizes(text, chunking.sizes, maxDeltas);
  if (chunking?.chars) return chunkChars(text, chunking.chars, maxDeltas);
  if (chunking?.tokens) return chunkText(text, rng, chunking.tokens, chunking.tokens, maxDeltas);
  return chunkText(text, rng, 1, 3, maxDeltas);
}

/**
 * A step's text with the request's values filled in, and its chunks: a text
 * that holds request values (a long `{{input}}`) streams in at most
 * MAX_FILLED_DELTAS deltas, so the stream grows with the request no faster
 * than the text does.
 */
function filledChunks(text: string, chunking: Chunking | undefined, ctx: GenerateContext): Chunks {
  const filled = fill(text, ctx);
  const chunks = chunkWith(filled, chunking, ctx.rng, text.includes("{{") ? MAX_FILLED_DELTAS : Infinity);
  // A long text's deltas are packed over the text itself: a step without request values is then one string
  // that all of its answers share (an open 1,000-delta stream held a 6 kB copy of it).
  return chunks.length >= PACK_MIN_CHUNKS ? new PackedChunks(chunks, filled) : chunks;
}

/** The turn a request gets: one per assistant turn already in the conversation; the last repeats. */
export function turnFor(turns: readonly Turn[], ctx: GenerateContext): { turn: Turn; index: number } {
  const index = Math.min(assistantTurns(ctx.items), turns.length - 1);
  return { turn: turns[index], index };
}

const DEFAULT_ERRORS: Record<number, { type: string; code: string; message: string }> = {
  400: { type: "invalid_request", code: "invalid_request", message: "The request was rejected (scripted 400)." },
  401: { type: "invalid_request", code: "invalid_api_key", message: "Incorrect API key provided (scripted 401)." },
  403: {
    type: "invalid_request",
    code: "permission_denied",
    message: "You do not have access to this resource (scripted 403).",
  },
  404: { type: "not_found", code: "not_found", message: "The requested resource was not found (scripted 404)." },
  409: {
    type: "invalid_request",
    code: "conflict",
    message: "The request conflicts with the current state (scripted 409).",
  },
  413: { type: "invalid_request", code: "request_too_large", message: "The request is too large (scripted 413)." },
  422: {
    type: "invalid_request",
    code: "unprocessable_entity",
    message: "The request could not be processed (scripted 422).",
  },
  429: {
    type: "too_many_requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached; retry after the time in the retry-after header (scripted 429).",
  },
  500: {
    type: "server_error",
    code: "internal_error",
    message: "The server had an error while processing the request (scripted 500).",
  },
  502: { type: "server_error", code: "bad_gateway", message: "Bad gateway (scripted 502)." },
  503: {
    type: "server_error",
    code: "service_unavailable",
    message: "The service is temporarily unavailable (scripted 503).",
  },
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

/** The request's function tool a step calls: the one it names, else the first; its index in `tools` (-1: none). */
function toolOf(
  step: Extract<Step, { type: "function_call" }>,
  ctx: GenerateContext,
  where: () => string,
): { name: string; index: number } {
  const tools = ctx.request.tools ?? [];
  const name = step.name;
  if (name !== undefined)
    return { name, index: tools.findIndex((t) => t.type === "function" && (t as FunctionToolParam).name === name) };
  const index = tools.findIndex((t) => t.type === "function");
  if (index < 0) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "no_function_tool",
      param: "tools",
      message: `${where()} is a function_call that names no tool, so it calls the request's first function tool, and the request offers none. Send a function tool in 'tools', or give the step a name.`,
    });
  }
  return { name: (tools[index] as FunctionToolParam).name, index };
}

/** A step's arguments: as scripted, or sampled from the request's tool at `index` (within CALL_BYTES). */
function argumentsOf(
  step: Extract<Step, { type: "function_call" }>,
  tool: { name: string; index: number },
  ctx: GenerateContext,
): { text: string; sampled: boolean } {
  if (typeof step.arguments === "string") return { text: step.arguments, sampled: false };
  if (step.arguments) return { text: JSON.stringify(step.arguments), sampled: false };
  const { index } = tool;
  const schema = index >= 0 ? (ctx.request.tools![index] as FunctionToolParam).parameters : undefined;
  const userText = userTextWithin(lastUserText(ctx.items));
  const sample = sampleWithin(schema ?? { type: "object", properties: {} }, ctx.rng, {
    words: userText.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [],
    places: properNames(userText),
    maxBytes: CALL_BYTES,
  });
  if (!sample.ok) throw schemaTooLarge(`tools[${index}].parameters`, `tool '${tool.name}'`, sample, CALL_BYTES);
  return { text: sample.json, sampled: true };
}

/**
 * A scripted annotation as planned. A file_citation is OpenAI's type, not the
 * spec's (whose only annotation is url_citation), so the spec dialect refuses
 * it rather than send what no spec client can parse or silently drop a citation.
 */
function planAnnotation(
  a: NonNullable<Extract<Step, { type: "message" }>["annotations"]>[number],
  ctx: GenerateContext,
): OutputAnnotation {
  if (a.type === "url_citation") return { ...a, type: "url_citation" };
  if ((ctx.hostedItems ?? "vendor") !== "native") {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "unsupported_annotation",
      param: "x-mock-dialect",
      message:
        "The scenario's message scripts a file_citation annotation, an OpenAI type the spec has no place for (its only annotation is url_citation). Use the openai dialect (x-mock-dialect: openai or --dialect openai), or script a url_citation.",
    });
  }
  return { type: "file_citation", file_id: a.file_id, filename: a.filename, index: a.index };
}

/**
 * Turns scripted steps into plan items (ids drawn from the rng in order).
 * `where` names the steps in an error (`scenario 'NAME', turn 0`).
 */
export function planSteps(steps: readonly Step[], ctx: GenerateContext, where = "the scenario"): PlanItem[] {
  const { rng } = ctx;
  return steps.map((step, stepIndex): PlanItem => {
    switch (step.type) {
      case "message": {
        const parts: Extract<PlanItem, { kind: "message" }>["parts"] = [];
        if (step.text !== undefined) {
          parts.push({
            type: "output_text",
            chunks: filledChunks(step.text, step.chunk, ctx),
            annotations: step.annotations?.map((a) => planAnnotation(a, ctx)),
          });
        }
        if (step.refusal !== undefined)
          parts.push({ type: "refusal", chunks: filledChunks(step.refusal, step.chunk, ctx) });
        return { kind: "message", id: ctx.ids.item("msg"), phase: step.phase, parts, delayMs: step.delayMs };
      }
      case "reasoning":
        return {
          kind: "reasoning",
          id: ctx.ids.item("rs"),
          summary: step.summary.map((s) => filledChunks(s, step.chunk, ctx)),
          content: step.text !== undefined ? [filledChunks(step.text, step.chunk, ctx)] : undefined,
          encrypted_content: step.encrypted_content,
          delayMs: step.delayMs,
        };
      case "function_call": {
        const id = ctx.ids.item("fc");
        const call_id = step.call_id ?? ctx.ids.call();
        const tool = toolOf(step, ctx, () => `Step ${stepIndex} of ${where}`);
        const args = argumentsOf(step, tool, ctx);
        return {
          kind: "function_call",
          id,
          call_id,
          name: tool.name,
          chunks: chunkWith(args.text, step.chunk, rng, args.sampled ? MAX_FILLED_DELTAS : Infinity),
          delayMs: step.delayMs,
        };
      }
      case "vendor_item": {
        const id =
          step.item.id ??
          ctx.ids.item(
            step.item.type
              .split(":")[1]
              .replace(/[^A-Za-z0-9]/g, "")
              .slice(0, 8) || "item",
          );
        return { kind: "vendor_item", item: { ...step.item, id }, delayMs: step.delayMs };
      }
      case "vendor_event":
        return { kind: "vendor_event", event: { ...step.event }, delayMs: step.delayMs };
      case "web_search_call":
      case "code_interpreter_call":
      case "image_generation_call":
      case "file_search_call":
      case "mcp_list_tools":
      case "mcp_call":
      case "mcp_approval_request":
        return planHosted(step, ctx, {
          fill: (text) => fill(text, ctx),
          chunk: (text, chunking) => chunkWith(text, chunking, rng),
        });
    }
  });
}

/** Plans the answer of a scripted scenario; throws the ApiError of an `http_error` turn. */
export function planScripted(scenario: Scenario & { turns: Turn[] }, ctx: GenerateContext): Plan {
  const { turn, index } = turnFor(scenario.turns, ctx);
  if (turn.end?.type === "http_error") throw httpErrorOf(turn.end);
  const id = ctx.ids.response();
  const where = `turn ${index} of scenario '${scenario.name}'`;
  const plan = assemblePlan(ctx, id, planSteps(turn.steps, ctx, where), outcomeOf(turn.end), scenario);
  if (turn.timing) plan.timing = { ...plan.timing, ...turn.timing };
  if (turn.fault) plan.fault = { ...plan.fault, ...turn.fault };
  return plan;
}
