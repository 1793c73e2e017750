/**
 * `GET /v1/models` and `GET /v1/models/{id}` in OpenAI's shapes, and
 * `GET /__mock/profiles`: what the service offers. With a service file that
 * lists models, those; otherwise the default model id and every scenario a
 * request can name as its model (the registry's names). The listing never
 * restricts `POST /v1/responses`, which answers any model.
 */
import type { Context } from "koa";
import { dialectHeaders } from "../dialect/index.js";
import { DEFAULT_MODEL_ID } from "../service/parse.js";
import type { LatencyProfile, Service } from "../service/service.js";
import type { ScenarioRegistry } from "../scenario/registry.js";
import { ApiError } from "../spec/index.js";
import { dialectHeader, fromHeaders } from "../turn/control-headers.js";
import { nearestName } from "../util/nearest-name.js";
import type { AppDeps } from "./deps.js";

/** One model as OpenAI's `/v1/models` shows it. */
export interface ModelObject {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The models a server lists: the service file's, or (none listed) the default id and the scenario names, in that order. */
export function listedModels(service: Service, registry: ScenarioRegistry): ModelObject[] {
  if (service.models.size > 0)
    return [...service.models.values()].map((m) => ({
      id: m.id,
      object: "model",
      created: m.created,
      owned_by: m.ownedBy,
    }));
  const ids = new Set([DEFAULT_MODEL_ID, ...registry.byName.keys()]);
  return [...ids].map((id) => ({
    id,
    object: "model",
    created: service.defaults.created,
    owned_by: service.defaults.ownedBy,
  }));
}

/** A profile as `GET /__mock/profiles` shows it: the service file's shape, with its name and whether it is the default. */
export function profileJson(profile: LatencyProfile, isDefault: boolean) {
  return {
    name: profile.name,
    description: profile.description,
    ttftMs: { median: profile.ttft.medianMs, p99: profile.ttft.p99Ms },
    itlMs: { median: profile.itl.medianMs, p99: profile.itl.p99Ms },
    slowdown: { k: profile.slowdown.k, capacity: profile.slowdown.capacity },
    default: isDefault,
  };
}

/** Every profile of a service, built-in ones first; the default is the server's (`--profile`, the file's), else `instant`. */
export const profilesJson = (service: Service) => {
  const fallback = service.profile ?? "instant";
  return {
    object: "list",
    data: [...service.profiles.values()].map((p) => profileJson(p, p.name === fallback)),
  };
};

/** The 404 for a model the server does not list: OpenAI's `model_not_found` (a `not_found` in the spec's dialect). */
export function modelNotFound(id: string, known: readonly string[]): ApiError {
  const near = nearestName(id, known);
  return new ApiError({
    status: 404,
    type: "not_found",
    code: "model_not_found",
    param: "model",
    message: `The model '${id.slice(0, 200)}' does not exist.${near !== undefined ? ` Did you mean '${near}'?` : ""} GET /v1/models lists the models this server serves.`,
  });
}

/** The handlers of `GET /v1/models` and `GET /v1/models/{id}`. */
export function modelRoutes(deps: AppDeps) {
  const models = listedModels(deps.service, deps.registry);
  const byId = new Map(models.map((m) => [m.id, m]));
  const list = JSON.stringify({ object: "list", data: models });
  const answer = (ctx: Context, body: string, key: string) => {
    const dialect = dialectHeader(fromHeaders(ctx.req.headers)) ?? deps.dialect;
    ctx.status = 200;
    ctx.body = body;
    ctx.type = "application/json";
    for (const [k, v] of Object.entries(dialectHeaders(dialect, key, 0))) ctx.set(k, v);
  };
  return {
    list: (ctx: Context) => answer(ctx, list, `${ctx.method} ${ctx.url}`),
    retrieve: (ctx: Context) => {
      const id = String(ctx.params.id);
      const model = byId.get(id);
      if (!model) throw modelNotFound(id, [...byId.keys()]);
      answer(ctx, JSON.stringify(model), `${ctx.method} ${ctx.url}`);
    },
  };
}
