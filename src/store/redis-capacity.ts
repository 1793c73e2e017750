/**
 * The capacity pools in Redis (`--store redis://…`): every process that
 * shares the store enforces one `maxConcurrent` and one queue per pool, so
 * `--workers N` and replicas together play no more answers at once than one
 * server would.
 *
 * Per pool, a hash of the playing answers (member → when it is due to end,
 * wall-clock ms, -1 when not known) and a sorted set of the waiting ones
 * (member → a ticket from one counter). Every change is one Lua script:
 * a slot is taken only when one is free and no one waits, a place only while
 * the queue has room, and a waiter gets a slot only when it is among the first
 * `free slots` of the queue — so the queue is first come first served across
 * every process, by the order in which requests entered it.
 *
 * A release publishes the pool's key on one channel; each process then asks
 * for slots for its own waiters, oldest first. A member is named after the
 * process that holds it, and each process keeps a lease key alive (a TTL of
 * LEASE_MS, refreshed four times as often): a script that finds a member whose
 * process has no lease left drops it, and says so on the channel. A process
 * that dies therefore holds its slots for LEASE_MS at most; the waiters of the
 * others also look again every LEASE_MS / 4, so nothing waits for a message
 * that never comes.
 */
import { randomUUID } from "node:crypto";
import {
  retryDelay,
  type Admission,
  type Departure,
  type Holder,
  type Pool,
  type SlotLedger,
} from "../service/slots.js";
import { KEY_PREFIX, KEY_TTL_MS, type RedisLink } from "./redis-client.js";

/** How long a process's slots outlive it: its lease's TTL. */
export const LEASE_MS = 10_000;

const SLOTS = `${KEY_PREFIX}slots:`;
const LIVE = `${SLOTS}live:`;
const SERIAL = `${SLOTS}serial`;
/** The channel a pool's key is published on when one of its slots is freed. */
const CHANNEL = `${SLOTS}free`;

/** What every script starts with: the pool's keys (ARGV[1] is the pool), the pruning of dead processes' members, the earliest due. */
const PRELUDE = `
local pool = ARGV[1]
local active = '${SLOTS}' .. pool .. ':active'
local queue = '${SLOTS}' .. pool .. ':queue'
local function prune()
  local alive = {}
  local function live(m)
    local p = string.match(m, '^([^/]+)/')
    if p == nil then return false end
    if alive[p] == nil then alive[p] = redis.call('EXISTS', '${LIVE}' .. p) == 1 end
    return alive[p]
  end
  local pruned = 0
  for _, m in ipairs(redis.call('HKEYS', active)) do
    if not live(m) then redis.call('HDEL', active, m); pruned = pruned + 1 end
  end
  for _, m in ipairs(redis.call('ZRANGE', queue, 0, -1)) do
    if not live(m) then redis.call('ZREM', queue, m); pruned = pruned + 1 end
  end
  if pruned > 0 then redis.call('PUBLISH', '${CHANNEL}', pool) end
end
local function earliest()
  local e = -1
  for _, d in ipairs(redis.call('HVALS', active)) do
    local n = tonumber(d)
    if n >= 0 and (e < 0 or n < e) then e = n end
  end
  return string.format('%.0f', e)
end
local function keep()
  redis.call('PEXPIRE', active, ${KEY_TTL_MS})
  redis.call('PEXPIRE', queue, ${KEY_TTL_MS})
end
`;

/** A slot, a place in the queue, or full with the earliest due. ARGV: pool, member, max, queue places, due. */
const ENTER = `${PRELUDE}
prune()
local n = redis.call('HLEN', active)
local w = redis.call('ZCARD', queue)
if n < tonumber(ARGV[3]) and w == 0 then
  redis.call('HSET', active, ARGV[2], ARGV[5])
  keep()
  return {'slot'}
end
if w < tonumber(ARGV[4]) then
  redis.call('ZADD', queue, redis.call('INCR', '${SERIAL}'), ARGV[2])
  redis.call('PEXPIRE', '${SERIAL}', ${KEY_TTL_MS})
  keep()
  return {'queued'}
end
return {'full', earliest()}`;

/**
 * Slots for waiters of one process, oldest first, while a slot is free for
 * each (a waiter's rank in the whole queue counts). Answers the members given
 * one, and the members found neither waiting nor playing (lost: their
 * process was taken for dead, its lease run out). ARGV: pool, max, then
 * member, due pairs.
 */
const WAKE = `${PRELUDE}
prune()
local max = tonumber(ARGV[2])
local granted = {}
local lost = {}
for i = 3, #ARGV, 2 do
  local m = ARGV[i]
  if redis.call('HEXISTS', active, m) == 1 then
    table.insert(granted, m)
  else
    local rank = redis.call('ZRANK', queue, m)
    if not rank then
      table.insert(lost, m)
    elseif redis.call('HLEN', active) + rank < max then
      redis.call('ZREM', queue, m)
      redis.call('HSET', active, m, ARGV[i + 1])
      table.insert(granted, m)
    else
      break
    end
  end
end
if #granted > 0 then keep() end
return {granted, lost}`;

/** Queues a lost member again, at the end (its lease had run out while it waited). ARGV: pool, member. */
const REQUEUE = `${PRELUDE}
redis.call('ZADD', queue, 'NX', redis.call('INCR', '${SERIAL}'), ARGV[2])
keep()
return 1`;

/** Leaves the queue: {'left', earliest due}, or {'granted'} when the member plays already. ARGV: pool, member. */
const LEAVE = `${PRELUDE}
if redis.call('ZREM', queue, ARGV[2]) == 1 then
  redis.call('PUBLISH', '${CHANNEL}', pool)
  return {'left', earliest()}
end
if redis.call('HEXISTS', active, ARGV[2]) == 1 then return {'granted'} end
return {'left', earliest()}`;

/** Frees a slot and says so. ARGV: pool, member. */
const RELEASE = `${PRELUDE}
if redis.call('HDEL', active, ARGV[2]) == 1 then redis.call('PUBLISH', '${CHANNEL}', pool) end
return 1`;

/** The waiters of one pool in this process, oldest first. */
interface Waiters {
  pool: Pool;
  list: Holder[];
  /** A wake is under way; `again` asks for one more after it. */
  waking: boolean;
  again: boolean;
}

/** The pools' counts in Redis, for one process (one lease). */
export class RedisSlots implements SlotLedger {
  /** This process's lease: the prefix of its members. */
  readonly process = randomUUID();
  private readonly waiters = new Map<string, Waiters>();
  /** Every pool this process has entered (told when it closes). */
  private readonly touched = new Set<string>();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly ready: Promise<void>;
  private closed = false;

  /**
   * @param now wall-clock ms (the server's `clock`): when playing answers are due to end, compared across processes
   */
  constructor(
    private readonly redis: RedisLink,
    private readonly now: () => number,
  ) {
    this.ready = Promise.all([this.renew(), redis.subscribe(CHANNEL, (pool) => void this.wake(pool))]).then(
      () => undefined,
    );
    // Real time, as Redis's TTLs are: the lease is renewed and the waiters look again, whatever clock the server plays on.
    this.timer = setInterval(() => this.tick(), LEASE_MS / 4);
    this.timer.unref();
  }

  private renew(): Promise<unknown> {
    return this.redis.run((c) => c.set(`${LIVE}${this.process}`, "1", { PX: LEASE_MS }));
  }

  private tick(): void {
    if (this.closed) return;
    this.renew().catch(() => undefined);
    for (const key of this.waiters.keys()) void this.wake(key);
  }

  private member(holder: Holder): string {
    return `${this.process}/${holder.id}`;
  }

  private due(holder: Holder): number {
    const playMs = holder.playMs();
    return Number.isFinite(playMs) ? Math.ceil(this.now() + playMs) : -1;
  }

  private retryMs(earliest: string): number {
    const e = Number(earliest);
    return retryDelay(e >= 0 ? [e] : [], this.now());
  }

  async enter(pool: Pool, holder: Holder): Promise<Admission> {
    await this.ready;
    this.touched.add(pool.key);
    const [kind, earliest] = await this.redis.eval<[string, string?]>(ENTER, [
      pool.key,
      this.member(holder),
      pool.max,
      pool.queue,
      this.due(holder),
    ]);
    if (kind === "slot") {
      holder.state = "held";
      return { kind: "slot" };
    }
    if (kind === "queued") {
      holder.state = "queued";
      let waiters = this.waiters.get(pool.key);
      if (!waiters) this.waiters.set(pool.key, (waiters = { pool, list: [], waking: false, again: false }));
      waiters.list.push(holder);
      // A slot freed between the script and now is not missed.
      void this.wake(pool.key);
      return { kind: "queued" };
    }
    holder.state = "done";
    return { kind: "full", retryMs: this.retryMs(earliest!) };
  }

  /** Asks for slots for this process's waiters of a pool, oldest first, and hands over the ones given. */
  private async wake(key: string): Promise<void> {
    const waiters = this.waiters.get(key);
    if (!waiters) return;
    if (waiters.waking) {
      waiters.again = true;
      return;
    }
    waiters.waking = true;
    try {
      do {
        waiters.again = false;
        const queued = waiters.list.filter((h) => h.state === "queued");
        if (queued.length === 0) break;
        const args: (string | number)[] = [key, waiters.pool.max];
        for (const h of queued) args.push(this.member(h), this.due(h));
        const [given, lost] = await this.redis.eval<[string[], string[]]>(WAKE, args);
        const granted = new Set(given);
        const gone = new Set(lost);
        for (const h of queued) {
          if (h.state !== "queued") continue;
          const member = this.member(h);
          if (granted.has(member)) {
            h.state = "held";
            h.granted?.();
          } else if (gone.has(member)) {
            await this.redis.eval(REQUEUE, [key, member]);
            waiters.again = true;
          }
        }
        waiters.list = waiters.list.filter((h) => h.state === "queued");
      } while (waiters.again && !this.closed);
    } catch {
      // Redis is away (the link says so): the next tick asks again.
    } finally {
      waiters.waking = false;
      if (waiters.list.length === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
    }
  }

  async leave(pool: Pool, holder: Holder): Promise<Departure> {
    if (holder.state === "held") return { kind: "granted" };
    // No longer waiting from here on: a wake under way neither hands it a slot nor queues it again.
    holder.state = "done";
    const waiters = this.waiters.get(pool.key);
    if (waiters) waiters.list = waiters.list.filter((h) => h !== holder);
    const [kind, earliest] = await this.redis.eval<[string, string?]>(LEAVE, [pool.key, this.member(holder)]);
    if (kind === "granted") {
      holder.state = "held";
      return { kind: "granted" };
    }
    return { kind: "left", retryMs: this.retryMs(earliest!) };
  }

  release(pool: Pool, holder: Holder): void {
    holder.state = "done";
    this.redis.send((c) => c.eval(RELEASE, { keys: [], arguments: [pool.key, this.member(holder)] }));
  }

  /** Stops the lease: this process's slots and places are dropped by the next script any process runs (and the others are told). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const pools = [...this.touched];
    this.waiters.clear();
    await this.ready.catch(() => undefined);
    await this.redis
      .run(async (c) => {
        await c.del(`${LIVE}${this.process}`);
        for (const pool of pools) await c.publish(CHANNEL, pool);
      })
      .catch(() => undefined);
  }
}
