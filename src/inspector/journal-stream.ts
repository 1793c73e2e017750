/**
 * `GET /__mock/requests/stream`: the journal as a server-sent stream, live.
 * On connect, the newest entries held (oldest first), then `event: entry`
 * as each request arrives and again when it ends, `event: clear` when
 * entries are cleared, and a `: keep-alive` comment every 15 s. The entry is
 * serialised as `GET /__mock/requests` serialises it.
 *
 * A subscriber never slows the server: frames are written without waiting,
 * and one that lets more than MAX_BUFFERED_BYTES pile up (a slow or stalled
 * reader) is dropped. Every listener goes with it.
 */
import type { ServerResponse } from "node:http";
import type { Journal, JournalEntry } from "../journal/journal.js";
import { entryJson } from "../journal/serialize.js";
import type { Clock, TimerHandle } from "../timing/clock.js";

/** The entries sent on connect unless `?backlog=N` says otherwise, and the most it may ask for. */
export const DEFAULT_BACKLOG = 100;
export const MAX_BACKLOG = 1000;
/** A comment line this often, so that proxies and browsers keep an idle stream open. */
export const KEEP_ALIVE_MS = 15_000;
/** A subscriber with more than this unsent is too slow: it is dropped. */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

const KEEP_ALIVE_FRAME = ": keep-alive\n\n";

/** One entry as an SSE frame. */
export function entryFrame(entry: JournalEntry): string {
  let data = "";
  for (const chunk of entryJson(entry)) data += chunk;
  return `event: entry\ndata: ${data}\n\n`;
}

/** The frame of a clear: which session's entries went (null: every entry, or those without a session). */
export const clearFrame = (session: string | null | undefined): string =>
  `event: clear\ndata: ${JSON.stringify({ session: session ?? null })}\n\n`;

export interface JournalStreamOptions {
  journal: Journal;
  clock: Pick<Clock, "setTimeout" | "clearTimeout">;
  /** Only this session's entries (and clears). */
  session?: string;
  backlog: number;
  /** Called when the subscriber is dropped or goes away (tests count listeners with it). */
  onClose?: () => void;
}

/** Streams the journal into `res` until the client goes away (or is too slow). */
export function streamJournal(res: ServerResponse, options: JournalStreamOptions): void {
  const { journal, clock, session, backlog } = options;
  const mine = (entry: JournalEntry) => session === undefined || entry.session === session;
  let closed = false;
  let timer: TimerHandle | undefined;
  const unsubscribe: (() => void)[] = [];

  const close = () => {
    if (closed) return;
    closed = true;
    for (const off of unsubscribe) off();
    if (timer !== undefined) clock.clearTimeout(timer);
    options.onClose?.();
  };
  /** Writes a frame without waiting; a reader that falls too far behind is cut off. */
  const send = (frame: string) => {
    if (closed) return;
    if (res.destroyed || res.writableEnded) return close();
    res.write(frame);
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      close();
      res.destroy();
    }
  };
  const keepAlive = () => {
    timer = clock.setTimeout(() => {
      send(KEEP_ALIVE_FRAME);
      if (!closed) keepAlive();
    }, KEEP_ALIVE_MS);
  };

  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.once("close", close);
  const held = journal.page({ session, limit: backlog, order: "desc" }).data.reverse();
  let first = "";
  for (const entry of held) first += entryFrame(entry);
  // Something goes out at once, so that the client knows it is connected.
  send(first === "" ? KEEP_ALIVE_FRAME : first);
  unsubscribe.push(
    journal.onOpen((entry) => mine(entry) && send(entryFrame(entry))),
    journal.onEnd((entry) => mine(entry) && send(entryFrame(entry))),
    journal.onClear((cleared) => {
      if (session === undefined || cleared === undefined || cleared === session) send(clearFrame(cleared));
    }),
  );
  keepAlive();
}
