/**
 * `POST /v1/responses`: validate → rebuild the conversation → answer (select,
 * plan, emit) → store → schedule → SSE through the pacer, the folded JSON
 * body once the answer's time is up, or a background run.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { finalOnly, planRequest, withEvents, type Answer } from "../emit/index.js";
import { createRng, expandCompactions } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { ApiError, type CreateResponseBody, type ItemParam } from "../spec/index.js";
import { priorItems, withItemIds } from "../store/conversation.js";
import type { ResponseStore, StoredResponse } from "../store/response-store.js";
import { playSchedule, type AbortLike, type PaceSink } from "../timing/pacer.js";
import { hasFaults, mergeFaults, mergeProfiles } from "../timing/profile.js";
import { buildSchedule, type Schedule } from "../timing/schedule.js";
import type { AppDeps } from "./app.js";
import type { JournalEntry } from "../journal/journal.js";
import { sendJson } from "./raw.js";
import { memoKey } from "../emit/answer-memo.js";
import { readJsonBody } from "./body.js";
import { fromHeaders, readControls, type RequestControls } from "./control-headers.js";
import { followRun } from "./stored-routes.js";
import { sessionOf, sessionStore } from "./session.js";
import { sseSink } from "./sse.js";
import { parseCreateRequest } from "./validate.js";

/**
 * Aborts when the client goes away before the response finished (or the
 * server closes it). A one-listener stand-in for an AbortSignal: one is made
 * per stream, and an AbortController costs more than the rest of a short one.
 */
export function disconnectSignal(res: ServerResponse): AbortLike {
  let listener: (() => void) | undefined;
  const signal = {
    aborted: false,
    addEventListener: (_type: "abort", fn: () => void) => void (listener = fn),
    removeEventListener: (_type: "abort", fn: () => void) => void (listener === fn && (listener = undefined)),
  };
  res.once("close", () => {
    if (res.writableFinished) return;
    signal.aborted = true;
    listener?.();
  });
  return signal;
}

/** Reads the request body (into the journal too) and checks it is a JSON object. */
export async function readObjectBody(req: IncomingMessage, limit: number, entry: JournalEntry | undefined): Promise<{ raw: string; json: Record<string, unknown> }> {
  const { raw, json } = await readJsonBody(req, limit);
  if (entry) {
    entry.rawBody = raw;
    entry.body = json;
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_type", message: "The request body must be a JSON object with at least 'model' and 'input'." });
  }
  return { raw, json: json as Record<string, unknown> };
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
  return { response, input: storedInput(request, answer), plan: answer.plan, session };
}

/** The request's own input items with ids, as the store keeps them. */
const storedInput = (request: CreateResponseBody, answer: Answer): ItemParam[] => withItemIds(inputItems(request.input), answer.plan.base.id);

/** Whether a request's controls leave the timing as the server and scenario set it (no timing or fault header). */
const defaultTiming = (controls: RequestControls) => controls.fault === undefined && Object.values(controls.timing).every((v) => v === undefined);

/** Rough bytes an entry holds: the request, and per event its object and its SSE frame. */
const estimateBytes = (raw: string, answer: Answer) => 2 * raw.length + 2048 + answer.events.length * 1024;

/**
 * Answers one `POST /v1/responses` on Node's request and response. It throws
 * (an ApiError, before anything was sent) for a bad request; the caller
 * renders that. Otherwise it writes the whole answer itself and resolves when
 * the answer has been played. A request that repeats one seen in the same
 * second is answered from the memo (see AnswerMemo): the same bytes, less work.
 */
export async function handleCreateResponse(req: IncomingMessage, res: ServerResponse, deps: AppDeps, entry: JournalEntry | undefined): Promise<void> {
  const { raw, json } = await readObjectBody(req, deps.bodyLimit, entry);
  const headers = fromHeaders(req.headers);
  // The headers are checked before the body: x-mock-strict says how to read it.
  const controls = readControls(headers);
  const strict = controls.strict ?? deps.strict ?? false;
  const createdAt = Math.floor(deps.wallClock.now() / 1000);
  // Strict answers are never memoised: the memo's requests were read as OpenAI's superset.
  const memo = deps.memo?.enabled && !strict ? deps.memo : undefined;
  const key = memo ? memoKey({ createdAt, seed: headers.get("x-mock-seed"), scenario: headers.get("x-mock-scenario"), body: raw }) : "";
  let memoed = memo?.get(key);
  // The same bytes were validated before.
  const request = memoed ? memoed.request : parseCreateRequest(json, { strict });
  if (request.background && request.store === false) {
    throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_value", param: "store", message: "A background response must be stored: drop store: false, or background: true." });
  }
  const session = sessionOf(headers.get("x-mock-session") || undefined);
  const header = controls.scenario;
  let items: ItemParam[] | undefined;
  if (!memoed) items = conversationOf(deps, request, sessionStore(deps.store, session));
  // A queued answer or use() of the session applies unless the header names a scenario (and is never memoised).
  const forced = header ? undefined : deps.controls.take(session);
  if (forced) {
    memoed = undefined;
    items ??= conversationOf(deps, request, sessionStore(deps.store, session));
  }
  const planned = memoed
    ? memoed.planned
    : planRequest({ registry: deps.registry, request, items, seed: controls.seed ?? deps.seed, scenario: header, forced, createdAt });
  // Events are built only when they are sent or paced; a plain JSON answer needs only the final response.
  const { paced } = timingOf(controls, deps, planned);
  const needEvents = request.stream || request.background || paced;
  const answer = needEvents ? (memoed?.full ?? withEvents(planned)) : (memoed?.final ?? memoed?.full ?? finalOnly(planned));
  if (memo && !memoed && !forced && !request.background && !request.previous_response_id && memo.admit(key)) {
    memoed = { request, planned, bytes: estimateBytes(raw, answer) };
    if (needEvents) memoed.full = answer;
    else memoed.final = answer;
    memo.set(key, memoed);
  }
  const { events, scenario } = answer;
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
    if (request.stream) return followRun(res, run, -1, scenarioHeader);
    return sendJson(res, 200, JSON.stringify(record.response), scenarioHeader);
  }

  if (request.store !== false) {
    const input = memoed ? (memoed.input ??= storedInput(request, answer)) : storedInput(request, answer);
    deps.store.put({ response: answer.response, input, plan: answer.plan, session });
  }
  // The schedule counts from here: once the answer is ready, its times are kept exactly.
  const start = deps.clock.now();
  // With no timing header, the schedule depends on the answer alone: kept with it.
  const schedule = () => {
    if (!memoed || memoed.full !== answer || !defaultTiming(controls)) return scheduleOf(controls, deps, answer);
    return (memoed.schedule ??= scheduleOf(controls, deps, answer));
  };

  if (request.stream) {
    const frames = memoed && memoed.full === answer ? (memoed.frames ??= []) : undefined;
    await playSchedule(schedule(), sseSink(res, events, scenarioHeader, frames), { clock: deps.clock, start, signal: disconnectSignal(res) });
    return;
  }

  const body = memoed && memoed.final === answer ? (memoed.body ??= JSON.stringify(answer.response)) : JSON.stringify(answer.response);
  if (!paced) return sendJson(res, 200, body, scenarioHeader);
  // Not streamed: the whole answer arrives when its stream would have ended; faults apply alike.
  const jsonSink: PaceSink = {
    event: () => !res.destroyed,
    heartbeat: () => !res.destroyed,
    end: () => sendJson(res, 200, body, scenarioHeader),
    destroy: () => res.destroy(),
  };
  const timed = schedule();
  await playSchedule({ ...timed, slots: timed.slots.filter((s) => s.kind !== "heartbeat") }, jsonSink, { clock: deps.clock, start, signal: disconnectSignal(res) });
}
