/**
 * A Chat Completions upstream for proxy tests: a node:http server on a free
 * port that answers every request with one short `chat.completion`, at once
 * or, with `hold`, only when the test releases it.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatUpstream {
  /** The base URL to give the proxy (`…/v1`). */
  baseURL: string;
  /** How many requests reached it. */
  readonly requests: number;
  /** With `hold`: the answers waiting to be sent, oldest first (call one to send it). */
  held: (() => void)[];
  close(): Promise<void>;
}

export async function startChatUpstream(options: { content?: string; hold?: boolean } = {}): Promise<ChatUpstream> {
  const content = options.content ?? "Hi from upstream.";
  const held: (() => void)[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1,
            model: "upstream-model",
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
          }),
        );
      };
      if (options.hold) held.push(answer);
      else answer();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    held,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
