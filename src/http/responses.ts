/**
 * `POST /v1/responses`: validate → plan → events → SSE or the folded JSON body.
 */
import type { Context } from "koa";
import { emitEvents, foldEvents } from "../emit/index.js";
import { createRng, planScenario, requestSeed } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario } from "../scenario/registry.js";
import { ApiError, CreateResponseBody } from "../spec/index.js";
import type { AppDeps } from "./app.js";
import { readJsonBody } from "./body.js";
import { writeEventStream } from "./sse.js";
import { parseOrThrow } from "./validate.js";

/** `x-mock-seed: N` — a non-negative integer, or a 400 that says so. */
function seedHeader(ctx: Context): number | undefined {
  const value = ctx.get("x-mock-seed");
  if (value === "") return undefined;
  if (!/^\d{1,15}$/.test(value.trim())) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_header",
      param: "x-mock-seed",
      message: `Header x-mock-seed must be a non-negative integer, got '${value.slice(0, 40)}'.`,
    });
  }
  return Number(value);
}

export function createResponseHandler(deps: AppDeps) {
  return async (ctx: Context): Promise<void> => {
    const { json } = await readJsonBody(ctx.req, deps.bodyLimit);
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_type", message: "The request body must be a JSON object with at least 'model' and 'input'." });
    }
    const request = parseOrThrow(CreateResponseBody, json);
    const seed = seedHeader(ctx) ?? deps.seed;
    const rng = createRng(requestSeed(seed, request));
    const createdAt = Math.floor(deps.clock.now() / 1000);
    const items = inputItems(request.input);
    const { scenario } = selectScenario(deps.registry, request, items, ctx.get("x-mock-scenario") || undefined);
    ctx.set("x-mock-scenario", scenario.name);
    const plan = planScenario(scenario, { request, items, rng, createdAt });
    const events = emitEvents(plan);

    if (request.stream) {
      ctx.respond = false;
      await writeEventStream(ctx.res, events, { "x-mock-scenario": scenario.name });
      return;
    }
    ctx.status = 200;
    ctx.body = JSON.stringify(foldEvents(events));
    ctx.type = "application/json";
  };
}
