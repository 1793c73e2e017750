/**
 * `POST /v1/responses`: validate → rebuild the conversation → answer (select,
 * plan, emit) → store → schedule → SSE through the pacer, the folded JSON
 * body once the answer's time is up, or a background run.
 */
import type { Context } from "koa";
import { finalOnly, planRequest, withEvents, type Answer } from "../emit/index.js";
import { createRng, expandCompactions } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { ApiError, CreateResponseBody, type ItemParam } from "../spec/index.js";
import { priorItems, withItemIds } from "../store/conversation.js";
import type { ResponseStore, StoredResponse } from "../store/response-store.js";
import { playSchedule, type PaceSink } from "../timing/pacer.js";
import { hasFaults, mergeFaults, mergeProfiles } from "../timing/profile.js";
import { buildSchedule, type Schedule } from "../timing/schedule.js";
import { journalEntry, type AppDeps } from "./app.js";
import { readJsonBody } from "./body.js";
import { fromHeaders, readControls, type RequestControls } from "./control-headers.js";
import { followRun } from "./stored-routes.js";
import { sessionOf, sessionStore } from "./session.js";
import { sseSink } from "./sse.js";
import { parseOrThrow } from "./validate.js";

/** Aborts when the client goes away before the response finished (or the server closes it). */
export function disconnectSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once("close", () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Reads the request body (into the journal too) and checks it is a JSON object. */
export async function readObjectBody(ctx: Context, deps: AppDeps): Promise<Record<string, unknown>> {
  const { raw, json } = await readJsonBody(ctx.req, deps.bodyLimit);
  const entry = journalEntry(ctx);
  if (entry) {
    entry.rawBody = raw;
    entry.body = json;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_type", message: "The request body must be a JSON object with at least 'model' and 'input'." });
  }
  return json as Record<string, unknown>;
}

/** The whole conversation of a request: the previous_response_id chain, then its input; compactions expanded. */
export function conversationOf(
  deps: AppDeps,
  request: { input?: CreateResponseBody["input"] | null; previous_response_id?: string | null },
  lookup: Pick<ResponseStore, "get"> = deps.store,
): ItemParam[] {
  const prior = request.previous_response_id ? priorItems(lookup, request.previous_response_id) : [];
  return expandCompactions([...prior, ...(request.input == null ? [] : inputItems(request.input))]);
}

/** The timing profile and faults of an answer: server < scenario < turn < request headers. */
export function timingOf(controls: RequestControls | undefined, deps: AppDeps, answer: Pick<Answer, "plan">) {
  const profile = mergeProfiles(deps.timing, answer.plan.timing, controls?.timing);
  const faults = mergeFaults(answer.plan.fault, controls?.fault);
  const paced = profile.latencyMs > 0 || profile.chunkMs > 0 || profile.jitterMs > 0 || profile.tokensPerSecond !== null || hasFaults(faults);
  return { profile, faults, paced };
}

/** The timing schedule of an answer's events. */
export function scheduleOf(controls: RequestControls | undefined, deps: AppDeps, answer: Answer): Schedule {
  const { profile, faults } = timingOf(controls, deps, answer);
  return buildSchedule(answer.events, profile, createRng(`${answer.seed}|timing`), { pauses: answer.pauses, faults });
}

/** What the store keeps of an answer (nothing unless `store` is on), in the request's session. */
export function storedRecord(request: CreateResponseBody, answer: Answer, session: string | null = null, response = answer.response): StoredResponse | undefined {
  if (request.store === false) return undefined;
  return { response, input: withItemIds(inputItems(request.input), response.id), plan: answer.plan, session };
}

export function createResponseHandler(deps: AppDeps) {
  return async (ctx: Context): Promise<void> => {
    const request = parseOrThrow(CreateResponseBody, await readObjectBody(ctx, deps));
    // Validate every control header before doing any work.
    const headers = fromHeaders(ctx.req.headers);
    const controls = readControls(headers);
    const seed = controls.seed ?? deps.seed;
    if (request.background && request.store === false) {
      throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_value", param: "store", message: "A background response must be stored: drop store: false, or background: true." });
    }
    const session = sessionOf(headers.get("x-mock-session") || undefined);
    const items = conversationOf(deps, request, sessionStore(deps.store, session));
    const header = controls.scenario;
    const planned = planRequest({
      registry: deps.registry,
      request,
      items,
      seed,
      scenario: header,
      // A queued answer or use() of the session applies unless the header names a scenario.
      forced: header ? undefined : deps.controls.take(session),
      createdAt: Math.floor(deps.wallClock.now() / 1000),
    });
    // Events are built only when they are sent or paced; a plain JSON answer needs only the final response.
    const { paced } = timingOf(controls, deps, planned);
    const answer = request.stream || request.background || paced ? withEvents(planned) : finalOnly(planned);
    const { events, scenario } = answer;
    ctx.set("x-mock-scenario", scenario.name);
    const entry = journalEntry(ctx);
    if (entry) {
      entry.scenario = scenario.name;
      entry.reason = answer.reason;
      entry.responseId = answer.plan.base.id;
      entry.streamed = request.stream === true;
    }
    const scenarioHeader = { "x-mock-scenario": scenario.name };

    if (request.background) {
      const first = events[0] as { response?: StoredResponse["response"] };
      const record = storedRecord(request, answer, session, first.response)!;
      deps.store.put(record);
      const schedule = scheduleOf(controls, deps, answer);
      const run = deps.runs.start(record, events, { ...schedule, slots: schedule.slots.filter((s) => s.kind === "event" || s.kind === "done") });
      if (request.stream) return followRun(ctx, run, -1, scenarioHeader);
      ctx.status = 200;
      ctx.body = JSON.stringify(record.response);
      ctx.type = "application/json";
      return;
    }

    const record = storedRecord(request, answer, session);
    if (record) deps.store.put(record);
    // The schedule counts from here: once the answer is ready, its times are kept exactly.
    const start = deps.clock.now();

    if (request.stream) {
      ctx.respond = false;
      await playSchedule(scheduleOf(controls, deps, answer), sseSink(ctx.res, events, scenarioHeader), { clock: deps.clock, start, signal: disconnectSignal(ctx) });
      return;
    }

    const body = JSON.stringify(answer.response);
    if (!paced) {
      ctx.status = 200;
      ctx.body = body;
      ctx.type = "application/json";
      return;
    }
    // Not streamed: the whole answer arrives when its stream would have ended; faults apply alike.
    ctx.respond = false;
    const res = ctx.res;
    const jsonSink: PaceSink = {
      event: () => !res.destroyed,
      heartbeat: () => !res.destroyed,
      end: () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...scenarioHeader });
        res.end(body);
      },
      destroy: () => res.destroy(),
    };
    const schedule = scheduleOf(controls, deps, answer);
    await playSchedule({ ...schedule, slots: schedule.slots.filter((s) => s.kind !== "heartbeat") }, jsonSink, { clock: deps.clock, start, signal: disconnectSignal(ctx) });
  };
}
