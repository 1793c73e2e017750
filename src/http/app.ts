/**
 * The Koa app factory. It never listens: tests can drive `app.callback()`,
 * and `startMockServer` owns the socket. All errors leave through one
 * middleware that renders the spec error object.
 */
import Koa from "koa";
import { Router } from "@koa/router";
import { ApiError } from "../spec/index.js";
import type { ScenarioRegistry } from "../scenario/registry.js";
import type { ResponseStore } from "../store/response-store.js";
import type { Journal, JournalEntry } from "../journal/journal.js";
import type { SessionControls } from "../session/controls.js";
import { addAdminRoutes } from "./admin.js";
import type { Runs } from "./runs.js";
import { storedRoutes } from "./stored-routes.js";
import type { Clock } from "../timing/clock.js";
import type { TimingProfile } from "../timing/profile.js";
import { bearerChecker } from "./auth.js";
import { createResponseHandler } from "./responses.js";

export interface AppDeps {
  /** The scenarios this server answers with, and its default. */
  registry: ScenarioRegistry;
  /** Stored responses (previous_response_id, retrieve, input items). */
  store: ResponseStore;
  /** Background runs in progress. */
  runs: Runs;
  /** Every request received, for tests to assert on. */
  journal: Journal;
  /** Per-session `use()` and `enqueue()` controls. */
  controls: SessionControls;
  /** Serve the `/__mock/` admin routes (journal and controls). */
  admin: boolean;
  seed: number;
  apiKey?: string;
  bodyLimit: number;
  /** Where `created_at`/`completed_at` come from (epoch ms); tests pin it. */
  wallClock: Pick<Clock, "now">;
  /** Timers and monotonic time for pacing streams. */
  clock: Clock;
  /** The server's timing profile (scenarios and request headers override it). */
  timing?: Partial<TimingProfile>;
  /** Called with errors that are the server's fault (500s). */
  onError?: (error: unknown) => void;
}

function errorMiddleware(onError: AppDeps["onError"]): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const apiError =
        err instanceof ApiError
          ? err
          : new ApiError({ status: 500, type: "server_error", code: "internal_error", message: `Internal error in openresponses-mock: ${(err as Error)?.message ?? String(err)}` });
      if (!(err instanceof ApiError)) onError?.(err);
      if (ctx.headerSent || !ctx.writable) {
        ctx.res.destroy();
        return;
      }
      ctx.respond = true;
      ctx.status = apiError.status;
      for (const [k, v] of Object.entries(apiError.headers)) ctx.set(k, v);
      if (apiError.status === 413) ctx.set("connection", "close");
      ctx.body = JSON.stringify(apiError.toBody());
      ctx.type = "application/json";
    }
  };
}

/** Puts each request into the journal (admin routes aside) and records how it ended. */
function journalMiddleware(journal: Journal, now: () => number): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path.startsWith("/__mock/")) return next();
    const entry = journal.open({
      at: now(),
      session: ctx.get("x-mock-session") || null,
      method: ctx.method,
      path: ctx.path,
      query: { ...(ctx.query as Record<string, string | string[]>) },
      headers: ctx.headers as Record<string, string | string[]>,
    });
    ctx.state.journal = entry;
    try {
      await next();
      entry.status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
    } catch (err) {
      entry.status = err instanceof ApiError ? err.status : 500;
      throw err;
    }
  };
}

/** The journal entry of the request being handled. */
export const journalEntry = (ctx: Koa.Context): JournalEntry | undefined => ctx.state.journal as JournalEntry | undefined;

/** Anything no route answered (and no handler took over) is a 404 error object. */
const notFound: Koa.Middleware = async (ctx, next) => {
  await next();
  if (ctx.respond !== false && ctx.status === 404 && ctx.body == null) {
    throw new ApiError({
      status: 404,
      type: "not_found",
      code: "not_found",
      message: `No route for ${ctx.method} ${ctx.path}. The API lives under /v1 (POST /v1/responses).`,
    });
  }
};

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(errorMiddleware(deps.onError));
  app.use(journalMiddleware(deps.journal, () => deps.wallClock.now()));
  app.use(notFound);

  // One router for every route: each request is matched once.
  const router = new Router();
  router.get("/health", (ctx) => {
    ctx.body = { status: "ok" };
  });

  const check = deps.apiKey ? bearerChecker(deps.apiKey) : undefined;
  const guard: Koa.Middleware = check
    ? (ctx, next) => {
        check(ctx.get("authorization") || undefined);
        return next();
      }
    : (_ctx, next) => next();
  const stored = storedRoutes(deps);
  router.post("/v1/responses", guard, createResponseHandler(deps));
  router.post("/v1/responses/compact", guard, stored.compact);
  router.post("/v1/responses/input_tokens", guard, stored.inputTokens);
  router.get("/v1/responses/:id", guard, stored.retrieve);
  router.delete("/v1/responses/:id", guard, stored.remove);
  router.post("/v1/responses/:id/cancel", guard, stored.cancel);
  router.get("/v1/responses/:id/input_items", guard, stored.inputItems);
  if (deps.admin) addAdminRoutes(router, deps, guard);

  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () =>
        new ApiError({ status: 405, type: "invalid_request", code: "method_not_allowed", message: "Method not allowed on this path. POST /v1/responses creates a response; see the README for the other routes." }),
      notImplemented: () => new ApiError({ status: 501, type: "invalid_request", code: "not_implemented", message: "This HTTP method is not supported." }),
    }),
  );
  return app;
}
