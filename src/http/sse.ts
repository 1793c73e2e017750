/**
 * SSE framing and the sink the pacer writes into: each event is one frame,
 * `event: TYPE\ndata: JSON\n\n` in the request's dialect, always written
 * whole (frames due together share a write); heartbeats are comment lines;
 * the stream ends with `data: [DONE]` where the dialect sends it. Writes wait
 * for `drain` when the socket buffer is full and report a client that went
 * away. The sink counts the events it sent, for the journal.
 */
import type { ServerResponse } from "node:http";
import { DEFAULT_DIALECT, deltaCache, doneFrame, eventFrame, type Dialect } from "../dialect/index.js";
import type { Plan } from "../generate/plan.js";
import type { StreamEvent } from "../spec/index.js";
import type { Clock } from "../timing/clock.js";
import { HEARTBEAT_FRAME, type PaceSink } from "../timing/pacer.js";

/**
 * The headers of an SSE answer in a dialect. No `connection` header: Node
 * sends `keep-alive`, or `close` (and ends the socket after the stream) when
 * the request asked for it.
 */
export function sseHeaders(dialect: Dialect): Record<string, string> {
  return {
    "content-type": dialect.sse.contentType,
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  };
}

/** One SSE message for an event, in a dialect (the spec's by default). The event name may not hold a line break. */
export function sseFrame(event: StreamEvent, dialect: Dialect = DEFAULT_DIALECT, plan?: Plan): string {
  return eventFrame(dialect, event, plan);
}

/** The end of a stream lives with the dialects (the inspector needs it too); re-exported for the HTTP side. */
export { DONE_FRAME, doneFrame } from "../dialect/index.js";

/** Writes one frame; resolves false if the client is gone. */
export function writeFrame(res: ServerResponse, frame: string): boolean | Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(frame)) return true;
  return drained(res);
}

/** Resolves true once the response's buffer has drained, false if the client goes away first. */
export function drained(res: ServerResponse): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => () => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on("drain", onDrain);
    res.on("close", onClose);
  });
}

/**
 * A stream's events by index: an array, or an EventWindow that builds each
 * one when the pacer reaches it.
 */
export interface EventsAt {
  at(index: number): StreamEvent | undefined;
}

/**
 * `{ ...base, ...more }` as Node's flat `[name, value, …]` list (same names, order and values). Not the
 * object: in V8 a spread copy that gains keys gets a hidden class of its own, one per answer.
 */
export function headerList(base: Record<string, string>, more: Record<string, string>): string[] {
  const list: string[] = [];
  for (const name of Object.keys(base)) list.push(name, Object.hasOwn(more, name) ? more[name] : base[name]);
  for (const name of Object.keys(more)) if (!Object.hasOwn(base, name)) list.push(name, more[name]);
  return list;
}

/** Frames due together are joined up to this many characters before they are written. */
const JOIN_LIMIT = 64 * 1024;

/**
 * A sink for the pacer over an HTTP response. The status line and headers go
 * out with the first frame (an event or a heartbeat), so a slow first byte is
 * really slow. Frames due at the same moment are joined and written together
 * at the next flush (each frame whole; never held past its time, as the pacer
 * flushes before every wait); the last ones go out with the end of the
 * response in one write. `destroy` sends what was delivered, then closes the
 * socket.
 */
export function sseSink(
  res: ServerResponse,
  events: EventsAt,
  dialect: Dialect,
  plan: Plan | undefined,
  headers: Record<string, string> = {},
  splitUtf8 = false,
  clock?: Pick<Clock, "now">,
): PaceSink & { readonly sent: number; readonly endedAt: number | undefined; whole?(count: number): boolean } {
  return splitUtf8
    ? new SplitUtf8Sink(res, events, dialect, plan, headers, clock)
    : new SseSink(res, events, dialect, plan, headers, clock);
}

/**
 * The sink of `sseSink`, a class: the pacer calls it for every frame, and an
 * object literal with a getter (`sent`) is a dictionary in V8, slow to call
 * into.
 */
class SseSink implements PaceSink {
  protected pending = "";
  /** Events handed to the response so far (the last ones may be lost in flight if the client goes). */
  private count = 0;
  /** Set while the socket buffer is full: the next frame waits for it to drain. */
  protected blocked: Promise<boolean> | undefined;
  /** The template of this stream's current run of deltas. */
  private readonly deltas = deltaCache();
  /** The clock time the stream's last write began (read before it; see RequestHandler), once it was ended. */
  endedAt: number | undefined = undefined;

  constructor(
    protected readonly res: ServerResponse,
    private readonly events: EventsAt,
    protected readonly dialect: Dialect,
    private readonly plan: Plan | undefined,
    private readonly headers: Record<string, string>,
    private readonly clock: Pick<Clock, "now"> | undefined,
  ) {}

  /** Ends the response with `text`, its time read first. */
  protected finish(text: string | Buffer): void {
    this.endedAt = this.clock?.now();
    this.res.end(text);
  }

  get sent(): number {
    return this.count;
  }

  protected gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  protected head(): void {
    if (!this.res.headersSent) this.res.writeHead(200, headerList(sseHeaders(this.dialect), this.headers));
  }

  /** Writes what is pending; true, false (the client is gone) or a promise of either (the buffer is full). */
  protected send(): boolean | Promise<boolean> {
    if (this.gone()) return false;
    this.head();
    if (this.pending === "") return this.blocked ?? true;
    const chunk = this.pending;
    this.pending = "";
    if (this.res.write(chunk)) return true;
    return this.waitDrain();
  }

  /** The buffer is full: the next frames wait for it to drain; resolves false if the client goes first. */
  protected waitDrain(): Promise<boolean> {
    this.blocked = drained(this.res).then((ok) => {
      this.blocked = undefined;
      return ok;
    });
    return this.blocked;
  }

  private add(frame: string): boolean | Promise<boolean> {
    if (this.gone()) return false;
    if (this.blocked) return this.blocked.then((ok) => (ok ? this.add(frame) : false));
    this.pending += frame;
    return this.pending.length >= JOIN_LIMIT ? this.send() : true;
  }

  event(i: number): boolean | Promise<boolean> {
    if (this.gone()) return false;
    this.count++;
    return this.add(eventFrame(this.dialect, this.events.at(i)!, this.plan, this.deltas));
  }

  heartbeat(): boolean | Promise<boolean> {
    return this.add(HEARTBEAT_FRAME);
  }

  /**
   * Events 0 … count − 1 and the end in one write (an answer with nothing to
   * wait for). The frames are joined into one flat string: written as a
   * chain of concatenations, Node would flatten it on its write path.
   */
  whole(count: number): boolean {
    if (this.gone()) return false;
    this.head();
    const frames = new Array<string>(count + 2);
    frames[0] = this.pending;
    for (let i = 0; i < count; i++)
      frames[i + 1] = eventFrame(this.dialect, this.events.at(i)!, this.plan, this.deltas);
    frames[count + 1] = doneFrame(this.dialect);
    this.pending = "";
    this.count += count;
    this.finish(frames.join(""));
    return true;
  }

  flush(): void {
    void this.send();
  }

  end(): void {
    if (this.gone()) return;
    this.head();
    const rest = this.pending + doneFrame(this.dialect);
    this.pending = "";
    this.finish(rest);
  }

  destroy(): void {
    void this.send();
    const socket = this.res.socket;
    if (!socket) return void this.res.destroy();
    // end() sends what is buffered, then FIN: the client sees a stream cut short, not an empty reply.
    socket.end();
    socket.setTimeout(1_000, () => socket.destroy());
  }
}

/**
 * The `splitUtf8` fault's sink: each write sends the bytes pending up to and
 * including the first byte of the last multi-byte UTF-8 character in them,
 * and keeps the rest for the next write (at the next flush: the pacer flushes
 * before every wait, so the rest goes out at the next event's time). Bytes
 * with no multi-byte character go whole; `end` and `destroy` send everything,
 * and so does every write once the stream hangs (a hang fault).
 * The stream's bytes are the same as without the fault, only cut elsewhere.
 */
class SplitUtf8Sink extends SseSink {
  /** The bytes held back from the last write (the rest of a character, and what came after it). */
  private held: Buffer | undefined;
  /** Set once the stream hangs: no next event will come to carry what is held, so writes go whole. */
  private hanging = false;

  protected override send(): boolean | Promise<boolean> {
    if (this.gone()) return false;
    this.head();
    if (this.pending === "" && this.held === undefined) return this.blocked ?? true;
    const bytes = this.takeAll();
    const cut = this.hanging ? 0 : lastLeadByte(bytes) + 1;
    const split = cut > 0 && cut < bytes.length;
    if (split) this.held = bytes.subarray(cut);
    if (this.res.write(split ? bytes.subarray(0, cut) : bytes)) return true;
    return this.waitDrain();
  }

  /** Everything not yet written (held, then pending), and forgets it. */
  private takeAll(): Buffer {
    const pending = Buffer.from(this.pending, "utf8");
    const bytes = this.held === undefined ? pending : Buffer.concat([this.held, pending]);
    this.pending = "";
    this.held = undefined;
    return bytes;
  }

  hang(): void {
    this.hanging = true;
  }

  override end(): void {
    if (this.gone()) return;
    this.head();
    this.pending += doneFrame(this.dialect);
    this.finish(this.takeAll());
  }

  override destroy(): void {
    if (!this.gone()) {
      this.head();
      const bytes = this.takeAll();
      if (bytes.length > 0) this.res.write(bytes);
    }
    super.destroy();
  }
}

/** The index of the first byte of the last multi-byte UTF-8 character in `bytes` (a byte 0b11xxxxxx), or -1. */
function lastLeadByte(bytes: Buffer): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] >= 0xc0) return i;
  return -1;
}
