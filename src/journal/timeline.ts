/**
 * A request's answer on a timeline: each mark (an event sent, a heartbeat,
 * `[DONE]`, the end, a drop, a hang, the client going away) with its time in
 * ms since the request arrived. Marks cost two numbers each, kept side by
 * side in one plain array of numbers — never an object per event — because
 * they are taken on the hot path of every stream, and one array, sized for
 * its first mark, is what a kept request holds. Not typed arrays: past 64 bytes a
 * typed array's memory is outside V8's heap, and allocating it (once per
 * doubling) cost a short stream ~10 µs, plus the GC's tracking of it. The
 * events themselves are not kept: a mock answer is deterministic from its
 * plan and is re-emitted when asked.
 *
 * A timeline is bounded: past `cap` marks it keeps counting but keeps no
 * more (a few end marks aside), says it was truncated and how many marks it
 * dropped. Its growth is charged to the journal's byte budget through its owner.
 */

export type MarkKind = "event" | "heartbeat" | "done" | "end" | "drop" | "hang" | "abort";

/** The code of each kind that is not an event (an event's code is its index, 0 or more). */
const CODES: Record<Exclude<MarkKind, "event">, number> = {
  heartbeat: -1,
  done: -2,
  end: -3,
  drop: -4,
  hang: -5,
  abort: -6,
};
const KINDS: Record<number, MarkKind> = {
  [-1]: "heartbeat",
  [-2]: "done",
  [-3]: "end",
  [-4]: "drop",
  [-5]: "hang",
  [-6]: "abort",
};

/** What one mark of capacity costs: a time and a code, 8 bytes each in an array of numbers. */
export const MARK_BYTES = 16;
/** The first capacity a timeline is charged for (then doubled as it fills). */
const FIRST_CAPACITY = 8;
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

/** What a timeline charges its growth to (the journal's slot of its entry). */
export interface TimelineOwner {
  /** Charges `bytes` more; false when the entry is no longer held. */
  grow(bytes: number): boolean;
}

export class Timeline {
  /**
   * Each mark kept as two numbers, its time (ms since `origin`) and its code
   * (an event's index, or a CODES value); allocated at the first mark, with
   * room for it alone (a JSON answer's one `end`), so one never marked
   * allocates nothing.
   */
  private data: number[] | null = null;
  /** Marks charged to the journal so far (grown by doubling, as the marks come). */
  private capacity = 0;
  private count = 0;
  private ends = 0;
  /** Marks not kept (past the cap, or once the journal let the entry go). */
  dropped = 0;
  /** Set once the journal let the entry go: nothing more is kept or charged. */
  private closed = false;
  /**
   * Events 0 … run − 1, all sent at `runTime` (ms since `origin`): an answer
   * sent in one write, kept as one mark's worth of numbers, not one per event.
   */
  private run = 0;
  private runTime = 0;

  /**
   * @param origin clock time (ms) the request arrived: marks are kept relative to it
   * @param cap most marks kept (bar END_MARKS end marks)
   * @param owner what its growth is charged to (the journal's slot of its entry)
   */
  constructor(
    readonly origin: number,
    readonly cap: number,
    private readonly owner: TimelineOwner,
  ) {}

  /** Marks kept. */
  get length(): number {
    return this.run + this.count;
  }

  /** Whether marks were dropped. */
  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** Event `index` was sent at clock time `now`. */
  event(index: number, now: number): void {
    const i = this.count;
    // The hot path: room charged, under the cap (a closed timeline has none).
    if (i < this.capacity && i + this.run < this.cap) {
      this.add(now - this.origin, index);
      this.count = i + 1;
      return;
    }
    this.put(index, now, false);
  }

  /**
   * Events 0 … count − 1 were all sent at clock time `now` (an answer sent
   * in one write): kept as one run, charged as one mark (past the cap, the
   * events after it are dropped, as one by one).
   */
  events(count: number, now: number): void {
    if (count === 0) return;
    if (this.length !== 0 || this.closed) {
      for (let i = 0; i < count; i++) this.event(i, now);
      return;
    }
    const kept = Math.min(count, this.cap);
    if (kept === 0 || !this.owner.grow(MARK_BYTES)) {
      if (kept > 0) this.close();
      this.dropped += count;
      return;
    }
    this.run = kept;
    this.runTime = now - this.origin;
    this.dropped += count - kept;
  }

  /** A mark that is not an event, at clock time `now`. */
  mark(kind: Exclude<MarkKind, "event">, now: number): void {
    this.put(CODES[kind], now, kind !== "heartbeat");
  }

  /** Stops keeping marks (the journal let the entry go); what was kept is let go too. */
  close(): void {
    this.closed = true;
    this.data = null;
    this.capacity = 0;
    this.dropped += this.count + this.run;
    this.count = 0;
    this.run = 0;
  }

  /** The marks kept, in order (a fresh array; built when the inspector asks, never on the hot path). */
  marks(): Mark[] {
    const out: Mark[] = [];
    if (this.run > 0) {
      const t = Math.round(this.runTime * 1000) / 1000;
      for (let i = 0; i < this.run; i++) out.push({ t, kind: "event", index: i });
    }
    for (let i = 0; i < this.count; i++) {
      const code = this.data![2 * i + 1];
      const t = Math.round(this.data![2 * i] * 1000) / 1000;
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
    if (this.run + this.count >= limit || (this.count === this.capacity && !this.expand(limit - this.run))) {
      this.dropped++;
      return;
    }
    if (end && this.run + this.count >= this.cap) this.ends++;
    this.add(now - this.origin, code);
    this.count++;
  }

  /**
   * Keeps one mark's two numbers (room has been charged for it). The first
   * two marks get an array of their own size (what a JSON answer or a stream
   * sent in one write keeps: `end`, or `done` and `end`); from the third on,
   * the array grows as arrays do.
   */
  private add(time: number, code: number): void {
    const { data } = this;
    if (data === null) this.data = [time, code];
    else if (data.length === 2) this.data = [data[0], data[1], time, code];
    else data.push(time, code);
  }

  /** Doubles the capacity (up to `limit`); false when it cannot grow. */
  private expand(limit: number): boolean {
    const size = Math.min(Math.max(FIRST_CAPACITY, this.capacity * 2), Math.max(limit, this.cap));
    if (size <= this.capacity) return false;
    return this.resize(size);
  }

  /** Charges the journal for `size` marks; false (and closed) when the entry is no longer held. */
  private resize(size: number): boolean {
    if (!this.owner.grow((size - this.capacity) * MARK_BYTES)) {
      this.close();
      return false;
    }
    this.capacity = size;
    return true;
  }
}
