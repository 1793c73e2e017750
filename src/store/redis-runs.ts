/**
 * Background runs across processes. A run plays in the process that created
 * it and writes its record through to Redis as each event is delivered, so
 * a `GET` anywhere shows it as it stands. A cancel (or a delete) that lands
 * on another process is passed to the run's owner over Redis pub/sub: every
 * process listens on one channel; the owner cancels its run, waits until
 * Redis holds the cancelled record, and replies on the asker's own channel.
 */
import { randomUUID } from "node:crypto";
import { KEY_PREFIX, type RedisLink } from "./redis-client.js";

/**
 * What the bus asks of this process's background runs: the run an id names,
 * to cancel it and wait until its record is written. The runs engine (above
 * the store) meets it as it is; the store names no module of it.
 */
export interface LocalRuns {
  get(id: string): { cancel(): unknown; written(): Promise<void> } | undefined;
}

const CANCEL = `${KEY_PREFIX}cancel`;
/** How long a cancel waits for the run's owner to answer; past it, the run is taken to have no owner left. */
const CANCEL_WAIT_MS = 2_000;

interface CancelMessage {
  id: string;
  reply: string;
  nonce: string;
}

interface Reply {
  nonce: string;
  found: boolean;
}

/** What waits for replies to one cancel. */
interface Waiting {
  expected: number;
  replies: number;
  done: (found: boolean) => void;
}

export class RunBus {
  private readonly replyChannel = `${KEY_PREFIX}reply:${randomUUID()}`;
  private readonly waiting = new Map<string, Waiting>();

  private constructor(
    private readonly redis: RedisLink,
    private readonly runs: LocalRuns,
  ) {}

  /** Listens for cancels of this process's runs, and for the replies to its own. */
  static async start(redis: RedisLink, runs: LocalRuns): Promise<RunBus> {
    const bus = new RunBus(redis, runs);
    await redis.subscribe(CANCEL, (text) => void bus.onCancel(text));
    await redis.subscribe(bus.replyChannel, (text) => bus.onReply(text));
    return bus;
  }

  private async onCancel(text: string): Promise<void> {
    let message: CancelMessage;
    try {
      message = JSON.parse(text) as CancelMessage;
    } catch {
      return;
    }
    const run = this.runs.get(message.id);
    if (run) {
      run.cancel();
      await run.written();
    }
    const reply: Reply = { nonce: message.nonce, found: run !== undefined };
    this.redis.send((c) => c.publish(message.reply, JSON.stringify(reply)));
  }

  private onReply(text: string): void {
    let reply: Reply;
    try {
      reply = JSON.parse(text) as Reply;
    } catch {
      return;
    }
    const waiting = this.waiting.get(reply.nonce);
    if (!waiting) return;
    waiting.replies++;
    if (reply.found || waiting.replies >= waiting.expected) waiting.done(reply.found);
  }

  /**
   * Asks the process that plays run `id` to cancel it; resolves once Redis
   * holds the cancelled record (true), or with false when no process plays it.
   */
  async cancel(id: string): Promise<boolean> {
    const nonce = randomUUID();
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), CANCEL_WAIT_MS);
      const finish = (found: boolean) => {
        clearTimeout(timer);
        this.waiting.delete(nonce);
        resolve(found);
      };
      this.waiting.set(nonce, { expected: Number.POSITIVE_INFINITY, replies: 0, done: finish });
    });
    const message: CancelMessage = { id, reply: this.replyChannel, nonce };
    const listeners = await this.redis.publish(CANCEL, JSON.stringify(message));
    const waiting = this.waiting.get(nonce);
    if (waiting) {
      waiting.expected = listeners;
      if (waiting.replies >= listeners) waiting.done(false);
    }
    return answered;
  }
}
