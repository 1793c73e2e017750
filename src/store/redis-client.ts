/**
 * The connection to Redis that the shared store, controls, runs and journal
 * use: two clients (commands, and one subscribed for messages between
 * processes), keys under one namespace, and errors in words a user
 * understands. The `redis` package is imported here, lazily: a server
 * without `--store redis://…` never loads it.
 */
import type { RedisClientType } from "redis";
import { ApiError } from "../spec/index.js";

type Client = RedisClientType;

/** Every key this server writes starts with this (values are JSON). */
export const KEY_PREFIX = "openresponses-mock:";
/** How long a key lives after its last write, whatever the limits: a forgotten Redis does not keep a test run's data for ever. */
export const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a connection attempt may take before the server gives up (at start) or the command fails. */
const CONNECT_TIMEOUT_MS = 2_000;
/** After a lost connection, wait this long between attempts, at most. */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** One complaint per outage: lines about an unreachable Redis at most this often. */
const REPORT_EVERY_MS = 5_000;

/** Redis could not be reached when the server started: the message names the option (the CLI shows it as its flag). */
export class StoreConnectError extends Error {
  constructor(
    readonly display: string,
    readonly detail: string,
  ) {
    super(StoreConnectError.message("store", display, detail));
    this.name = "StoreConnectError";
  }

  private static message(name: string, display: string, detail: string): string {
    return `${name}: cannot connect to Redis at ${display} (${detail}); start redis-server there, or name another store`;
  }

  /** The message with the option named as the caller spells it (the CLI: `--store`). */
  describe(name: string): string {
    return StoreConnectError.message(name, this.display, this.detail);
  }
}

/** What a request gets when Redis stops answering mid-run: a 503 that says so, never a crash. */
export const storeUnavailable = (display: string, err: unknown) =>
  new ApiError({
    status: 503,
    type: "server_error",
    code: "store_unavailable",
    message: `The shared store (Redis at ${display}) is unreachable (${errorText(err)}); the request was not answered. Try again once Redis is back.`,
    headers: { "retry-after": "1" },
  });

/** What went wrong, short: the system error's code (ECONNREFUSED) when there is one. */
const errorText = (err: unknown): string => {
  const e = err as { code?: string; message?: string; errors?: unknown[] } | undefined;
  if (e?.code) return e.code;
  if (Array.isArray(e?.errors) && e.errors.length > 0) return errorText(e.errors[0]);
  const message = e?.message ?? String(err);
  return (/\b(E[A-Z]{3,})\b/.exec(message)?.[1] ?? message).slice(0, 200);
};

/** The connection of one process: run a command (a 503 ApiError when Redis is gone), send one without waiting, subscribe. */
export class RedisLink {
  private lastReport = 0;

  private constructor(
    readonly client: Client,
    private readonly subscriber: Client,
    /** The URL without credentials, for messages. */
    readonly display: string,
    private readonly report: (line: string) => void,
  ) {}

  /** Connects both clients; a StoreConnectError when Redis does not answer. */
  static async connect(url: string, display: string, report: (line: string) => void): Promise<RedisLink> {
    const { createClient } = await import("redis");
    let connected = false;
    const make = (): Client =>
      createClient({
        url,
        // Commands fail at once while the connection is down (a 503), instead of waiting in a queue for ever.
        disableOfflineQueue: true,
        socket: {
          connectTimeout: CONNECT_TIMEOUT_MS,
          // At start, one failure is the answer; later, keep trying (the server answers 503 meanwhile).
          reconnectStrategy: (retries: number, cause: Error) =>
            connected ? Math.min(50 * (retries + 1), MAX_RECONNECT_DELAY_MS) : cause,
        },
      }) as unknown as Client;
    const client = make();
    const subscriber = make();
    const link = new RedisLink(client, subscriber, display, report);
    // Without a listener, a client's error would be thrown and end the process. At start, the connect error says it all.
    for (const c of [client, subscriber]) c.on("error", (err: unknown) => connected && link.complain(err));
    try {
      await client.connect();
      await subscriber.connect();
    } catch (err) {
      client.destroy();
      subscriber.destroy();
      throw new StoreConnectError(display, errorText(err));
    }
    connected = true;
    return link;
  }

  /** Says once in a while that Redis is unreachable (on stderr, as the server's other internal errors). */
  complain(err: unknown): void {
    const now = Date.now();
    if (now - this.lastReport < REPORT_EVERY_MS) return;
    this.lastReport = now;
    this.report(`openresponses-mock: the shared store (Redis at ${this.display}) is unreachable: ${errorText(err)}`);
  }

  /** Runs a command; a failure is the 503 a client gets. */
  async run<T>(command: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await command(this.client);
    } catch (err) {
      this.complain(err);
      throw storeUnavailable(this.display, err);
    }
  }

  /** Sends a command without waiting for it (writes that follow a run); a failure is reported, not thrown. */
  send(command: (client: Client) => Promise<unknown>): void {
    try {
      command(this.client).catch((err: unknown) => this.complain(err));
    } catch (err) {
      this.complain(err);
    }
  }

  /** Runs a Lua script (sent whole: scripts are small, and EVALSHA would need a retry on NOSCRIPT). */
  eval<T>(script: string, args: readonly (string | number)[]): Promise<T> {
    return this.run((c) => c.eval(script, { keys: [], arguments: args.map(String) }) as Promise<T>);
  }

  /** Listens to a channel; messages arrive as text. */
  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    await this.subscriber.subscribe(channel, (message: string) => listener(message));
  }

  /** Publishes a message; resolves with how many listeners got it. */
  publish(channel: string, message: string): Promise<number> {
    return this.run((c) => c.publish(channel, message));
  }

  /** Closes both connections (pending writes are sent first). */
  async close(): Promise<void> {
    await Promise.allSettled([this.client.close(), this.subscriber.close()]);
    this.client.destroy();
    this.subscriber.destroy();
  }
}
