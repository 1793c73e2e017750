/**
 * The answer memo. An answer is a pure function of the request's bytes, the
 * seed, the scenario header and the second it is created in (`created_at`),
 * as long as no stored state takes part (no `previous_response_id`, no queued
 * or `use()` answer, no background run). For those requests the memo keeps
 * the validated request, the planned answer and what was derived from it
 * (events, the JSON body, SSE frames, the stored input items), so a repeated
 * request skips validation, planning, emission and serialisation and still
 * gets the same bytes. Bounded by entries and by an estimate of their size;
 * the least recently used go first. An answer is kept only when its key was
 * seen recently (a doorkeeper of key hashes), so requests that never repeat
 * cost no memory and no garbage collection. Pure: no I/O, no timers.
 */
import { fnv1a } from "../generate/hash.js";
import type { ItemParam, CreateResponseBody } from "../spec/index.js";
import type { Schedule } from "../timing/schedule.js";
import type { Answer, PlannedAnswer } from "./answer.js";

/** What one memoised request keeps. Everything in it is shared between requests: never mutate it. */
export interface MemoEntry {
  request: CreateResponseBody;
  planned: PlannedAnswer;
  /** The answer with its events (built when a request needs them). */
  full?: Answer;
  /** The answer with only its final response. */
  final?: Answer;
  /** `JSON.stringify` of the final response. */
  body?: string;
  /** The request's input items with ids, as the store keeps them. */
  input?: ItemParam[];
  /** SSE frames of the events, filled in as they are first written. */
  frames?: (string | undefined)[];
  /** The timing schedule of `full` when a request sends no timing or fault header. */
  schedule?: Schedule;
  /** Estimated size in bytes (for the byte budget), frames and events included. */
  bytes: number;
}

/** The memo key of a request: everything the answer depends on when no stored state does. */
export function memoKey(parts: { createdAt: number; seed: string; scenario: string; body: string }): string {
  return `${parts.createdAt}\u0000${parts.seed}\u0000${parts.scenario}\u0000${parts.body}`;
}

/** How many recent key hashes the doorkeeper holds before it starts over. */
const DOORKEEPER_LIMIT = 4096;

export class AnswerMemo {
  private readonly entries = new Map<string, MemoEntry>();
  private bytes = 0;
  private seen = new Set<number>();
  /** Lookups answered from the memo, and those that were not (for tests and benchmarks). */
  hits = 0;
  misses = 0;

  /**
   * @param maxEntries most entries kept (0 turns the memo off)
   * @param maxBytes most estimated bytes kept; an entry above a quarter of it is not kept
   */
  constructor(
    readonly maxEntries = 256,
    readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get enabled(): boolean {
    return this.maxEntries > 0;
  }

  /** The entry of a key, made the most recently used. */
  get(key: string): MemoEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * Whether an answer for `key` is worth keeping: true when the key was seen
   * recently (a repeat), else it is remembered and the answer is not kept.
   */
  admit(key: string): boolean {
    // An answer to a body this large would not fit the byte budget anyway.
    if (!this.enabled || 2 * key.length > this.maxBytes / 4) return false;
    const h = fnv1a(key) ^ key.length;
    if (this.seen.has(h)) return true;
    if (this.seen.size >= DOORKEEPER_LIMIT) this.seen = new Set();
    this.seen.add(h);
    return false;
  }

  /** Keeps an entry (if it fits), evicting the least recently used. */
  set(key: string, entry: MemoEntry): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    if (!this.enabled || entry.bytes > this.maxBytes / 4) return;
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  private evict(): void {
    while (this.entries.size > this.maxEntries || (this.bytes > this.maxBytes && this.entries.size > 0)) {
      const [key, oldest] = this.entries.entries().next().value as [string, MemoEntry];
      this.entries.delete(key);
      this.bytes -= oldest.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.seen.clear();
    this.bytes = 0;
  }
}
