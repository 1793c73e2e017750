/**
 * The limiter's admin routes (issue 26): `GET`/`POST /__mock/limits` (a
 * session's own rpm, tpm and budgetUsd) and `GET /__mock/usage` (usage
 * totals), scoped like every admin route by `?session=ID` or the
 * `x-mock-session` header.
 */
import type { Context, Middleware } from "koa";
import { limitsView, LimitsError, parseLimitsPatch } from "../service/limits.js";
import { ApiError } from "../spec/index.js";
import { readJsonBody } from "./body.js";
import type { AppDeps } from "./deps.js";

const json = (ctx: Context, body: unknown) => {
  ctx.status = 200;
  ctx.body = JSON.stringify(body);
  ctx.type = "application/json";
};

/** A bad limits body as a 400 naming its first problem and listing every one. */
function badLimits(err: unknown): never {
  if (err instanceof LimitsError)
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_value",
      param: err.issues[0]?.path === "(body)" ? null : (err.issues[0]?.path ?? null),
      message: err.message,
    });
  throw err;
}

export function addLimitsRoutes(
  router: { get(path: string, handler: Middleware): void; post(path: string, handler: Middleware): void },
  deps: AppDeps,
  sessionOf: (ctx: Context) => string | null,
): void {
  // GET /__mock/limits: the session's own limits (null: not set) and the server's defaults.
  router.get("/limits", async (ctx) => {
    const session = sessionOf(ctx);
    json(ctx, limitsView(session, await deps.limits.sessionLimits(session), deps.service));
  });

  // POST /__mock/limits {rpm?, tpm?, budgetUsd?}: set the session's (null clears one; a field left out stays).
  router.post("/limits", async (ctx) => {
    const session = sessionOf(ctx);
    const { json: body } = await readJsonBody(ctx.req, deps.bodyLimit);
    let patch;
    try {
      patch = parseLimitsPatch(body, "POST /__mock/limits");
    } catch (err) {
      badLimits(err);
    }
    json(ctx, limitsView(session, await deps.limits.setSessionLimits(session, patch), deps.service));
  });

  // GET /__mock/usage: the session's totals, or without a session every session's.
  router.get("/usage", async (ctx) => {
    json(ctx, await deps.limits.usage(sessionOf(ctx) ?? undefined));
  });
}
