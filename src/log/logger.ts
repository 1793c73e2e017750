/**
 * The request log's writer, a thin shell: it listens to the journal for
 * entries that end and writes each as one line (pretty or JSON, formatted by
 * format.ts) to a stream — stdout unless told otherwise. A stream that fails
 * (a closed pipe) silences the log; it never stops the server.
 */
import type { Journal } from "../journal/journal.js";
import {
  jsonRequest,
  jsonStart,
  jsonStop,
  prettyRequest,
  prettyStart,
  prettyStop,
  wantsColour,
  type LogFormat,
  type PrettyOptions,
  type StartSummary,
  type StopSummary,
} from "./format.js";

/** Where log lines go: a writable stream (`process.stdout`, `process.stderr`, a file) or anything with `write(text)`. */
export interface LogTarget {
  write(text: string): unknown;
  /** A terminal: a pretty log is coloured (see `wantsColour`). */
  isTTY?: boolean;
}

/** A request log attached to a journal. */
export interface RequestLog {
  /** Writes the start summary (`at`: wall-clock ms). */
  start(summary: StartSummary, at: number): void;
  /** Writes the stop line and stops listening to the journal. */
  stop(summary: StopSummary): void;
}

type ErrorSource = {
  on(event: "error", fn: (err: unknown) => void): unknown;
  off(event: "error", fn: (err: unknown) => void): unknown;
};
const isEmitter = (target: unknown): target is ErrorSource =>
  typeof (target as ErrorSource).on === "function" && typeof (target as ErrorSource).off === "function";

/**
 * Writes one line per request of `journal` as it ends, to `target`. The
 * environment decides colour for `pretty` (NO_COLOR, FORCE_COLOR, a TTY).
 */
export function attachRequestLog(
  journal: Pick<Journal, "onEnd">,
  format: LogFormat,
  target: LogTarget,
  env: Readonly<Record<string, string | undefined>> = process.env,
): RequestLog {
  const pretty: PrettyOptions = { colour: format === "pretty" && wantsColour(target.isTTY, env) };
  let broken = false;
  const onError = () => void (broken = true);
  // A stream's error (EPIPE: the reader went away) would otherwise be thrown; the log goes quiet instead.
  if (isEmitter(target)) target.on("error", onError);
  const write = (lines: string | string[]) => {
    if (broken) return;
    try {
      target.write(typeof lines === "string" ? `${lines}\n` : `${lines.join("\n")}\n`);
    } catch {
      broken = true;
    }
  };
  const unsubscribe = journal.onEnd(
    format === "json" ? (entry) => write(jsonRequest(entry)) : (entry) => write(prettyRequest(entry, pretty)),
  );
  let stopped = false;
  return {
    start: (summary, at) => write(format === "json" ? jsonStart(summary, at) : prettyStart(summary, pretty)),
    stop(summary) {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      write(format === "json" ? jsonStop(summary) : prettyStop(summary, pretty));
      // A failed write reports its error on a later tick: keep listening until then.
      if (isEmitter(target)) setImmediate(() => target.off("error", onError));
    },
  };
}
