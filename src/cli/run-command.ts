/**
 * Runs the exam's COMMAND once: in a process group of its own (so that a
 * shell script's children, or a client's workers, go with it), stdin closed,
 * stdout and stderr kept (the first MiB of each), killed with its whole group
 * at the limit (SIGTERM, then SIGKILL after a grace period), and its group
 * killed again when it exits, so that nothing it started is left running.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { CommandRun } from "../exam/index.js";

/** How much of stdout and of stderr is kept. */
const OUTPUT_BYTES = 1024 * 1024;
/** Between SIGTERM and SIGKILL at the limit. */
const GRACE_MS = 1_000;

/** The command could not be started at all (not found, not executable). */
export class CommandStartError extends Error {
  constructor(
    readonly command: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Every group still running, so that an interrupted exam can stop them. */
const running = new Set<ChildProcess>();

/** Kills a child's whole process group (or the child alone where groups are not a thing); never throws. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === "win32") child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Stops every command still running (an interrupted exam). */
export function killAllCommands(): void {
  for (const child of running) killGroup(child, "SIGKILL");
}

/** Keeps the first OUTPUT_BYTES of a stream. */
function collect(stream: NodeJS.ReadableStream | null): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  stream?.on("data", (chunk: Buffer) => {
    if (size >= OUTPUT_BYTES) return;
    const part = chunk.subarray(0, OUTPUT_BYTES - size);
    chunks.push(part);
    size += part.length;
  });
  return () => Buffer.concat(chunks).toString("utf8");
}

export interface CommandOptions {
  env: NodeJS.ProcessEnv;
  limitMs: number;
  /** Milliseconds, for the run's duration (the exam's clock). */
  now(): number;
}

/**
 * Runs `argv` and resolves once it has exited and its output is closed (or
 * its group was killed). Rejects with a CommandStartError when it cannot be
 * started.
 */
export function runCommand(argv: readonly string[], options: CommandOptions): Promise<CommandRun> {
  const [file, ...args] = argv;
  const started = options.now();
  return new Promise<CommandRun>((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    running.add(child);
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    let timedOut = false;
    let exit: { code: number | null; signal: string | null; at: number } | undefined;
    let hardKill: NodeJS.Timeout | undefined;
    const limit = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGTERM");
      hardKill = setTimeout(() => killGroup(child, "SIGKILL"), GRACE_MS);
      hardKill.unref();
    }, options.limitMs);
    const finish = () => {
      clearTimeout(limit);
      clearTimeout(hardKill);
      running.delete(child);
    };
    child.once("error", (err: NodeJS.ErrnoException) => {
      finish();
      const why =
        err.code === "ENOENT"
          ? "not found (is it on PATH? give a path or the program that runs it: -- node client.mjs)"
          : err.code === "EACCES"
            ? "not executable (chmod +x it, or give the program that runs it)"
            : err.message;
      reject(new CommandStartError(file, err.code, `cannot run '${file}': ${why}`));
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal, at: options.now() };
      // What it left behind in its group (a shell's background job, a worker) goes too; its pipes then close.
      killGroup(child, "SIGKILL");
    });
    child.once("close", () => {
      finish();
      const ended = exit ?? { code: child.exitCode, signal: child.signalCode, at: options.now() };
      resolve({
        exitCode: ended.code,
        signal: ended.signal,
        timedOut,
        durationMs: Math.max(0, ended.at - started),
        stdout: stdout(),
        stderr: stderr(),
      });
    });
  });
}
