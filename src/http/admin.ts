/**
 * Admin routes under `/__mock/`, off the spec's paths, for clients in any
 * language: the journal, and the per-session controls (`use`, `enqueue`,
 * `reset`). Scoped by the `x-mock-session` header like everything else.
 */
import type { Router } from "@koa/router";
import type { Context, Middleware } from "koa";
import { ScenarioError } from "../scenario/parse.js";
import { ApiError } from "../spec/index.js";
import type { AppDeps } from "./app.js";
import { readJsonBody } from "./body.js";
import { sessionOfContext } from "./session.js";

const json = (ctx: Context, body: unknown, status = 200) => {
  ctx.status = status;
  ctx.body = JSON.stringify(body);
  ctx.type = "application/json";
};

/** A scenario problem as a 400 that lists every issue. */
function badScenario(err: unknown): never {
  if (err instanceof ScenarioError) {
    throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_scenario", param: err.issues[0]?.path ?? null, message: err.message });
  }
  if (err instanceof RangeError) throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_value", param: "times", message: err.message });
  throw err;
}

/** Adds the admin routes to `router`, each behind `guard` (the API key check, when the server has a key). */
export function addAdminRoutes(app: Router, deps: AppDeps, guard: Middleware): void {
  const router = {
    get: (path: string, handler: Middleware) => app.get(`/__mock${path}`, guard, handler),
    post: (path: string, handler: Middleware) => app.post(`/__mock${path}`, guard, handler),
    delete: (path: string, handler: Middleware) => app.delete(`/__mock${path}`, guard, handler),
  };

  router.get("/requests", (ctx) => {
    const session = ctx.query.session !== undefined ? String(ctx.query.session) : sessionOfContext(ctx) ?? undefined;
    json(ctx, { object: "list", data: deps.journal.list(session) });
  });

  router.delete("/requests", (ctx) => {
    deps.journal.clear(sessionOfContext(ctx) ?? undefined);
    ctx.status = 204;
  });

  // POST /__mock/scenarios {scenario, times?}: answer the session's next requests (or `times` of them) with it.
  router.post("/scenarios", async (ctx) => {
    const { json: body } = await readJsonBody(ctx.req, deps.bodyLimit);
    const b = (body ?? {}) as { scenario?: unknown; times?: unknown };
    try {
      const scenario = deps.controls.use(sessionOfContext(ctx), b.scenario as never, b.times as number | undefined, "POST /__mock/scenarios: scenario");
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
      throw new ApiError({ status: 400, type: "invalid_request", code: "invalid_value", param: "turns", message: "Send {\"turns\": [turn, …]} with at least one turn (the scenario file's turn format)." });
    }
    try {
      json(ctx, { pending: deps.controls.enqueue(sessionOfContext(ctx), turns, "POST /__mock/queue: turns") }, 201);
    } catch (err) {
      badScenario(err);
    }
  });

  // POST /__mock/reset: forget the session's journal entries and controls.
  router.post("/reset", (ctx) => {
    const session = sessionOfContext(ctx);
    deps.journal.clear(session);
    deps.controls.reset(session);
    ctx.status = 204;
  });
}
