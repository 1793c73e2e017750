/**
 * `startMockServer`: the programmatic shell. It validates options, builds the
 * app, listens, and returns a handle whose `close()` is idempotent and frees
 * every socket.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createApp } from "./http/app.js";
import { Runs } from "./http/runs.js";
import { MemoryResponseStore } from "./store/response-store.js";
import { resolveOptions, type ServerOptionsInput } from "./options.js";
import { LIBRARY_DIR, loadScenarios } from "./scenario/load.js";
import { createRegistry, type ScenarioRegistry } from "./scenario/registry.js";
import type { ResolvedServerOptions } from "./options.js";
import { systemClock } from "./timing/clock.js";

/**
 * Loads the shipped library (unless turned off) and the given scenarios. A
 * given scenario replaces a library one of the same name; two given ones with
 * the same name are an error. Given scenarios are tried first for match rules.
 */
export async function loadRegistry(options: Pick<ResolvedServerOptions, "scenarios" | "scenario" | "library">): Promise<ScenarioRegistry> {
  const own = await loadScenarios(options.scenarios);
  const names = new Set(own.map((l) => l.scenario.name));
  const library = options.library ? (await loadScenarios([LIBRARY_DIR])).filter((l) => !names.has(l.scenario.name)) : [];
  return createRegistry([...own, ...library].map((l) => l.scenario), options.scenario);
}

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
  const registry = await loadRegistry(options);
  const clock = options.timers ?? systemClock;
  const store = new MemoryResponseStore(options.storeLimit);
  const runs = new Runs(store, clock);
  const app = createApp({
    registry,
    store,
    runs,
    seed: options.seed,
    apiKey: options.apiKey,
    bodyLimit: options.bodyLimit,
    wallClock: options.clock ?? systemClock,
    clock,
    timing: {
      latencyMs: options.latencyMs,
      chunkMs: options.chunkMs,
      jitterMs: options.jitterMs,
      tokensPerSecond: options.tokensPerSecond ?? null,
      heartbeatMs: options.heartbeatMs,
    },
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
      runs.stopAll();
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
