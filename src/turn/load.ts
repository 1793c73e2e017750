/**
 * How many answers of each model this process is playing: the `active` of a
 * latency profile's slowdown under load (src/timing/latency.ts). A turn is
 * counted from when it starts playing (`playTurn`, `startRun`) until it
 * ends, whatever its profile; only a turn under a profile with k > 0 reads
 * the count, at each gap of its stream.
 *
 * The count is this process's own: with `--workers N` or several replicas
 * sharing Redis, each process slows its streams by the answers it plays
 * itself, not by the others'.
 */
export class ActiveStreams {
  private readonly counts = new Map<string, number>();

  /** Answers of `model` playing now. */
  count(model: string): number {
    return this.counts.get(model) ?? 0;
  }

  /** An answer of `model` starts playing. */
  enter(model: string): void {
    this.counts.set(model, (this.counts.get(model) ?? 0) + 1);
  }

  /** An answer of `model` is over (a model no longer playing is forgotten). */
  leave(model: string): void {
    const n = (this.counts.get(model) ?? 0) - 1;
    if (n > 0) this.counts.set(model, n);
    else this.counts.delete(model);
  }

  /** A function that reads the count of `model` (what a schedule's `load` is). */
  of(model: string): () => number {
    return () => this.counts.get(model) ?? 0;
  }
}

/** The model a turn's load is counted under: the request's model (`""` without one). */
export const loadKey = (model: string | null | undefined): string => model ?? "";
