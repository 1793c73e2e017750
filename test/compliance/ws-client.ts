/**
 * The WebSocket side of the compliance suite, re-created: connect to
 * `ws://…/v1/responses` with the auth header on the upgrade, send
 * `{type:"response.create", …}` messages, and read JSON text frames until a
 * terminal event (`response.completed` / `failed` / `incomplete`) or an
 * `error` frame ends the turn. A literal `[DONE]` frame is accepted and
 * skipped. Every frame is validated: streaming events against the 24-event
 * union, error frames against WebSocketErrorEvent (or, when it carries a
 * `sequence_number`, the streaming ErrorStreamingEvent).
 */
import { WebSocket } from "ws";
import {
  ErrorStreamingEvent,
  formatIssues,
  StreamingEvent,
  TERMINAL_EVENT_TYPES,
  WebSocketErrorEvent,
} from "./schemas.js";

export type Frame = { type?: unknown; [key: string]: unknown };

export interface WsTurn {
  /** Every JSON frame of the turn, the ending one included. */
  frames: Frame[];
  /** Schema problems and non-JSON frames. */
  errors: string[];
  /** The `response` of the terminal event, when the turn ended with one. */
  finalResponse: Record<string, unknown> | null;
  /** The `error` frame that ended the turn, if one did. */
  errorFrame: Frame | null;
}

export class WsClient {
  private readonly inbox: { text: string; binary: boolean }[] = [];
  private wake: (() => void) | undefined;
  private closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data, isBinary) => {
      this.inbox.push({ text: data.toString(), binary: isBinary });
      this.notify();
    });
    ws.on("close", () => {
      this.closed = true;
      this.notify();
    });
    ws.on("error", () => undefined);
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Opens a connection; rejects with the HTTP status and body if the upgrade is refused. */
  static connect(baseUrl: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<WsClient> {
    const url = `${baseUrl.replace(/^http/, "ws")}/responses`;
    const ws = new WebSocket(url, { headers });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`WebSocket ${url} did not open within ${timeoutMs} ms`));
      }, timeoutMs);
      ws.once("open", () => {
        clearTimeout(timer);
        resolve(new WsClient(ws));
      });
      ws.once("unexpected-response", (_req, res) => {
        clearTimeout(timer);
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => reject(new Error(`WebSocket upgrade refused: HTTP ${res.statusCode}: ${body}`)));
      });
      ws.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Sends a `response.create` message with this body. */
  create(body: Record<string, unknown>): void {
    this.send({ type: "response.create", ...body });
  }

  private async next(deadline: number): Promise<{ text: string; binary: boolean } | undefined> {
    while (this.inbox.length === 0) {
      if (this.closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("timed out waiting for a WebSocket frame");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.inbox.shift();
  }

  /** Reads one turn: frames up to and including the terminal event or error frame. */
  async readTurn(timeoutMs = 15_000): Promise<WsTurn> {
    const deadline = Date.now() + timeoutMs;
    const turn: WsTurn = { frames: [], errors: [], finalResponse: null, errorFrame: null };
    for (;;) {
      const msg = await this.next(deadline);
      if (!msg) {
        turn.errors.push("The connection closed before the turn ended");
        return turn;
      }
      if (msg.binary) turn.errors.push("A binary frame (the protocol uses text frames)");
      if (msg.text === "[DONE]") continue;
      let frame: Frame;
      try {
        frame = JSON.parse(msg.text) as Frame;
      } catch {
        turn.errors.push(`A frame that is not JSON: ${msg.text.slice(0, 200)}`);
        continue;
      }
      turn.frames.push(frame);
      if (frame.type === "error") {
        const schema = "sequence_number" in frame ? ErrorStreamingEvent : WebSocketErrorEvent;
        const check = schema.safeParse(frame);
        if (!check.success) turn.errors.push(`Error frame validation failed: ${formatIssues(check.error).join("; ")}`);
        turn.errorFrame = frame;
        return turn;
      }
      const check = StreamingEvent.safeParse(frame);
      if (!check.success)
        turn.errors.push(`Event validation failed for ${String(frame.type)}: ${formatIssues(check.error).join("; ")}`);
      if (typeof frame.type === "string" && TERMINAL_EVENT_TYPES.has(frame.type)) {
        turn.finalResponse = (frame.response as Record<string, unknown> | undefined) ?? null;
        return turn;
      }
    }
  }

  /** Sends one `response.create` and reads its turn. */
  async turn(body: Record<string, unknown>, timeoutMs?: number): Promise<WsTurn> {
    this.create(body);
    return this.readTurn(timeoutMs);
  }

  /** Closes the connection and waits until it is closed. */
  async close(): Promise<void> {
    if (this.closed || this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 2_000);
      this.ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close();
    });
  }
}

/** Opens a WebSocket upgrade that the server must refuse: its HTTP status and JSON error body (rejects if the upgrade is accepted). */
export function refusedUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("open", () => {
      ws.terminate();
      reject(new Error("upgrade was accepted"));
    });
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        ws.terminate();
        resolve({ status: res.statusCode!, body: JSON.parse(text) });
      });
    });
    ws.once("error", () => undefined);
  });
}
