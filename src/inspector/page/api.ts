/**
 * The page's side of the admin routes: every data request carries the key
 * (kept in sessionStorage for the tab), a 401 says the key is missing or
 * wrong, and the journal's entry stream is read with fetch (EventSource cannot
 * send a header) and reconnected when it drops.
 */
import type { Answer, Check, Curl, Verify } from "./model.js";
import { SseParser, type SseEvent } from "./sse.js";

/** Where the tab keeps the key. */
export const KEY_STORAGE = "openresponses-mock.inspector.key";
/** Entries the stream sends first (the newest), before live ones. */
export const BACKLOG = 500;
/** Waits before reconnecting a dropped stream: 0.5 s, doubling up to 5 s. */
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5000;

/** The server refused the key (401), or wants one. */
export class KeyError extends Error {
  constructor(
    message: string,
    readonly missing: boolean,
  ) {
    super(message);
  }
}

/** Any other error answer: its status and the error object's message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** An admin route's URL, relative to the page (served at `/__mock/`). */
export const route = (path: string) => new URL(path, document.baseURI).toString();

export class Api {
  key: string | null;

  constructor() {
    this.key = sessionStorage.getItem(KEY_STORAGE);
  }

  setKey(key: string | null): void {
    this.key = key;
    if (key === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, key);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.key === null ? extra : { ...extra, authorization: `Bearer ${this.key}` };
  }

  /** Fetches an admin route; throws KeyError on 401, ApiFailure on any other error status. */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(route(path), {
      ...init,
      headers: this.headers((init.headers as Record<string, string>) ?? {}),
    });
    if (res.ok) return res;
    const text = await res.text();
    let message = `${res.status} ${res.statusText}`;
    let code: string | null = null;
    try {
      const err = (JSON.parse(text) as { error?: { message?: string; code?: string } }).error;
      if (err?.message) message = err.message;
      code = err?.code ?? null;
    } catch {
      // Not an error object: keep the status line.
    }
    if (res.status === 401) throw new KeyError(message, this.key === null);
    throw new ApiFailure(res.status, message, code);
  }

  async json<T>(path: string): Promise<T> {
    return (await (await this.fetch(path)).json()) as T;
  }

  answer = (seq: number) => this.json<Answer>(`requests/${seq}/answer`);
  check = (seq: number) => this.json<Check>(`requests/${seq}/check`);
  curl = (seq: number) => this.json<Curl>(`requests/${seq}/curl`);
  /** The expectations of a session (null: every session's). */
  verify = (session: string | null) =>
    this.json<Verify>(session === null ? "verify" : `verify?session=${encodeURIComponent(session)}`);

  /** The scenario file for an entry, and its file name from `content-disposition`. */
  async scenario(seq: number): Promise<{ blob: Blob; filename: string }> {
    const res = await this.fetch(`requests/${seq}/scenario`);
    const disposition = res.headers.get("content-disposition") ?? "";
    const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `request-${seq}.json`;
    return { blob: await res.blob(), filename };
  }

  clear = async () => void (await this.fetch("requests", { method: "DELETE" }));

  /** Checks the key with the cheapest data request; throws KeyError when refused. */
  probe = async () => void (await this.fetch("requests?limit=1"));

  /**
   * Follows the entry stream until `signal` aborts, reconnecting when it drops.
   * `onOpen` is called on each (re)connection, before its backlog arrives.
   */
  async follow(
    handlers: {
      onOpen(): void;
      onEvent(e: SseEvent): void;
      onDown(reason: string, retryMs: number): void;
      onKey(e: KeyError): void;
    },
    signal: AbortSignal,
  ): Promise<void> {
    let retry = RETRY_FIRST_MS;
    while (!signal.aborted) {
      let reason = "the stream ended";
      try {
        const res = await this.fetch(`requests/stream?backlog=${BACKLOG}`, {
          signal,
          headers: { accept: "text/event-stream" },
        });
        if (!res.body) throw new Error("no body");
        handlers.onOpen();
        retry = RETRY_FIRST_MS;
        const parser = new SseParser();
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.push(value)) handlers.onEvent(event);
        }
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof KeyError) return handlers.onKey(err);
        reason = err instanceof Error ? err.message : String(err);
      }
      if (signal.aborted) return;
      handlers.onDown(reason, retry);
      await new Promise((resolve) => setTimeout(resolve, retry));
      retry = Math.min(RETRY_MAX_MS, retry * 2);
    }
  }
}
