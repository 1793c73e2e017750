/**
 * `POST /v1/responses`: validate → select → plan → events → schedule → SSE
 * through the pacer, or the folded JSON body once the answer's time is up.
 */
import type { Context } from "koa";
import { answerRequest, foldEvents } from "../emit/index.js";
import { createRng } from "../generate/index.js";
import { ApiError, CreateResponseBody } from "../spec/index.js";
import { playSchedule, type FrameSink } from "../timing/pacer.js";
import { hasFaults, mergeFaults, mergeProfiles } from "../timing/profile.js";
import { buildSchedule } from "../timing/schedule.js";
import type { AppDeps } from "./app.js";
import { readJsonBody } from "./body.js";
import { faultHeader, seedHeader, timingHeaders } from "./control-headers.js";
import { DONE_FRAME, sseFrame, sseSink } from "./sse.js";
import { parseOrThrow } from "./validate.js";

/** Aborts when the client goes away before the response finished (or the server closes it). */
function disconnectSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once("close", () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function createResponseHandler(deps: AppDeps) {
  return async (ctx: Context): Promise<void> => {
    const { json } = await readJsonBody(ctx.req, deps.bodyLimit);
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_type", message: "The request body must be a JSON object with at least 'model' and 'input'." });
    }
    const request = parseOrThrow(CreateResponseBody, json);
    const headerTiming = timingHeaders(ctx);
    const headerFaults = faultHeader(ctx);
    const { scenario, plan, events, pauses, seed } = answerRequest({
      registry: deps.registry,
      request,
      seed: seedHeader(ctx) ?? deps.seed,
      scenario: ctx.get("x-mock-scenario"),
      createdAt: Math.floor(deps.wallClock.now() / 1000),
    });
    ctx.set("x-mock-scenario", scenario.name);

    const profile = mergeProfiles(deps.timing, plan.timing, headerTiming);
    const faults = mergeFaults(plan.fault, headerFaults);
    const schedule = buildSchedule(events, profile, createRng(`${seed}|timing`), { pauses, faults });
    const signal = disconnectSignal(ctx);
    const headers = { "x-mock-scenario": scenario.name };
    // The schedule counts from here: once the answer is ready, its times are kept exactly.
    const start = deps.clock.now();

    if (request.stream) {
      ctx.respond = false;
      await playSchedule(schedule, (i) => sseFrame(events[i]), sseSink(ctx.res, headers), { clock: deps.clock, start, signal, doneFrame: DONE_FRAME });
      return;
    }

    const body = JSON.stringify(foldEvents(events));
    if (schedule.durationMs <= 0 && !hasFaults(faults)) {
      ctx.status = 200;
      ctx.body = body;
      ctx.type = "application/json";
      return;
    }
    // Not streamed: the whole answer arrives when its stream would have ended; faults apply alike.
    ctx.respond = false;
    const res = ctx.res;
    const jsonSink: FrameSink = {
      write: () => !res.destroyed,
      end: () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
        res.end(body);
      },
      destroy: () => res.destroy(),
    };
    await playSchedule({ ...schedule, slots: schedule.slots.filter((s) => s.kind !== "heartbeat") }, [], jsonSink, { clock: deps.clock, start, signal });
  };
}
