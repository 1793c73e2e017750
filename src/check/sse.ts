/**
 * An SSE decoder that is fed text as it arrives and returns whole messages,
 * as the HTML standard's event-stream parser reads them: lines end in `\n`,
 * `\r\n` or `\r` (even split across chunks), a blank line ends a message,
 * `:` lines are comments, `data:` lines are joined with `\n`, one space after
 * the colon is dropped. Unlike a browser it also returns messages that have
 * no `data:` line (with `data` undefined), so that the checker can report
 * them, and says whether the text ended in the middle of a message.
 */

/** One SSE message. */
export interface SseFrame {
  /** The `event:` field, if the message had one. */
  event?: string;
  /** The `data:` lines joined with `\n`; undefined if there were none. */
  data?: string;
  /** The `id:` field, if the message had one. */
  id?: string;
}

export class SseDecoder {
  private buffer = "";
  /** How far `buffer` has been searched for line ends. */
  private scanned = 0;
  private event: string | undefined;
  private data: string[] | undefined;
  private id: string | undefined;

  /** Feeds text; returns the messages it completed. */
  push(chunk: string): SseFrame[] {
    const frames: SseFrame[] = [];
    this.buffer += chunk;
    let start = 0;
    let i = this.scanned;
    const buf = this.buffer;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A `\r` at the very end may be the first half of `\r\n`: wait for the next chunk.
      if (c === 13 && i === buf.length - 1) break;
      this.line(buf.slice(start, i), frames);
      if (c === 13 && buf.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.buffer = buf.slice(start);
    this.scanned = i - start;
    return frames;
  }

  /** Ends the text: returns a last message left without its blank line, and whether there was one. */
  end(): { frames: SseFrame[]; unterminated: boolean } {
    const frames: SseFrame[] = [];
    let unterminated = false;
    if (this.buffer !== "") {
      const rest = this.buffer.endsWith("\r") ? this.buffer.slice(0, -1) : this.buffer;
      const ended = this.buffer.endsWith("\r");
      this.buffer = "";
      this.scanned = 0;
      if (ended) {
        this.line(rest, frames);
      } else if (rest !== "") {
        this.line(rest, frames);
        unterminated = true;
      }
    }
    if (this.event !== undefined || this.data !== undefined || this.id !== undefined) {
      unterminated = true;
      frames.push(this.take());
    }
    return { frames, unterminated };
  }

  private take(): SseFrame {
    const frame: SseFrame = {};
    if (this.event !== undefined) frame.event = this.event;
    if (this.data !== undefined) frame.data = this.data.join("\n");
    if (this.id !== undefined) frame.id = this.id;
    this.event = this.data = this.id = undefined;
    return frame;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (line === "") {
      if (this.event !== undefined || this.data !== undefined || this.id !== undefined) frames.push(this.take());
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' a comment (heartbeat)
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === "event") this.event = value;
    else if (name === "data") (this.data ??= []).push(value);
    else if (name === "id") this.id = value;
  }
}

/** Decodes a whole SSE text. */
export function decodeSse(text: string): { frames: SseFrame[]; unterminated: boolean } {
  const decoder = new SseDecoder();
  const frames = decoder.push(text);
  const last = decoder.end();
  return { frames: [...frames, ...last.frames], unterminated: last.unterminated };
}
