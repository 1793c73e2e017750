/**
 * The expectations step (issue 27, "Expectations"): a scenario turn's
 * `expect` is opened when its answer ends, and judged on the next request of
 * the same conversation in the same session (src/scenario/expect.ts judges;
 * this keeps them). `mock.expect()` adds expectations with no scenario.
 *
 * Kept in this process's memory, per session, at most MAX_PER_SESSION each
 * (the oldest go first). A request of a session with nothing open costs one
 * map lookup. Time is `deps.clock`'s; nothing is timed: a rule left pending
 * past `within_ms` is reported unmet when someone asks (`report`).
 */
import { createHash } from "node:crypto";
import { assistantTurns } from "../scenario/conversation.js";
import {
  answerFacts,
  isOpen,
  judgeNext,
  report,
  rulesOf,
  sameBody,
  ties as tiesTo,
  type AnswerFacts,
  type Expectation,
  type ExpectationReport,
} from "../scenario/expect.js";
import type { ScenarioRegistry } from "../scenario/registry.js";
import type { ExpectRules, Scenario, Turn } from "../scenario/schema.js";
import type { CreateResponseBody, ResponseResource } from "../spec/index.js";
import type { Clock } from "../timing/clock.js";
import type { PreparedTurn, TurnContext, TurnOutcome, TurnStep } from "./turn.js";

/** The name of the step, and of its note on a turn. */
export const EXPECT_STEP = "expect";

/** The most expectations one session keeps (the oldest are dropped past it). */
export const MAX_PER_SESSION = 1_000;

/** The most sessions whose expectations are kept (the session that had one first is forgotten past it). */
export const MAX_SESSIONS = 10_000;

/** What a turn's note holds: the scenario turn's rules, from `planned` to `end`. */
interface Note {
  scenario: string;
  turn: number;
  rules: ExpectRules;
}

/** A `mock.expect()` waiting for its session's next request(s). */
interface Programmatic {
  rules: ExpectRules;
  times: number;
  /** When expect() was called (deps.clock): within_ms counts from here until a request comes. */
  since: number;
}

interface SessionState {
  /** Every expectation, oldest first (what verify reports). */
  all: Expectation[];
  /** The ones still waiting for a request. */
  open: Expectation[];
  /** `mock.expect()`s for the next requests, in order. */
  queued: Programmatic[];
  /** The session's last answer (kept once the session has had an expect()). */
  last: AnswerFacts | null;
  /** Whether expect() was called for the session (from then on its answers are kept as `last`). */
  programmatic: boolean;
}

/** A request body's digest: two requests with the same body (as parsed) have the same one. */
export const bodyDigest = (request: CreateResponseBody): string =>
  createHash("sha256").update(JSON.stringify(request)).digest("base64url");

/** Which scenarios have a turn with `expect` (asked once per scenario object). */
const carriesExpect = new WeakMap<Scenario, boolean>();
const hasExpect = (scenario: Scenario): boolean => {
  let has = carriesExpect.get(scenario);
  if (has === undefined) carriesExpect.set(scenario, (has = scenario.turns?.some((t) => t.expect) ?? false));
  return has;
};

/** The scripted turn a conversation gets (as src/generate/scripted.ts turnFor chooses it). */
const turnOf = (turns: readonly Turn[], turn: TurnContext): number =>
  Math.min(assistantTurns(turn.items), turns.length - 1);

/** The expectations of every session of one server. */
export class Expectations {
  private readonly sessions = new Map<string | null, SessionState>();

  constructor(
    private readonly clock: Pick<Clock, "now">,
    private readonly registry: ScenarioRegistry,
  ) {}

  private state(session: string | null): SessionState {
    let state = this.sessions.get(session);
    if (!state) {
      // Bounded: past MAX_SESSIONS the oldest session's expectations go (a Map keeps insertion order).
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
      this.sessions.set(session, (state = { all: [], open: [], queued: [], last: null, programmatic: false }));
    }
    return state;
  }

  /** Adds a `mock.expect()` for the session's next `times` requests (the rules already validated). */
  expect(session: string | null, rules: ExpectRules, times = 1): void {
    const state = this.state(session);
    state.queued.push({ rules, times, since: this.clock.now() });
    state.programmatic = true;
  }

  /** Each rule's status now: the session's, or every session's (null: requests without a session; undefined: all). */
  reports(session?: string | null): ExpectationReport[] {
    const now = this.clock.now();
    const out: ExpectationReport[] = [];
    for (const [id, state] of this.sessions) {
      if (session !== undefined && id !== session) continue;
      for (const e of state.all) out.push(...report(e, now));
      // expect()s no request has come for yet: pending, or unmet past their within_ms.
      for (const q of state.queued) {
        const late = q.rules.within_ms !== undefined && now - q.since > q.rules.within_ms;
        for (let i = 0; i < q.times; i++)
          for (const rule of rulesOf(q.rules))
            out.push({
              status: late ? "unmet" : "pending",
              rule,
              scenario: null,
              turn: null,
              seq: null,
              message: late
                ? `expected a request of the session within ${q.rules.within_ms} ms of expect(); none came`
                : "waiting for the session's next request",
            });
      }
    }
    return out;
  }

  /** Forgets the session's expectations (undefined: every session's). */
  reset(session?: string | null): void {
    if (session === undefined) this.sessions.clear();
    else this.sessions.delete(session);
  }

  private add(state: SessionState, expectation: Expectation): void {
    state.all.push(expectation);
    state.open.push(expectation);
    if (state.all.length > MAX_PER_SESSION) {
      const dropped = state.all.shift()!;
      const i = state.open.indexOf(dropped);
      if (i >= 0) state.open.splice(i, 1);
    }
  }

  /** A request arrives: judge what it continues, note same-body retries, and apply a queued mock.expect(). */
  private arrive(turn: TurnContext): void {
    const state = this.sessions.get(turn.session);
    if (!state || (state.open.length === 0 && state.queued.length === 0)) return;
    const { request, items } = turn;
    const at = turn.started;
    const seq = turn.entry?.seq ?? null;
    let digest: string | undefined;
    const digestOf = () => (digest ??= bodyDigest(request));
    const judged: Expectation[] = [];
    for (const e of state.open) {
      const { answer } = e;
      if (!answer) continue;
      if (e.judged === undefined && tiesTo(answer, request, digestOf)) {
        judgeNext(e, request, items, at, seq);
        judged.push(e);
      }
      if (e.rules.no_retry_ms !== undefined && e.retry === undefined && digestOf() === answer.digest) {
        sameBody(e, at - answer.endedAt, seq);
        if (!judged.includes(e)) judged.push(e);
      }
    }
    const next = state.queued[0];
    if (next) {
      const e: Expectation = {
        rules: next.rules,
        scenario: null,
        turn: null,
        answer: state.last,
        judged: undefined,
        retry: undefined,
      };
      judgeNext(e, request, items, at, seq);
      judged.push(e);
      // no_retry_ms watches the body of the last answer's request, from this request on.
      if (e.rules.no_retry_ms !== undefined && e.answer) {
        if (digestOf() === e.answer.digest) sameBody(e, at - e.answer.endedAt, seq);
        this.add(state, e);
      } else {
        state.all.push(e);
        if (state.all.length > MAX_PER_SESSION) state.all.shift();
      }
      if (--next.times <= 0) state.queued.shift();
    }
    state.open = state.open.filter((e) => isOpen(e, at));
    if (judged.length > 0 && turn.entry) {
      let met = 0;
      let total = 0;
      for (const e of judged) {
        if (e.judged)
          for (const verdict of e.judged.values())
            if (verdict.seq === seq) {
              total++;
              if (verdict.met) met++;
            }
        // A retry within no_retry_ms breaks that rule.
        if (e.retry?.seq === seq) total++;
      }
      turn.entry.expect = { met, total };
    }
  }

  /** An answer ended: open its scenario turn's expectation, and keep it as the session's last answer once the session has had an expect(). */
  private ended(turn: TurnContext, outcome: TurnOutcome): void {
    // An answer refused after it was planned (a later step) was never sent: nothing to expect of it.
    const note =
      outcome === "error"
        ? turn.refused === undefined
          ? this.errorNote(turn)
          : undefined
        : (turn.notes?.[EXPECT_STEP] as Note | undefined);
    if (outcome === "error" && !note) return;
    const state = note ? this.state(turn.session) : this.sessions.get(turn.session);
    if (!state || (!note && !state.programmatic)) return;
    const prepared = turn as PreparedTurn;
    const response: ResponseResource | undefined = outcome === "error" ? undefined : prepared.answer?.response;
    const facts = answerFacts(
      response?.output ?? [],
      response?.id ?? null,
      // When the answer's last write began, if its transport said: the client may have it before this runs.
      turn.sentAt ?? this.clock.now(),
      bodyDigest(turn.request),
      turn.entry?.seq ?? null,
    );
    state.last = facts;
    if (note)
      this.add(state, {
        rules: note.rules,
        scenario: note.scenario,
        turn: note.turn,
        answer: facts,
        judged: undefined,
        retry: undefined,
      });
  }

  /** An answer refused with a scripted HTTP error (planning threw, so `planned` never ran): its turn's rules, if any. */
  private errorNote(turn: TurnContext): Note | undefined {
    const name = turn.entry?.scenario;
    if (!name || turn.refused !== undefined) return undefined;
    const scenario = this.registry.byName.get(name);
    if (!scenario?.turns || !hasExpect(scenario)) return undefined;
    const index = turnOf(scenario.turns, turn);
    const t = scenario.turns[index]!;
    return t.expect && t.end?.type === "http_error" ? { scenario: name, turn: index, rules: t.expect } : undefined;
  }

  /** The step: judges arrivals in `begin`, notes a scenario turn's rules in `planned`, opens them in `end`. */
  step(): TurnStep {
    return {
      name: EXPECT_STEP,
      begin: (turn) => {
        if (this.sessions.size !== 0) this.arrive(turn);
      },
      planned: (turn) => {
        const { scenario } = turn.answer;
        if (!scenario.turns || !hasExpect(scenario)) return;
        const index = turnOf(scenario.turns, turn);
        const rules = scenario.turns[index]!.expect;
        if (!rules) return;
        (turn.notes ??= {})[EXPECT_STEP] = { scenario: scenario.name, turn: index, rules } satisfies Note;
      },
      end: (turn, outcome) => {
        if (turn.notes?.[EXPECT_STEP] !== undefined || outcome === "error" || this.sessions.size !== 0)
          this.ended(turn, outcome);
      },
    };
  }
}
