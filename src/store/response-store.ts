/**
 * The response store: what `store: true` keeps — the response, the input
 * items it was given, and the events it was streamed as (for replay). Behind
 * an interface; the default keeps them in memory, capped, evicting the oldest,
 * so memory stays flat however long the server runs.
 */
import { EventSource } from "../emit/emit-events.js";
import type { Plan } from "../generate/plan.js";
import type { ItemParam, ResponseResource, StreamEvent } from "../spec/index.js";
import { OldestKeys } from "../util/oldest-keys.js";
import {
  DEFAULT_STORE_BYTES,
  inputStandIn,
  RECORD_OVERHEAD_BYTES,
  standInBytes,
  valueCost,
  wholeInputLimit,
  type InputOmitted,
} from "./record-cost.js";

export interface StoredResponse {
  /** The response as it stands (the final one once it has ended). */
  response: ResponseResource;
  /** The request's own input items, each with an id (for input_items). */
  input: ItemParam[];
  /**
   * The plan it was answered from: its events are re-emitted from it when
   * they are replayed (the engine is deterministic), so they are not kept.
   */
  plan: Plan;
  /** Events kept as they were delivered, when that differs from the plan's (a cancelled run). */
  events?: StreamEvent[];
  /** The `x-mock-session` it was created in (only that session sees it), or null. */
  session?: string | null;
  /** The response's id, when the record tells it without building its response (a PlannedRecord); `response.id` otherwise. */
  readonly id?: string;
  /**
   * Set when the record was too big to keep its input whole (over 1/16 of
   * `storeBytes`): `input` is then a stand-in (its first text only), which a
   * `previous_response_id` continuation reads, and `input_items` answers
   * `input_items_unavailable`.
   */
  inputOmitted?: InputOmitted;
  /** What keeping it costs, estimated, when the record knows (a PlannedRecord); see recordCost. */
  readonly keptBytes?: number;
  /** Lets go of the input, keeping a stand-in (a PlannedRecord); see keepWithin. */
  omitInput?(budget: number, standInBytes?: number): void;
}

/** What keeping a record costs, estimated: a PlannedRecord knows; a plain one (a proxied answer) is measured. */
export function recordCost(record: StoredResponse): number {
  if (record.keptBytes !== undefined) return record.keptBytes;
  return (
    RECORD_OVERHEAD_BYTES +
    valueCost(record.input) +
    valueCost(record.response.output) +
    (record.events ? valueCost(record.events) : 0)
  );
}

/**
 * Makes a record fit a byte budget before it is kept: one that costs more than
 * 1/16 of it keeps a stand-in of its input instead (see InputOmitted).
 * Returns its cost as kept.
 */
export function keepWithin(record: StoredResponse, budget: number): number {
  const cost = recordCost(record);
  if (cost <= wholeInputLimit(budget) || record.inputOmitted) return cost;
  if (record.omitInput) record.omitInput(budget, standInBytes(budget));
  else {
    record.inputOmitted = { bytes: cost, budget };
    record.input = inputStandIn(record.input, standInBytes(budget));
  }
  return recordCost(record);
}

/** The id a record is kept under: its response's, read without building it when the record can (a PlannedRecord). */
export const storedId = (record: StoredResponse): string => record.id ?? record.response.id;

/** The events of a stored response one at a time, re-emitted from its plan as they are read (a replay holds one at a time). */
export function* replayEvents(record: StoredResponse): Generator<StreamEvent, void, undefined> {
  if (record.events) return yield* record.events;
  const source = new EventSource(record.plan);
  for (let e = source.next(); e !== undefined; e = source.next()) yield e;
}

export interface ResponseStore {
  get(id: string): StoredResponse | undefined;
  /** Keeps a record; a shared store returns the write in flight (its failure is the client's 503), the memory store nothing. */
  put(record: StoredResponse): void | Promise<void>;
  delete(id: string): boolean;
  /** Number of responses held. */
  readonly size: number;
  /** The byte budget (`storeBytes`) records are kept within (a shared store: its local view). */
  readonly byteLimit?: number;
  /**
   * A shared store (Redis) only: fetches `id` and the responses it continues
   * (its `previous_response_id` chain) into the local view, so that the
   * synchronous `get`s that follow see them as every process does now. The
   * memory store has none: its callers never wait.
   */
  load?(id: string): Promise<void>;
  /** A shared store only: deletes a record everywhere; resolves with whether it was there. */
  remove?(id: string): Promise<boolean>;
}

/**
 * What the map holds for a record: a record that knows its own cost once
 * measured (a PlannedRecord: `keptBytes` does not change) is kept as itself;
 * another (a proxied answer, measured by walking it, which can change) with
 * the cost it was kept at. One object fewer per kept response.
 */
class Kept {
  constructor(
    readonly record: StoredResponse,
    readonly cost: number,
  ) {}
}
type Held = StoredResponse | Kept;
const isKept = (held: Held): held is Kept => held instanceof Kept;
const recordOf = (held: Held): StoredResponse => (isKept(held) ? held.record : held);
const costOf = (held: Held): number => (isKept(held) ? held.cost : held.keptBytes!);

/**
 * Records bounded by count and by bytes, the oldest going first (the newest
 * always stays): the memory store, and a shared store's local view.
 */
export class BoundedRecords {
  private readonly kept = new Map<string, Held>();
  private readonly oldest = new OldestKeys(this.kept);
  private total = 0;

  constructor(
    readonly limit: number,
    readonly byteLimit: number,
  ) {}

  get size(): number {
    return this.kept.size;
  }

  /** The bytes the records hold, estimated (at most `byteLimit`, bar the newest record). */
  get bytes(): number {
    return this.total;
  }

  get(id: string): StoredResponse | undefined {
    const held = this.kept.get(id);
    return held === undefined ? undefined : recordOf(held);
  }

  has(id: string): boolean {
    return this.kept.has(id);
  }

  /** Keeps a record (newest), with its input left out when it costs over 1/16 of the budget; evicts the oldest past either bound. */
  set(id: string, record: StoredResponse): void {
    // Re-putting moves the record to the newest end.
    this.delete(id);
    if (this.limit === 0) return;
    const cost = keepWithin(record, this.byteLimit);
    this.kept.set(id, record.keptBytes === cost ? record : new Kept(record, cost));
    this.total += cost;
    while (this.kept.size > this.limit || (this.byteLimit > 0 && this.total > this.byteLimit && this.kept.size > 1)) {
      const old = this.oldest.next()!;
      this.total -= costOf(this.kept.get(old)!);
      this.kept.delete(old);
    }
  }

  delete(id: string): boolean {
    const had = this.kept.get(id);
    if (!had) return false;
    this.total -= costOf(had);
    return this.kept.delete(id);
  }

  clear(): void {
    this.kept.clear();
    this.total = 0;
  }
}

/**
 * An in-memory store holding at most `limit` responses within `byteLimit`
 * bytes (estimated); the oldest go first. A response that costs over 1/16 of
 * `byteLimit` is kept without its input (see keepWithin). A `byteLimit` of 0
 * keeps no inputs, and then only `limit` bounds it (as the journal's 0).
 */
export class MemoryResponseStore implements ResponseStore {
  private readonly records: BoundedRecords;

  constructor(
    readonly limit = 1000,
    readonly byteLimit = DEFAULT_STORE_BYTES,
  ) {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`store limit must be a non-negative integer, got ${limit}`);
    if (!Number.isSafeInteger(byteLimit) || byteLimit < 0)
      throw new RangeError(`store bytes must be a non-negative integer, got ${byteLimit}`);
    this.records = new BoundedRecords(limit, byteLimit);
  }

  get size(): number {
    return this.records.size;
  }

  /** The bytes the responses hold, estimated. */
  get bytes(): number {
    return this.records.bytes;
  }

  get(id: string): StoredResponse | undefined {
    return this.records.get(id);
  }

  put(record: StoredResponse): void {
    this.records.set(storedId(record), record);
  }

  delete(id: string): boolean {
    return this.records.delete(id);
  }
}
