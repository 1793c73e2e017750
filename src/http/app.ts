/**
 * The Koa app factory. It never listens: tests can drive `app.callback()`,
 * and `startMockServer` owns the socket. All errors leave through one
 * middleware that renders the spec error object.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import Koa from "koa";
import { Router } from "@koa/router";
import { ApiError } from "../spec/index.js";
import type { Journal, JournalEntry } from "../journal/journal.js";
import { answerDialect } from "../turn/control-headers.js";
import { addAdminRoutes } from "./admin.js";
import { bearerChecker } from "./auth.js";
import { journalEntry, type AppDeps } from "./deps.js";
import { addInspectorPage } from "./inspector-page.js";
import { asApiError, endEntry, entryError, openEntry, renderedError, sendError, splitUrl } from "./raw.js";
import { modelRoutes } from "./models.js";
import { CHAT_ERROR_DIALECT, handleChatCompletion } from "./chat-completions.js";
import { handleCreateResponse } from "./responses.js";
import { storedRoutes } from "./stored-routes.js";

export type { AppDeps } from "./deps.js";

/** What answers `POST /v1/responses`: the proxy in proxy mode, the mock's own handler otherwise. */
const createHandler = (deps: AppDeps) =>
  deps.proxy
    ? deps.proxy.create
    : (req: IncomingMessage, res: ServerResponse, entry: JournalEntry | undefined) =>
        handleCreateResponse(req, res, deps, entry);

/** Whether a request is one the proxy passes on as it is (the routes around stored responses, with a Responses upstream). */
const isForwarded = (deps: AppDeps, method: string | undefined, path: string) =>
  deps.proxy?.forward != null && path.startsWith("/v1/responses/") && !(method === "POST" && path === "/v1/responses");

function errorMiddleware(deps: AppDeps): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const apiError = asApiError(err, deps.onError);
      if (ctx.headerSent || !ctx.writable) {
        ctx.res.destroy();
        return;
      }
      const { status, headers, body } = renderedError(apiError, answerDialect(ctx.req.headers, deps.dialect));
      ctx.respond = true;
      ctx.status = status;
      for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
      ctx.body = body;
      ctx.type = "application/json";
    }
  };
}

/** Keeps the error object an entry was answered with, for the inspector (its message, roughly, is what it costs). */
const keepError = (journal: Journal, entry: JournalEntry, error: ApiError) =>
  journal.keepAnswer(entry, { kind: "error", error }, 256 + error.message.length * 2);

/** Puts each request into the journal (admin routes aside) and records how it ended. */
function journalMiddleware(deps: AppDeps): Koa.Middleware {
  const { journal, clock, wallClock } = deps;
  return async (ctx, next) => {
    if (ctx.path === "/__mock" || ctx.path.startsWith("/__mock/")) return next();
    const started = clock.now();
    const { path, search } = splitUrl(ctx.url);
    const entry = openEntry(journal, ctx.req, wallClock.now(), path, search);
    ctx.state.journal = entry;
    try {
      await next();
      entry.status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      // A body Koa has yet to send is an answer; a handler that took the response over (SSE) ends it itself.
      if (ctx.respond !== false) entry.outcome ??= entry.status >= 400 ? "error" : "ok";
    } catch (err) {
      const error = asApiError(err);
      entryError(entry, error, ctx.res);
      keepError(journal, entry, error);
      throw err;
    } finally {
      // A handler that wrote the answer itself may have said when its last write began (RequestHandler).
      const sentAt: unknown = ctx.state.sentAt;
      endEntry(journal, entry, ctx.res, started, typeof sentAt === "number" ? sentAt : clock.now());
    }
  };
}

/** A router's routes under a prefix, for a message: `POST /v1/responses, GET/DELETE /v1/responses/{id}, …`. */
function routesUnder(router: Router, prefix: string): string {
  const byPath = new Map<string, Set<string>>();
  for (const layer of router.stack) {
    if (typeof layer.path !== "string" || !(layer.path === prefix || layer.path.startsWith(`${prefix}/`))) continue;
    const methods = byPath.get(layer.path) ?? new Set<string>();
    for (const m of layer.methods) if (m !== "HEAD") methods.add(m);
    byPath.set(layer.path, methods);
  }
  return [...byPath]
    .map(([path, methods]) => `${[...methods].join("/")} ${path.replace(/:(\w+)/g, "{$1}")}`)
    .join(", ");
}

/** Whether a path is `prefix` or under it. */
const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/**
 * What a 404 says: what is there instead. Admin routes that are off say so;
 * a `/v1/…` path that is not the Responses API or the models (chat
 * completions, embeddings, …) says that only those are served, and lists
 * their routes (as does an unknown path under `/v1/responses`); a Responses
 * path without `/v1` points at the base URL; anything else says where the API is.
 */
function notFoundMessage(method: string, path: string, admin: boolean, router: Router): string {
  const route = `${method.slice(0, 20)} ${path.slice(0, 80)}`;
  if (under(path, "/__mock")) {
    if (!admin)
      return `No route for ${route}: the admin routes (/__mock/…) are off, because this server was started with --no-admin (option admin: false).`;
    return `No admin route for ${route}. The admin routes are: ${routesUnder(router, "/__mock")}.`;
  }
  if (under(path, "/v1/responses"))
    return `No route for ${route}. The Responses API's routes are: ${routesUnder(router, "/v1/responses")}.`;
  if (under(path, "/v1")) {
    return `No route for ${route}: this server mocks the Responses API (${routesUnder(router, "/v1/responses")}), Chat Completions (POST /v1/chat/completions) and lists its models (${routesUnder(router, "/v1/models")}); other OpenAI APIs (completions, embeddings, …) are not served.`;
  }
  if (under(path, "/responses"))
    return `No route for ${route}. The API lives under /v1: did you mean ${method.slice(0, 20)} /v1${path.slice(0, 80)}? Give clients the base URL ending in /v1.`;
  return `No route for ${route}. The API lives under /v1 (POST /v1/responses); GET /health answers when the server is up${admin ? "; the admin routes are under /__mock/" : ""}.`;
}

/** Anything no route answered (and no handler took over) is a 404 error object that says what is there. */
const notFound =
  (admin: boolean, router: () => Router): Koa.Middleware =>
  async (ctx, next) => {
    await next();
    if (ctx.respond !== false && ctx.status === 404 && ctx.body == null) {
      throw new ApiError({
        status: 404,
        type: "not_found",
        code: "not_found",
        message: notFoundMessage(ctx.method, ctx.path, admin, router()),
      });
    }
  };

/**
 * The app as its callers use it: a Node request listener. Structural, so that
 * the published declarations need no Koa types (`@types/koa` is a devDependency).
 */
export interface RequestApp {
  callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

export function createApp(deps: AppDeps): RequestApp {
  const app = new Koa();
  app.silent = true;
  app.use(errorMiddleware(deps));
  app.use(journalMiddleware(deps));
  // The router is built below; the 404 reads its routes when it answers.
  app.use(notFound(deps.admin, () => router));

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
  const create = createHandler(deps);
  router.post("/v1/responses", guard, (ctx) => {
    ctx.respond = false;
    return create(ctx.req, ctx.res, journalEntry(ctx));
  });
  if (deps.proxy?.forward) {
    const forward = deps.proxy.forward;
    app.use(async (ctx, next) => {
      if (!isForwarded(deps, ctx.method, ctx.path)) return next();
      await guard(ctx, async () => {
        ctx.respond = false;
        await forward(ctx.req, ctx.res, journalEntry(ctx));
      });
    });
  }
  if (!deps.proxy) {
    // Chat Completions from the same scenarios; its errors, the key's too, are spelled as OpenAI spells them.
    router.post("/v1/chat/completions", async (ctx) => {
      ctx.respond = false;
      const entry = journalEntry(ctx);
      try {
        check?.(ctx.get("authorization") || undefined);
        ctx.state.sentAt = await handleChatCompletion(ctx.req, ctx.res, deps, entry);
      } catch (err) {
        const error = asApiError(err, deps.onError);
        if (entry) {
          entryError(entry, error, ctx.res);
          keepError(deps.journal, entry, error);
        }
        ctx.state.sentAt = deps.clock.now();
        sendError(ctx.res, error, CHAT_ERROR_DIALECT);
      }
    });
  }
  router.post("/v1/responses/compact", guard, stored.compact);
  router.post("/v1/responses/input_tokens", guard, stored.inputTokens);
  router.get("/v1/responses/:id", guard, stored.retrieve);
  router.delete("/v1/responses/:id", guard, stored.remove);
  router.post("/v1/responses/:id/cancel", guard, stored.cancel);
  router.get("/v1/responses/:id/input_items", guard, stored.inputItems);
  // What Codex CLI and model pickers ask first (Codex adds ?client_version=…, which changes nothing).
  const models = modelRoutes(deps);
  router.get("/v1/models", guard, models.list);
  router.get("/v1/models/:id", guard, models.retrieve);
  if (deps.admin) {
    addAdminRoutes(router, deps, guard);
    // The inspector's page and assets hold no data: served without the key (the data routes it reads need it).
    addInspectorPage(router);
  }

  app.use(router.routes());
  // No route took the request: a known path with another method is a 405 that lists the allowed ones; anything else is left to the 404.
  app.use((ctx) => {
    const allowed = new Set(router.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods));
    if (allowed.size === 0) return;
    const allow = [...allowed].join(", ");
    throw new ApiError({
      status: 405,
      type: "invalid_request",
      code: "method_not_allowed",
      message: `Method ${ctx.method.slice(0, 20)} is not allowed on ${ctx.path.slice(0, 80)}; this path takes ${allow}. See the README for the routes.`,
      headers: { allow },
    });
  });
  return app;
}

/**
 * The server's request listener: `POST /v1/responses`, the hot path, is
 * answered directly on Node's request and response (journal, key check,
 * handler, error object, exactly as the Koa route does); every other request
 * goes through the Koa app.
 */
export function createRequestListener(
  deps: AppDeps,
  app: RequestApp = createApp(deps),
): (req: IncomingMessage, res: ServerResponse) => void {
  const koa = app.callback();
  const check = deps.apiKey ? bearerChecker(deps.apiKey) : undefined;
  const create = createHandler(deps);
  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    entry: JournalEntry,
    started: number,
    handle = create,
  ) => {
    let sentAt: number | undefined;
    try {
      check?.(req.headers.authorization);
      const ended = await handle(req, res, entry);
      if (typeof ended === "number") sentAt = ended;
      entry.status = res.statusCode;
    } catch (err) {
      const error = asApiError(err, deps.onError);
      entryError(entry, error, res);
      keepError(deps.journal, entry, error);
      // Read before the write, as handlers do (RequestHandler): a client that times its retry-after from this 429 may
      // run before this process does again.
      sentAt = deps.clock.now();
      sendError(res, error, answerDialect(req.headers, deps.dialect));
    } finally {
      endEntry(deps.journal, entry, res, started, sentAt ?? deps.clock.now());
    }
  };
  const forward = deps.proxy?.forward;
  return (req, res) => {
    if (req.method === "POST" || forward) {
      const { path, search } = splitUrl(req.url);
      if (req.method === "POST" && path === "/v1/responses")
        return void answer(
          req,
          res,
          openEntry(deps.journal, req, deps.wallClock.now(), path, search),
          deps.clock.now(),
        );
      if (forward && isForwarded(deps, req.method, path))
        return void answer(
          req,
          res,
          openEntry(deps.journal, req, deps.wallClock.now(), path, search),
          deps.clock.now(),
          forward,
        );
    }
    return void koa(req, res);
  };
}
