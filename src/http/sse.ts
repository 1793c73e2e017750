/**
 * The SSE writer: each event is one write of `event: TYPE\ndata: JSON\n\n`,
 * then `data: [DONE]`. Writes wait for `drain` when the socket buffer is full,
 * and stop at once when the client goes away.
 */
import type { ServerResponse } from "node:http";
import type { StreamEvent } from "../spec/index.js";

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

/** One SSE message for an event. The event name may not hold a line break. */
export function sseFrame(event: StreamEvent): string {
  const type = event.type;
  if (/[\r\n]/.test(type)) throw new Error(`event type may not contain a line break: ${JSON.stringify(type)}`);
  return `event: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export const DONE_FRAME = "data: [DONE]\n\n";

/** Writes one frame; resolves false if the client is gone. */
export async function writeFrame(res: ServerResponse, frame: string): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return false;
  if (res.write(frame)) return true;
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

/** Streams a whole event list with no pacing. */
export async function writeEventStream(res: ServerResponse, events: readonly StreamEvent[], headers: Record<string, string> = {}): Promise<void> {
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  for (const event of events) {
    if (!(await writeFrame(res, sseFrame(event)))) return;
  }
  if (await writeFrame(res, DONE_FRAME)) res.end();
}
