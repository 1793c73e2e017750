/**
 * The request journal: every request the server received, in order, capped —
 * what a test asserts on ("did my client send this?"). Entries carry the raw
 * and parsed body, the headers (authorization masked), the scenario chosen
 * and why, the response id, the status, whether it streamed, and the session.
 */
import type { SelectionReason } from "../scenario/registry.js";

export interface JournalEntry {
  /** Position in the journal since the server started (0, 1, …). */
  readonly seq: number;
  /** Milliseconds since the epoch when the request arrived. */
  readonly at: number;
  /** The `x-mock-session` the request carried, if any. */
  readonly session: string | null;
  readonly method: string;
  /** The path, without the query string. */
  readonly path: string;
  /** The query string parameters. */
  readonly query: Record<string, string | string[]>;
  /** Request headers, lower-cased; `authorization` is masked. */
  readonly headers: Record<string, string | string[]>;
  /** The body as received (UTF-8 text), or null when there was none or it could not be read. */
  rawBody: string | null;
  /** The body parsed as JSON, or null. */
  body: unknown;
  /** The scenario that answered, and why it was chosen (header, queue, use, model, match, default). */
  scenario: string | null;
  reason: SelectionReason | null;
  /** The id of the response created, if one was. */
  responseId: string | null;
  /** HTTP status sent (101 for a WebSocket upgrade). */
  status: number;
  /** Whether the answer was streamed (SSE or WebSocket). */
  streamed: boolean;
}

/** Masks a credential, keeping its scheme and last four characters. */
export function maskAuthorization(value: string): string {
  const m = /^(\S+\s+)?(.*)$/.exec(value.trim())!;
  const secret = m[2];
  return `${m[1] ?? ""}${secret.length > 8 ? `***${secret.slice(-4)}` : "***"}`;
}

export class Journal {
  private entries: JournalEntry[] = [];
  private next = 0;

  constructor(readonly limit = 1000) {}

  /** Starts an entry for a request; it is in the journal at once and filled in as the request goes. */
  open(init: Pick<JournalEntry, "at" | "session" | "method" | "path" | "query" | "headers">): JournalEntry {
    // Node gives header names lower-cased already; only the credential needs masking.
    const headers = { ...init.headers };
    if (typeof headers.authorization === "string") headers.authorization = maskAuthorization(headers.authorization);
    const entry: JournalEntry = { seq: this.next++, ...init, headers, rawBody: null, body: null, scenario: null, reason: null, responseId: null, status: 0, streamed: false };
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    return entry;
  }

  /** Entries in order; only those of one session when `session` is given (null = requests without one). */
  list(session?: string | null): JournalEntry[] {
    return session === undefined ? [...this.entries] : this.entries.filter((e) => e.session === session);
  }

  /** Forgets entries (only one session's when `session` is given). */
  clear(session?: string | null): void {
    this.entries = session === undefined ? [] : this.entries.filter((e) => e.session !== session);
  }
}
