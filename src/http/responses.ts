/**
 * `POST /v1/responses`: validate → rebuild the conversation → answer (select,
 * plan, emit) → store → schedule → SSE through the pacer, the folded JSON
 * body once the answer's time is up, or a background run.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { dialectHeaders, responseBody } from "../dialect/index.js";
import { finalOnly, planRequest, withEvents, withStreamEvents, type Answer, type LazyAnswer } from "../emit/index.js";
import { createRng, expandCompactions, requestSeed } from "../generate/index.js";
import { inputItems } from "../scenario/conversation.js";
import { selectScenario } from "../scenario/registry.js";
import { ApiError, type CreateResponseBody, type ItemParam } from "../spec/index.js";
import { priorItems } from "../store/conversation.js";
import { PlannedRecord } from "../store/planned-record.js";
import type { ResponseStore, StoredResponse } from "../store/response-store.js";
import { playSchedule, type AbortLike, type PaceSink, type PlayResult } from "../timing/pacer.js";
import { hasFaults, mergeFaults, resolveTiming } from "../timing/profile.js";
import { filterSlots, scheduleCursor, type Schedule, type SlotCursor } from "../timing/schedule.js";
import type { AppDeps } from "./app.js";
import type { JournalEntry, JournalOutcome } from "../journal/journal.js";
import { planCost } from "../journal/trace.js";
import { markPlayEnd, tracedSink } from "../journal/traced-sink.js";
import { sendJson } from "./raw.js";
import { RepeatCounter } from "../session/repeats.js";
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

/** Reads the request body (into the journal entry too, truncated when it is big) and checks it is a JSON object. */
export async function readObjectBody(
  req: IncomingMessage,
  deps: Pick<AppDeps, "bodyLimit" | "journal">,
  entry: JournalEntry | undefined,
): Promise<{ raw: string; json: Record<string, unknown> }> {
  const { raw, json, bytes } = await readJsonBody(req, deps.bodyLimit);
  if (entry) deps.journal.setBody(entry, raw, json, bytes);
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_type",
      message: "The request body must be a JSON object with at least 'model' and 'input'.",
    });
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

/** The timing profile and faults of an answer: server < scenario < turn < request headers (a recorded pace under the server's: resolveTiming). */
export function timingOf(controls: RequestControls | undefined, deps: AppDeps, answer: Pick<Answer, "plan">) {
  const { profile, stepDelays } = resolveTiming(deps.timing, answer.plan.timing, controls?.timing);
  const faults = mergeFaults(answer.plan.fault, controls?.fault);
  const paced =
    profile.latencyMs > 0 ||
    profile.chunkMs > 0 ||
    profile.jitterMs > 0 ||
    profile.tokensPerSecond !== null ||
    hasFaults(faults);
  return { profile, stepDelays, faults, paced };
}

/** The timing schedule of an answer's events, slot by slot as it is played (reading each event as it comes due). */
export function scheduleOf(
  controls: RequestControls | undefined,
  deps: AppDeps,
  answer: Answer | LazyAnswer,
): SlotCursor {
  const { profile, stepDelays, faults } = timingOf(controls, deps, answer);
  const { events } = answer;
  const pauses = !stepDelays
    ? undefined
    : "pauseBefore" in events
      ? (i: number) => events.pauseBefore(i)
      : (answer as Answer).pauses;
  return scheduleCursor(events, profile, createRng(`${answer.seed}|timing`), { pauses, faults });
}

/**
 * Answers one `POST /v1/responses` on Node's request and response. It throws
 * (an ApiError, before anything was sent) for a bad request; the caller
 * renders that. Otherwise it writes the whole answer itself, in the request's
 * dialect, and resolves when the answer has been played.
 */
export async function handleCreateResponse(
  req: IncomingMessage,
  res: ServerResponse,
  deps: AppDeps,
  entry: JournalEntry | undefined,
): Promise<void> {
  const started = deps.clock.now();
  const { json } = await readObjectBody(req, deps, entry);
  const headers = fromHeaders(req.headers);
  // The headers are checked before the body: x-mock-strict says how to read it.
  const controls = readControls(headers);
  const strict = controls.strict ?? deps.strict ?? false;
  const createdAt = Math.floor(deps.wallClock.now() / 1000);
  const request = parseCreateRequest(json, { strict });
  const dialect = controls.dialect ?? deps.dialect;
  if (request.background && request.store === false) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_value",
      param: "store",
      message: "A background response must be stored: drop store: false, or background: true.",
    });
  }
  const session = sessionOf(headers.get("x-mock-session") || undefined);
  const header = controls.scenario;
  // A shared store fetches the chain first; the memory store is read as it is, with no wait.
  if (deps.store.load && request.previous_response_id) await deps.store.load(request.previous_response_id);
  const items = conversationOf(deps, request, sessionStore(deps.store, session));
  // A queued answer or use() of the session applies unless the header names a scenario (shared controls are read from Redis).
  const taken = header ? undefined : deps.controls.take(session);
  const forced = taken instanceof Promise ? await taken : taken;
  const seedString = requestSeed(controls.seed ?? deps.seed, request);
  const repeat = deps.repeats.next(RepeatCounter.key(seedString, session));
  // Selected first, so that the entry names the scenario and why even when its turn is an HTTP error.
  const selection = selectScenario(deps.registry, request, items, header, forced);
  if (entry) {
    entry.scenario = selection.scenario.name;
    entry.reason = selection.reason;
    entry.streamed = request.stream === true;
  }
  const planned = planRequest({
    registry: deps.registry,
    request,
    items,
    seed: controls.seed ?? deps.seed,
    seedString,
    forced: selection,
    createdAt,
    dialect,
    session,
    repeat,
  });
  // Events are built only when they are sent or paced (a long answer's each as it comes due); a plain JSON answer needs only the final response.
  const { paced } = timingOf(controls, deps, planned);
  const answer = request.background
    ? withEvents(planned)
    : request.stream || paced
      ? withStreamEvents(planned)
      : finalOnly(planned);
  const { scenario, plan } = answer;
  if (entry) entry.responseId = plan.base.id;
  const answerHeaders = () => ({
    "x-mock-scenario": scenario.name,
    ...dialectHeaders(dialect, plan.base.id, deps.clock.now() - started),
  });

  if (request.background) {
    const { events } = answer as Answer;
    const first = events[0] as { response?: StoredResponse["response"] };
    const record = new PlannedRecord(plan, request.input, session);
    // The run's response as it starts (queued), replaced as the run goes.
    if (first.response) record.response = first.response;
    // The answer is the response as it starts (queued), whatever the run does before it is written.
    const body = responseBody(dialect, record.response, plan);
    const saved = deps.store.put(record);
    if (saved) await saved;
    const run = deps.runs.start(
      record,
      events,
      filterSlots(scheduleOf(controls, deps, answer), (s) => s.kind === "event" || s.kind === "done"),
    );
    if (request.stream) {
      await followRun(res, run, -1, dialect, answerHeaders());
      if (entry)
        entry.outcome = !res.writableEnded
          ? "aborted"
          : run.state === "cancelled"
            ? "cancelled"
            : answer.response.status;
      return;
    }
    if (entry) entry.outcome = record.response.status;
    return sendJson(res, 200, body, answerHeaders());
  }

  if (request.store !== false) {
    // A shared store's write is awaited: whichever process is asked next sees the response.
    const saved = deps.store.put(new PlannedRecord(plan, request.input, session));
    if (saved) await saved;
  }
  // The inspector's timeline (none when the journal keeps nothing): the answer is re-emitted from its plan when asked.
  const timeline = entry && deps.journal.timeline(entry, started);
  if (timeline)
    deps.journal.keepAnswer(entry!, { kind: "mock", plan, dialect, streamed: request.stream === true }, planCost(plan));
  const now = () => deps.clock.now();
  // The schedule counts from here: once the answer is ready, its times are kept exactly.
  const start = deps.clock.now();

  if (request.stream) {
    const schedule = scheduleOf(controls, deps, answer);
    const sink = sseSink(res, answer.events, dialect, plan, answerHeaders());
    const traced = tracedSink(sink, timeline, { now, done: dialect.sse.done });
    const result = await playSchedule(schedule, traced, { clock: deps.clock, start, signal: disconnectSignal(res) });
    markPlayEnd(timeline, result, now());
    if (entry) {
      entry.events = sink.sent;
      entry.outcome = playOutcome(result, schedule, sink.sent, answer);
    }
    return;
  }

  const body = responseBody(dialect, answer.response, plan);
  if (!paced) {
    if (entry) entry.outcome = answer.response.status;
    sendJson(res, 200, body, answerHeaders());
    timeline?.mark("end", now());
    return;
  }
  // Not streamed: the whole answer arrives when its stream would have ended; faults apply alike.
  let reached = 0;
  const jsonSink: PaceSink = {
    // Nothing is sent per event; counted only to tell a hang from a client that left before it.
    event: () => !res.destroyed && ++reached > 0,
    heartbeat: () => !res.destroyed,
    end: () => sendJson(res, 200, body, answerHeaders()),
    destroy: () => res.destroy(),
  };
  const timed = scheduleOf(controls, deps, answer);
  const traced = tracedSink(jsonSink, timeline, { now, done: false, json: true });
  const result = await playSchedule(
    filterSlots(timed, (s) => s.kind !== "heartbeat"),
    traced,
    { clock: deps.clock, start, signal: disconnectSignal(res) },
  );
  markPlayEnd(timeline, result, now());
  if (entry) entry.outcome = playOutcome(result, timed, reached, answer);
}

/**
 * How a played answer ended, for the journal: the response's final status
 * when it was all sent; `dropped` for a drop fault; `hung` when a hang fault
 * held it until the client left (after every event before the hang was
 * sent); otherwise `aborted`. `sent` is how many events the sink took.
 */
export function playOutcome(
  result: PlayResult,
  schedule: Schedule | SlotCursor,
  sent: number,
  answer: Pick<Answer, "response">,
): JournalOutcome {
  if (result === "done") return answer.response.status;
  if (result === "dropped") return "dropped";
  if ("slots" in schedule) {
    if (schedule.slots.at(-1)?.kind !== "hang") return "aborted";
    let before = 0;
    for (const slot of schedule.slots) if (slot.kind === "event") before++;
    return sent >= before ? "hung" : "aborted";
  }
  // A cursor that has not reached its end was cut by the client before it.
  return schedule.end?.kind === "hang" && sent >= schedule.eventCount! ? "hung" : "aborted";
}
