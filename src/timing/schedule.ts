/**
 * The schedule: when each event of a stream is written, when heartbeats fall,
 * and where faults cut it. Pure — events + profile + rng in, times out — so it
 * is tested without a clock. Times are offsets in ms from the request, kept
 * absolute so errors never accumulate over a long stream.
 *
 * A schedule is produced slot by slot as the pacer asks for it (a
 * `SlotCursor`), reading each event only when its time is computed: an open
 * stream holds the cursor's place, not an array of its slots (nor its events,
 * when they are produced as they are due). `buildSchedule` drains a cursor
 * into the array form, for tests and callers that want it whole.
 */
import { countTokens } from "../generate/tokens.js";
import type { StreamEvent } from "../spec/index.js";
import { drawLogNormal, logNormalOf, slowdownFactor, type LatencyDraws } from "./latency.js";
import { type Faults, type TimingProfile } from "./profile.js";

/** Anything with `next()` in [0, 1); the seeded rng fits. */
export interface JitterSource {
  next(): number;
}

export type Slot =
  | { kind: "event"; at: number; index: number }
  | { kind: "heartbeat"; at: number }
  | { kind: "done"; at: number }
  /** Close the connection without finishing the stream. */
  | { kind: "drop"; at: number }
  /** Keep the connection open and send nothing more but heartbeats. */
  | { kind: "hang"; at: number };

export type EndSlot = Extract<Slot, { kind: "done" | "drop" | "hang" }>;

export interface Schedule {
  slots: Slot[];
  /** The heartbeat interval to keep up while hanging (0 = none). */
  heartbeatMs: number;
  /** Total duration until the last slot. */
  durationMs: number;
}

/** Slots one at a time: what the pacer plays. A cursor, or an array schedule (`slotsOf`). */
export interface SlotSequence {
  /** The next slot, or undefined after the last (an end slot: done, drop or hang). */
  next(): Slot | undefined;
  /** The slot `next()` will return, without taking it. */
  peek(): Slot | undefined;
  /** The heartbeat interval to keep up while hanging (0 = none). */
  readonly heartbeatMs: number;
}

/**
 * The events a schedule reads: event `i` (its type, and its delta for token
 * pacing), undefined past the last. Asked in order, each at most once past
 * the one before; an array of events fits.
 */
export interface ScheduledEvents {
  at(index: number): Pick<StreamEvent, "type"> | undefined;
}

const isTextDelta = (type: string) => type.endsWith(".delta");

function deltaText(event: Pick<StreamEvent, "type">): string {
  const d = (event as { delta?: unknown }).delta;
  return typeof d === "string" ? d : "";
}

export interface ScheduleOptions {
  /**
   * The extra pause before event `index` (per-step delays of scripted turns):
   * a map by index, or a function asked once per event, right after the
   * event itself was read.
   */
  pauses?: ReadonlyMap<number, number> | ((index: number) => number);
  faults?: Faults;
  /**
   * A latency profile's draws (latency.ts): the gap before the first event
   * is a TTFT draw; the gap before a text delta of n tokens is the sum of n
   * ITL draws (n − 1 for the answer's first delta, whose first token is the
   * TTFT's), times the slowdown under load; any other event comes with the
   * one before it (no gap of its own). Undefined: the profile's fixed pace.
   */
  latency?: LatencyDraws;
}

/**
 * The schedule of a stream, slot by slot. Each `next()` reads at most one
 * more event. The same slots as the whole schedule would hold, in order:
 * heartbeats wherever the stream would sit idle for a whole interval (never
 * during a stall), the events before any cut, then done, drop or hang.
 */
export class SlotCursor implements SlotSequence {
  readonly heartbeatMs: number;
  /** The next event to read. */
  private index = 0;
  /** The time of the last event read (its ideal time). */
  private time = 0;
  /** When the last slot before the idle stretch was written (for heartbeats). */
  private last = 0;
  /** The slot waiting after a run of heartbeats (an event or the end), with the heartbeats before it to produce. */
  private pending: Slot | undefined;
  private heartbeatAt = Infinity;
  private lookahead: Slot | undefined;
  private stallFrom = Infinity;
  private stallTo = -Infinity;
  private ended: EndSlot | undefined;
  private finished = false;
  private readonly pauseOf: (index: number) => number;
  /** A profile's log-normal TTFT (μ, σ), when drawn. */
  private readonly ttftMu: number = 0;
  private readonly ttftSigma: number = 0;
  /** A profile's log-normal ITL (μ, σ), when drawn (`latency.itl` set). */
  private readonly itlMu: number = 0;
  private readonly itlSigma: number = 0;
  private readonly latency: LatencyDraws | undefined;
  /** No text delta yet: the first one's first token came with the TTFT. */
  private firstDelta = true;

  constructor(
    private readonly events: ScheduledEvents,
    private readonly profile: TimingProfile,
    private readonly rng: JitterSource,
    options: ScheduleOptions = {},
  ) {
    this.heartbeatMs = profile.heartbeatMs;
    const { pauses } = options;
    this.pauseOf = pauses === undefined ? () => 0 : typeof pauses === "function" ? pauses : (i) => pauses.get(i) ?? 0;
    this.faults = options.faults ?? {};
    const { latency } = options;
    this.latency = latency;
    if (latency?.ttft) ({ mu: this.ttftMu, sigma: this.ttftSigma } = logNormalOf(latency.ttft));
    if (latency?.itl) ({ mu: this.itlMu, sigma: this.itlSigma } = logNormalOf(latency.itl));
    if (this.faults.stall?.afterEvents === 0) {
      this.stallFrom = 0;
      this.stallTo = this.faults.stall.ms;
    }
  }

  private readonly faults: Faults;

  /** The end slot, once the cursor has reached it (undefined before). */
  get end(): EndSlot | undefined {
    return this.ended;
  }

  /** How many events come before the end (known once the end is reached). */
  get eventCount(): number | undefined {
    return this.ended ? this.index : undefined;
  }

  peek(): Slot | undefined {
    this.lookahead ??= this.produce();
    return this.lookahead;
  }

  next(): Slot | undefined {
    const slot = this.peek();
    this.lookahead = undefined;
    return slot;
  }

  private jitter(): number {
    return this.profile.jitterMs > 0 ? (this.rng.next() * 2 - 1) * this.profile.jitterMs : 0;
  }

  /** Sets `slot` to come after the heartbeats of the idle stretch before it. */
  private queue(slot: Slot): void {
    this.pending = slot;
    this.heartbeatAt =
      this.profile.heartbeatMs > 0 && slot.kind !== "hang" ? this.last + this.profile.heartbeatMs : Infinity;
  }

  /** The next heartbeat before the pending slot, if any. */
  private heartbeat(): Slot | undefined {
    const until = this.pending!.at;
    let h = this.heartbeatAt;
    if (h >= until) return undefined;
    if (h > this.stallFrom && h < this.stallTo) {
      h = this.stallTo; // silent during the stall; idle ever since, so one comes as it ends
      if (h >= until) return undefined;
    }
    this.heartbeatAt = h + this.profile.heartbeatMs;
    return { kind: "heartbeat", at: h };
  }

  private produce(): Slot | undefined {
    if (this.finished) return undefined;
    if (this.pending === undefined) this.advance();
    const beat = this.heartbeat();
    if (beat) return beat;
    const slot = this.pending!;
    this.pending = undefined;
    if (slot.kind === "event") this.last = slot.at;
    else this.finished = true;
    return slot;
  }

  /** Reads the next event and queues its slot, or the end where a fault or the last event puts it. */
  private advance(): void {
    const { profile, faults } = this;
    const i = this.index;
    const previous = i > 0 ? this.time : undefined;
    const dropAfterMs = faults.dropAfterMs;
    /** Ends the stream; a dropAfterMs earlier than the end (or any, instead of a hang) drops it then. */
    const finish = (end: EndSlot) => {
      this.ended =
        dropAfterMs !== undefined && (end.kind === "hang" || dropAfterMs < end.at)
          ? { kind: "drop", at: dropAfterMs }
          : end;
      this.queue(this.ended);
    };
    if (faults.dropAfterEvents === i) return finish({ kind: "drop", at: previous ?? 0 });
    const event = this.events.at(i);
    if (event === undefined) return finish({ kind: "done", at: previous ?? profile.latencyMs });
    if (faults.hangAfterEvents === i) {
      // Hung, then dropped at dropAfterMs: a stall planned past the hang still silences the heartbeats until the drop.
      if (dropAfterMs !== undefined && faults.stall && faults.stall.afterEvents > i)
        this.timeStallPastCut(i, event, previous ?? 0);
      return finish({ kind: "hang", at: previous ?? 0 });
    }
    const at = (previous ?? 0) + this.gapBefore(i, event);
    if (dropAfterMs !== undefined && at > dropAfterMs) return finish({ kind: "drop", at: dropAfterMs });
    this.time = at;
    this.index = i + 1;
    this.noteStall(i, at);
    this.queue({ kind: "event", at, index: i });
  }

  /** The pause before event `i` (draws its jitter). */
  private gapBefore(i: number, event: Pick<StreamEvent, "type">): number {
    const { profile, faults } = this;
    const { latency } = this;
    let gap: number;
    if (i === 0) gap = latency?.ttft ? drawLogNormal(this.ttftMu, this.ttftSigma, this.rng.next()) : profile.latencyMs;
    else if (latency?.itl) gap = isTextDelta(event.type) ? this.tokenGaps(latency, event) : 0;
    else if (profile.tokensPerSecond && isTextDelta(event.type))
      gap = (countTokens(deltaText(event)) / profile.tokensPerSecond) * 1000;
    else gap = profile.chunkMs;
    gap = Math.max(0, gap + (i === 0 && gap === 0 ? 0 : this.jitter()));
    gap += this.pauseOf(i);
    if (faults.stall && faults.stall.afterEvents === i) gap += faults.stall.ms;
    return gap;
  }

  /**
   * The gap before a text delta under a profile's ITL: one draw per token
   * (the sum of n), the first delta's first token excepted, times the
   * slowdown at the load read now.
   */
  private tokenGaps(latency: LatencyDraws, event: Pick<StreamEvent, "type">): number {
    let n = countTokens(deltaText(event));
    if (this.firstDelta && n > 0) {
      this.firstDelta = false;
      n--;
    }
    let gap = 0;
    for (let t = 0; t < n; t++) gap += drawLogNormal(this.itlMu, this.itlSigma, this.rng.next());
    const { load, slowdown } = latency;
    return load !== undefined && slowdown.k > 0 && gap > 0 ? gap * slowdownFactor(slowdown, load()) : gap;
  }

  /** Event `i` is at `at`: the stall starts there when it comes after it. */
  private noteStall(i: number, at: number): void {
    const { stall } = this.faults;
    if (stall && stall.afterEvents === i + 1) {
      this.stallFrom = at;
      this.stallTo = at + stall.ms;
    }
  }

  /** Times the events from the cut `i` on, unsent, as far as the stall's start (the stall window reaches back before the drop). */
  private timeStallPastCut(i: number, event: Pick<StreamEvent, "type">, previous: number): void {
    const until = this.faults.stall!.afterEvents;
    let at = previous;
    for (let k = i, e: Pick<StreamEvent, "type"> | undefined = event; k < until; e = this.events.at(++k)) {
      if (e === undefined) return;
      at += this.gapBefore(k, e);
      this.noteStall(k, at);
    }
  }
}

/** The schedule of a stream, slot by slot, reading its events as it goes. */
export function scheduleCursor(
  events: ScheduledEvents,
  profile: TimingProfile,
  rng: JitterSource,
  options: ScheduleOptions = {},
): SlotCursor {
  return new SlotCursor(events, profile, rng, options);
}

/**
 * Builds the whole schedule of a stream. `pauses` maps an event index to an
 * extra pause before it (per-step delays of scripted turns); `latency`, a
 * latency profile's draws (ScheduleOptions).
 */
export function buildSchedule(
  events: readonly StreamEvent[],
  profile: TimingProfile,
  rng: JitterSource,
  options: { pauses?: ReadonlyMap<number, number>; faults?: Faults; latency?: LatencyDraws } = {},
): Schedule {
  const cursor = new SlotCursor(events, profile, rng, options);
  const slots: Slot[] = [];
  for (let slot = cursor.next(); slot !== undefined; slot = cursor.next()) slots.push(slot);
  return { slots, heartbeatMs: profile.heartbeatMs, durationMs: cursor.end!.at };
}

/** An array schedule as a sequence, or a sequence as it is. */
export function slotsOf(schedule: Schedule | SlotSequence): SlotSequence {
  if (!("slots" in schedule)) return schedule;
  const { slots } = schedule;
  let s = 0;
  return { heartbeatMs: schedule.heartbeatMs, next: () => slots[s++], peek: () => slots[s] };
}

/** Only the slots `keep` accepts (a JSON answer drops heartbeats; a background run keeps events and done). */
export function filterSlots(sequence: SlotSequence, keep: (slot: Slot) => boolean): SlotSequence {
  const skip = () => {
    while (sequence.peek() !== undefined && !keep(sequence.peek()!)) sequence.next();
  };
  return {
    heartbeatMs: sequence.heartbeatMs,
    next: () => (skip(), sequence.next()),
    peek: () => (skip(), sequence.peek()),
  };
}
