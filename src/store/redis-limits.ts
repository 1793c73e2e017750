/**
 * The limiter's state in Redis (`--store redis://…`), so that every worker
 * and replica enforces one limit: buckets, spend, session limits and usage
 * totals. One Lua script checks and charges all the buckets of a request,
 * checks the budget and adds the answer to the totals, atomically; the
 * time is Redis's own (`TIME`), one clock for every process whatever their
 * clocks say (so a ManualClock does not drive shared buckets).
 *
 * Keys (under KEY_PREFIX): `limits:SID` (a session's own limits, a hash),
 * `usage:SID` (its totals, a hash: `t|FIELD`, `k|KEYID|FIELD`, `kl|KEYID` the
 * masked key, `m|MODEL|FIELD`), `bucket:SID|KEYID|MODEL` (levels `r`, `t` and
 * their time `at`), `buckets:SID` (its bucket keys, for a reset) and
 * `limit-sessions` (every SID, for the totals of all and the reset of all).
 * SID is the session ('' for none), KEYID a hash of the API key (the key
 * itself is never written). A bucket expires when it is full again (plus a
 * second), the others 24 h after their last write.
 */
import { createHash } from "node:crypto";
import { reportOf, WINDOW_MS } from "../service/bucket.js";
import {
  emptyTotals,
  maskKey,
  NO_LIMITS,
  usageReport,
  type LimitCharge,
  type LimitKind,
  type LimitsPatch,
  type LimitsStore,
  type LimitVerdict,
  type RefusalReason,
  type UsageReport,
  type UsageTotals,
} from "../service/limits.js";
import type { Limits } from "../service/service.js";
import { KEY_PREFIX, KEY_TTL_MS, type RedisLink } from "./redis-client.js";

const P = KEY_PREFIX;
const SESSIONS = `${P}limit-sessions`;

/** The usage fields of a row, as the hash spells them. */
const FIELDS = {
  requests: "requests",
  inputTokens: "input",
  cachedTokens: "cached",
  outputTokens: "output",
  reasoningTokens: "reasoning",
  costUsd: "cost",
} as const;
const REFUSED: Record<RefusalReason, string> = { rate_limited: "rl", insufficient_quota: "iq", overloaded: "ov" };

/** Adds an answer (or a refusal) to the session's total, key and model rows. */
const COUNT = `
local function count(uk, kid, label, model, ttl, field, by, float)
  for _, f in ipairs({'t|' .. field, 'k|' .. kid .. '|' .. field, 'm|' .. model .. '|' .. field}) do
    if float then redis.call('HINCRBYFLOAT', uk, f, by) else redis.call('HINCRBY', uk, f, by) end
  end
  redis.call('HSET', uk, 'kl|' .. kid, label)
  redis.call('PEXPIRE', uk, ttl)
end`;

/**
 * Checks (and with ARGV[9] = '1' charges) one request. ARGV: sid, key id,
 * key label, model, rpm, tpm, budget ('' for none: the session's apply over
 * them), tokens, charge, input, cached, output, reasoning, cost, ttl ms.
 * Answers {'none'} when no limit applies, else {verdict, limit, retry ms
 * ('' for none, 'inf' for never), requests level, tokens level, rpm, tpm,
 * budget}, numbers as text.
 */
const CHARGE = `${COUNT}
local sid, kid, label, model = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local ttl = tonumber(ARGV[15])
local own = redis.call('HMGET', '${P}limits:' .. sid, 'rpm', 'tpm', 'budgetUsd')
local rpm = tonumber(own[1]) or tonumber(ARGV[5])
local tpm = tonumber(own[2]) or tonumber(ARGV[6])
local budget = tonumber(own[3]) or tonumber(ARGV[7])
local tokens = tonumber(ARGV[8])
local charge = ARGV[9] == '1'
local uk = '${P}usage:' .. sid
local function answered()
  redis.call('SADD', '${SESSIONS}', sid)
  redis.call('PEXPIRE', '${SESSIONS}', ttl)
  count(uk, kid, label, model, ttl, '${FIELDS.requests}', 1, false)
  count(uk, kid, label, model, ttl, '${FIELDS.inputTokens}', tonumber(ARGV[10]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.cachedTokens}', tonumber(ARGV[11]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.outputTokens}', tonumber(ARGV[12]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.reasoningTokens}', tonumber(ARGV[13]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.costUsd}', ARGV[14], true)
end
if not rpm and not tpm and not budget then
  if charge then answered() end
  return {'none'}
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local bk = '${P}bucket:' .. sid .. '|' .. kid .. '|' .. model
local stored = redis.call('HMGET', bk, 'r', 't', 'at')
local at = tonumber(stored[3]) or now
local function level(s, cap)
  local l = tonumber(s)
  if not l then return cap end
  l = l + math.max(0, now - at) * cap / ${WINDOW_MS}
  if l > cap then return cap end
  return l
end
local rl = rpm and level(stored[1], rpm) or 0
local tl = tpm and level(stored[2], tpm) or 0
local function out(verdict, limit, retry)
  return {verdict, limit, retry, tostring(rl), tostring(tl), tostring(rpm or ''), tostring(tpm or ''), tostring(budget or '')}
end
if budget then
  local spent = tonumber(redis.call('HGET', uk, 'k|' .. kid .. '|${FIELDS.costUsd}')) or 0
  if spent >= budget then return out('insufficient_quota', 'budget', '') end
end
local function wait(l, cap, cost)
  if l + 1e-9 >= cost then return 0 end
  if cost > cap then return math.huge end
  return math.max(1, math.ceil((cost - l) * ${WINDOW_MS} / cap - 1e-9))
end
local limit, longest = '', 0
if rpm then
  local w = wait(rl, rpm, 1)
  if w > longest then limit, longest = 'requests', w end
end
if tpm then
  local w = wait(tl, tpm, tokens)
  if w > longest then limit, longest = 'tokens', w end
end
if limit ~= '' then
  return out('rate_limited', limit, longest == math.huge and 'inf' or tostring(longest))
end
if not charge then return out('passed', '', '') end
if rpm or tpm then
  if rpm then rl = rl - 1 end
  if tpm then tl = tl - tokens end
  local full = 0
  if rpm then full = math.max(full, (rpm - rl) * ${WINDOW_MS} / rpm) end
  if tpm then full = math.max(full, (tpm - tl) * ${WINDOW_MS} / tpm) end
  redis.call('HSET', bk, 'r', rpm and tostring(rl) or '', 't', tpm and tostring(tl) or '', 'at', tostring(now))
  redis.call('PEXPIRE', bk, math.ceil(full) + 1000)
  redis.call('SADD', '${P}buckets:' .. sid, bk)
  redis.call('PEXPIRE', '${P}buckets:' .. sid, ttl)
end
answered()
return out('passed', '', '')`;

/**
 * Gives a passed request's charge back (a later step refused it). ARGV: sid, key id, key label, model, rpm, tpm
 * (the limits it was charged under, '' for none), tokens, input, cached, output, reasoning, cost, ttl ms.
 */
const REFUND = `${COUNT}
local sid, kid, label, model = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local rpm, tpm, tokens = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local ttl = tonumber(ARGV[13])
local bk = '${P}bucket:' .. sid .. '|' .. kid .. '|' .. model
local stored = redis.call('HMGET', bk, 'r', 't', 'at')
if stored[3] and (rpm or tpm) then
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
  local at = tonumber(stored[3])
  local function back(s, cap, cost)
    local l = tonumber(s)
    if not l then return cap end
    l = l + math.max(0, now - at) * cap / ${WINDOW_MS} + cost
    if l > cap then return cap end
    return l
  end
  local rl = rpm and back(stored[1], rpm, 1) or nil
  local tl = tpm and back(stored[2], tpm, tokens) or nil
  local full = 0
  if rpm then full = math.max(full, (rpm - rl) * ${WINDOW_MS} / rpm) end
  if tpm then full = math.max(full, (tpm - tl) * ${WINDOW_MS} / tpm) end
  redis.call('HSET', bk, 'r', rl and tostring(rl) or '', 't', tl and tostring(tl) or '', 'at', tostring(now))
  redis.call('PEXPIRE', bk, math.ceil(full) + 1000)
end
local uk = '${P}usage:' .. sid
-- 0 - x, not -x: Lua's -0 is sent as '-0', which HINCRBY refuses (and the script would stop half way).
if redis.call('EXISTS', uk) == 1 then
  count(uk, kid, label, model, ttl, '${FIELDS.requests}', -1, false)
  count(uk, kid, label, model, ttl, '${FIELDS.inputTokens}', 0 - tonumber(ARGV[8]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.cachedTokens}', 0 - tonumber(ARGV[9]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.outputTokens}', 0 - tonumber(ARGV[10]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.reasoningTokens}', 0 - tonumber(ARGV[11]), false)
  count(uk, kid, label, model, ttl, '${FIELDS.costUsd}', 0 - tonumber(ARGV[12]), true)
end
return 1`;

/** Counts a refusal. ARGV: sid, key id, key label, model, field, ttl ms. */
const REFUSE = `${COUNT}
redis.call('SADD', '${SESSIONS}', ARGV[1])
redis.call('PEXPIRE', '${SESSIONS}', tonumber(ARGV[6]))
count('${P}usage:' .. ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[6]), ARGV[5], 1, false)
return 1`;

/** Sets a session's limits. ARGV: sid, ttl ms, then name/value pairs ('' clears). Answers the hash. */
const SET_LIMITS = `
local lk = '${P}limits:' .. ARGV[1]
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', lk, ARGV[i]) else redis.call('HSET', lk, ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', lk, tonumber(ARGV[2]))
redis.call('SADD', '${SESSIONS}', ARGV[1])
redis.call('PEXPIRE', '${SESSIONS}', tonumber(ARGV[2]))
return redis.call('HGETALL', lk)`;

/** Every session's totals (no ARGV), or one's (ARGV: sid): {sid, hash, sid, hash, …}. */
const USAGE = `
local sessions = {}
if #ARGV > 0 then sessions = {ARGV[1]} else sessions = redis.call('SMEMBERS', '${SESSIONS}') end
local out = {}
for _, s in ipairs(sessions) do
  table.insert(out, s)
  table.insert(out, redis.call('HGETALL', '${P}usage:' .. s))
end
return out`;

/** Forgets one session's limiter state (ARGV: sid), or every session's. */
const RESET = `
local sessions = {}
if #ARGV > 0 then sessions = {ARGV[1]} else sessions = redis.call('SMEMBERS', '${SESSIONS}') end
for _, s in ipairs(sessions) do
  local index = '${P}buckets:' .. s
  for _, b in ipairs(redis.call('SMEMBERS', index)) do redis.call('DEL', b) end
  redis.call('DEL', index, '${P}usage:' .. s, '${P}limits:' .. s)
  redis.call('SREM', '${SESSIONS}', s)
end
return #sessions`;

const sid = (session: string | null) => session ?? "";
const keyId = (key: string | null) =>
  key === null ? "-" : createHash("sha256").update(key).digest("hex").slice(0, 24);
const text = (n: number | undefined) => (n === undefined ? "" : String(n));
const num = (s: string | undefined): number | undefined => (s === undefined || s === "" ? undefined : Number(s));

/** A hash answered as a flat [field, value, …] list, or as an object (the client's reply shapes vary). */
const fieldsOf = (reply: unknown): [string, string][] => {
  if (Array.isArray(reply)) {
    const out: [string, string][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([String(reply[i]), String(reply[i + 1])]);
    return out;
  }
  return Object.entries((reply ?? {}) as Record<string, string>);
};

const limitsOf = (reply: unknown): Limits | undefined => {
  const limits: Limits = {};
  for (const [name, value] of fieldsOf(reply))
    if (name === "rpm" || name === "tpm" || name === "budgetUsd") limits[name] = Number(value);
  return limits.rpm === undefined && limits.tpm === undefined && limits.budgetUsd === undefined ? undefined : limits;
};

export class RedisLimits implements LimitsStore {
  readonly anySessionLimits = true;

  constructor(private readonly redis: RedisLink) {}

  check(charge: LimitCharge): Promise<LimitVerdict | null> {
    return this.run(charge, false);
  }

  async charge(charge: LimitCharge): Promise<LimitVerdict> {
    return (await this.run(charge, true)) ?? NO_LIMITS;
  }

  private async run(c: LimitCharge, charge: boolean): Promise<LimitVerdict | null> {
    const u = c.usage;
    const reply = await this.redis.eval<string[]>(CHARGE, [
      sid(c.session),
      keyId(c.key),
      c.key === null ? "" : maskKey(c.key),
      c.model,
      text(c.limits.rpm),
      text(c.limits.tpm),
      text(c.limits.budgetUsd),
      c.tokens,
      charge ? "1" : "0",
      u ? u.input : c.tokens,
      u ? u.cached : 0,
      u ? u.output : 0,
      u ? u.reasoning : 0,
      String(c.costUsd),
      KEY_TTL_MS,
    ]);
    if (reply[0] === "none") return null;
    const [verdict, limit, retry, rLevel, tLevel, rpmText, tpmText, budgetText] = reply;
    const rpm = num(rpmText);
    const tpm = num(tpmText);
    const budgetUsd = num(budgetText);
    const limits: Limits = { rpm, tpm, budgetUsd };
    const rl = Number(rLevel);
    const tl = Number(tLevel);
    const kind = (limit === "" ? null : limit) as LimitKind | null;
    const refusedBy = kind === "requests" ? [rl, rpm!, 1] : kind === "tokens" ? [tl, tpm!, c.tokens] : null;
    return {
      verdict: verdict as LimitVerdict["verdict"],
      limit: kind,
      retryMs: retry === "" || retry === "inf" ? null : Number(retry),
      requests: rpm === undefined ? null : reportOf(rl, rpm),
      tokens: tpm === undefined ? null : reportOf(tl, tpm),
      used: refusedBy ? Math.min(refusedBy[1], Math.ceil(refusedBy[1] - refusedBy[0] - 1e-9)) : 0,
      requested: refusedBy ? refusedBy[2] : 0,
      limits,
    };
  }

  refund(c: LimitCharge, verdict: LimitVerdict): void {
    const u = c.usage;
    const args = [
      sid(c.session),
      keyId(c.key),
      c.key === null ? "" : maskKey(c.key),
      c.model,
      text(verdict.limits.rpm),
      text(verdict.limits.tpm),
      c.tokens,
      u ? u.input : c.tokens,
      u ? u.cached : 0,
      u ? u.output : 0,
      u ? u.reasoning : 0,
      c.costUsd,
      KEY_TTL_MS,
    ].map(String);
    this.redis.send((client) => client.eval(REFUND, { keys: [], arguments: args }));
  }

  refused(session: string | null, key: string | null, model: string, reason: RefusalReason): void {
    this.redis.send((client) =>
      client.eval(REFUSE, {
        keys: [],
        arguments: [
          sid(session),
          keyId(key),
          key === null ? "" : maskKey(key),
          model,
          REFUSED[reason],
          String(KEY_TTL_MS),
        ],
      }),
    );
  }

  async sessionLimits(session: string | null): Promise<Limits | undefined> {
    return limitsOf(await this.redis.run((c) => c.hGetAll(`${P}limits:${sid(session)}`)));
  }

  async setSessionLimits(session: string | null, patch: LimitsPatch): Promise<Limits> {
    const args: (string | number)[] = [sid(session), KEY_TTL_MS];
    for (const name of ["rpm", "tpm", "budgetUsd"] as const) {
      const value = patch[name];
      if (value !== undefined) args.push(name, value === null ? "" : String(value));
    }
    return limitsOf(await this.redis.eval(SET_LIMITS, args)) ?? {};
  }

  async usage(session: string | null | undefined): Promise<UsageReport> {
    const reply = await this.redis.eval<unknown[]>(USAGE, session === undefined ? [] : [sid(session)]);
    const rows = [];
    for (let i = 0; i + 1 < reply.length; i += 2) rows.push(rowOf(String(reply[i]), reply[i + 1]));
    rows.sort((a, b) => (a.session ?? "").localeCompare(b.session ?? ""));
    return usageReport(session ?? null, rows);
  }

  async reset(session: string | null | undefined): Promise<void> {
    await this.redis.eval(RESET, session === undefined ? [] : [sid(session)]);
  }
}

const FIELD_NAMES = new Map<string, keyof typeof FIELDS>(
  Object.entries(FIELDS).map(([name, field]) => [field, name as keyof typeof FIELDS]),
);
const REFUSED_NAMES = new Map(Object.entries(REFUSED).map(([reason, field]) => [field, reason as RefusalReason]));

/** Adds one hash field's value to totals. */
function addField(t: UsageTotals, field: string, value: string): void {
  const name = FIELD_NAMES.get(field);
  if (name) t[name] += Number(value);
  const reason = REFUSED_NAMES.get(field);
  if (reason) t.refused[reason] += Number(value);
}

/** A session's usage hash as the rows of a report. */
function rowOf(id: string, reply: unknown) {
  const total = emptyTotals();
  const keys = new Map<string, { label: string | null; totals: UsageTotals }>();
  const models = new Map<string, UsageTotals>();
  const keyRow = (kid: string) => {
    let k = keys.get(kid);
    if (!k) keys.set(kid, (k = { label: null, totals: emptyTotals() }));
    return k;
  };
  for (const [name, value] of fieldsOf(reply)) {
    const first = name.indexOf("|");
    const kind = name.slice(0, first);
    if (kind === "kl") {
      keyRow(name.slice(first + 1)).label = value === "" ? null : value;
      continue;
    }
    const last = name.lastIndexOf("|");
    const field = name.slice(last + 1);
    if (kind === "t") addField(total, field, value);
    else if (kind === "k") addField(keyRow(name.slice(first + 1, last)).totals, field, value);
    else if (kind === "m") {
      const model = name.slice(first + 1, last);
      let m = models.get(model);
      if (!m) models.set(model, (m = emptyTotals()));
      addField(m, field, value);
    }
  }
  return { session: id === "" ? null : id, total, keys, models };
}
