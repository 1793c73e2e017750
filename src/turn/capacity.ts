/**
 * The capacity step (issue 26, "Concurrency, queueing and overload"): up to
 * `maxConcurrent` answers of a pool play at once (a model with its own
 * capacity is its own pool; the others share the server's, `--max-concurrent`);
 * the next wait in a FIFO queue of `queue` places; beyond it, or past
 * `queueTimeoutMs` in it, a 503 `server_is_overloaded` with `retry-after`.
 *
 * A mock answer takes its slot once it is planned (after the limiter, so a
 * request it refuses never takes one); a proxied answer, which is never
 * planned here, as it begins. While an answer waits nothing has been sent: a
 * stream's head goes out with its first event, which its schedule times from
 * the moment it plays, so the wait is part of its time to first byte. The
 * slot is given back when the turn ends, however it ends (a background run's
 * when the run does). How long each answer waited is its journal entry's
 * `waitMs`.
 *
 * `retry-after` says when the earliest playing answer of the pool is due to
 * end by its schedule (rounded up to whole seconds, at least 1; its exact ms
 * in `retry-after-ms`): the soonest a retry finds room, a slot or a place in
 * the queue. When no playing answer has a known end (a hang fault, a proxied
 * answer), 1 s.
 */
import { withLazyEvents } from "../emit/index.js";
import type { JournalEntry } from "../journal/journal.js";
import type { Service } from "../service/service.js";
import { poolOf, retryHeaders, type Holder, type Pool, type SlotLedger } from "../service/slots.js";
import { ApiError } from "../spec/index.js";
import type { Clock, TimerHandle } from "../timing/clock.js";
import { scheduleOf, type PreparedTurn, type TurnContext, type TurnStep } from "./turn.js";

/** The name of the step, and of its note on a turn. */
export const CAPACITY_STEP = "capacity";

/** A turn's claim on a pool: the holder a ledger sees, with its pool and when it asked. */
interface Ticket extends Holder {
  readonly pool: Pool;
  readonly entered: number;
}

/** Which limit of the pool refused a request (the journal entry's `limits.limit`). */
type Refusal = "queue" | "queue_timeout";

let serial = 0;

/** The pool of each model, worked out once per model the service lists (and once for the rest). */
function poolResolver(service: Service): (model: string) => Pool | undefined {
  const listed = new Map<string, Pool | undefined>();
  for (const id of service.models.keys()) listed.set(id, poolOf(service, id));
  const perModel = service.defaults.capacity.maxConcurrent !== undefined;
  const server = service.capacity;
  const shared: Pool | undefined =
    server.maxConcurrent === undefined
      ? undefined
      : { key: "server", max: server.maxConcurrent, queue: server.queue ?? 0, timeoutMs: server.queueTimeoutMs };
  return (model) => (listed.has(model) ? listed.get(model) : perModel ? poolOf(service, model) : shared);
}

/**
 * How long a planned answer plays once it starts, by its schedule: 0 when it
 * is not paced, Infinity when it hangs. Walks a schedule of its own (a long
 * answer's events built again for it): asked only when a refusal needs it
 * (or a shared ledger, as it grants a slot).
 */
export function playMsOf(turn: Pick<PreparedTurn, "timing" | "answer">): number {
  if (!turn.timing.paced) return 0;
  const { answer } = turn;
  const fresh = "pauseBefore" in answer.events ? withLazyEvents(answer) : answer;
  const cursor = scheduleOf(turn.timing, fresh);
  let end = 0;
  for (let slot = cursor.next(); slot !== undefined; slot = cursor.next()) {
    if (slot.kind === "hang") return Infinity;
    end = slot.at;
  }
  return end;
}

const setWait = (entry: JournalEntry | undefined, ms: number) => {
  if (entry) entry.waitMs = ms;
};

/** The 503 of a full pool, in the spec's words (a dialect spells it its own way: src/dialect/). */
function overloaded(turn: TurnContext, ticket: Ticket, limit: Refusal, retryMs: number): ApiError {
  const { pool } = ticket;
  const retry = retryHeaders(retryMs);
  const headers = turn.headers ? { ...turn.headers, ...retry } : { ...retry };
  turn.refused = "overloaded";
  const { entry } = turn;
  // The limiter's verdict, if it passed the request, gives way to this one (its headers kept).
  if (entry && (entry.limits === null || entry.limits.verdict === "passed"))
    entry.limits = { verdict: "overloaded", limit, headers: { ...entry.limits?.headers, ...retry } };
  const what = pool.key === "server" ? "the server" : `model '${pool.key.slice("model:".length)}'`;
  const why =
    limit === "queue"
      ? `all ${pool.max} of its slots are taken and ${pool.queue === 0 ? "it has no queue" : `its queue of ${pool.queue} is full`}`
      : `the request waited ${pool.timeoutMs} ms in its queue (queueTimeoutMs) without a free slot`;
  return new ApiError({
    status: 503,
    type: "server_error",
    code: "server_is_overloaded",
    message: `The server is overloaded: ${what} plays at most ${pool.max} answers at once, and ${why}. Retry after ${retry["retry-after-ms"]} ms.`,
    headers,
  });
}

/** A proxied answer's play time: not known before the upstream has answered. */
const unknownEnd = () => Infinity;

/** What a queued request that lost its client is ended with (no one reads it: its journal entry says `aborted`). */
const clientGone = () =>
  new ApiError({
    status: 499,
    type: "invalid_request",
    code: "client_closed_request",
    message: "The client went away while its request waited for a slot.",
  });

/**
 * The capacity step of a server whose service caps concurrency somewhere
 * (createDeps registers it only then): its pools' counts are kept in `ledger`
 * (this process's, or Redis's), its timers are `clock`'s.
 */
export function capacityStep(service: Service, clock: Clock, ledger: SlotLedger): TurnStep {
  const poolFor = poolResolver(service);

  /** Takes a slot for the turn, or a place in the queue (then the promise settles when the slot comes), or refuses it. */
  const admit = (turn: TurnContext, playMs: () => number): void | Promise<void> => {
    const pool = poolFor(turn.request.model);
    if (pool === undefined) return;
    const ticket: Ticket = {
      id: String(++serial),
      playMs,
      state: "new",
      granted: undefined,
      pool,
      entered: clock.now(),
    };
    if (turn.notes === undefined) turn.notes = { [CAPACITY_STEP]: ticket };
    else turn.notes[CAPACITY_STEP] = ticket;
    const admission = ledger.enter(pool, ticket);
    if (admission instanceof Promise) return admission.then((a) => settle(turn, ticket, a));
    return settle(turn, ticket, admission);
  };

  const settle = (
    turn: TurnContext,
    ticket: Ticket,
    admission: Awaited<ReturnType<SlotLedger["enter"]>>,
  ): void | Promise<void> => {
    if (admission.kind === "slot") return setWait(turn.entry, 0);
    if (admission.kind === "full") {
      setWait(turn.entry, 0);
      throw overloaded(turn, ticket, "queue", admission.retryMs);
    }
    return wait(turn, ticket);
  };

  /** Waits in the queue until the slot comes, the queue's time is up (a 503), or the client goes. */
  const wait = (turn: TurnContext, ticket: Ticket): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const { pool, entered } = ticket;
      let settled = false;
      let timer: TimerHandle | undefined;
      let unlisten: (() => void) | undefined;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        if (timer !== undefined) clock.clearTimeout(timer);
        unlisten?.();
        setWait(turn.entry, clock.now() - entered);
        return true;
      };
      const play = () => {
        if (finish()) resolve();
      };
      ticket.granted = play;
      const giveUp = (why: "timeout" | "gone") => {
        if (settled) return;
        const left = (departure: Awaited<ReturnType<SlotLedger["leave"]>>) => {
          if (departure.kind === "granted") return play();
          if (!finish()) return;
          reject(why === "gone" ? clientGone() : overloaded(turn, ticket, "queue_timeout", departure.retryMs));
        };
        const departure = ledger.leave(pool, ticket);
        if (departure instanceof Promise)
          departure.then(left, (err: unknown) => {
            if (finish()) reject(err);
          });
        else left(departure);
      };
      // A shared ledger may have handed the slot over before this promise was made.
      if (ticket.state === "held") return play();
      if (pool.timeoutMs !== undefined) timer = clock.setTimeout(() => giveUp("timeout"), pool.timeoutMs);
      unlisten = turn.onGone?.(() => giveUp("gone"));
    });

  return {
    name: CAPACITY_STEP,
    // A proxied turn is never planned here: it takes its slot as it begins (its end is not known: Infinity).
    begin: (turn) => (turn.transport === "proxy" ? admit(turn, unknownEnd) : undefined),
    // How long the answer plays is worked out only if asked (a refusal's retry-after, a shared ledger), and once.
    planned: (turn) => {
      let ms: number | undefined;
      return admit(turn, () => (ms ??= playMsOf(turn)));
    },
    end(turn) {
      const ticket = turn.notes?.[CAPACITY_STEP] as Ticket | undefined;
      if (ticket === undefined) return;
      if (ticket.state === "held") ledger.release(ticket.pool, ticket);
      else if (ticket.state === "queued") {
        const left = ledger.leave(ticket.pool, ticket);
        // A slot that came while it left is given back.
        const back = (d: Awaited<ReturnType<SlotLedger["leave"]>>) =>
          d.kind === "granted" && ledger.release(ticket.pool, ticket);
        if (left instanceof Promise) left.then(back, () => undefined);
        else back(left);
      }
    },
  };
}
