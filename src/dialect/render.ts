/**
 * The renderers at the edge: a spec event, response or error in, the
 * dialect's wire form out. Pure: no I/O, no clock. They read the dialect's
 * description and the answer's plan (for what the request asked, which a
 * dialect may echo). The spec dialect renders every value as it is, with no
 * copy, so the default costs nothing.
 */
import { hashString } from "../generate/hash.js";
import type { Plan } from "../generate/plan.js";
import type { ApiError, ErrorBody, OutputItem, ResponseResource, StreamEvent } from "../spec/index.js";
import type { DialectDescription } from "./dialect.js";
import { checkEventName, deltaJson, eventJson, responseJson, type DeltaCache } from "./json.js";
export { deltaCache, type DeltaCache } from "./json.js";

/** A dialect ready to render: its description, and whether it is the spec (nothing to change). */
export interface Dialect extends DialectDescription {
  /** True when every renderer is the identity (the spec dialect). */
  readonly identity: boolean;
  /** Matches the float fields in serialised JSON (null when there are none). */
  readonly floatPattern: RegExp | null;
}

/** Prepares a description for rendering. */
export function compileDialect(description: DialectDescription): Dialect {
  const r = description.response;
  const identity =
    description.sse.done &&
    Object.keys(description.eventNames).length === 0 &&
    !description.encryptedContentOnAdded &&
    r.reasoningDefault === null &&
    r.reasoningEffortDefault === null &&
    Object.keys(r.reasoningSummaryEcho).length === 0 &&
    r.verbosityDefault === undefined &&
    !r.outputTextLogprobs &&
    Object.keys(r.echoFields).length === 0 &&
    !r.echoJsonSchema &&
    r.serviceTierInProgress === undefined &&
    r.floatFields.length === 0;
  const floatPattern =
    r.floatFields.length > 0 ? new RegExp(`"(${r.floatFields.join("|")})":(-?\\d+)(?=[,}])`, "g") : null;
  return { ...description, identity, floatPattern };
}

// ---- responses and items ----------------------------------------------------

type Json = Record<string, unknown>;

const isOutputText = (part: unknown): part is Json =>
  typeof part === "object" && part !== null && (part as Json).type === "output_text";

/** An output_text part with `logprobs` (an empty list unless the spec part has some). */
function renderPart(d: Dialect, part: unknown): unknown {
  if (!d.response.outputTextLogprobs || !isOutputText(part) || part.logprobs !== undefined) return part;
  return { ...part, logprobs: [] };
}

/** An output item as the dialect sends it; `added` for the copy on `output_item.added`. */
export function renderItem(d: Dialect, item: OutputItem | null, plan: Plan | undefined, added = false): unknown {
  if (d.identity || item === null) return item;
  const it = item as unknown as Json;
  if (
    it.type === "message" &&
    Array.isArray(it.content) &&
    d.response.outputTextLogprobs &&
    it.content.some((p) => isOutputText(p) && p.logprobs === undefined)
  ) {
    return { ...it, content: it.content.map((p) => renderPart(d, p)) };
  }
  if (it.type === "reasoning" && added && d.encryptedContentOnAdded && it.encrypted_content === undefined && plan) {
    const step = plan.items.find((s) => s.kind === "reasoning" && s.id === it.id) as
      { encrypted_content?: string } | undefined;
    if (step?.encrypted_content !== undefined) return { ...it, encrypted_content: step.encrypted_content };
  }
  return item;
}

function renderReasoning(d: Dialect, reasoning: ResponseResource["reasoning"]): unknown {
  const r = d.response;
  if (reasoning === null) return r.reasoningDefault === null ? null : { ...r.reasoningDefault };
  const summary = reasoning.summary === null ? null : (r.reasoningSummaryEcho[reasoning.summary] ?? reasoning.summary);
  return { effort: reasoning.effort ?? r.reasoningEffortDefault, summary };
}

function renderText(d: Dialect, text: ResponseResource["text"], plan: Plan | undefined): unknown {
  const r = d.response;
  let out: Json = text as unknown as Json;
  const sent = plan?.echo.format as Json | undefined;
  if (r.echoJsonSchema && text.format.type === "json_schema" && sent?.type === "json_schema") {
    const format = text.format as Json;
    out = {
      ...out,
      format: {
        type: "json_schema",
        description: format.description ?? null,
        name: format.name,
        schema: sent.schema ?? null,
        strict: format.strict,
      },
    };
  }
  if (r.verbosityDefault !== undefined && out.verbosity === undefined) out = { ...out, verbosity: r.verbosityDefault };
  return out;
}

/**
 * The defaults api.openai.com fills in when it echoes a hosted tool (recorded
 * responses): what it sent is kept, what it left out is added.
 */
const HOSTED_DEFAULTS: Record<string, Json> = {
  web_search: {
    filters: null,
    search_context_size: "medium",
    user_location: { type: "approximate", city: null, country: "US", region: null, timezone: null },
  },
  web_search_2025_08_26: {
    filters: null,
    search_context_size: "medium",
    user_location: { type: "approximate", city: null, country: "US", region: null, timezone: null },
  },
  web_search_preview: {
    search_context_size: "medium",
    user_location: { type: "approximate", city: null, country: "US", region: null, timezone: null },
  },
  file_search: { filters: null, max_num_results: 20, ranking_options: { ranker: "auto", score_threshold: 0 } },
  image_generation: {
    background: "auto",
    moderation: "auto",
    output_compression: 100,
    output_format: "png",
    partial_images: 0,
    quality: "auto",
    size: "auto",
  },
  mcp: { allowed_tools: null, headers: null, require_approval: "always", server_description: null },
};

/** A hosted tool as the dialect echoes it: with its defaults, and a web search's partial user_location completed. */
function hostedToolEcho(tool: Json): Json {
  const defaults = HOSTED_DEFAULTS[tool.type as string];
  if (!defaults) return tool;
  const out: Json = { ...tool };
  for (const key in defaults) if (out[key] === undefined) out[key] = defaults[key];
  const location = out.user_location as Json | null | undefined;
  if (location && typeof location === "object" && String(tool.type).startsWith("web_search")) {
    out.user_location = {
      type: "approximate",
      city: location.city ?? null,
      country: location.country ?? null,
      region: location.region ?? null,
      timezone: location.timezone ?? null,
    };
  }
  return out;
}

/** A response object as the dialect sends it (a snapshot in an event, a JSON body, a stored response). */
export function renderResponse(d: Dialect, response: ResponseResource, plan: Plan | undefined): unknown {
  if (d.identity) return response;
  const r = d.response;
  const out: Json = { ...response };
  out.reasoning = renderReasoning(d, response.reasoning);
  out.text = renderText(d, response.text, plan);
  if (r.hostedToolDefaults)
    out.tools = response.tools.map((tool) =>
      tool.type === "function" ? tool : hostedToolEcho(tool as unknown as Json),
    );
  if (r.outputTextLogprobs) out.output = response.output.map((item) => renderItem(d, item, plan));
  for (const key in r.echoFields) {
    const sent = plan?.echo[key as keyof Plan["echo"]];
    out[key] = sent === undefined ? r.echoFields[key] : sent;
  }
  const tier = plan?.echo.service_tier;
  if (
    r.serviceTierInProgress !== undefined &&
    (response.status === "queued" || response.status === "in_progress") &&
    (tier == null || tier === "auto")
  ) {
    out.service_tier = r.serviceTierInProgress;
  }
  return out;
}

// ---- events ---------------------------------------------------------------

/** A stream event as the dialect sends it. */
export function renderEvent(d: Dialect, event: StreamEvent, plan: Plan | undefined): unknown {
  if (d.identity) return event;
  const e = event as unknown as Json;
  const renamed = d.eventNames[event.type];
  let out: Json = renamed === undefined ? e : { ...e, type: renamed };
  if (
    e.response !== undefined &&
    typeof e.response === "object" &&
    e.response !== null &&
    "object" in (e.response as Json)
  ) {
    out = { ...out, response: renderResponse(d, e.response as ResponseResource, plan) };
  } else if (event.type === "response.output_item.added" || event.type === "response.output_item.done") {
    const item = renderItem(d, e.item as OutputItem | null, plan, event.type === "response.output_item.added");
    if (item !== e.item) out = { ...out, item };
  } else if (
    (event.type === "response.content_part.added" || event.type === "response.content_part.done") &&
    isOutputText(e.part)
  ) {
    const part = renderPart(d, e.part);
    if (part !== e.part) out = { ...out, part };
  }
  return out;
}

/** The dialect's float fields written as decimals (`1.0`) in JSON text that holds a response. */
function withFloats(d: Dialect, text: string): string {
  return d.floatPattern === null || !text.includes('"object":"response"')
    ? text
    : text.replace(d.floatPattern, '"$1":$2.0');
}

/** JSON text of a rendered value, with the dialect's float fields written as decimals (`1.0`). */
export function toJson(d: Dialect, value: unknown): string {
  return withFloats(d, JSON.stringify(value));
}

/**
 * One SSE message for an event, in the dialect. The event name may not hold
 * a line break. The JSON is JSON.stringify's, built by json.ts (which reuses
 * what the answer's earlier snapshots serialised of its base response). A
 * stream passes its own `deltas`: its deltas are then written from the
 * template of their run, message and all.
 */
export function eventFrame(d: Dialect, event: StreamEvent, plan: Plan | undefined, deltas?: DeltaCache): string {
  const rendered = renderEvent(d, event, plan) as { type: string; delta?: unknown };
  // A delta's whole message from its run's template (a delta's text never holds a response, so no floats).
  if (deltas !== undefined && typeof rendered.delta === "string") {
    const frame = deltaJson(rendered, deltas, true);
    if (frame !== null) return frame;
  }
  const type = rendered.type;
  checkEventName(type);
  return `event: ${type}\ndata: ${withFloats(d, eventJson(rendered, plan?.base))}\n\n`;
}

/** The SSE message that ends a stream in the dialects that send it (`dialect.sse.done`). */
export const DONE_FRAME = "data: [DONE]\n\n";

/** What ends a stream in a dialect: `data: [DONE]`, or nothing. */
export const doneFrame = (d: Dialect): string => (d.sse.done ? DONE_FRAME : "");

/** The JSON body of a response, in the dialect. */
export function responseBody(d: Dialect, response: ResponseResource, plan: Plan | undefined): string {
  return withFloats(d, responseJson(renderResponse(d, response, plan) as object, plan?.base));
}

// ---- errors ---------------------------------------------------------------

/** The `error` object of an error, in the dialect (`{type, code, param, message}` for the spec). */
export function renderErrorObject(
  d: Dialect,
  error: ApiError,
): { type: string; code: string | null; param: string | null; message: string } {
  if (d.identity) return { type: error.type, code: error.code, param: error.param, message: error.message };
  const spelling = d.errors;
  let type = spelling.types[error.type] ?? error.type;
  let code = error.code !== null && Object.hasOwn(spelling.codes, error.code) ? spelling.codes[error.code] : error.code;
  let message = error.message;
  if (error.code === "server_is_overloaded" && spelling.overloaded) ({ type, message } = spelling.overloaded);
  if (error.bound && spelling.bounds && error.param) {
    const b = spelling.bounds;
    const name = error.param.replace(/^.*[.\]]/, "");
    const kind = b.decimalParams.includes(name) || !Number.isInteger(error.bound.limit) ? "decimal" : "integer";
    code = b[error.bound.side][kind];
    message = b.message(error.param, error.bound.side, kind, error.bound.limit, error.bound.got);
  }
  if (error.length && spelling.lengths && error.param) {
    code = spelling.lengths.above[error.length.kind];
    message = spelling.lengths.message(error.param, error.length.kind, error.length.limit, error.length.got);
  }
  if (error.status === 429 && type === "requests" && (code === null || code === "too_many_requests"))
    code = "rate_limit_exceeded";
  if (error.rateLimit && spelling.rateLimit) {
    const spelled = spelling.rateLimit(error.rateLimit);
    return { message: spelled.message, type: spelled.type, param: error.param, code: spelled.code };
  }
  return { message, type, param: error.param, code } as {
    type: string;
    code: string | null;
    param: string | null;
    message: string;
  };
}

/** The status, headers and body of an HTTP error answer, in the dialect. */
export function renderError(
  d: Dialect,
  error: ApiError,
): { status: number; headers: Record<string, string>; body: ErrorBody } {
  const headers =
    error.status === 429 && d.errors.rateLimitHeaders && !error.rateLimit
      ? { ...d.errors.rateLimitHeaders, ...error.headers }
      : { ...error.headers };
  return { status: error.status, headers, body: { error: renderErrorObject(d, error) } };
}

// ---- headers ----------------------------------------------------------------

/**
 * The dialect's headers on an answer: a request id derived from `key` (the
 * response id, or a per-server serial when there is none), the time spent.
 */
export function dialectHeaders(d: Dialect, key: string, elapsedMs: number): Record<string, string> {
  const h = d.headers;
  if (!h) return {};
  const out: Record<string, string> = { ...h.constant };
  if (h.requestId) out[h.requestId.name] = `${h.requestId.prefix}${hashString(key, 32, "0123456789abcdef")}`;
  if (h.processingMs) out[h.processingMs] = String(Math.max(0, Math.round(elapsedMs)));
  return out;
}
