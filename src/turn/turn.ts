/**
 * A turn: one `response.create`, from its validated request to its played
 * answer, whichever way it came: an HTTP request answered as JSON, as SSE or
 * as a background run, a WebSocket message, or a request the proxy translates
 * for a Chat Completions upstream. Every transport goes through here, so a
 * turn's steps are written once:
 *
 *   beginTurn   the conversation (the previous_response_id chain fetched
 *               and rebuilt), the seed, the steps' `begin`
 *   prepareTurn session controls → repeat count → select → plan → timing →
 *               the events the delivery needs → the steps' `planned` →
 *               the stored record → the inspector's timeline
 *   playTurn    the schedule played into the transport's sink, the outcome
 *   startRun    a background turn handed to the runs
 *   endTurn     the steps' `end`, once per turn that began
 *
 * A transport keeps only what is its own: reading the body, writing bytes,
 * its error framing. A feature that acts on every turn (limits, queueing,
 * expectations, usage, cost) is a `TurnStep` in `deps.steps`.
 */
import type { Dialect } from "../dialect/index.js";
import { PlanRecipe } from "../emit/recipe.js";
import {
  finalOnly,
  planRequest,
  withEvents,
  withLazyEvents,
  withStreamEvents,
  type Answer,
  type LazyAnswer,
} from "../emit/index.js";
import { createRng, requestSeed } from "../generate/index.js";
import type { Journal, JournalEntry, JournalOutcome } from "../journal/journal.js";
import type { Timeline } from "../journal/timeline.js";
import { MockSource, planCost } from "../journal/trace.js";
import { markPlayEnd, tracedSink } from "../journal/traced-sink.js";
import { selectScenario, type ScenarioRegistry } from "../scenario/registry.js";
import type { Controls } from "../session/controls.js";
import { RepeatCounter } from "../session/repeats.js";
import type { CreateResponseBody, ItemParam, ResponseResource } from "../spec/index.js";
import { conversationOf } from "../store/conversation.js";
import { PlannedRecord } from "../store/planned-record.js";
import type { ResponseStore } from "../store/response-store.js";
import type { LatencyProfile, Service } from "../service/service.js";
import type { Clock } from "../timing/clock.js";
import type { LatencyDraws } from "../timing/latency.js";
import { playSchedule, type AbortLike, type PaceSink, type PlayResult } from "../timing/pacer.js";
import {
  hasFaults,
  mergeFaults,
  resolveTiming,
  type Faults,
  type ResolvedTiming,
  type ScenarioProfile,
  type TimingProfile,
} from "../timing/profile.js";
import { filterSlots, scheduleCursor, type Schedule, type SlotCursor } from "../timing/schedule.js";
import type { RequestControls } from "./control-headers.js";
import { loadKey, type ActiveStreams } from "./load.js";
import type { Run, Runs } from "./runs.js";

/** What a turn reads and writes: the server's state and settings. */
export interface TurnDeps {
  /** The scenarios this server answers with, and its default. */
  registry: ScenarioRegistry;
  /** Stored responses (previous_response_id, retrieve, input items). */
  store: ResponseStore;
  /** Background runs in progress. */
  runs: Runs;
  /** Every request received, for tests to assert on. */
  journal: Journal;
  /** Per-session `use()` and `enqueue()` controls (in memory, or shared in Redis). */
  controls: Controls;
  /** How many times each request was seen before (its ids are never reused). */
  repeats: RepeatCounter;
  seed: number;
  /** Where `created_at`/`completed_at` come from (epoch ms); tests pin it. */
  wallClock: Pick<Clock, "now">;
  /** Timers and monotonic time for pacing streams. */
  clock: Clock;
  /** The server's timing options that were given (scenarios and request headers override them; they override a recorded pace). */
  timing?: Partial<TimingProfile>;
  /** The dialect answers are rendered in unless a request's `x-mock-dialect` names another. */
  dialect: Dialect;
  /** What runs in every turn besides the answer itself (see TurnStep); none by default. */
  steps?: readonly TurnStep[];
  /** The service it plays (models, prices, limits, profiles): src/service/. */
  service: Service;
  /** How many answers of each model this process is playing (a profile's slowdown under load reads it); none: not counted. */
  active?: ActiveStreams;
  /** Called with errors that are the server's fault (500s), and a step's failure to end. */
  onError?: (error: unknown) => void;
}

/**
 * What acts on every turn, whatever its transport: the one place where
 * limits, queueing, expectations, usage and cost plug in. Each hook is
 * optional. `begin` and `planned` may throw an ApiError, which the turn's
 * transport answers as it answers any bad request (an HTTP error body, a
 * WebSocket error event); they may return a promise, which the turn waits for
 * (a queue). `end` runs once for every turn whose `begin` ran, however the
 * turn ended, and must not throw.
 */
export interface TurnStep {
  readonly name: string;
  /** The request is valid and its conversation known; nothing is selected, planned, stored or sent. */
  begin?(turn: TurnContext): void | Promise<void>;
  /** A mock turn's answer is planned (scenario, plan, timing); nothing is stored or sent. Not called for proxied turns. */
  planned?(turn: PreparedTurn): void | Promise<void>;
  /** The turn is over: played, failed, refused, or its client gone. */
  end?(turn: TurnContext, outcome: TurnOutcome): void;
}

/** How a turn ended: its journal outcome, or `error` when it was refused or failed before anything was sent. */
export type TurnOutcome = JournalOutcome;

/** Where a turn came from. */
export type Transport = "http" | "websocket" | "proxy";

/** How a turn's answer leaves: one JSON body, a stream of events (SSE or WebSocket messages), or a background run. */
export type Delivery = "json" | "stream" | "background";

/** What a transport knows of a turn once it has read and validated the request. */
export interface TurnInput {
  request: CreateResponseBody;
  /** The `x-mock-*` headers that steer it (a WebSocket's are its upgrade request's). */
  controls: RequestControls;
  dialect: Dialect;
  session: string | null;
  /** The API key it carried (the bearer token), or null: limits and usage are kept per key. */
  key: string | null;
  /** Where earlier responses are looked up: the session's view of the store (a WebSocket connection's cache first). */
  lookup: Pick<ResponseStore, "get">;
  /** Whether `lookup` holds a response without asking a shared store first (a WebSocket connection's cache). */
  holds?: (id: string) => boolean;
  /** Its journal entry (none when a caller answers outside the journal). */
  entry: JournalEntry | undefined;
  /** When the request began (`deps.clock`): answer headers that report a duration count from here. */
  started: number;
  transport: Transport;
  delivery: Delivery;
  /** Keep a record of the answer even with `store: false` (a WebSocket connection continues from its own). */
  keepRecord?: boolean;
  /**
   * Calls `fn` once if the client goes away before its answer is over (a turn
   * waiting in a queue then leaves it); returns what stops listening.
   * Undefined when the transport cannot tell.
   */
  onGone?: ((fn: () => void) => () => void) | undefined;
}

/** A turn once it has begun: its conversation and seed. */
export interface TurnContext extends TurnInput {
  /** The whole conversation: the previous_response_id chain, then the input. */
  items: ItemParam[];
  /** The seed string the answer is drawn from. */
  seedString: string;
  /** How many identical requests of the session came before (set when the turn counts it). */
  repeat: number;
  /** Unix seconds for `created_at`. */
  createdAt: number;
  /** How the turn ended, once it has (endTurn). */
  outcome: TurnOutcome | undefined;
  /** The clock time the answer's last write began, when the transport's sink kept it (PaceSink.endedAt). */
  sentAt: number | undefined;
  /** Whether the turn has ended (its steps' `end` ran). */
  ended: boolean;
  /** Room for steps to keep what they need until `end`, by their name. */
  notes: Record<string, unknown> | undefined;
  /** Headers steps add to the answer (`x-ratelimit-*`): an HTTP transport sends them with its answer. */
  headers: Record<string, string> | undefined;
  /** Why a step refused the turn (set by the step before it throws; usage totals count refusals by it). */
  refused: "rate_limited" | "insufficient_quota" | "overloaded" | undefined;
}

/** A mock turn whose answer is planned, stored and ready to be played. */
export interface PreparedTurn extends TurnContext {
  answer: Answer | LazyAnswer;
  /** Its timing, resolved once: whether it is paced (then even a JSON body is played on its schedule), its profile and faults. */
  timing: AnswerTiming;
  /** The record the store keeps (also kept with `store: false` when the transport asked). */
  record: PlannedRecord | undefined;
  /** The inspector's timeline (none when the journal keeps nothing). */
  timeline: Timeline | undefined;
}

/**
 * Begins a turn: fetches the previous_response_id chain from a shared store
 * (the memory store is read as it is, with no wait), rebuilds the
 * conversation, and runs the steps' `begin`. Throws the ApiError of an
 * unknown previous response or of a step that refuses the turn.
 */
export async function beginTurn(deps: TurnDeps, input: TurnInput): Promise<TurnContext> {
  const { request } = input;
  const createdAt = Math.floor(deps.wallClock.now() / 1000);
  const base = request.previous_response_id;
  if (deps.store.load && base && !input.holds?.(base)) await deps.store.load(base);
  const turn = input as TurnContext;
  turn.items = conversationOf(input.lookup, request);
  turn.seedString = requestSeed(input.controls.seed ?? deps.seed, request);
  turn.repeat = 0;
  turn.createdAt = createdAt;
  turn.outcome = undefined;
  turn.sentAt = undefined;
  turn.ended = false;
  turn.notes = undefined;
  turn.headers = undefined;
  turn.refused = undefined;
  const { steps } = deps;
  if (steps) {
    try {
      for (const step of steps) if (step.begin) await step.begin(turn);
    } catch (err) {
      endTurn(deps, turn, "error");
      throw err;
    }
  }
  return turn;
}

/** Counts the turn among the identical requests of its session (its ids are never those of an earlier one). */
export function countRepeat(deps: Pick<TurnDeps, "repeats">, turn: TurnContext): number {
  return (turn.repeat = deps.repeats.next(RepeatCounter.key(turn.seedString, turn.session)));
}

/**
 * Prepares a mock turn: begins it, takes the session's queued answer or
 * `use()` (unless the request names a scenario), selects the scenario once,
 * plans, works out the timing once, builds the events the delivery needs (all
 * of them for a background run; for a stream, or a paced JSON answer, each as
 * it comes due; for a plain JSON answer, none), stores the record, and opens
 * the inspector's timeline. Throws the ApiError the turn is refused with (an
 * unknown scenario, an `http_error` turn, a step); the steps' `end` has then
 * run.
 */
export async function prepareTurn(deps: TurnDeps, input: TurnInput): Promise<PreparedTurn> {
  const turn = (await beginTurn(deps, input)) as PreparedTurn;
  try {
    const { request, controls, entry, session, dialect, delivery } = turn;
    const header = controls.scenario;
    // A queued answer or use() of the session applies unless the header names a scenario (shared controls are read from Redis).
    const taken = header ? undefined : deps.controls.take(session);
    const forced = taken instanceof Promise ? await taken : taken;
    countRepeat(deps, turn);
    // Selected first, so that the entry names the scenario and why even when its turn is an HTTP error.
    const selected = selectScenario(deps.registry, request, turn.items, header, forced);
    if (entry) {
      entry.scenario = selected.scenario.name;
      entry.reason = selected.reason;
      if (turn.transport !== "websocket") entry.streamed = request.stream === true;
    }
    const planned = planRequest({
      registry: deps.registry,
      request,
      items: turn.items,
      seed: controls.seed ?? deps.seed,
      seedString: turn.seedString,
      selected,
      createdAt: turn.createdAt,
      dialect,
      session,
      repeat: turn.repeat,
    });
    turn.timing = timingOf(deps, controls, planned, request.model);
    // Events are built only when they are sent or paced; a plain JSON answer needs only the final response.
    // A paced answer's each as it comes due, whatever its length: it is held open for its whole schedule,
    // and a short answer's events built up front are most of what an open stream holds.
    const answer =
      delivery === "background"
        ? withEvents(planned)
        : turn.timing.paced
          ? withLazyEvents(planned)
          : delivery === "stream"
            ? withStreamEvents(planned)
            : finalOnly(planned);
    turn.answer = answer;
    turn.record = undefined;
    turn.timeline = undefined;
    const { plan } = answer;
    if (entry) entry.responseId = plan.base.id;
    if (deps.steps) for (const step of deps.steps) if (step.planned) await step.planned(turn);

    // What the store and the journal keep: the plan while this turn holds it, its recipe after (PlanRecipe.of says which plans stay held).
    const recipe = PlanRecipe.of(
      plan,
      request,
      entry?.bodyBytes ?? null,
      answer.scenario,
      answer.seed,
      dialect,
      session,
      turn.repeat,
      turn.createdAt,
    );
    const stored = request.store !== false;
    if (stored || turn.keepRecord) {
      const record = new PlannedRecord(recipe, request.input, session);
      // A background run's response as it starts (queued), replaced as the run goes.
      if (delivery === "background") {
        const first = (answer as Answer).events[0] as { response?: ResponseResource };
        if (first.response) record.response = first.response;
      }
      turn.record = record;
      // A shared store's write is awaited: whichever process is asked next sees the response.
      if (stored) {
        const saved = deps.store.put(record);
        if (saved) await saved;
      }
    }
    // The inspector's timeline (a background run has none): the answer is re-emitted from its plan when asked.
    if (entry && delivery !== "background") {
      const timeline = deps.journal.timeline(entry, turn.started);
      if (timeline) {
        const websocket = turn.transport === "websocket";
        deps.journal.keepAnswer(
          entry,
          new MockSource(recipe, dialect, websocket || delivery === "stream", websocket),
          planCost(plan),
        );
      }
      turn.timeline = timeline;
    }
    // Measured and kept: from here the turn's answer holds the plan, and the store and journal only its recipe.
    recipe.release();
    return turn;
  } catch (err) {
    endTurn(deps, turn, "error");
    throw err;
  }
}

/**
 * The timing profile and faults of an answer: server < scenario < turn <
 * request headers (a recorded pace under the server's: resolveTiming), and
 * its latency profile, if any (latencyOf).
 */
export function timingOf(
  deps: Pick<TurnDeps, "timing"> & Partial<Pick<TurnDeps, "service" | "active">>,
  controls: RequestControls | undefined,
  answer: Pick<Answer, "plan">,
  model?: string | null,
): AnswerTiming {
  const resolved = resolveTiming(deps.timing, answer.plan.timing, controls?.timing);
  const { profile } = resolved;
  const faults = mergeFaults(answer.plan.fault, controls?.fault);
  const chosen = deps.service ? profileOf(deps.service, controls?.profile, model) : undefined;
  const latency = chosen && latencyOf(chosen, deps.timing, answer.plan.timing, controls?.timing, deps.active, model);
  // A profile's ITL replaces a recorded pace, and with it the recorded delays between items (measured against that pace).
  const stepDelays = resolved.stepDelays && !(latency?.itl && answer.plan.timing?.recorded);
  const paced =
    profile.latencyMs > 0 ||
    profile.chunkMs > 0 ||
    profile.jitterMs > 0 ||
    profile.tokensPerSecond !== null ||
    latency !== undefined ||
    hasFaults(faults);
  return { profile, stepDelays, faults, paced, latency };
}

/**
 * The latency profile of an answer, highest first: the request's
 * `x-mock-profile`, the model's (the service file's model, else its default
 * for models it does not list), the server's (`--profile`); undefined: none.
 */
export function profileOf(
  service: Service,
  header: LatencyProfile | undefined,
  model: string | null | undefined,
): LatencyProfile | undefined {
  if (header) return header;
  // modelOf without the copy it makes of the defaults for a model not listed.
  const name = (service.models.get(model ?? "") ?? service.defaults).profile ?? service.profile;
  return name === undefined ? undefined : service.profiles.get(name);
}

/**
 * What a latency profile puts in an answer's schedule, or undefined when
 * nothing (a profile of zero medians, as `instant`, or one whose every part
 * is replaced). Explicit timing beats a profile, part by part: a `latencyMs`
 * given (the server's option or flag, a hand-written scenario's or turn's,
 * `x-mock-latency-ms`) replaces the TTFT draw; a `chunkMs` or
 * `tokensPerSecond` so given replaces the ITL draws. A recorded pace (`proxy
 * --record`) replaces neither: a profile replaces it.
 */
export function latencyOf(
  chosen: LatencyProfile,
  server: Partial<TimingProfile> | undefined,
  scenario: ScenarioProfile | undefined,
  request: Partial<TimingProfile> | undefined,
  active: ActiveStreams | undefined,
  model: string | null | undefined,
): LatencyDraws | undefined {
  const written = scenario?.recorded ? undefined : scenario;
  const latencyGiven =
    server?.latencyMs !== undefined || written?.latencyMs !== undefined || request?.latencyMs !== undefined;
  const paceGiven =
    server?.chunkMs !== undefined ||
    written?.chunkMs !== undefined ||
    request?.chunkMs !== undefined ||
    server?.tokensPerSecond != null ||
    written?.tokensPerSecond != null ||
    request?.tokensPerSecond != null;
  const ttft = !latencyGiven && chosen.ttft.medianMs > 0 ? chosen.ttft : undefined;
  const itl = !paceGiven && chosen.itl.medianMs > 0 ? chosen.itl : undefined;
  if (!ttft && !itl) return undefined;
  const { slowdown } = chosen;
  const load = itl && active && slowdown.k > 0 && slowdown.capacity > 0 ? active.of(loadKey(model)) : undefined;
  return { ttft, itl, slowdown, load };
}

/** An answer's timing: its profile and step delays, its faults, its latency profile's draws, and whether any of it takes time. */
export interface AnswerTiming extends ResolvedTiming {
  faults: Faults;
  paced: boolean;
  /** The latency profile's draws (TTFT, ITL, slowdown under load); undefined: none. */
  latency: LatencyDraws | undefined;
}

/** The timing schedule of an answer's events, slot by slot as it is played (reading each event as it comes due). */
export function scheduleOf(timing: AnswerTiming, answer: Answer | LazyAnswer): SlotCursor {
  const { profile, stepDelays, faults } = timing;
  const { events } = answer;
  const pauses = !stepDelays
    ? undefined
    : "pauseBefore" in events
      ? (i: number) => events.pauseBefore(i)
      : (answer as Answer).pauses;
  return scheduleCursor(events, profile, createRng(`${answer.seed}|timing`), {
    pauses,
    faults,
    latency: timing.latency,
  });
}

/** How a transport's sink is played. */
export interface PlayOptions {
  /** Makes the signal that aborts when the client goes away (only when there is a schedule to play). */
  signal: () => AbortLike;
  /** Whether the stream ends with `data: [DONE]` (for the timeline; the sink writes it). */
  done: boolean;
  /**
   * A JSON body: nothing is sent per event, and no heartbeats; the sink's
   * `end` sends the body when the stream would have ended. An answer that is
   * not paced is sent at once, with no schedule.
   */
  json?: boolean;
  /** How many events the sink delivered (the journal's count, and whether a hang was reached). */
  sent: () => number;
}

/**
 * Plays a prepared turn into a transport's sink on its schedule (the time
 * counts from here: once the answer is ready, its times are kept exactly),
 * marks it on the timeline, records its outcome in the journal, and ends the
 * turn.
 */
export async function playTurn(
  deps: TurnDeps,
  turn: PreparedTurn,
  sink: PaceSink & { whole?: WholeSink["whole"] },
  options: PlayOptions,
): Promise<PlayResult> {
  const { entry, timeline, answer } = turn;
  /** Where this answer is counted while it plays (not a JSON body sent at once). */
  let active: ActiveStreams | undefined;
  try {
    if (options.json && !turn.timing.paced) {
      turn.outcome = answer.response.status;
      if (entry) entry.outcome = turn.outcome;
      sink.end();
      timeline?.mark("end", deps.clock.now());
      return "done";
    }
    if (sink.whole && isInstant(turn)) return playWhole(deps, turn, sink as WholeSink, options);
    if (deps.active) {
      active = deps.active;
      active.enter(loadKey(turn.request.model));
    }
    const now = () => deps.clock.now();
    const start = deps.clock.now();
    const schedule = scheduleOf(turn.timing, answer);
    const traced = tracedSink(sink, timeline, { now, done: options.done, json: options.json });
    const played = options.json ? filterSlots(schedule, (s) => s.kind !== "heartbeat") : schedule;
    const result = await playSchedule(played, traced, { clock: deps.clock, start, signal: options.signal() });
    markPlayEnd(timeline, result, now());
    const sent = options.sent();
    turn.outcome = playOutcome(result, schedule, sent, answer);
    if (entry) {
      if (!options.json) entry.events = sent;
      entry.outcome = turn.outcome;
    }
    return result;
  } finally {
    active?.leave(loadKey(turn.request.model));
    turn.sentAt = sink.endedAt;
    endTurn(deps, turn, turn.outcome ?? "aborted");
  }
}

/** A sink that can take a whole answer at once: every event, then its end, in one write. */
export interface WholeSink extends PaceSink {
  /** Sends events 0 … count − 1 and the end together; false if the client is gone (nothing was sent). */
  whole(count: number): boolean;
}

/**
 * Whether a turn's stream has nothing to wait for: not paced, no fault, and
 * no scripted step that pauses. Its schedule would be every event at once,
 * then the end, so it is sent that way with no schedule.
 */
function isInstant(turn: PreparedTurn): boolean {
  const { timing, answer } = turn;
  if (timing.paced || timing.faults.splitUtf8) return false;
  const { pauses } = answer as Answer;
  // A lazy answer (a long one) is played through the pacer, which hands the loop back as it goes.
  return Array.isArray(answer.events) && (!timing.stepDelays || pauses.size === 0);
}

/**
 * Plays an instant stream: one write of every frame and the end, the
 * timeline's marks in bulk at the time of that write. What the pacer would
 * have done with its schedule (every slot due at once), without a slot,
 * a tick or a mark call per event.
 */
function playWhole(deps: TurnDeps, turn: PreparedTurn, sink: WholeSink, options: PlayOptions): PlayResult {
  const { entry, timeline, answer } = turn;
  const count = (answer as Answer).events.length;
  const at = deps.clock.now();
  const sent = sink.whole(count);
  if (sent) {
    if (timeline) {
      timeline.events(count, at);
      if (options.done) timeline.mark("done", at);
      timeline.mark("end", at);
    }
    turn.outcome = answer.response.status;
  } else {
    markPlayEnd(timeline, "aborted", at);
    turn.outcome = "aborted";
  }
  if (entry) {
    entry.events = sent ? count : 0;
    entry.outcome = turn.outcome;
  }
  return sent ? "done" : "aborted";
}

/**
 * Hands a prepared background turn to the runs: its events play on their
 * schedule whether or not anyone follows (faults do not apply to a run, its
 * timing does). The turn ends when the run does.
 */
export function startRun(deps: TurnDeps, turn: PreparedTurn): Run {
  const answer = turn.answer as Answer;
  const schedule = filterSlots(scheduleOf(turn.timing, answer), (s) => s.kind === "event" || s.kind === "done");
  const { active } = deps;
  const model = loadKey(turn.request.model);
  // Counted before it starts: events due at once are played (and the next gap drawn) as the run starts.
  active?.enter(model);
  let run: Run;
  try {
    run = deps.runs.start(turn.record!, answer.events, schedule);
  } catch (err) {
    active?.leave(model);
    throw err;
  }
  if (active) {
    const leave = () => active.leave(model);
    void run.finished.then(leave, leave);
  }
  if (deps.steps)
    void run.finished.then(() => endTurn(deps, turn, run.state === "cancelled" ? "cancelled" : answer.response.status));
  return run;
}

/** Ends a turn: the steps' `end`, once (a later call does nothing). */
export function endTurn(deps: Pick<TurnDeps, "steps" | "onError">, turn: TurnContext, outcome: TurnOutcome): void {
  if (turn.ended) return;
  turn.ended = true;
  turn.outcome = outcome;
  const { steps } = deps;
  if (!steps) return;
  for (const step of steps) {
    if (!step.end) continue;
    try {
      step.end(turn, outcome);
    } catch (err) {
      deps.onError?.(err);
    }
  }
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
