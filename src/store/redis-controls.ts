/**
 * The session controls (`use`, `enqueue`, `reset`) in Redis, so that a
 * control set through any worker or replica applies to the next request
 * whichever process answers it. A queued answer is taken exactly once: the
 * take is one Lua script (queue first, then `use` and its count), atomic
 * across processes. The scenario is validated when it is set (a bad one
 * throws at once, as in memory) and kept as it was given; what is taken is
 * validated again, as a file would be, which costs only requests that have a
 * control.
 */
import type { Scenario, ScenarioInput } from "../scenario/schema.js";
import { validateScenario } from "../scenario/parse.js";
import { Turn as TurnSchema } from "../scenario/schema.js";
import { checkUse, parseTurns, queuedScenario, type Controls, type Forced } from "../session/controls.js";
import { KEY_PREFIX, KEY_TTL_MS, type RedisLink } from "./redis-client.js";

const QUEUE = `${KEY_PREFIX}queue:`;
const USE = `${KEY_PREFIX}use:`;
const SESSIONS = `${KEY_PREFIX}control-sessions`;
const SERIAL = `${KEY_PREFIX}queued:serial`;

/** Appends turns to a session's queue, naming each; answers the queue's length. ARGV: session, ttl ms, turn JSON… */
const ENQUEUE = `
local q = '${QUEUE}' .. ARGV[1]
for i = 3, #ARGV do
  local n = redis.call('INCR', '${SERIAL}')
  redis.call('RPUSH', q, n .. ' ' .. ARGV[i])
end
redis.call('SADD', '${SESSIONS}', ARGV[1])
redis.call('PEXPIRE', q, tonumber(ARGV[2]))
redis.call('PEXPIRE', '${SESSIONS}', tonumber(ARGV[2]))
redis.call('PEXPIRE', '${SERIAL}', tonumber(ARGV[2]))
return redis.call('LLEN', q)`;

/** Sets a session's use. ARGV: session, ttl ms, scenario JSON, times ('' for every request). */
const USE_SET = `
local u = '${USE}' .. ARGV[1]
redis.call('DEL', u)
redis.call('HSET', u, 's', ARGV[3], 'n', ARGV[4])
redis.call('PEXPIRE', u, tonumber(ARGV[2]))
redis.call('SADD', '${SESSIONS}', ARGV[1])
redis.call('PEXPIRE', '${SESSIONS}', tonumber(ARGV[2]))
return 1`;

/** Takes a session's next forced answer: {'queue', 'N turn'} or {'use', scenario}, or nothing. ARGV: session. */
const TAKE = `
local item = redis.call('LPOP', '${QUEUE}' .. ARGV[1])
if item then return {'queue', item} end
local u = '${USE}' .. ARGV[1]
local r = redis.call('HMGET', u, 's', 'n')
if not r[1] then return false end
if r[2] ~= '' then
  local left = tonumber(r[2]) - 1
  if left <= 0 then redis.call('DEL', u) else redis.call('HSET', u, 'n', left) end
end
return {'use', r[1]}`;

/** Forgets one session's controls (ARGV: session), or every session's (no ARGV). */
const RESET = `
local sessions = {}
if #ARGV > 0 then sessions = {ARGV[1]} else sessions = redis.call('SMEMBERS', '${SESSIONS}') end
for _, s in ipairs(sessions) do
  redis.call('DEL', '${QUEUE}' .. s, '${USE}' .. s)
  redis.call('SREM', '${SESSIONS}', s)
end
return #sessions`;

/** A session's key: requests without a session share the empty one (as in memory). */
const key = (session: string | null | undefined) => session ?? "";

export class RedisControls implements Controls {
  constructor(private readonly redis: RedisLink) {}

  use(
    session: string | null | undefined,
    scenario: ScenarioInput | Scenario,
    times?: number,
    label = "use()",
  ): Promise<Scenario> {
    const valid = checkUse(scenario, times, label);
    return this.redis
      .eval(USE_SET, [key(session), KEY_TTL_MS, JSON.stringify(scenario), times ?? ""])
      .then(() => valid);
  }

  enqueue(session: string | null | undefined, turns: readonly unknown[], label = "enqueue()"): Promise<number> {
    parseTurns(turns, label);
    return this.redis.eval<number>(ENQUEUE, [key(session), KEY_TTL_MS, ...turns.map((t) => JSON.stringify(t))]);
  }

  async take(session: string | null | undefined): Promise<Forced | undefined> {
    const taken = await this.redis.eval<[string, string] | null>(TAKE, [key(session)]);
    if (!taken) return undefined;
    const [reason, text] = taken;
    if (reason === "queue") {
      const space = text.indexOf(" ");
      return {
        scenario: queuedScenario(Number(text.slice(0, space)), TurnSchema.parse(JSON.parse(text.slice(space + 1)))),
        reason: "queue",
      };
    }
    return { scenario: validateScenario(JSON.parse(text), "use()"), reason: "use" };
  }

  async reset(session?: string | null): Promise<void> {
    await this.redis.eval(RESET, session === undefined ? [] : [key(session)]);
  }
}
