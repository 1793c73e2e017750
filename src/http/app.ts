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
  app.use(notFound);

  const router = new Router();
  router.get("/health", (ctx) => {
    ctx.body = { status: "ok" };
  });

  const check = deps.apiKey ? bearerChecker(deps.apiKey) : undefined;
  const v1 = new Router({ prefix: "/v1" });
  if (check) {
    v1.use(async (ctx, next) => {
      check(ctx.get("authorization") || undefined);
      await next();
    });
  }
  v1.post("/responses", createResponseHandler(deps));
  const stored = storedRoutes(deps);
  v1.post("/responses/compact", stored.compact);
  v1.post("/responses/input_tokens", stored.inputTokens);
  v1.get("/responses/:id", stored.retrieve);
  v1.delete("/responses/:id", stored.remove);
  v1.post("/responses/:id/cancel", stored.cancel);
  v1.get("/responses/:id/input_items", stored.inputItems);

  for (const r of [router, v1]) {
    app.use(r.routes());
    app.use(
      r.allowedMethods({
        throw: true,
        methodNotAllowed: () =>
          new ApiError({ status: 405, type: "invalid_request", code: "method_not_allowed", message: "Method not allowed on this path. POST /v1/responses creates a response; see the README for the other routes." }),
        notImplemented: () => new ApiError({ status: 501, type: "invalid_request", code: "not_implemented", message: "This HTTP method is not supported." }),
      }),
    );
  }
  return app;
}
