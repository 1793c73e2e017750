/**
 * `serve --workers N` (and `proxy`): N worker processes behind one port,
 * with node:cluster (the primary holds the socket and hands connections to
 * the workers in turn; port 0 is picked once, for all of them).
 *
 * - The primary serves nothing itself. Once every worker listens it prints
 *   the start summary once (its first line, `openresponses-mock listening on
 *   URL`, stays first); each worker writes its own request lines; the stop
 *   line, with the requests of all of them, comes from the primary.
 * - SIGINT/SIGTERM to the primary stop every worker cleanly (each closes its
 *   server), then the primary exits; a worker left after STOP_WAIT_MS is
 *   killed. A worker whose primary is gone stops too: none is left behind.
 * - A worker that dies is reported on stderr and not restarted: a test tool
 *   that silently replaced a crashed process would hide the crash. When the
 *   last one is gone the primary exits with code 1.
 * - A worker that cannot start (Redis unreachable, the port taken) sends its
 *   error to the primary, which prints it once and stops the others.
 */
import cluster, { type Worker } from "node:cluster";
import type { LogFormat, StartSummary } from "../log/format.js";
import { listeningLine } from "../log/format.js";
import { attachRequestLog } from "../log/logger.js";
import type { MockServer, ShellSettings } from "../server.js";

/** How long the primary waits for its workers to stop before it kills them. */
const STOP_WAIT_MS = 5_000;

/** What a worker tells its primary. */
type WorkerMessage =
  | { type: "listening"; summary: StartSummary; at: number }
  | { type: "failed"; text: string }
  | { type: "closed"; requests: number };

/** What the primary tells a worker. */
type PrimaryMessage = { type: "stop" };

const isMessage = (m: unknown): m is { type: string } =>
  typeof m === "object" && m !== null && typeof (m as { type?: unknown }).type === "string";

/** Whether this process is a worker the primary started. */
export const isWorker = (): boolean => cluster.isWorker;

/** Sends a message to the primary, if it is still there; resolves once it is sent. */
function tell(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || !process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

/**
 * Runs the server of one worker: `start` starts it with the worker's shell
 * settings; `errorText` is how the command prints an error (sent to the
 * primary, which prints it once).
 */
export async function runWorker(
  start: (shell: ShellSettings) => Promise<MockServer>,
  errorText: (err: unknown) => string,
): Promise<void> {
  let closed: Promise<void> | undefined;
  let mock: MockServer | undefined;
  const stop = () =>
    (closed ??= (async () => {
      await mock?.close();
      if (process.connected) process.disconnect();
    })());
  // The primary gone (killed, crashed): stop too, so that no worker is left behind.
  process.once("disconnect", () => void stop());
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  process.on("message", (m: unknown) => {
    if (isMessage(m) && (m as PrimaryMessage).type === "stop") void stop();
  });
  try {
    mock = await start({
      announce: false,
      worker: cluster.worker?.id,
      onListening: (summary, at) => void tell({ type: "listening", summary, at }),
      onClosed: (requests) => void tell({ type: "closed", requests }),
    });
  } catch (err) {
    process.exitCode = 1;
    await tell({ type: "failed", text: errorText(err) });
    if (process.connected) process.disconnect();
    return;
  }
  if (closed) await mock.close();
}

/**
 * The primary: starts `count` workers (each runs this command line again),
 * prints the start summary once they all listen, reports a worker that
 * dies, and stops them all on SIGINT/SIGTERM.
 */
export function runPrimary(
  count: number,
  format: LogFormat | "off",
  out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): void {
  const log = format === "off" ? undefined : attachRequestLog({ onEnd: () => () => undefined }, format, out);
  const workers = new Map<number, Worker>();
  let listening = 0;
  let stopping = false;
  let requests = 0;
  const startedAt = Date.now();
  let killTimer: ReturnType<typeof setTimeout> | undefined;

  const stopAll = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    process.exitCode = exitCode;
    for (const worker of workers.values()) {
      try {
        worker.send({ type: "stop" } satisfies PrimaryMessage);
      } catch {
        worker.process.kill("SIGTERM");
      }
    }
    killTimer = setTimeout(() => {
      for (const worker of workers.values()) worker.process.kill("SIGKILL");
    }, STOP_WAIT_MS);
    if (workers.size === 0) finish();
  };

  const finish = () => {
    clearTimeout(killTimer);
    // Only a server that was announced says it stopped.
    if (listening === count && process.exitCode !== 1)
      log?.stop({ at: Date.now(), requests, uptimeMs: Date.now() - startedAt });
  };

  const onMessage = (message: unknown) => {
    if (!isMessage(message)) return;
    const m = message as WorkerMessage;
    if (m.type === "closed") requests += m.requests;
    else if (m.type === "failed") {
      // The first failure is the one to tell; the others stop with it.
      if (!stopping) err.write(m.text);
      stopAll(1);
    } else if (m.type === "listening" && ++listening === count && !stopping) {
      if (log) log.start(m.summary, m.at);
      else out.write(`${listeningLine(m.summary.baseURL)}\n`);
    }
  };

  process.once("SIGINT", () => stopAll(130));
  process.once("SIGTERM", () => stopAll(0));
  for (let i = 0; i < count; i++) {
    const worker = cluster.fork();
    workers.set(worker.id, worker);
    worker.on("message", onMessage);
    // A send to a worker that is already gone reports its error here; the exit below tells what happened.
    worker.on("error", () => undefined);
    worker.on("exit", (code, signal) => {
      workers.delete(worker.id);
      if (!stopping) {
        const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
        err.write(
          `openresponses-mock: worker ${worker.id} (pid ${worker.process.pid}) ${how}; it is not restarted (${workers.size} of ${count} workers left)\n`,
        );
        if (workers.size === 0) process.exitCode = 1;
      }
      if (workers.size === 0) finish();
    });
  }
}
