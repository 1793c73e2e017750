/**
 * The journal of every process that shares one Redis (`--store redis://…`):
 * each process keeps its own journal as always, and pushes every entry as it
 * ends onto one capped Redis list, where the admin routes read them. Bounded
 * as a journal is: at most `limit` entries and about `byteLimit` bytes (each
 * entry's body already truncated by the process's journal); the oldest go
 * first. Entries get a seq of their own here, in the order they ended (an
 * entry is listed once its request is over). The answer's shape is the
 * journal's.
 */
import type { RedisLink } from "../store/redis-client.js";
import { KEY_PREFIX, KEY_TTL_MS } from "../store/redis-client.js";
import type { Journal, JournalEntry, JournalPage, PageQuery } from "./journal.js";
import { entryJson } from "./serialize.js";

const LIST = `${KEY_PREFIX}journal`;
const BYTES = `${KEY_PREFIX}journal:bytes`;
const SERIAL = `${KEY_PREFIX}journal:serial`;

/**
 * Appends an entry as `seq TAB session TAB json` and drops the oldest past the
 * limits. ARGV: session ('' for none), json, entry limit, byte limit (0: none), ttl ms.
 */
const PUSH = `
local seq = redis.call('INCR', '${SERIAL}')
local item = seq .. '\\t' .. ARGV[1] .. '\\t' .. ARGV[2]
redis.call('RPUSH', '${LIST}', item)
local bytes = redis.call('INCRBY', '${BYTES}', #item)
local limit = tonumber(ARGV[3])
local byteLimit = tonumber(ARGV[4])
while redis.call('LLEN', '${LIST}') > limit or (byteLimit > 0 and bytes > byteLimit and redis.call('LLEN', '${LIST}') > 1) do
  local old = redis.call('LPOP', '${LIST}')
  if not old then break end
  bytes = redis.call('DECRBY', '${BYTES}', #old)
end
for _, k in ipairs({'${LIST}', '${BYTES}', '${SERIAL}'}) do redis.call('PEXPIRE', k, tonumber(ARGV[5])) end
return seq`;

/** Drops one session's entries (ARGV: session), or all (no ARGV). */
const CLEAR = `
if #ARGV == 0 then
  redis.call('DEL', '${LIST}', '${BYTES}')
  return 0
end
local items = redis.call('LRANGE', '${LIST}', 0, -1)
local prefix = '\\t' .. ARGV[1] .. '\\t'
local bytes = 0
redis.call('DEL', '${LIST}')
for _, item in ipairs(items) do
  local tab = string.find(item, '\\t', 1, true)
  if string.sub(item, tab, tab + #prefix - 1) ~= prefix then
    redis.call('RPUSH', '${LIST}', item)
    bytes = bytes + #item
  end
end
redis.call('SET', '${BYTES}', bytes, 'PX', ${KEY_TTL_MS})
return #items`;

/** An entry of the list: its shared seq, its session, the entry. */
function parseItem(item: string): JournalEntry {
  const first = item.indexOf("\t");
  const second = item.indexOf("\t", first + 1);
  const entry = JSON.parse(item.slice(second + 1)) as JournalEntry & { seq: number };
  // The process's own seq gives way to the shared one (the first key, as in every entry).
  (entry as { seq: number }).seq = Number(item.slice(0, first));
  return entry;
}

export class SharedJournal {
  constructor(
    private readonly redis: RedisLink,
    readonly limit: number,
    readonly byteLimit: number,
  ) {}

  /** Pushes each entry of `journal` as it ends. Returns the function that stops it. */
  attach(journal: Pick<Journal, "onEnd">): () => void {
    return journal.onEnd((entry) => {
      const json = [...entryJson(entry)].join("");
      this.redis.send((c) =>
        c.eval(PUSH, {
          keys: [],
          arguments: [entry.session ?? "", json, String(this.limit), String(this.byteLimit), String(KEY_TTL_MS)],
        }),
      );
    });
  }

  /** Every entry held, oldest first (only one session's when `session` is given). */
  private async entries(session?: string): Promise<JournalEntry[]> {
    const items = await this.redis.run((c) => c.lRange(LIST, 0, -1));
    const all = items.map(parseItem);
    return session === undefined ? all : all.filter((e) => e.session === session);
  }

  /** One page, as Journal.page gives it. */
  async page(query: PageQuery): Promise<JournalPage> {
    const { session, after, limit, order = "asc" } = query;
    let list = await this.entries(session);
    if (order === "desc") list = list.reverse();
    if (after !== undefined) list = list.filter((e) => (order === "asc" ? e.seq > after : e.seq < after));
    return { data: list.slice(0, limit), hasMore: list.length > limit };
  }

  /** The entry with this shared seq, if the list still holds it. */
  async get(seq: number): Promise<JournalEntry | undefined> {
    return (await this.entries()).find((e) => e.seq === seq);
  }

  /** Forgets entries: one session's, or every one. */
  async clear(session?: string | null): Promise<void> {
    await this.redis.eval(CLEAR, session === undefined || session === null ? [] : [session]);
  }
}
