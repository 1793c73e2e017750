/**
 * `startMockServer`: the programmatic shell. It validates options, builds the
 * app, listens, and returns a handle whose `close()` is idempotent and frees
 * every socket.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createApp } from "./http/app.js";
import { resolveOptions, type ServerOptionsInput } from "./options.js";
import { systemClock } from "./timing/clock.js";

/** A running mock server. */
export interface MockServer {
  /** Origin of the server, e.g. `http://127.0.0.1:4010`. */
  readonly url: string;
  /** Base URL of the API, e.g. `http://127.0.0.1:4010/v1` — give it to any OpenAI-style SDK. */
  readonly baseURL: string;
  /** The port the server listens on. */
  readonly port: number;
  /** The underlying Node HTTP server. */
  readonly server: Server;
  /** Stops listening and closes every open connection. Safe to call more than once. */
  close(): Promise<void>;
  /** `await using mock = await startMockServer()` closes it at the end of the scope. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a mock server; resolves once it listens. */
export async function startMockServer(input: ServerOptionsInput = {}): Promise<MockServer> {
  const options = resolveOptions(input);
  const app = createApp({
    seed: options.seed,
    apiKey: options.apiKey,
    bodyLimit: options.bodyLimit,
    clock: options.clock ?? systemClock,
    onError: (err) => console.error("openresponses-mock: internal error:", err),
  });
  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 60_000, headersTimeout: 20_000 }, app.callback());
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once("error", onError);
    server.listen(options.port, options.host, () => {
      server.off("error", onError);
      resolve();
    });
  });

  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
    }));

  return {
    url,
    baseURL: `${url}/v1`,
    port: address.port,
    server,
    close,
    [Symbol.asyncDispose]: close,
  };
}
