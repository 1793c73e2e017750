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
  /** A ring of the newest `limit` entries: `ring[(head + i) % limit]` is the i-th oldest. */
  private ring: JournalEntry[] = [];
  private head = 0;
  private next = 0;

  constructor(readonly limit = 1000) {}

  /** Starts an entry for a request; it is in the journal at once and filled in as the request goes. */
  open(init: Pick<JournalEntry, "at" | "session" | "method" | "path" | "query" | "headers">): JournalEntry {
    // Node gives header names lower-cased already, in a fresh object per request; only the credential needs masking (in a copy).
    let headers = init.headers;
    if (typeof headers.authorization === "string") headers = { ...headers, authorization: maskAuthorization(headers.authorization) };
    const entry: JournalEntry = {
      seq: this.next++,
      at: init.at,
      session: init.session,
      method: init.method,
      path: init.path,
      query: init.query,
      headers,
      rawBody: null,
      body: null,
      scenario: null,
      reason: null,
      responseId: null,
      status: 0,
      streamed: false,
    };
    if (this.limit === 0) return entry;
    if (this.ring.length < this.limit) this.ring.push(entry);
    else {
      // Full: the oldest entry's slot takes the new one (O(1) per request).
      this.ring[this.head] = entry;
      this.head = (this.head + 1) % this.limit;
    }
    return entry;
  }

  /** Entries oldest first. */
  private ordered(): JournalEntry[] {
    return this.head === 0 ? this.ring.slice() : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
  }

  /** Entries in order; only those of one session when `session` is given (null = requests without one). */
  list(session?: string | null): JournalEntry[] {
    const all = this.ordered();
    return session === undefined ? all : all.filter((e) => e.session === session);
  }

  /** Forgets entries (only one session's when `session` is given). */
  clear(session?: string | null): void {
    this.ring = session === undefined ? [] : this.ordered().filter((e) => e.session !== session);
    this.head = 0;
  }
}
