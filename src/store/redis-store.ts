/**
 * The response store in Redis, shared by every worker and replica that names
 * the same server. Redis is the truth; each process keeps a local view that
 * the synchronous `ResponseStore` interface reads:
 *
 * - `load(id)` fetches a response and its whole `previous_response_id` chain
 *   in one round trip (a Lua script walks it) into the local view before the
 *   synchronous code runs: the create path, the retrieve, delete, cancel and
 *   input_items routes all call it first;
 * - `put` writes through (the caller awaits the write before it answers, so
 *   any process asked next sees it) and keeps the record locally;
 * - the limit is Redis's: a sorted set orders the responses by their last
 *   write, and the oldest past `limit` are deleted with it, as the memory
 *   store evicts. Every key also expires a day after its last write.
 * - `byteLimit` (`storeBytes`) is this process's: a record over 1/16 of it is
 *   written without its input (a stand-in, as in memory), and the local view
 *   holds at most that many bytes (records and the text they were read from).
 *   What Redis holds in all is bounded by `limit` records of at most 1/16 of
 *   it each, and by Redis's own `maxmemory`.
 *
 * Records are (de)serialised in redis-codec.ts only.
 */
import type { RedisLink } from "./redis-client.js";
import { KEY_PREFIX, KEY_TTL_MS } from "./redis-client.js";
import { decodeRecord, encodeRecord, previousOf } from "./redis-codec.js";
import { keepWithin, recordCost, storedId, type ResponseStore, type StoredResponse } from "./response-store.js";
import { DEFAULT_STORE_BYTES } from "./record-cost.js";
import { OldestKeys } from "../util/oldest-keys.js";

/** Records a process keeps in its local view at most (Redis holds the rest). */
const LOCAL_VIEW_LIMIT = 10_000;
/** The longest chain one load walks (as priorItems does). */
const MAX_CHAIN = 10_000;

const RECORD = `${KEY_PREFIX}response:`;
const ORDER = `${KEY_PREFIX}responses`;
const SERIAL = `${KEY_PREFIX}responses:serial`;

/** Writes a record and evicts the oldest past the limit. ARGV: id, value, previous id, ttl ms, limit. */
const PUT = `
local key = '${RECORD}' .. ARGV[1]
local ttl = tonumber(ARGV[4])
redis.call('HSET', key, 'v', ARGV[2], 'p', ARGV[3])
redis.call('PEXPIRE', key, ttl)
redis.call('ZADD', '${ORDER}', redis.call('INCR', '${SERIAL}'), ARGV[1])
redis.call('PEXPIRE', '${ORDER}', ttl)
redis.call('PEXPIRE', '${SERIAL}', ttl)
local excess = redis.call('ZCARD', '${ORDER}') - tonumber(ARGV[5])
if excess > 0 then
  local old = redis.call('ZPOPMIN', '${ORDER}', excess)
  for i = 1, #old, 2 do redis.call('DEL', '${RECORD}' .. old[i]) end
end
return 1`;

/**
 * Walks a chain from ARGV[1]: id, value pairs, newest first, up to ARGV[2]
 * records; a missing record ends it with its id and an empty value.
 */
const CHAIN = `
local out = {}
local seen = {}
local id = ARGV[1]
local max = tonumber(ARGV[2])
while id ~= '' and not seen[id] and #out < 2 * max do
  seen[id] = true
  local r = redis.call('HMGET', '${RECORD}' .. id, 'v', 'p')
  if not r[1] then
    table.insert(out, id)
    table.insert(out, '')
    break
  end
  table.insert(out, id)
  table.insert(out, r[1])
  id = r[2] or ''
end
return out`;

/** Deletes a record; 1 when it was there. ARGV: id. */
const DELETE = `
redis.call('ZREM', '${ORDER}', ARGV[1])
return redis.call('DEL', '${RECORD}' .. ARGV[1])`;

/** A record in the local view, with the text it was read from (the same text is not parsed again). */
interface Local {
  record: StoredResponse;
  text?: string;
  /** What it holds, estimated: the record and its text. */
  cost: number;
}

export class RedisResponseStore implements ResponseStore {
  private readonly local = new Map<string, Local>();
  private readonly oldestLocal = new OldestKeys(this.local);
  private localBytes = 0;

  constructor(
    private readonly redis: RedisLink,
    readonly limit = 1000,
    readonly byteLimit = DEFAULT_STORE_BYTES,
  ) {}

  /** Responses in this process's local view (Redis may hold more). */
  get size(): number {
    return this.local.size;
  }

  get(id: string): StoredResponse | undefined {
    return this.local.get(id)?.record;
  }

  put(record: StoredResponse): Promise<void> {
    const id = storedId(record);
    const cost = keepWithin(record, this.byteLimit);
    this.remember(id, { record, cost });
    const text = encodeRecord(record);
    const written = this.redis
      .eval<number>(PUT, [id, text, previousOf(record), KEY_TTL_MS, this.limit])
      .then(() => undefined);
    // A caller that does not wait (a proxy's answer, once sent) must not crash the process: the link has reported the failure.
    written.catch(() => undefined);
    return written;
  }

  delete(id: string): boolean {
    const had = this.forget(id);
    this.redis.send((c) => c.eval(DELETE, { keys: [], arguments: [id] }));
    return had;
  }

  async remove(id: string): Promise<boolean> {
    this.forget(id);
    return (await this.redis.eval<number>(DELETE, [id])) === 1;
  }

  async load(id: string): Promise<void> {
    const pairs = await this.redis.eval<string[]>(CHAIN, [id, MAX_CHAIN]);
    for (let i = 0; i < pairs.length; i += 2) {
      const [key, text] = [pairs[i], pairs[i + 1]];
      if (text === "") {
        this.forget(key);
        continue;
      }
      // The same text as last read: the record parsed then still stands.
      if (this.local.get(key)?.text === text) continue;
      const record = decodeRecord(text);
      this.remember(key, { record, text, cost: recordCost(record) + text.length });
    }
  }

  /** Keeps a record in the local view, newest last; the oldest go past LOCAL_VIEW_LIMIT records or `byteLimit` bytes. */
  private remember(id: string, local: Local): void {
    this.forget(id);
    this.local.set(id, local);
    this.localBytes += local.cost;
    while (
      this.local.size > LOCAL_VIEW_LIMIT ||
      (this.byteLimit > 0 && this.localBytes > this.byteLimit && this.local.size > 1)
    )
      this.forget(this.oldestLocal.next()!);
  }

  /** Drops a record from the local view; true when it was there. */
  private forget(id: string): boolean {
    const local = this.local.get(id);
    if (!local) return false;
    this.localBytes -= local.cost;
    return this.local.delete(id);
  }
}
