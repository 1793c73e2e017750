/**
 * A request's answer on a timeline: each mark (an event sent, a heartbeat,
 * `[DONE]`, the end, a drop, a hang, the client going away) with its time in
 * ms since the request arrived. Marks cost two numbers each, kept in typed
 * arrays grown by doubling — never an object per event — because they are
 * taken on the hot path of every stream. The events themselves are not kept:
 * a mock answer is deterministic from its plan and is re-emitted when asked.
 *
 * A timeline is bounded: past `cap` marks it keeps counting but keeps no
 * more (a few end marks aside), says it was truncated and how many marks it
 * dropped. Its growth is charged to the journal's byte budget through `grow`.
 */

export type MarkKind = "event" | "heartbeat" | "done" | "end" | "drop" | "hang" | "abort";

/** The code of each kind that is not an event (an event's code is its index, 0 or more). */
const CODES: Record<Exclude<MarkKind, "event">, number> = { heartbeat: -1, done: -2, end: -3, drop: -4, hang: -5, abort: -6 };
const KINDS: Record<number, MarkKind> = { [-1]: "heartbeat", [-2]: "done", [-3]: "end", [-4]: "drop", [-5]: "hang", [-6]: "abort" };

/** What one mark of capacity costs: a Float64 time and an Int32 code. */
export const MARK_BYTES = 12;
/** The first capacity a timeline takes (then doubled as it fills). */
const FIRST_CAPACITY = 8;
/** Shared by every timeline that has no mark yet: one that is never marked allocates nothing. */
const NO_TIMES = new Float64Array(0);
const NO_CODES = new Int32Array(0);
/**
 * Marks that end an answer (`done`, `end`, `drop`, `hang`, `abort`) are kept
 * past the cap, up to this many: a truncated timeline still says how it ended.
 */
const END_MARKS = 4;

/** One mark as the inspector shows it. */
export interface Mark {
  /** Ms since the request arrived. */
  t: number;
  kind: MarkKind;
  /** The event's index in the answer (events only). */
  index?: number;
}

export class Timeline {
  private times = NO_TIMES;
  private codes = NO_CODES;
  private count = 0;
  private ends = 0;
  /** Marks not kept (past the cap, or once the journal let the entry go). */
  dropped = 0;
  /** Set once the journal let the entry go: nothing more is kept or charged. */
  private closed = false;

  /**
   * @param origin clock time (ms) the request arrived: marks are kept relative to it
   * @param cap most marks kept (bar END_MARKS end marks)
   * @param grow charges `bytes` more to the journal; false when the entry is no longer held
   */
  constructor(
    readonly origin: number,
    readonly cap: number,
    private readonly grow: (bytes: number) => boolean,
  ) {}

  /** Marks kept. */
  get length(): number {
    return this.count;
  }

  /** Whether marks were dropped. */
  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** Event `index` was sent at clock time `now`. */
  event(index: number, now: number): void {
    const i = this.count;
    // The hot path: room left, under the cap (a closed timeline has no room).
    if (i < this.times.length && i < this.cap) {
      this.times[i] = now - this.origin;
      this.codes[i] = index;
      this.count = i + 1;
      return;
    }
    this.put(index, now, false);
  }

  /** A mark that is not an event, at clock time `now`. */
  mark(kind: Exclude<MarkKind, "event">, now: number): void {
    this.put(CODES[kind], now, kind !== "heartbeat");
  }

  /** Stops keeping marks (the journal let the entry go); what was kept is let go too. */
  close(): void {
    this.closed = true;
    this.times = NO_TIMES;
    this.codes = NO_CODES;
    this.dropped += this.count;
    this.count = 0;
  }

  /** The marks kept, in order (a fresh array; built when the inspector asks, never on the hot path). */
  marks(): Mark[] {
    const out: Mark[] = [];
    for (let i = 0; i < this.count; i++) {
      const code = this.codes[i];
      const t = Math.round(this.times[i] * 1000) / 1000;
      out.push(code >= 0 ? { t, kind: "event", index: code } : { t, kind: KINDS[code] });
    }
    return out;
  }

  private put(code: number, now: number, end: boolean): void {
    if (this.closed) {
      this.dropped++;
      return;
    }
    const limit = this.cap + (end ? Math.min(END_MARKS, this.ends + 1) : 0);
    if (this.count >= limit || (this.count === this.times.length && !this.expand(limit))) {
      this.dropped++;
      return;
    }
    if (end && this.count >= this.cap) this.ends++;
    this.times[this.count] = now - this.origin;
    this.codes[this.count++] = code;
  }

  /** Doubles the capacity (up to `limit`); false when it cannot grow. */
  private expand(limit: number): boolean {
    const size = Math.min(Math.max(FIRST_CAPACITY, this.times.length * 2), Math.max(limit, this.cap));
    if (size <= this.times.length) return false;
    return this.resize(size);
  }

  /** Grows the arrays to `size` marks, charged to the journal; false (and closed) when the entry is no longer held. */
  private resize(size: number): boolean {
    if (!this.grow((size - this.times.length) * MARK_BYTES)) {
      this.close();
      return false;
    }
    const times = new Float64Array(size);
    times.set(this.times);
    const codes = new Int32Array(size);
    codes.set(this.codes);
    this.times = times;
    this.codes = codes;
    return true;
  }
}
