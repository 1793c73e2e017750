/**
 * An incremental SSE reader: text goes in as it arrives, in pieces cut
 * anywhere, and whole frames come out. It follows the SSE rules a client
 * follows (`\n`, `\r\n` or `\r` line ends; `data:` lines joined by `\n`;
 * comments and `id:`/`retry:` skipped; a frame ends at a blank line; a frame
 * left open at the end of the stream is dropped), so it sees what a client
 * sees. With each piece it also hands back the raw text up to the last point
 * where no frame is open, so that a proxy can pass the bytes on unchanged,
 * frame by frame, and never leave a client holding half a frame. Pure: no I/O.
 */

export interface SseFrame {
  /** The `event:` line, when the frame had one. */
  event?: string;
  /** The `data:` lines joined by `\n`. */
  data: string;
}

export class SseReader {
  /** Text not yet split into lines (always a suffix of `raw`). */
  private buffer = "";
  /** Text received and not yet released. */
  private raw = "";
  private event: string | undefined;
  private data: string[] = [];
  /** A `\r` ended the last piece: a `\n` starting the next one belongs to it. */
  private pendingCr = false;

  /**
   * Feeds a piece of the stream. Returns the frames it completed, and `text`:
   * the raw text, as received, through the last line after which no frame is
   * open (whole frames and comments).
   */
  push(piece: string): { frames: SseFrame[]; text: string } {
    this.raw += piece;
    if (this.pendingCr && piece.startsWith("\n")) piece = piece.slice(1);
    this.pendingCr = false;
    this.buffer += piece;
    const offset = this.raw.length - this.buffer.length;
    const frames: SseFrame[] = [];
    let start = 0;
    let safe = -1;
    for (;;) {
      const lf = this.buffer.indexOf("\n", start);
      const cr = this.buffer.indexOf("\r", start);
      let end: number;
      let next: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        end = cr;
        if (cr + 1 === this.buffer.length) {
          // Maybe the first half of `\r\n`: take the line, and skip a `\n` that comes next.
          this.pendingCr = true;
          next = cr + 1;
        } else next = this.buffer[cr + 1] === "\n" ? cr + 2 : cr + 1;
      } else if (lf >= 0) {
        end = lf;
        next = lf + 1;
      } else break;
      const frame = this.line(this.buffer.slice(start, end));
      if (frame) frames.push(frame);
      start = next;
      if (this.data.length === 0 && this.event === undefined) safe = offset + next;
    }
    this.buffer = this.buffer.slice(start);
    let text = "";
    if (safe >= 0) {
      text = this.raw.slice(0, safe);
      this.raw = this.raw.slice(safe);
    }
    return { frames, text };
  }

  /** Text received and not released: a frame cut short. */
  get rest(): string {
    return this.raw;
  }

  private line(line: string): SseFrame | null {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = undefined;
        return null;
      }
      const frame: SseFrame = { data: this.data.join("\n") };
      if (this.event !== undefined) frame.event = this.event;
      this.event = undefined;
      this.data = [];
      return frame;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    return null;
  }
}
