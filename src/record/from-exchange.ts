/**
 * A proxied exchange, as a turn of a scenario file that `serve --scenarios`
 * replays. One file holds one conversation (its first user message,
 * instructions and tools); its turn N answers the request that already had
 * N assistant turns, so a multi-turn tool loop replays turn by turn. A turn
 * holds the items, text, arguments and outcome as the upstream sent them, the
 * chunking as recorded (`chunk.sizes`) and the timing as the turn's
 * latency, its mean gap between events and a delay before each item, marked
 * `recorded: true` so that timing given to the replaying server overrides it.
 *
 * What a scenario cannot say is left out and listed in `notes` (e.g. output
 * item types it has no step for). Usage is not kept: a replay counts tokens
 * the mock's way. Pure: no I/O, no clock.
 */
import { hashString } from "../generate/hash.js";
import { assistantTurns, contentText, isModelItem, lastUserText } from "../scenario/conversation.js";
import { HTTP_ERROR_STATUSES, SCENARIO_NAME, Step } from "../scenario/schema.js";
import type { CreateResponseBody, ItemParam } from "../spec/index.js";

type Json = Record<string, unknown>;

/** One event as it reached the client, and when (ms since the request reached the proxy). */
export interface RecordedEvent {
  at: number;
  event: Json & { type: string };
}

/** How the upstream answered. */
export type RecordedAnswer =
  /** A stream: its events, as sent to the client (a cut stream ends with the proxy's `error` and `response.failed`). */
  | { kind: "stream"; events: RecordedEvent[] }
  /** A JSON response object, and when it arrived. */
  | { kind: "json"; response: Json; at: number }
  /** An HTTP error before any answer. */
  | {
      kind: "http_error";
      status: number;
      error: { type?: unknown; code?: unknown; message?: unknown; param?: unknown };
      retryAfter?: string;
    };

export interface Exchange {
  /** The request as the client sent it (validated). */
  request: CreateResponseBody;
  /** The whole conversation it continues: the previous_response_id chain, then its input. */
  items: readonly ItemParam[];
  answer: RecordedAnswer;
  /** Which upstream answered, as it may be shown (no credentials): `chat http://…/v1`. */
  upstream: string;
  /** When, as an ISO date (written in the description). */
  recordedAt: string;
}

/** The first user message of a conversation (its text). */
function firstUserText(items: readonly ItemParam[]): string {
  for (const item of items) {
    const it = item as { type?: string; role?: string; content?: unknown };
    if ((it.type === "message" || it.type === undefined) && it.role === "user") return contentText(it.content);
  }
  return "";
}

const functionTools = (request: CreateResponseBody): string[] =>
  (request.tools ?? []).filter((t) => t.type === "function").map((t) => (t as { name: string }).name);

/**
 * The name of a conversation's scenario (and its file): the first words of
 * its first user message, then a hash of what makes it the same conversation
 * (that message, the instructions, the function tools' names).
 */
export function conversationName(request: CreateResponseBody, items: readonly ItemParam[]): string {
  const first = firstUserText(items);
  const key = JSON.stringify([first, request.instructions ?? "", functionTools(request).sort()]);
  const words = first
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  let slug = words;
  if (slug.length > 40) {
    slug = slug.slice(0, 40);
    const dash = slug.lastIndexOf("-");
    if (dash > 10) slug = slug.slice(0, dash); // whole words only
  }
  slug = slug.replace(/-+$/, "") || "conversation";
  const name = `${slug}-${hashString(key, 8, "0123456789abcdef")}`;
  return SCENARIO_NAME.test(name) ? name : `conversation-${hashString(key, 8, "0123456789abcdef")}`;
}

/** A regular expression (JavaScript, `u` flag) that matches exactly this text. */
export function exactPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The most of a user message a match rule spells out; a longer one is matched by its beginning. */
const MATCH_CHARS = 2000;

/** The match rule of a conversation: its last user messages (one per recorded turn), and its first function tool. */
export function matchRule(lastTexts: readonly string[], request: CreateResponseBody): Json {
  const alternatives = [...new Set(lastTexts)].map((t) =>
    t.length > MATCH_CHARS ? `${exactPattern(t.slice(0, MATCH_CHARS))}[\\s\\S]*` : exactPattern(t),
  );
  const match: Json = {
    matches: alternatives.length === 1 ? `^${alternatives[0]}$` : `^(?:${alternatives.join("|")})$`,
  };
  const tool = functionTools(request)[0];
  if (tool !== undefined) match.tool = tool;
  return match;
}

// ---- the turn ---------------------------------------------------------------------

/** Lengths in characters (code points) of each delta. */
const sizesOf = (deltas: readonly string[]) => deltas.map((d) => [...d].length);

/** The chunking that replays these deltas: `chars` when they are even, `sizes` otherwise; none when they do not spell the text. */
export function chunkingOf(deltas: readonly string[], text: string): Json | undefined {
  if (deltas.length === 0 || deltas.join("") !== text || deltas.some((d) => d === "")) return undefined;
  const sizes = sizesOf(deltas);
  const first = sizes[0];
  if (sizes.every((s, i) => (i < sizes.length - 1 ? s === first : s <= first))) return { chars: first };
  return { sizes };
}

const DELTA_TYPES: Record<string, "text" | "refusal" | "arguments" | "summary" | "reasoning"> = {
  "response.output_text.delta": "text",
  "response.refusal.delta": "refusal",
  "response.function_call_arguments.delta": "arguments",
  "response.reasoning_summary_text.delta": "summary",
  "response.reasoning.delta": "reasoning",
  "response.reasoning_text.delta": "reasoning",
};

/** Per output item, its deltas by kind and part, and the index of its first event. */
interface ItemTrace {
  firstEvent: number;
  deltas: Map<string, string[]>;
}

function traceItems(events: readonly RecordedEvent[]): Map<number, ItemTrace> {
  const traces = new Map<number, ItemTrace>();
  events.forEach(({ event }, i) => {
    const index = event.output_index;
    if (typeof index !== "number") return;
    let trace = traces.get(index);
    if (!trace) traces.set(index, (trace = { firstEvent: i, deltas: new Map() }));
    const kind = DELTA_TYPES[event.type];
    if (kind && typeof event.delta === "string") {
      const part = kind === "summary" ? event.summary_index : kind === "arguments" ? 0 : event.content_index;
      const key = `${kind}:${typeof part === "number" ? part : 0}`;
      const list = trace.deltas.get(key) ?? [];
      list.push(event.delta);
      trace.deltas.set(key, list);
    }
  });
  return traces;
}

/** A step's chunking from the deltas of one of its parts (none when the part has none or they do not spell it). */
function chunkFor(trace: ItemTrace | undefined, key: string, text: string): Json | undefined {
  const deltas = trace?.deltas.get(key);
  return deltas ? chunkingOf(deltas, text) : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? (v as Json[]).filter((x) => x !== null && typeof x === "object") : [];
/** Drops the keys whose value is undefined (a step is strict about what it holds, not about what it lacks). */
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * A hosted-tool call of the recording as its scenario step (without its id,
 * as other steps), or undefined for an item type that has none. The replay
 * plays it in the dialect it is served in; what `include` left out of the
 * recording is left out of the step too.
 */
function hostedStepOf(item: Json): Json | undefined {
  switch (item.type) {
    case "web_search_call": {
      const action = (item.action ?? {}) as Json;
      const sources = list(action.sources)
        .map((s) => str(s.url))
        .filter((u) => u !== undefined);
      return defined({
        type: "web_search_call",
        query: str(action.query),
        sources: sources.length > 0 ? sources : undefined,
      });
    }
    case "code_interpreter_call":
      return defined({
        type: "code_interpreter_call",
        code: str(item.code) ?? "",
        container_id: str(item.container_id),
        outputs: Array.isArray(item.outputs)
          ? list(item.outputs).map((o) =>
              o.type === "logs" ? { type: "logs", logs: o.logs } : { type: o.type, url: o.url },
            )
          : undefined,
      });
    case "image_generation_call":
      return defined({
        type: "image_generation_call",
        result: str(item.result),
        revised_prompt: str(item.revised_prompt),
      });
    case "file_search_call":
      return defined({
        type: "file_search_call",
        queries: Array.isArray(item.queries) ? item.queries : [],
        results: Array.isArray(item.results)
          ? list(item.results).map((r) =>
              defined({
                file_id: r.file_id,
                filename: r.filename,
                score: r.score,
                text: r.text,
                attributes: r.attributes ?? undefined,
              }),
            )
          : undefined,
      });
    case "mcp_list_tools":
      return {
        type: "mcp_list_tools",
        server_label: item.server_label,
        tools: list(item.tools).map((t) =>
          defined({
            name: t.name,
            description: str(t.description),
            input_schema: t.input_schema ?? undefined,
            annotations: t.annotations ?? undefined,
          }),
        ),
      };
    case "mcp_call":
      return defined({
        type: "mcp_call",
        server_label: item.server_label,
        name: item.name,
        arguments: str(item.arguments),
        output: item.error == null ? (str(item.output) ?? "") : undefined,
        error:
          item.error == null ? undefined : typeof item.error === "string" ? item.error : JSON.stringify(item.error),
        approval_request_id: str(item.approval_request_id),
      });
    case "mcp_approval_request":
      return defined({
        type: "mcp_approval_request",
        server_label: item.server_label,
        name: item.name,
        arguments: str(item.arguments),
      });
    default:
      return undefined;
  }
}

/** Output items as steps. Item types a scenario has no step for are left out, and named in `notes`. */
function stepsOf(
  output: readonly Json[],
  traces: Map<number, ItemTrace>,
  notes: string[],
): { steps: Json[]; firstEvents: (number | null)[] } {
  const steps: Json[] = [];
  const firstEvents: (number | null)[] = [];
  output.forEach((item, index) => {
    const trace = traces.get(index);
    let step: Json | null = null;
    switch (item.type) {
      case "message": {
        const parts = Array.isArray(item.content) ? (item.content as Json[]) : [];
        const texts = parts.filter((p) => p.type === "output_text");
        const refusals = parts.filter((p) => p.type === "refusal");
        if (texts.length > 1 || refusals.length > 1)
          notes.push(
            `output[${index}]: a message with ${parts.length} parts is replayed as one text part and one refusal part`,
          );
        step = { type: "message" };
        if (texts.length > 0 || refusals.length === 0) {
          const text = texts.map((p) => String(p.text ?? "")).join("");
          step.text = text;
          const annotations = texts
            .flatMap((p) => (Array.isArray(p.annotations) ? (p.annotations as Json[]) : []))
            .filter((a) => a.type === "url_citation" || a.type === "file_citation");
          if (annotations.length > 0) {
            step.annotations = annotations.map((a) =>
              a.type === "file_citation"
                ? { type: "file_citation", file_id: a.file_id, filename: a.filename, index: a.index }
                : {
                    type: "url_citation",
                    url: a.url,
                    title: a.title,
                    start_index: a.start_index,
                    end_index: a.end_index,
                  },
            );
          }
          const chunk = texts.length === 1 ? chunkFor(trace, `text:${parts.indexOf(texts[0])}`, text) : undefined;
          if (chunk) step.chunk = chunk;
        }
        if (refusals.length > 0) {
          step.refusal = refusals.map((p) => String(p.refusal ?? "")).join("");
          if (!step.chunk && texts.length === 0) {
            const chunk = chunkFor(trace, `refusal:${parts.indexOf(refusals[0])}`, step.refusal as string);
            if (chunk) step.chunk = chunk;
          }
        }
        if (item.phase === "commentary" || item.phase === "final_answer") step.phase = item.phase;
        break;
      }
      case "function_call": {
        const name = String(item.name ?? "");
        if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
          notes.push(
            `output[${index}]: a function_call named '${name.slice(0, 64)}' (not a valid function name) is left out`,
          );
          break;
        }
        const args = typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {});
        step = { type: "function_call", name, arguments: args };
        if (typeof item.call_id === "string" && item.call_id.length >= 1 && item.call_id.length <= 64)
          step.call_id = item.call_id;
        const chunk = chunkFor(trace, "arguments:0", args);
        if (chunk) step.chunk = chunk;
        break;
      }
      case "reasoning": {
        const summary = (Array.isArray(item.summary) ? (item.summary as Json[]) : []).map((p) => String(p.text ?? ""));
        const content = (Array.isArray(item.content) ? (item.content as Json[]) : [])
          .filter((p) => p.type === "reasoning_text")
          .map((p) => String(p.text ?? ""));
        step = { type: "reasoning", summary };
        if (content.length > 0) step.text = content.join("");
        if (typeof item.encrypted_content === "string") step.encrypted_content = item.encrypted_content;
        // One chunking serves the whole step: it is kept when the step streams one part.
        if (summary.length + content.length === 1) {
          const chunk =
            summary.length === 1
              ? chunkFor(trace, "summary:0", summary[0])
              : chunkFor(trace, "reasoning:0", content[0]);
          if (chunk) step.chunk = chunk;
        }
        break;
      }
      default: {
        const hosted = hostedStepOf(item);
        if (hosted === undefined) {
          notes.push(`output[${index}]: a '${String(item.type)}' item has no scenario step and is left out`);
          break;
        }
        const checked = Step.safeParse(hosted);
        if (checked.success) step = hosted;
        else
          notes.push(
            `output[${index}]: a '${String(item.type)}' item does not fit its scenario step (${checked.error.issues[0].path.join(".") || "step"}: ${checked.error.issues[0].message}) and is left out`,
          );
      }
    }
    if (step) {
      steps.push(step);
      firstEvents.push(trace?.firstEvent ?? null);
    }
  });
  return { steps, firstEvents };
}

/**
 * The timing of a recorded stream: the latency (to its first event), the
 * mean gap between events within items, and a delay before each step that
 * makes its first event come when it came. With per-event gaps known only
 * on average, a replay matches each item's start and the stream's pace, not
 * every gap.
 */
export function timingOf(
  events: readonly RecordedEvent[],
  firstEvents: readonly (number | null)[],
): { timing: Json; delays: number[] } {
  if (events.length === 0) return { timing: { latencyMs: 0, chunkMs: 0 }, delays: firstEvents.map(() => 0) };
  const latencyMs = Math.max(0, Math.round(events[0].at));
  const starts = new Set(firstEvents.filter((i): i is number => i !== null));
  let sum = 0;
  let n = 0;
  for (let i = 1; i < events.length; i++) {
    if (starts.has(i)) continue;
    sum += Math.max(0, events[i].at - events[i - 1].at);
    n++;
  }
  const chunkMs = n > 0 ? Math.round((sum / n) * 100) / 100 : 0;
  let extra = 0;
  const delays = firstEvents.map((i) => {
    if (i === null) return 0;
    const planned = latencyMs + i * chunkMs + extra;
    const delay = Math.max(0, Math.round(events[i].at - planned));
    extra += delay;
    return delay;
  });
  return { timing: { latencyMs, chunkMs }, delays };
}

/** The HTTP error statuses a scenario may script; another status is written as the nearest one of its class. */
function scriptableStatus(status: number): number {
  if ((HTTP_ERROR_STATUSES as readonly number[]).includes(status)) return status;
  if (status >= 500) return status === 504 ? 503 : 500;
  return 400;
}

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** The end of a turn from the response's terminal state. */
function endOf(response: Json | null, errorEvent: Json | null): Json {
  const status = response?.status;
  if (status === "incomplete")
    return {
      type: "incomplete",
      reason: text((response!.incomplete_details as Json | null)?.reason) ?? "max_output_tokens",
    };
  if (status === "failed" || (response === null && errorEvent)) {
    const e = ((response?.error as Json | null) ?? (errorEvent?.error as Json | null) ?? {}) as Json;
    const error: Json = {};
    if (text(e.type)) error.type = e.type;
    if (typeof e.code === "string" || e.code === null) error.code = e.code;
    if (text(e.message)) error.message = e.message;
    return { type: "failed", error };
  }
  return { type: "completed" };
}

/** A recorded exchange as a scenario turn, the model the upstream reported, and what could not be kept. */
export function turnOf(exchange: Exchange): { turn: Json; model: string | null; notes: string[] } {
  const notes: string[] = [];
  const answer = exchange.answer;
  if (answer.kind === "http_error") {
    const e = answer.error ?? {};
    const error: Json = {};
    if (text(e.type)) error.type = e.type;
    if (typeof e.code === "string" || e.code === null) error.code = e.code;
    if (text(e.message)) error.message = e.message;
    if (typeof e.param === "string" || e.param === null) error.param = e.param;
    const status = scriptableStatus(answer.status);
    if (status !== answer.status)
      notes.push(
        `HTTP ${answer.status} is replayed as ${status} (the statuses a scenario may script: ${HTTP_ERROR_STATUSES.join(", ")})`,
      );
    const end: Json = { type: "http_error", status, error };
    if (answer.retryAfter && /^[\t\x20-\x7e]*$/.test(answer.retryAfter))
      end.headers = { "retry-after": answer.retryAfter };
    return { turn: { steps: [], end }, model: null, notes };
  }
  const events = answer.kind === "stream" ? answer.events : [];
  const terminal = [...events]
    .reverse()
    .find(
      (e) =>
        e.event.type === "response.completed" ||
        e.event.type === "response.incomplete" ||
        e.event.type === "response.failed",
    );
  const response = answer.kind === "json" ? answer.response : ((terminal?.event.response as Json | undefined) ?? null);
  const errorEvent = events.find((e) => e.event.type === "error")?.event ?? null;
  const output = Array.isArray(response?.output) ? (response!.output as Json[]) : outputFromEvents(events);
  const { steps, firstEvents } = stepsOf(output, traceItems(events), notes);
  const turn: Json = { steps };
  if (answer.kind === "stream") {
    const { timing, delays } = timingOf(events, firstEvents);
    delays.forEach((d, i) => {
      if (d > 0) steps[i] = { type: steps[i].type, delayMs: d, ...steps[i] };
    });
    turn.timing = { recorded: true, ...timing };
  } else turn.timing = { recorded: true, latencyMs: Math.max(0, Math.round(answer.at)) };
  turn.end = endOf(response, errorEvent);
  const model = typeof response?.model === "string" ? response.model : null;
  return { turn, model, notes };
}

/** The items of a stream that never sent a terminal response: the last copy of each item it sent. */
function outputFromEvents(events: readonly RecordedEvent[]): Json[] {
  const items: Json[] = [];
  for (const { event } of events) {
    if (
      (event.type === "response.output_item.added" || event.type === "response.output_item.done") &&
      typeof event.output_index === "number" &&
      event.item &&
      typeof event.item === "object"
    ) {
      items[event.output_index] = event.item as Json;
    }
  }
  return items.filter(Boolean);
}

// ---- the file ------------------------------------------------------------------------

/**
 * The last user message each turn of a conversation answered, turn 0 to the
 * one being asked for: what a `matches` rule sees on each request of it.
 */
export function userTextPerTurn(items: readonly ItemParam[]): string[] {
  const texts: string[] = [];
  let inTurn = false;
  items.forEach((item, i) => {
    const model = isModelItem(item);
    if (model && !inTurn) texts.push(lastUserText(items.slice(0, i)));
    inTurn = model;
  });
  texts.push(lastUserText(items));
  return texts;
}

/** A turn that was never recorded, in a file whose later turn was: replayed as an error that says so. */
const missingTurn = (index: number): Json => ({
  steps: [],
  end: {
    type: "http_error",
    status: 500,
    error: {
      type: "server_error",
      code: "not_recorded",
      message: `Turn ${index} of this conversation was not recorded; record it again through 'openresponses-mock proxy --record'.`,
    },
  },
});

/**
 * The scenario file after recording an exchange: the existing one (if any)
 * with the exchange's turn put at its index, and the turns after it dropped
 * (they answered a conversation that has now gone another way; the loop
 * records them again as it goes on).
 */
export function recordInto(
  existing: Json | null,
  exchange: Exchange,
): { scenario: Json; name: string; turn: number; notes: string[] } {
  const name = conversationName(exchange.request, exchange.items);
  const index = assistantTurns(exchange.items);
  const { turn, model, notes } = turnOf(exchange);
  const previous = existing && Array.isArray(existing.turns) ? (existing.turns as Json[]) : [];
  const turns = previous.slice(0, index);
  while (turns.length < index) turns.push(missingTurn(turns.length));
  turns.push(turn);
  const lastTexts = userTextPerTurn(exchange.items);
  const first = firstUserText(exchange.items).replace(/\s+/g, " ").trim();
  const scenario: Json = {
    name,
    description: `Recorded by openresponses-mock proxy from ${exchange.upstream} on ${exchange.recordedAt}: "${first.length > 80 ? `${first.slice(0, 79)}…` : first}" (${turns.length} turn${turns.length === 1 ? "" : "s"}).`,
  };
  if (model !== null && model !== exchange.request.model) scenario.model = model;
  else if (typeof existing?.model === "string" && index > 0) scenario.model = existing.model;
  scenario.match = matchRule(lastTexts, exchange.request);
  scenario.turns = turns;
  return { scenario, name, turn: index, notes };
}
