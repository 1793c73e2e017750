/**
 * The journal as JSON, piece by piece: no string ever holds more than one
 * entry's body, so a journal bigger than the largest string V8 can make
 * (about 512 MiB) still serialises. The HTTP shell streams the pieces.
 */
import type { JournalEntry } from "./journal.js";

/** Pieces are joined up to about this many characters before they are handed out. */
const CHUNK_CHARS = 64 * 1024;

/** Joins small pieces into chunks of about CHUNK_CHARS; big pieces go out on their own. */
function* chunked(pieces: Iterable<string>): Generator<string> {
  let buffer = "";
  for (const piece of pieces) {
    if (buffer.length + piece.length <= CHUNK_CHARS) {
      buffer += piece;
      continue;
    }
    if (buffer !== "") yield buffer;
    buffer = "";
    if (piece.length >= CHUNK_CHARS) yield piece;
    else buffer = piece;
  }
  if (buffer !== "") yield buffer;
}

/** One entry's JSON, in pieces: its fields, then `rawBody` and `body` each on their own. */
function* entryPieces(entry: JournalEntry): Generator<string> {
  const fields = JSON.stringify({ ...entry, rawBody: undefined, body: undefined });
  yield fields.slice(0, -1);
  yield ',"rawBody":';
  yield JSON.stringify(entry.rawBody);
  yield ',"body":';
  // A body the journal holds is parsed JSON, so it always serialises; undefined is written as null.
  yield JSON.stringify(entry.body) ?? "null";
  yield "}";
}

/** One entry as JSON, in chunks. */
export function entryJson(entry: JournalEntry): Generator<string> {
  return chunked(entryPieces(entry));
}

/**
 * A page of the journal as `GET /__mock/requests` answers it, in chunks:
 * `{"object":"list","data":[…],"first_seq":…,"last_seq":…,"has_more":…}`.
 * `entries` may be any iterable (read lazily, one entry at a time).
 */
export function pageJson(entries: Iterable<JournalEntry>, hasMore: boolean): Generator<string> {
  return chunked(
    (function* () {
      yield '{"object":"list","data":[';
      let first: number | null = null;
      let last: number | null = null;
      for (const entry of entries) {
        if (first === null) first = entry.seq;
        else yield ",";
        last = entry.seq;
        yield* entryPieces(entry);
      }
      yield `],"first_seq":${first},"last_seq":${last},"has_more":${hasMore}}`;
    })(),
  );
}
