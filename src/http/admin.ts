/**
 * Admin routes under `/__mock/`, off the spec's paths, for clients in any
 * language: the journal (paged, streamed), and the per-session controls
 * (`use`, `enqueue`, `reset`). A route's session is `?session=ID` or the
 * `x-mock-session` header. Without one, the journal routes and the reset act
 * on every session (like `mock.requests` and `mock.reset()`), and `use` and
 * `enqueue` on requests sent without a session.
 */
import { Readable } from "node:stream";
import type { Router } from "@koa/router";
import type { Context, Middleware } from "koa";
import type { JournalEntry } from "../journal/journal.js";
import { entryJson, pageJson } from "../journal/serialize.js";
import { ScenarioError } from "../scenario/parse.js";
import { scenarioToUse } from "../scenario/registry.js";
import { ApiError } from "../spec/index.js";
import { sessionOfContext, type AppDeps } from "./deps.js";
import { readJsonBody } from "./body.js";
import { addInspectorRoutes } from "./inspector-routes.js";
import { addLimitsRoutes } from "./limits-routes.js";
import { profilesJson } from "./models.js";
import { sessionOf } from "../session/session.js";

const json = (ctx: Context, body: unknown, status = 200) => {
  ctx.status = status;
  ctx.body = JSON.stringify(body);
  ctx.type = "application/json";
};

/** The most entries one page of the journal holds, and how many it holds unless told. */
export const MAX_PAGE = 1000;
export const DEFAULT_PAGE = 100;

const badQuery = (param: string, message: string) =>
  new ApiError({ status: 400, type: "invalid_request", code: "invalid_value", param, message });

/** A query parameter given at most once, or undefined. */
function single(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw badQuery(name, `Give '${name}' at most once.`);
  return value;
}

/** A non-negative integer query parameter, or undefined. */
function count(ctx: Context, name: string, what: string): number | undefined {
  const value = single(ctx, name);
  if (value === undefined) return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw badQuery(name, `'${name}' must be ${what}, got '${value}'.`);
  return n;
}

/**
 * The session an admin route acts on: `?session=ID`, else the `x-mock-session`
 * header, else null (none given).
 */
export function adminSession(ctx: Context): string | null {
  const query = single(ctx, "session");
  if (query === undefined) return sessionOfContext(ctx);
  if (query === "")
    throw badQuery("session", "'session' must be 1-200 visible ASCII characters (no spaces), got an empty value.");
  try {
    return sessionOf(query);
  } catch {
    throw badQuery("session", "'session' must be 1-200 visible ASCII characters (no spaces).");
  }
}

/** Answers with JSON written piece by piece (Koa streams it with backpressure): never one giant string. */
function streamJson(ctx: Context, pieces: Iterable<string>): void {
  ctx.status = 200;
  ctx.type = "application/json";
  ctx.body = Readable.from(pieces, { objectMode: false });
}

/** A scenario problem as a 400 that lists every issue. */
function badScenario(err: unknown): never {
  if (err instanceof ScenarioError) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_scenario",
      param: err.issues[0]?.path ?? null,
      message: err.message,
    });
  }
  if (err instanceof RangeError)
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_value",
      param: "times",
      message: err.message,
    });
  throw err;
}

/** Adds the admin routes to `router`, each behind `guard` (the API key check, when the server has a key). */
export function addAdminRoutes(app: Router, deps: AppDeps, guard: Middleware): void {
  const router = {
    get: (path: string, handler: Middleware) => app.get(`/__mock${path}`, guard, handler),
    post: (path: string, handler: Middleware) => app.post(`/__mock${path}`, guard, handler),
    delete: (path: string, handler: Middleware) => app.delete(`/__mock${path}`, guard, handler),
  };

  // GET /__mock/requests?limit&after&order&session: one page of the journal, streamed.
  router.get("/requests", async (ctx) => {
    const session = adminSession(ctx) ?? undefined;
    const limit = count(ctx, "limit", `an integer from 1 to ${MAX_PAGE}`) ?? DEFAULT_PAGE;
    if (limit < 1 || limit > MAX_PAGE)
      throw badQuery("limit", `'limit' must be an integer from 1 to ${MAX_PAGE}, got '${limit}'.`);
    const after = count(ctx, "after", "the seq of a journal entry (an integer, 0 or more)");
    const order = single(ctx, "order") ?? "asc";
    if (order !== "asc" && order !== "desc")
      throw badQuery("order", `'order' must be 'asc' (oldest first) or 'desc' (newest first), got '${order}'.`);
    // With a shared store, every process's entries (journal/shared.ts); otherwise this process's.
    const page = deps.sharedJournal
      ? await deps.sharedJournal.page({ session, after, limit, order })
      : deps.journal.page({ session, after, limit, order });
    streamJson(ctx, pageJson(page.data, page.hasMore));
  });

  /** The seq a route names. */
  const seqOf = (ctx: Context): number => {
    const raw = ctx.params.seq as string;
    const seq = /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(seq))
      throw badQuery("seq", `A journal entry is named by its seq, an integer (0 or more); got '${raw}'.`);
    return seq;
  };
  /** `entry` if it is there and in the route's session (if it names one); a 404 otherwise. */
  const found = (ctx: Context, seq: number, entry: JournalEntry | undefined): JournalEntry => {
    const session = adminSession(ctx);
    if (!entry || (session !== null && entry.session !== session)) {
      throw new ApiError({
        status: 404,
        type: "not_found",
        code: "not_found",
        param: "seq",
        message: `No journal entry with seq ${seq}${session !== null ? ` in session '${session}'` : ""} (it may have been dropped or cleared).`,
      });
    }
    return entry;
  };
  /** The entry a route names by its seq, in this process's journal (the one that keeps answers and timelines). */
  const entryOf = (ctx: Context): JournalEntry => {
    const seq = seqOf(ctx);
    return found(ctx, seq, deps.journal.get(seq));
  };

  // The inspector's routes: the journal live, and one entry's answer, check, scenario and curl.
  addInspectorRoutes(router.get, deps, { entryOf, count, session: adminSession, badQuery });

  // GET /__mock/requests/{seq}: one entry, whole (with a shared store, from every process's entries).
  router.get("/requests/:seq", async (ctx) => {
    const seq = seqOf(ctx);
    streamJson(
      ctx,
      entryJson(found(ctx, seq, deps.sharedJournal ? await deps.sharedJournal.get(seq) : deps.journal.get(seq))),
    );
  });

  // DELETE /__mock/requests: the session's entries, or every entry.
  router.delete("/requests", async (ctx) => {
    const session = adminSession(ctx) ?? undefined;
    await deps.sharedJournal?.clear(session);
    deps.journal.clear(session);
    ctx.status = 204;
  });

  // POST /__mock/scenarios {scenario, times?}: answer the session's next requests (or `times` of them) with it.
  router.post("/scenarios", async (ctx) => {
    const { json: body } = await readJsonBody(ctx.req, deps.bodyLimit);
    const b = (body ?? {}) as { scenario?: unknown; times?: unknown };
    try {
      const scenario = await deps.controls.use(
        adminSession(ctx),
        scenarioToUse(deps.registry, b.scenario as never, "POST /__mock/scenarios: scenario"),
        b.times as number | undefined,
        "POST /__mock/scenarios: scenario",
      );
      json(ctx, { name: scenario.name, times: b.times ?? null }, 201);
    } catch (err) {
      badScenario(err);
    }
  });

  // POST /__mock/queue {turns: [...]}: one-shot answers, in order.
  router.post("/queue", async (ctx) => {
    const { json: body } = await readJsonBody(ctx.req, deps.bodyLimit);
    const turns = (body as { turns?: unknown })?.turns;
    if (!Array.isArray(turns) || turns.length === 0) {
      throw new ApiError({
        status: 400,
        type: "invalid_request",
        code: "invalid_value",
        param: "turns",
        message: 'Send {"turns": [turn, …]} with at least one turn (the scenario file\'s turn format).',
      });
    }
    try {
      json(ctx, { pending: await deps.controls.enqueue(adminSession(ctx), turns, "POST /__mock/queue: turns") }, 201);
    } catch (err) {
      badScenario(err);
    }
  });

  // GET /__mock/verify: every expectation of the session (or of every session) and its status; ok is false when one is unmet.
  router.get("/verify", (ctx) => {
    const session = single(ctx, "session") === undefined && !ctx.get("x-mock-session") ? undefined : adminSession(ctx);
    const expectations = deps.expectations.reports(session);
    json(ctx, { ok: expectations.every((e) => e.status !== "unmet"), expectations });
  });

  // GET /__mock/profiles: the latency profiles (built-in and the service file's), each in the service file's shape.
  router.get("/profiles", (ctx) => json(ctx, profilesJson(deps.service)));

  // POST /__mock/reset: forget the session's journal entries, controls and limiter state (buckets, spend, usage, limits), or everything (like mock.reset()).
  router.post("/reset", async (ctx) => {
    const session = adminSession(ctx) ?? undefined;
    await deps.sharedJournal?.clear(session);
    deps.journal.clear(session);
    await deps.controls.reset(session);
    await deps.limits.reset(session);
    deps.expectations.reset(session);
    ctx.status = 204;
  });

  // GET/POST /__mock/limits, GET /__mock/usage: the limiter's (src/turn/limits.ts).
  addLimitsRoutes(router, deps, adminSession);
}
