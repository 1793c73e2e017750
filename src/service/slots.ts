/**
 * Slots and queues (issue 26, "Concurrency, queueing and overload"): how many
 * answers of a pool play at once, and who waits for the next free slot. A
 * pool is a model with its own `capacity.maxConcurrent`, or the server
 * (`--max-concurrent`) for the models without one.
 *
 * `SlotLedger` is where a pool's counts live: `LocalSlots` here, in this
 * process (pure data: time comes in as a function, nothing here sets a
 * timer), or Redis (src/store/redis-capacity.ts) when several processes share
 * one limit. The turn's capacity step (src/turn/capacity.ts) asks a ledger
 * for a slot, waits for it, gives up, and releases it.
 */
import type { Service } from "./service.js";

/** One pool of slots, as a request finds it. */
export interface Pool {
  /** `server`, or `model:<id>` for a model with its own capacity. */
  key: string;
  /** Answers that play at once. */
  max: number;
  /** Answers that may wait for a slot (0: none wait). */
  queue: number;
  /** The longest an answer waits in the queue (undefined: as long as it takes). */
  timeoutMs: number | undefined;
}

/** One answer that asks a pool for a slot. */
export interface Holder {
  /** Unique within its ledger. */
  readonly id: string;
  /**
   * How long the answer plays once it has its slot, by its schedule (Infinity
   * when not known: a hang, a proxied answer). Asked only when needed (this
   * process's ledger: when it refuses a request), and at most once.
   */
  playMs(): number;
  /** `new` (not yet in the pool), `queued`, `held` (has a slot), `done` (released, left, or refused). */
  state: "new" | "queued" | "held" | "done";
  /** Called once when a queued holder is given its slot (it is then `held`). */
  granted: (() => void) | undefined;
}

/** What a ledger answers a holder that enters a pool. */
export type Admission =
  | { kind: "slot" }
  | { kind: "queued" }
  /** Every slot taken and the queue full: `retryMs` is when the earliest playing answer is due to end. */
  | { kind: "full"; retryMs: number };

/** What a queued holder that gives up gets: its slot came meanwhile (it holds it now), or it left (`retryMs` as for `full`). */
export type Departure = { kind: "granted" } | { kind: "left"; retryMs: number };

/** Where the counts of the pools live. Each call may answer at once or with a promise (a shared store). */
export interface SlotLedger {
  /** A slot now, a place in the queue (then `granted` is called when the slot comes), or a refusal. */
  enter(pool: Pool, holder: Holder): Admission | Promise<Admission>;
  /** A queued holder gives up its place (a timeout, its client gone). */
  leave(pool: Pool, holder: Holder): Departure | Promise<Departure>;
  /** A holder's answer is over: its slot goes to the first that waits. Never throws. */
  release(pool: Pool, holder: Holder): void;
  /** Stops what the ledger runs (a shared one's lease); its slots are given back. */
  close?(): Promise<void>;
}

/**
 * The retry delay after a refusal, from the times the playing answers are due
 * to end: until the earliest, never negative; `fallbackMs` when none has a
 * known end.
 */
export function retryDelay(dues: Iterable<number>, now: number, fallbackMs = 1_000): number {
  let earliest = Infinity;
  for (const due of dues) if (due < earliest) earliest = due;
  return earliest === Infinity ? fallbackMs : Math.max(0, earliest - now);
}

/** `retry-after` (whole seconds, rounded up, at least 1) and `retry-after-ms` (whole ms, rounded up) for a delay. */
export function retryHeaders(ms: number): { "retry-after": string; "retry-after-ms": string } {
  return { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))), "retry-after-ms": String(Math.ceil(ms)) };
}

/** One pool's state in this process. */
interface LocalPool {
  /** The playing holders and when each started (its end is worked out only when a refusal needs it). */
  readonly active: Map<Holder, number>;
  /** The waiting holders, first come first. */
  readonly queue: Holder[];
}

/** The pools of one process: FIFO queues, a slot handed to the first waiter as soon as one is freed. */
export class LocalSlots implements SlotLedger {
  private readonly pools = new Map<string, LocalPool>();

  /** @param now the time (ms) playing answers are timed by (the server's clock) */
  constructor(private readonly now: () => number) {}

  private poolOf(pool: Pool): LocalPool {
    let local = this.pools.get(pool.key);
    if (!local) this.pools.set(pool.key, (local = { active: new Map(), queue: [] }));
    return local;
  }

  private take(local: LocalPool, holder: Holder): void {
    holder.state = "held";
    local.active.set(holder, this.now());
  }

  /** When the earliest playing answer of a pool is due to end, from now. */
  private retryMs(local: LocalPool): number {
    const dues: number[] = [];
    for (const [holder, started] of local.active) dues.push(started + holder.playMs());
    return retryDelay(dues, this.now());
  }

  enter(pool: Pool, holder: Holder): Admission {
    const local = this.poolOf(pool);
    if (local.active.size < pool.max && local.queue.length === 0) {
      this.take(local, holder);
      return SLOT;
    }
    if (local.queue.length < pool.queue) {
      holder.state = "queued";
      local.queue.push(holder);
      return QUEUED;
    }
    holder.state = "done";
    return { kind: "full", retryMs: this.retryMs(local) };
  }

  leave(pool: Pool, holder: Holder): Departure {
    if (holder.state === "held") return GRANTED;
    const local = this.poolOf(pool);
    const at = local.queue.indexOf(holder);
    if (at >= 0) local.queue.splice(at, 1);
    holder.state = "done";
    return { kind: "left", retryMs: this.retryMs(local) };
  }

  release(pool: Pool, holder: Holder): void {
    const local = this.pools.get(pool.key);
    if (!local || !local.active.delete(holder)) return;
    holder.state = "done";
    while (local.active.size < pool.max && local.queue.length > 0) {
      const next = local.queue.shift()!;
      this.take(local, next);
      next.granted?.();
    }
  }

  /** How many play and wait in a pool (for tests and the docs' examples). */
  counts(key: string): { active: number; queued: number } {
    const local = this.pools.get(key);
    return { active: local?.active.size ?? 0, queued: local?.queue.length ?? 0 };
  }
}

const SLOT: Admission = Object.freeze({ kind: "slot" });
const QUEUED: Admission = Object.freeze({ kind: "queued" });
const GRANTED: Departure = Object.freeze({ kind: "granted" });

/** The pool a model's answers take their slots from: the model's own capacity, else the server's; undefined when neither caps anything. */
export function poolOf(service: Service, model: string): Pool | undefined {
  const own = (service.models.get(model) ?? service.defaults).capacity;
  if (own.maxConcurrent !== undefined)
    return { key: `model:${model}`, max: own.maxConcurrent, queue: own.queue ?? 0, timeoutMs: own.queueTimeoutMs };
  const server = service.capacity;
  if (server.maxConcurrent !== undefined)
    return { key: "server", max: server.maxConcurrent, queue: server.queue ?? 0, timeoutMs: server.queueTimeoutMs };
  return undefined;
}

/** Whether anything in the service caps concurrency (without, no answer is counted). */
export function hasCapacity(service: Service): boolean {
  if (service.capacity.maxConcurrent !== undefined || service.defaults.capacity.maxConcurrent !== undefined)
    return true;
  for (const model of service.models.values()) if (model.capacity.maxConcurrent !== undefined) return true;
  return false;
}
