/**
 * Writing recorded exchanges into scenario files: the thin shell around
 * from-exchange.ts. One file per conversation in the record folder, updated
 * in place (a write to a temporary file, then a rename, so a reader never
 * sees half a file); writes to one file are queued, never interleaved. Every
 * file is validated as `validate` would before it is written, and any secret
 * the proxy knows (the upstream key, the client's credential) is blanked
 * should an answer have echoed one.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { validateScenario } from "../scenario/parse.js";
import { recordInto, type Exchange } from "./from-exchange.js";

/** What a recording wrote. */
export interface Recorded {
  file: string;
  name: string;
  /** The turn written (0 for the first answer of a conversation). */
  turn: number;
  /** What the scenario format could not hold, left out. */
  notes: string[];
}

/** Replaces every secret (at least 4 characters long) in a text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}

/**
 * JSON with two-space indents, lists of numbers (chunk sizes) kept on one
 * line. Only lists laid out over lines are joined: a raw line break never
 * occurs inside a JSON string, so text is never touched.
 */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\n\s*(-?\d+(?:\.\d+)?(?:,\n\s*-?\d+(?:\.\d+)?)*)\n\s*\]/g,
    (_m, list: string) => `[${list.split(/,\n\s*/).join(", ")}]`,
  );
}

export class Recorder {
  readonly dir: string;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  /** Records one exchange into its conversation's file; `secrets` are blanked wherever they occur. */
  record(exchange: Exchange, secrets: readonly string[]): Promise<Recorded> {
    // The name depends only on the conversation: compute it first to queue on the file.
    const probe = recordInto(null, exchange);
    const file = join(this.dir, `${probe.name}.json`);
    const previous = this.queues.get(file) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.write(file, exchange, secrets));
    this.queues.set(file, next);
    void next
      .finally(() => {
        if (this.queues.get(file) === next) this.queues.delete(file);
      })
      .catch(() => undefined);
    return next;
  }

  private async write(file: string, exchange: Exchange, secrets: readonly string[]): Promise<Recorded> {
    await mkdir(this.dir, { recursive: true });
    let existing: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        existing = parsed as Record<string, unknown>;
    } catch {
      // No file yet (or not JSON: it is written anew).
    }
    const { scenario, name, turn, notes } = recordInto(existing, exchange);
    const text = redact(`${formatJson(scenario)}\n`, secrets);
    // The file must load as it is written; a failure here is a bug of the recorder, reported with the file.
    validateScenario(JSON.parse(text), file);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, text, "utf8");
    await rename(temp, file);
    return { file, name, turn, notes };
  }

  /** Resolves once every queued write has ended. */
  async flush(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }
}
