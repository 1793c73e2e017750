/**
 * Per-test control at run time: `use` sets the scenario that answers the next
 * requests (or all of them), `enqueue` lines up one-shot answers. Both are kept
 * per session (`x-mock-session`), so test files sharing one server do not see
 * each other's controls.
 */
import { validateScenario } from "../scenario/parse.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../spec/common.js";
import type { Scenario, ScenarioInput, Turn } from "../scenario/schema.js";
import { Turn as TurnSchema } from "../scenario/schema.js";
import { ScenarioError, jsonPath } from "../scenario/parse.js";

/** What a request of a session gets before the usual selection rules apply. */
export interface Forced {
  scenario: Scenario;
  reason: "queue" | "use";
}

/**
 * The controls as the routes use them. In memory (SessionControls) every call
 * is synchronous; the shared form (Redis, store/redis-controls.ts) validates
 * synchronously too (a bad scenario throws at once) and returns its write or
 * read in flight, which the routes await.
 */
export interface Controls {
  use(
    session: string | null | undefined,
    scenario: ScenarioInput | Scenario,
    times?: number,
    label?: string,
  ): Scenario | Promise<Scenario>;
  enqueue(session: string | null | undefined, turns: readonly unknown[], label?: string): number | Promise<number>;
  take(session: string | null | undefined): Forced | undefined | Promise<Forced | undefined>;
  reset(session?: string | null): void | Promise<void>;
}

/** Checks the turns `enqueue` was given, as a scenario file's turns are (a ScenarioError names each problem). */
export function parseTurns(turns: readonly unknown[], label: string): Turn[] {
  return turns.map((t, i) => {
    if (nestsDeeperThan(t))
      throw new ScenarioError([
        {
          file: label,
          path: jsonPath([i]),
          message: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
        },
      ]);
    const r = TurnSchema.safeParse(t, { reportInput: true });
    if (!r.success)
      throw new ScenarioError(
        r.error.issues.map((issue) => ({ file: label, path: jsonPath([i, ...issue.path]), message: issue.message })),
      );
    return r.data;
  });
}

/** The scenario `use` takes: an object, validated like a file (a name is refused with what works instead). */
export function checkUse(scenario: ScenarioInput | Scenario, times: number | undefined, label: string): Scenario {
  if (typeof scenario === "string") {
    // A name is what people try first; say what works instead of "expected object".
    const name = (scenario as string).slice(0, 80);
    throw new ScenarioError([
      {
        file: label,
        path: "$",
        message: `takes a scenario object, not a name ('${name}'); to answer with a loaded scenario by its name, send the header x-mock-scenario: ${name} (or use it as the request's model)`,
      },
    ]);
  }
  const valid = validateScenario(scenario, label);
  if (times !== undefined && (!Number.isInteger(times) || times < 1))
    throw new RangeError(`times must be a positive integer, got ${times}`);
  return valid;
}

/** A one-shot answer as the queue holds it. */
export const queuedScenario = (serial: number, turn: Turn): Scenario => ({
  name: `queued-${serial}`,
  description: "A one-shot answer from enqueue().",
  turns: [turn],
});

interface SessionState {
  queue: Scenario[];
  use?: { scenario: Scenario; remaining: number | null };
}

const key = (session: string | null | undefined) => session ?? "";

export class SessionControls implements Controls {
  private readonly sessions = new Map<string, SessionState>();
  private queued = 0;

  private state(session: string | null | undefined): SessionState {
    let s = this.sessions.get(key(session));
    if (!s) this.sessions.set(key(session), (s = { queue: [] }));
    return s;
  }

  /**
   * Answers the session's next requests with `scenario` (validated like a
   * file): all of them, or only the next `times`.
   */
  use(
    session: string | null | undefined,
    scenario: ScenarioInput | Scenario,
    times?: number,
    label = "use()",
  ): Scenario {
    const valid = checkUse(scenario, times, label);
    this.state(session).use = { scenario: valid, remaining: times ?? null };
    return valid;
  }

  /** Lines up one-shot answers: each request of the session takes the next turn, in order. */
  enqueue(session: string | null | undefined, turns: readonly unknown[], label = "enqueue()"): number {
    const parsed = parseTurns(turns, label);
    const state = this.state(session);
    for (const turn of parsed) state.queue.push(queuedScenario(++this.queued, turn));
    return state.queue.length;
  }

  /** The forced answer of the session's next request, if any (consumed). */
  take(session: string | null | undefined): Forced | undefined {
    const state = this.sessions.get(key(session));
    if (!state) return undefined;
    const next = state.queue.shift();
    if (next) return { scenario: next, reason: "queue" };
    if (state.use) {
      const { scenario } = state.use;
      if (state.use.remaining !== null && --state.use.remaining <= 0) state.use = undefined;
      return { scenario, reason: "use" };
    }
    return undefined;
  }

  /** Answers still queued for a session. */
  pending(session: string | null | undefined): number {
    return this.sessions.get(key(session))?.queue.length ?? 0;
  }

  /** Clears the controls of one session, or of all when `session` is undefined. */
  reset(session?: string | null): void {
    if (session === undefined) this.sessions.clear();
    else this.sessions.delete(key(session));
  }
}
