/**
 * The V8 heap of a process that `serve` (or `proxy`) runs: a server that
 * holds up to `--store-bytes` and `--journal-bytes` of requests. V8 lets its
 * old generation grow to up to four times what was live at the last full
 * collection before it collects again; with ~110 MB held by the store and
 * the journal (their default budgets, filled by 1 MB inputs), RSS peaked at
 * ~580 MB. A growth factor of 1.5 keeps it under 300 MB at the same
 * throughput (docs/performance.md, "Big inputs"). Only the command's own
 * process is tuned: `startMockServer` runs inside its caller's process, whose
 * heap is the caller's. A `--heap-growing-percent` given to node itself wins.
 */
import { setFlagsFromString } from "node:v8";

/** Old generation growth past the live heap, in percent, for a serving process. */
export const SERVE_HEAP_GROWING_PERCENT = 50;

export function tuneServeHeap(execArgv: readonly string[] = process.execArgv): void {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a))) return;
  setFlagsFromString(`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`);
}
