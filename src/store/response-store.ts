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

/** An in-memory store holding at most `limit` responses; the oldest go first. */
export class MemoryResponseStore implements ResponseStore {
  private readonly records = new Map<string, StoredResponse>();
  private readonly oldest = new OldestKeys(this.records);

  constructor(readonly limit = 1000) {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`store limit must be a non-negative integer, got ${limit}`);
  }

  get size(): number {
    return this.records.size;
  }

  get(id: string): StoredResponse | undefined {
    return this.records.get(id);
  }

  put(record: StoredResponse): void {
    const id = storedId(record);
    // Re-putting moves the record to the newest end.
    this.records.delete(id);
    if (this.limit === 0) return;
    this.records.set(id, record);
    while (this.records.size > this.limit) this.records.delete(this.oldest.next()!);
  }

  delete(id: string): boolean {
    return this.records.delete(id);
  }
}
