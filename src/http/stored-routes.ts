/**
 * The routes around stored responses. Outside the Open Responses spec (which
 * has only create and compact), they follow OpenAI's API so OpenAI-style
 * clients work: retrieve (and replay as SSE), delete, cancel, input items,
 * input token counts — and the spec's compaction route.
 */
import type { Context } from "koa";
import { z } from "zod";
import { dialectHeaders, renderResponse, toJson, type Dialect } from "../dialect/index.js";
import {
  answerIds,
  compactConversation,
  countInputTokens,
  createRng,
  requestSeed,
  type Plan,
} from "../generate/index.js";
import {
  ApiError,
  CompactBody,
  CreateResponseBody,
  SpecCompactBody,
  SpecCreateResponseBody,
  type StreamEvent,
} from "../spec/index.js";
import { inputItemsUnavailable } from "../store/record-cost.js";
import { RepeatCounter } from "../session/repeats.js";
import { sessionStore } from "../session/session.js";
import { asListedItem, conversationOf, withItemIds } from "../store/conversation.js";
import { replayEvents, type StoredResponse } from "../store/response-store.js";
import { dialectHeader, fromHeaders, strictHeader } from "../turn/control-headers.js";
import { readObjectBody } from "./body.js";
import { journalEntry, sessionOfContext, type AppDeps } from "./deps.js";
import { followRun } from "./follow-run.js";
import { doneFrame, sseFrame, sseHeaders, writeFrame } from "./sse.js";
import { parseWithPolicy, type PolicySchemas } from "./validate.js";

const notFound = (id: string) =>
  new ApiError({
    status: 404,
    type: "not_found",
    code: "not_found",
    param: "response_id",
    message: `No response with id '${id.slice(0, 80)}' is stored. It may have been stored with store: false, deleted, or evicted (see --store-limit).`,
  });

/** A stored response, as the request's session sees it (a shared store fetches it first); 404 otherwise. */
async function stored(ctx: Context, deps: AppDeps, id: string) {
  if (deps.store.load) await deps.store.load(id);
  const record = sessionStore(deps.store, sessionOfContext(ctx)).get(id);
  if (!record) throw notFound(id);
  return record;
}

/** The dialect of a request to these routes: its `x-mock-dialect` header (checked), else the server's. */
const dialectOf = (ctx: Context, deps: AppDeps): Dialect => dialectHeader(fromHeaders(ctx.req.headers)) ?? deps.dialect;

/** A JSON answer in the request's dialect (its headers; a response object rendered with its plan). */
const json = (ctx: Context, deps: AppDeps, body: unknown, plan?: Plan) => {
  const dialect = dialectOf(ctx, deps);
  const isResponse = typeof body === "object" && body !== null && (body as { object?: unknown }).object === "response";
  ctx.status = 200;
  ctx.body = toJson(dialect, isResponse ? renderResponse(dialect, body as never, plan) : body);
  ctx.type = "application/json";
  const id = (body as { id?: unknown }).id;
  for (const [k, v] of Object.entries(
    dialectHeaders(dialect, typeof id === "string" ? id : `${ctx.method} ${ctx.url}`, 0),
  ))
    ctx.set(k, v);
};

const queryInt = (ctx: Context, name: string, min: number, max: number, fallback: number): number => {
  const raw = ctx.query[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^-?\d+$/.test(raw) || n < min || n > max) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_value",
      param: name,
      message: `Query parameter '${name}' must be an integer from ${min} to ${max}.`,
    });
  }
  return n;
};

/** Replays stored events as SSE in a dialect (all at once), then [DONE] where the dialect sends it. */
async function replay(
  ctx: Context,
  events: Iterable<StreamEvent>,
  startingAfter: number,
  dialect: Dialect,
  plan: Plan | undefined,
): Promise<void> {
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, sseHeaders(dialect));
  for (const e of events)
    if (e.sequence_number > startingAfter && !(await writeFrame(res, sseFrame(e, dialect, plan)))) return;
  const done = doneFrame(dialect);
  if (done === "" || (await writeFrame(res, done))) res.end();
}

/** A create body whose model and input may be left out (OpenAI's input token count), in both policies. */
const InputTokensBody: PolicySchemas<
  Omit<CreateResponseBody, "model" | "input"> & { model?: string; input?: CreateResponseBody["input"] }
> = {
  superset: CreateResponseBody.extend({
    model: z.string().optional(),
    input: CreateResponseBody.shape.input.optional(),
  }),
  strict: SpecCreateResponseBody.extend({
    model: z.string().optional(),
    input: SpecCreateResponseBody.shape.input.optional(),
  }),
};

const CompactBodies: PolicySchemas<CompactBody> = { superset: CompactBody, strict: SpecCompactBody };

/** Whether a request is read against the spec alone: its x-mock-strict, else the server's option. */
const strictOf = (ctx: Context, deps: AppDeps) => ({ strict: strictHeader(ctx) ?? deps.strict ?? false });

/** Whether a response is still being played (by some process). */
const isRunning = (record: StoredResponse) =>
  record.response.status === "queued" || record.response.status === "in_progress";

/**
 * Cancels the background run of a response, wherever it plays: here, or
 * (with a shared store) in the process that plays it, which writes the
 * cancelled record before it answers. Returns the response as it then stands.
 */
async function cancelRun(deps: AppDeps, id: string, record: StoredResponse): Promise<StoredResponse["response"]> {
  const run = deps.runs.get(id);
  if (run) {
    const response = run.cancel();
    await run.written();
    return response;
  }
  if (!deps.runBus || !deps.store.load || !isRunning(record)) return record.response;
  await deps.runBus.cancel(id);
  await deps.store.load(id);
  return deps.store.get(id)?.response ?? record.response;
}

/** How often a stream of a run played by another process looks at the shared store. */
const FOLLOW_POLL_MS = 50;

/** Waits until a run another process plays has ended (or the client left): the record as it then stands, or undefined once deleted. */
async function endedElsewhere(ctx: Context, deps: AppDeps, id: string): Promise<StoredResponse | undefined> {
  let record = deps.store.get(id);
  while (record && isRunning(record) && !ctx.res.destroyed) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
    await deps.store.load!(id);
    record = deps.store.get(id);
  }
  return record;
}

export function storedRoutes(deps: AppDeps) {
  return {
    async retrieve(ctx: Context) {
      const id = ctx.params.id as string;
      const record = await stored(ctx, deps, id);
      const run = deps.runs.get(id);
      if (ctx.query.stream === "true") {
        const after = queryInt(ctx, "starting_after", -1, Number.MAX_SAFE_INTEGER, -1);
        const dialect = dialectOf(ctx, deps);
        if (run && run.state === "running") return ((ctx.respond = false), followRun(ctx.res, run, after, dialect));
        // A run another process plays is replayed once it has ended there.
        const ended = deps.runBus && isRunning(record) ? await endedElsewhere(ctx, deps, id) : record;
        if (!ended) throw notFound(id);
        return replay(ctx, replayEvents(ended), after, dialect, ended.plan);
      }
      json(ctx, deps, record.response, record.plan);
    },

    async remove(ctx: Context) {
      const id = ctx.params.id as string;
      const record = await stored(ctx, deps, id);
      await cancelRun(deps, id, record);
      if (deps.store.remove) await deps.store.remove(id);
      else deps.store.delete(id);
      json(ctx, deps, { id, object: "response.deleted", deleted: true });
    },

    async cancel(ctx: Context) {
      const id = ctx.params.id as string;
      const record = await stored(ctx, deps, id);
      if (!record.response.background) {
        throw new ApiError({
          status: 400,
          type: "invalid_request",
          code: "invalid_request",
          param: "response_id",
          message: `Response '${id}' was not created with background: true; only background responses can be cancelled.`,
        });
      }
      json(ctx, deps, await cancelRun(deps, id, record), record.plan);
    },

    async inputItems(ctx: Context) {
      const id = ctx.params.id as string;
      const record = await stored(ctx, deps, id);
      if (record.inputOmitted) throw inputItemsUnavailable(id, record.inputOmitted);
      const limit = queryInt(ctx, "limit", 1, 100, 20);
      const order = ctx.query.order ?? "desc";
      if (order !== "asc" && order !== "desc") {
        throw new ApiError({
          status: 400,
          type: "invalid_request",
          code: "invalid_value",
          param: "order",
          message: "Query parameter 'order' must be 'asc' or 'desc'.",
        });
      }
      let items = record.input.map(asListedItem);
      if (order === "desc") items = items.reverse();
      const after = ctx.query.after;
      if (typeof after === "string" && after !== "") {
        const at = items.findIndex((i) => i.id === after);
        if (at < 0)
          throw new ApiError({
            status: 400,
            type: "invalid_request",
            code: "invalid_value",
            param: "after",
            message: `No input item with id '${after.slice(0, 80)}' in response '${id}'.`,
          });
        items = items.slice(at + 1);
      }
      const data = items.slice(0, limit);
      json(ctx, deps, {
        object: "list",
        data,
        first_id: (data[0]?.id as string | undefined) ?? null,
        last_id: (data.at(-1)?.id as string | undefined) ?? null,
        has_more: items.length > limit,
      });
    },

    async inputTokens(ctx: Context) {
      const policy = strictOf(ctx, deps);
      const request = parseWithPolicy(
        InputTokensBody,
        (await readObjectBody(ctx.req, deps, journalEntry(ctx))).json,
        policy,
      );
      if (deps.store.load && request.previous_response_id) await deps.store.load(request.previous_response_id);
      const items = conversationOf(sessionStore(deps.store, sessionOfContext(ctx)), request);
      json(ctx, deps, { object: "response.input_tokens", input_tokens: countInputTokens(request, items) });
    },

    async compact(ctx: Context) {
      const policy = strictOf(ctx, deps);
      const body = parseWithPolicy(
        CompactBodies,
        (await readObjectBody(ctx.req, deps, journalEntry(ctx))).json,
        policy,
      );
      const seed = requestSeed(deps.seed, body);
      const session = sessionOfContext(ctx);
      if (deps.store.load && body.previous_response_id) await deps.store.load(body.previous_response_id);
      const repeat = deps.repeats.next(`compact\u0000${RepeatCounter.key(seed, session)}`);
      const id = answerIds(createRng(seed), dialectOf(ctx, deps).ids, seed, session, repeat).response();
      const items = withItemIds(conversationOf(sessionStore(deps.store, session), body), id);
      json(
        ctx,
        deps,
        compactConversation(items, {
          id,
          createdAt: Math.floor(deps.wallClock.now() / 1000),
          instructions: body.instructions,
        }),
      );
    },
  };
}
