/**
 * The inspector's routes under `/__mock/requests`, behind the same guard as
 * every admin route: the journal as a live stream, and for one entry its
 * answer on a timeline, its conformance result, the scenario that plays it
 * and the curl command that sends it again. The logic lives in
 * src/inspector/; these handlers only read the request and write the answer.
 * Documented for contributors in docs/inspector-api.md.
 */
import type { Context, Middleware } from "koa";
import { formatJson } from "../record/writer.js";
import { validateScenario } from "../scenario/parse.js";
import { ApiError } from "../spec/index.js";
import { answerView } from "../inspector/answer.js";
import { checkEntry } from "../inspector/check.js";
import { curlOf } from "../inspector/curl.js";
import { DEFAULT_BACKLOG, MAX_BACKLOG, streamJournal } from "../inspector/journal-stream.js";
import { NotSavable, recordedAnswer, savedScenario } from "../inspector/scenario.js";
import type { JournalEntry } from "../journal/journal.js";
import type { AppDeps } from "./deps.js";
import { answerDialect } from "../turn/control-headers.js";
import { conversationOf } from "../store/conversation.js";
import { sessionStore } from "../session/session.js";
import { parseCreateRequest } from "./validate.js";

type Route = (path: string, handler: Middleware) => void;

const json = (ctx: Context, body: unknown, status = 200) => {
  ctx.status = status;
  ctx.body = JSON.stringify(body);
  ctx.type = "application/json";
};

const conflict = (message: string, code = "not_savable") =>
  new ApiError({ status: 409, type: "invalid_request", code, param: "seq", message });

/** Whether a request said it had a body (a length above 0, or a chunked one). */
const hadBody = (entry: JournalEntry) => {
  const length = entry.headers["content-length"];
  return (typeof length === "string" && length !== "0") || entry.headers["transfer-encoding"] !== undefined;
};

/** Runs `fn`, turning NotSavable into the error object a client gets. */
function savable<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof NotSavable)
      throw new ApiError({
        status: err.status,
        type: err.status === 404 ? "not_found" : "invalid_request",
        code: "not_savable",
        param: "seq",
        message: err.message,
      });
    throw err;
  }
}

export interface InspectorHelpers {
  /** The entry a route names (`:seq`, in the route's session): a 404 error object when there is none. */
  entryOf(ctx: Context): JournalEntry;
  /** A non-negative integer query parameter, or undefined (a 400 naming it when it is not one). */
  count(ctx: Context, name: string, what: string): number | undefined;
  /** The session an admin route acts on, or null. */
  session(ctx: Context): string | null;
  badQuery(param: string, message: string): ApiError;
}

/** Adds the inspector's routes (`get` puts each behind the admin guard). */
export function addInspectorRoutes(get: Route, deps: AppDeps, helpers: InspectorHelpers): void {
  const { journal } = deps;
  const dialectOf = (entry: JournalEntry) => answerDialect(entry.headers, deps.dialect);
  const viewOf = (entry: JournalEntry) => answerView(entry, journal.answer(entry), dialectOf(entry));

  // GET /__mock/requests/stream?session&backlog: the journal, live (registered before /requests/:seq).
  get("/requests/stream", (ctx) => {
    const session = helpers.session(ctx) ?? undefined;
    const backlog = helpers.count(ctx, "backlog", `an integer from 0 to ${MAX_BACKLOG}`) ?? DEFAULT_BACKLOG;
    if (backlog > MAX_BACKLOG)
      throw helpers.badQuery("backlog", `'backlog' must be an integer from 0 to ${MAX_BACKLOG}, got '${backlog}'.`);
    if (ctx.method === "HEAD") {
      // The router answers HEAD with the GET route: the headers a GET gets, and no stream held open.
      ctx.set("cache-control", "no-cache, no-transform");
      ctx.type = "text/event-stream; charset=utf-8";
      ctx.status = 200;
      return;
    }
    ctx.respond = false;
    streamJournal(ctx.res, { journal, clock: deps.clock, session, backlog });
  });

  // GET /__mock/requests/{seq}/answer: the answer on its timeline.
  get("/requests/:seq/answer", (ctx) => json(ctx, viewOf(helpers.entryOf(ctx))));

  // GET /__mock/requests/{seq}/check: the conformance result of the answer.
  get("/requests/:seq/check", (ctx) => {
    const entry = helpers.entryOf(ctx);
    json(ctx, checkEntry(entry, journal.answer(entry), dialectOf(entry)));
  });

  // GET /__mock/requests/{seq}/scenario: a scenario file that plays the answer.
  get("/requests/:seq/scenario", (ctx) => {
    const entry = helpers.entryOf(ctx);
    const view = viewOf(entry);
    // What cannot be saved at all (in progress, an error, a cut answer) is said first.
    savable(() => recordedAnswer(entry, view));
    if (entry.body === null || entry.truncated) {
      throw conflict(
        `Request ${entry.seq}'s body was ${entry.truncated ? "too big to keep whole" : "not kept"}: its scenario cannot be matched to it. Raise --journal-bytes to keep bigger bodies.`,
      );
    }
    let request;
    let items;
    try {
      request = parseCreateRequest(entry.body as Record<string, unknown>, { strict: false });
    } catch {
      throw conflict(`Request ${entry.seq} is not a valid POST /v1/responses body: there is no answer to save.`);
    }
    try {
      items = conversationOf(sessionStore(deps.store, entry.session), request);
    } catch {
      throw conflict(
        `Request ${entry.seq} continues a response (previous_response_id '${request.previous_response_id}') the store no longer holds: its conversation cannot be rebuilt.`,
      );
    }
    const saved = savable(() =>
      savedScenario(entry, view, request, items, new Date(deps.wallClock.now()).toISOString()),
    );
    const text = `${formatJson(saved.scenario)}\n`;
    // The file must load as it is sent; a failure here is a bug of the inspector, a 500 that says so.
    validateScenario(JSON.parse(text), `${saved.name}.json`);
    ctx.status = 200;
    ctx.type = "application/json";
    ctx.set("content-disposition", `attachment; filename="${saved.name}.json"`);
    if (saved.notes.length > 0)
      ctx.set(
        "x-mock-notes",
        saved.notes
          .join("; ")
          .replace(/[^\x20-\x7e]/g, "?")
          .slice(0, 2000),
      );
    ctx.body = text;
  });

  // GET /__mock/requests/{seq}/curl: what sends the request again.
  get("/requests/:seq/curl", (ctx) => {
    const entry = helpers.entryOf(ctx);
    if (entry.truncated)
      throw conflict(
        `Request ${entry.seq}'s body was too big to keep whole (${entry.bodyBytes} bytes): it cannot be sent again from the journal.`,
        "body_truncated",
      );
    if (entry.method === "WS")
      throw conflict(
        `Request ${entry.seq} is a WebSocket turn: send its body again as a response.create message on a WebSocket.`,
        "not_http",
      );
    if (entry.rawBody === null && hadBody(entry))
      throw conflict(
        `Request ${entry.seq}'s body was not kept (it was not JSON, or the journal keeps no bodies with --journal-bytes 0): it cannot be sent again from the journal.`,
        "body_not_kept",
      );
    json(ctx, curlOf(entry, { seed: deps.seed }));
  });
}
