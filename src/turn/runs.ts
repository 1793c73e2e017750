/**
 * Background runs: a `background: true` response plays on its own, paced by
 * its schedule, whether or not anyone is connected. The store shows it as it
 * stands (queued, in progress, then final); streams can follow it live; it can
 * be cancelled. Runs are the only server state with timers; close() stops them.
 */
import { foldEvents } from "../emit/fold.js";
import type { ResponseResource, StreamEvent } from "../spec/index.js";
import type { StoredResponse, ResponseStore } from "../store/response-store.js";
import type { Clock } from "../timing/clock.js";
import { playSchedule } from "../timing/pacer.js";
import type { Schedule, SlotSequence } from "../timing/schedule.js";

type Listener = (event: StreamEvent | null) => void;

export class Run {
  /** Events delivered so far. */
  readonly delivered: StreamEvent[] = [];
  state: "running" | "ended" | "cancelled" = "running";
  private readonly listeners = new Set<Listener>();
  private readonly abort = new AbortController();
  readonly finished: Promise<void>;
  /** The store's last write of the record (a shared store's is asynchronous; its failure is reported by the store). */
  private write: Promise<void> = Promise.resolve();

  constructor(
    private readonly record: StoredResponse,
    private readonly events: readonly StreamEvent[],
    schedule: Schedule | SlotSequence,
    private readonly store: ResponseStore,
    clock: Clock,
  ) {
    const sink = {
      event: (i: number) => {
        this.delivered.push(this.events[i]);
        this.record.response = foldEvents(this.delivered, { partial: true });
        this.save();
        for (const l of this.listeners) l(this.events[i]);
        return true;
      },
      heartbeat: () => true,
      end: () => this.finish("ended"),
      destroy: () => this.finish("ended"),
    };
    // A background run has no connection to drop or stall: faults do not apply, timing does.
    this.finished = playSchedule(schedule, sink, { clock, start: clock.now(), signal: this.abort.signal }).then(() => {
      if (this.state === "running") this.finish("ended");
    });
  }

  get id(): string {
    return this.record.response.id;
  }

  /** The plan the run plays (dialects render its events with it). */
  get plan(): StoredResponse["plan"] {
    return this.record.plan;
  }

  private save() {
    // Keep the record in the store while it runs, unless it was deleted (or evicted).
    if (this.store.get(this.id) === undefined) return;
    const written = this.store.put(this.record);
    if (written) this.write = written.catch(() => undefined);
  }

  /** Resolves once the store holds what the run last wrote (at once in memory). */
  written(): Promise<void> {
    return this.write;
  }

  private finish(state: "ended" | "cancelled") {
    if (this.state !== "running") return;
    this.state = state;
    for (const l of this.listeners) l(null);
    this.listeners.clear();
  }

  /** Follows the run: past events first, then live ones; `null` when it ends. Returns an unsubscribe. */
  subscribe(listener: Listener, startingAfter = -1): () => void {
    for (const e of this.delivered) if (e.sequence_number > startingAfter) listener(e);
    if (this.state !== "running") {
      listener(null);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the run; the stored response keeps what was produced, with status `cancelled`. */
  cancel(): ResponseResource {
    if (this.state === "running") {
      this.abort.abort();
      // What was never delivered never happened: a replay shows only the delivered events.
      this.record.events = [...this.delivered];
      const current = this.record.response;
      this.record.response = {
        ...current,
        status: "cancelled",
        output: current.output.map((o) =>
          (o as { status?: string }).status === "in_progress" ? { ...o, status: "incomplete" } : o,
        ) as ResponseResource["output"],
      };
      this.save();
      this.finish("cancelled");
    }
    return this.record.response;
  }
}

/** The runs of one server. */
export class Runs {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly store: ResponseStore,
    private readonly clock: Clock,
  ) {}

  start(record: StoredResponse, events: readonly StreamEvent[], schedule: Schedule | SlotSequence): Run {
    this.runs.get(record.response.id)?.cancel();
    const run = new Run(record, events, schedule, this.store, this.clock);
    this.runs.set(run.id, run);
    void run.finished.then(() => {
      if (this.runs.get(run.id) === run) this.runs.delete(run.id);
    });
    return run;
  }

  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  /** Cancels every run (server close). */
  stopAll(): void {
    for (const run of this.runs.values()) run.cancel();
    this.runs.clear();
  }
}
