/**
 * A `POST /v1/responses` as every HTTP transport reads it (the mock's own
 * handler, the proxy's Chat Completions translation): the body (into the
 * journal), the `x-mock-*` control headers (checked first: `x-mock-strict`
 * says how to read the body), the request validated, its dialect and
 * session. What comes back is the turn's input, built here as one object
 * literal: a spread copy that then gains the turn's keys would get a V8 map
 * of its own per request once optimised (docs/decisions.md, "No spread copy
 * that gains a key where every answer passes").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JournalEntry } from "../journal/journal.js";
import { sessionOf, sessionStore } from "../session/session.js";
import { apiKeyOf } from "../service/service.js";
import { fromHeaders, readControls } from "../turn/control-headers.js";
import type { Transport, TurnInput } from "../turn/turn.js";
import { readObjectBody } from "./body.js";
import type { AppDeps } from "./deps.js";
import { onClientGone } from "./raw.js";
import { parseCreateRequest } from "./validate.js";

/**
 * Reads and validates a create request; throws the ApiError (a 4xx) of a bad
 * body or header. Its delivery is a background run, a stream or a JSON body,
 * as the request asks. With `res`, the turn can tell when its client goes
 * away (`onGone`).
 */
export async function readCreateRequest(
  req: IncomingMessage,
  deps: AppDeps,
  entry: JournalEntry | undefined,
  transport: Transport,
  res?: ServerResponse,
): Promise<{ json: Record<string, unknown>; input: TurnInput }> {
  const started = deps.clock.now();
  const { json } = await readObjectBody(req, deps, entry);
  const headers = fromHeaders(req.headers);
  const controls = readControls(headers, deps.service.profiles);
  const request = parseCreateRequest(json, { strict: controls.strict ?? deps.strict ?? false });
  const session = sessionOf(headers.get("x-mock-session") || undefined);
  const lookup = sessionStore(deps.store, session);
  const dialect = controls.dialect ?? deps.dialect;
  const delivery = request.background ? "background" : request.stream ? "stream" : "json";
  const key = apiKeyOf(req.headers.authorization);
  const onGone = res === undefined ? undefined : (fn: () => void) => onClientGone(res, fn);
  return {
    json,
    input: { request, controls, dialect, session, key, lookup, entry, started, transport, delivery, onGone },
  };
}
