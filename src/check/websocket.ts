/**
 * The battery's WebSocket checks (the spec's WebSocket mode, openapi.json's
 * `x-openresponses-websocket` on `/responses`): a client opens a WebSocket at
 * `/v1/responses`, sends `{"type": "response.create", ...request}` text
 * messages, and gets each turn's events as JSON text messages, with no SSE
 * framing; failures are `WebSocketErrorEvent`s, and the connection stays open.
 *
 * Pure: the shell opens the connection and reads its messages (`WsConnect`);
 * this drives the turns and judges them. Each turn's events go through the
 * same StreamChecker as an SSE stream (framing "none": no `[DONE]`).
 */
import type { CheckResult, ExchangeSummary } from "./battery.js";
import type { CheckDialect } from "./dialects.js";
import { dialectRules } from "./dialects.js";
import { show, type Violation } from "./rules.js";
import { schemasFor } from "./schemas.js";
import { isObject, shapeViolations } from "./shape.js";
import { decodeSse } from "./sse.js";
import { StreamChecker, type StreamVerdict } from "./stream.js";

/** One message as the socket gave it. */
export interface WsFrame {
  data: string;
  binary: boolean;
}

/** The next message, or why no more will come: the socket closed (code, reason), or nothing came in time. */
export type WsRead = { message: WsFrame } | { end: string; closed: boolean };

/** An open WebSocket, as the shell gives it. */
export interface WsConnection {
  send(text: string): void;
  read(): Promise<WsRead>;
  close(): void;
}

/** What the upgrade got: an open connection, an HTTP answer that refused it, or no answer at all. */
export type WsOpen =
  { connection: WsConnection } | { status: number; contentType?: string | null; body: string } | { failure: string };

/** Opens a WebSocket at the server's `/responses` (the shell's job: URL, auth header, timeout). */
export type WsConnect = () => Promise<WsOpen>;

/** Upgrade answers that mean "no WebSocket mode here": the check is skipped, not failed. */
export const WEBSOCKET_NOT_SERVED: ReadonlySet<number> = new Set([404, 405, 426, 501]);

/** One `response.create` of a check, and what it must get. */
interface WsStep {
  /** The message: an object sent as JSON. */
  message: Record<string, unknown>;
  /** A valid request (its events are judged), or a bad one (it must get an error event). */
  expect: "events" | "error";
  /** For a bad one: the `error.code` it must carry, and the parameter it is about. */
  code?: string;
  param?: string;
  /** For a valid one: the rule broken when it is refused (default websocket.turn). */
  refusedRule?: Violation["rule"];
  /** Why it is sent: said in the violations. */
  what: string;
}

/** What one turn got. */
interface WsTurn {
  step: WsStep;
  /** Messages received in the turn. */
  messages: number;
  /** The events given to the stream checker. */
  events: number;
  verdict?: StreamVerdict;
  /** The error event the turn was answered with, first thing (a WebSocketErrorEvent, or a bare `error` event). */
  error?: Record<string, unknown>;
  /** Why messages stopped before the turn was through. */
  end?: string;
  violations: Violation[];
  notes: Violation[];
}

interface WsCheck {
  name: string;
  title: string;
  next(model: string, done: readonly WsTurn[]): WsStep | undefined;
}

const create = (model: string, fields: Record<string, unknown>) => ({ type: "response.create", model, ...fields });
const responseId = (turn: WsTurn | undefined) =>
  turn?.verdict?.response && typeof turn.verdict.response.id === "string" ? turn.verdict.response.id : undefined;
/** A turn that ended as a turn must (not cut, not refused), so the connection can take the next one. */
const through = (turn: WsTurn) => turn.end === undefined;

export const WEBSOCKET_CHECKS: readonly WsCheck[] = [
  {
    name: "websocket",
    title: "WebSocket mode: a turn, then one continuing it with previous_response_id on the same connection",
    next(model, done) {
      if (done.length === 0)
        return {
          expect: "events",
          what: "a text turn (store: false)",
          message: create(model, { input: "Remember the code word: cobalt. Reply with OK.", store: false }),
        };
      if (done.length === 1) {
        const id = responseId(done[0]);
        if (!through(done[0]) || done[0].error || id === undefined) return undefined;
        return {
          expect: "events",
          what: "a second turn with `previous_response_id` of the first (store: false), on the same connection",
          refusedRule: "behaviour.previous-response",
          message: create(model, { previous_response_id: id, input: "What was the code word?", store: false }),
        };
      }
      return undefined;
    },
  },
  {
    name: "websocket-error",
    title: "WebSocket mode: bad response.create messages get error events, and the connection stays open",
    next(model, done) {
      if (done.length > 0 && !through(done[done.length - 1])) return undefined;
      if (done.length === 0)
        return {
          expect: "error",
          param: "input",
          what: "a response.create with `input: 42`",
          message: create(model, { input: 42 }),
        };
      if (done.length === 1)
        return {
          expect: "error",
          code: "previous_response_not_found",
          what: "a response.create with an unknown `previous_response_id`",
          message: create(model, { previous_response_id: "resp_openresponses_check_unknown", input: "Hello." }),
        };
      if (done.length === 2)
        return {
          expect: "events",
          what: "a valid response.create after two error events, on the same connection",
          refusedRule: "websocket.error",
          message: create(model, { input: "Say hello in three words.", store: false }),
        };
      return undefined;
    },
  },
];

export const WEBSOCKET_CHECK_NAMES: readonly string[] = WEBSOCKET_CHECKS.map((c) => c.name);

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);
const SSE_LINE = /^(event|data|id|retry):/m;

/** Reads one turn's messages, up to its terminal event (or its error event, or the end of messages). */
async function readTurn(connection: WsConnection, step: WsStep, dialect: CheckDialect): Promise<WsTurn> {
  const { type: _type, ...request } = step.message;
  const checker = new StreamChecker({ request, dialect });
  const turn: WsTurn = { step, messages: 0, events: 0, violations: [], notes: [] };
  const sse = { count: 0, first: -1 };
  const binary = { count: 0, first: -1 };
  let finished = false;
  const take = (value: unknown) => {
    if (turn.events === 0 && isObject(value) && value.type === "error" && !("response" in value)) {
      turn.error = value;
      finished = true;
      return;
    }
    turn.events++;
    checker.event(value);
    if (isObject(value) && typeof value.type === "string" && TERMINAL.has(value.type)) finished = true;
  };
  connection.send(JSON.stringify(step.message));
  while (!finished) {
    const read = await connection.read();
    if ("end" in read) {
      turn.end = read.end;
      break;
    }
    const i = turn.messages++;
    const { data } = read.message;
    if (read.message.binary && binary.count++ === 0) binary.first = i;
    if (data.trim() === "[DONE]") {
      turn.notes.push({
        rule: "websocket.message",
        level: "note",
        message:
          "a literal `[DONE]` message: WebSocket mode has none (each turn ends with its terminal event); the official compliance client tolerates it",
        path: "$",
      });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      const frames = SSE_LINE.test(data) ? decodeSse(data).frames : [];
      const lines = data.split(/\r?\n/).filter((l) => l.trim() !== "");
      const parsed = frames.length > 0 ? undefined : parseLines(lines);
      if (frames.length > 0) {
        if (sse.count++ === 0) sse.first = i;
        // Read as the SSE it is, so the turn's events are judged all the same.
        for (const f of frames) {
          if (f.data === undefined || f.data === "[DONE]") continue;
          try {
            take(JSON.parse(f.data));
          } catch {
            take(f.data);
          }
        }
      } else if (parsed && parsed.length > 1) {
        turn.violations.push({
          rule: "websocket.message",
          message: `message ${i} holds ${parsed.length} JSON events, one per line: each event is its own message`,
          path: "$",
          event: i,
        });
        for (const v of parsed) take(v);
      } else {
        turn.violations.push({
          rule: "websocket.message",
          message: `message ${i} is not JSON: ${show(data)}`,
          path: "$",
          event: i,
        });
      }
      continue;
    }
    if (Array.isArray(value)) {
      turn.violations.push({
        rule: "websocket.message",
        message: `message ${i} is a JSON array of ${value.length} value(s): each event is its own message, a JSON object`,
        path: "$",
        event: i,
      });
      for (const v of value) take(v);
      continue;
    }
    take(value);
  }
  const fold = (what: { count: number; first: number }, message: string) => {
    if (what.count === 0) return;
    turn.violations.push({
      rule: "websocket.message",
      message: `${message}${what.count > 1 ? ` (${what.count} of ${turn.messages} messages)` : ""}`,
      path: "$",
      event: what.first,
      ...(what.count > 1 ? { count: what.count } : {}),
    });
  };
  fold(
    sse,
    `message ${sse.first} is SSE-framed text (\`event:\`/\`data:\` lines): WebSocket mode sends each event as a bare JSON text message`,
  );
  fold(binary, `message ${binary.first} is a binary frame: events are text messages`);
  if (turn.events > 0) {
    turn.verdict = checker.end({ framing: "none" });
    turn.notes.push(...turn.verdict.notes);
  }
  return turn;
}

/** Lines that each parse as JSON, or undefined. */
function parseLines(lines: string[]): unknown[] | undefined {
  const out: unknown[] = [];
  for (const line of lines) {
    try {
      out.push(JSON.parse(line));
    } catch {
      return undefined;
    }
  }
  return out;
}

const errorDetail = (error: Record<string, unknown>) => {
  const inner = isObject(error.error) ? error.error : {};
  return `${error.status !== undefined ? `status ${show(error.status)}, ` : ""}${show(inner.code ?? inner.type)}: ${show(inner.message, 120)}`;
};

/** The violations of one turn, by what its step expected. */
function judgeTurn(turn: WsTurn, dialect: CheckDialect, model: string): Violation[] {
  const { step } = turn;
  const out: Violation[] = [...turn.violations];
  const rule = (r: Violation["rule"], message: string, path = "$"): Violation => ({ rule: r, message, path });
  if (step.expect === "events") {
    const refused = step.refusedRule ?? "websocket.turn";
    if (turn.error) {
      const inner = isObject(turn.error.error) ? turn.error.error : {};
      const hint =
        turn.error.status === 401
          ? "; if the server wants a key, pass it with --api-key"
          : inner.param === "model" || (typeof inner.code === "string" && inner.code.includes("model"))
            ? `; if the server does not know the model ${show(model)}, pass one it serves with --model`
            : "";
      out.push(rule(refused, `${step.what} got an error event (${errorDetail(turn.error)})${hint}`, "$.error"));
      return out;
    }
    if (turn.events === 0) {
      out.push(rule(refused, `${step.what} got no events: ${turn.end ?? "nothing came"}`));
      return out;
    }
    out.push(...(turn.verdict?.violations ?? []));
    if (turn.end !== undefined && turn.verdict?.terminal === undefined)
      out.push(rule("websocket.turn", `the turn was cut before its terminal event: ${turn.end}`));
    return out;
  }
  // A bad request: an error event, first thing, on a connection that stays open.
  if (!turn.error) {
    if (turn.events > 0)
      out.push(
        rule(
          "websocket.error",
          `${step.what} was answered with ${turn.events} event(s)${turn.verdict?.terminal ? ` ending ${turn.verdict.terminal}` : ""}, not an error event`,
        ),
      );
    else
      out.push(
        rule(
          "websocket.error",
          `${step.what} got no error event: ${turn.end ?? "nothing came"}; a bad response.create gets an error event and the connection stays open`,
        ),
      );
    return out;
  }
  const schemas = schemasFor(dialectRules(dialect));
  out.push(
    ...shapeViolations(
      schemas.webSocketError,
      turn.error,
      "$",
      { event: 0, eventType: "error" },
      "websocket.error",
      8,
      "the error event",
    ),
  );
  const status = turn.error.status;
  if (typeof status === "number" && Number.isInteger(status) && (status < 400 || status > 499))
    out.push(
      rule(
        "websocket.error",
        `${step.what} got an error event with status ${status}: it is the caller's fault, so a 4xx`,
        "$.status",
      ),
    );
  const inner = isObject(turn.error.error) ? turn.error.error : undefined;
  if (inner && step.code !== undefined && typeof inner.code === "string" && inner.code !== step.code)
    out.push(
      rule(
        "websocket.error",
        `${step.what} got \`error.code\` ${show(inner.code)}; it must be ${show(step.code)}`,
        "$.error.code",
      ),
    );
  if (inner && step.param !== undefined && typeof inner.param === "string") {
    const p = inner.param;
    if (p !== step.param && !p.startsWith(`${step.param}.`) && !p.startsWith(`${step.param}[`))
      out.push(
        rule(
          "error.param",
          `\`error.param\` is ${show(p)}; the error is about \`${step.param}\` and must name it`,
          "$.error.param",
        ),
      );
  }
  return out;
}

function summarise(turn: WsTurn): ExchangeSummary {
  const out: ExchangeSummary = { stream: true, transport: "websocket", messages: turn.messages };
  const status = turn.verdict?.response?.status;
  if (typeof status === "string") out.responseStatus = status;
  if (turn.error) {
    const inner = isObject(turn.error.error) ? turn.error.error : {};
    out.errorEvent = {
      ...(typeof turn.error.status === "number" ? { status: turn.error.status } : {}),
      ...(typeof inner.code === "string" ? { code: inner.code } : {}),
    };
  }
  if (turn.end !== undefined) out.failure = turn.end;
  return out;
}

export interface WebSocketRun {
  model: string;
  dialect: CheckDialect;
  connect: WsConnect;
}

/**
 * Runs one WebSocket check on a connection of its own. `unreachable` when
 * the upgrade got no answer at all and `first` says nothing was reached
 * before (the battery stops then, as for HTTP).
 */
export async function runWebSocketCheck(
  name: string,
  run: WebSocketRun,
  first: boolean,
): Promise<{ result: CheckResult } | { unreachable: string }> {
  const check = WEBSOCKET_CHECKS.find((c) => c.name === name);
  if (!check) throw new Error(`no WebSocket check '${name}'`);
  const result: CheckResult = {
    name: check.name,
    title: check.title,
    outcome: "pass",
    requests: [],
    violations: [],
    suppressed: 0,
    suppressedByRule: {},
    specNotes: [],
  };
  const opened = await run.connect();
  if ("failure" in opened) {
    if (first) return { unreachable: opened.failure };
    result.requests.push({ stream: true, transport: "websocket", failure: opened.failure });
    result.violations.push({
      rule: "websocket.upgrade",
      message: `no answer to the WebSocket upgrade at /responses: ${opened.failure}`,
      path: "$",
      request: 0,
    });
    result.outcome = "fail";
    return { result };
  }
  if ("status" in opened) {
    result.requests.push({
      stream: true,
      transport: "websocket",
      status: opened.status,
      contentType: opened.contentType,
    });
    if (WEBSOCKET_NOT_SERVED.has(opened.status)) {
      result.outcome = "skipped";
      result.note = `the server does not serve WebSocket mode: the upgrade at /responses was answered ${opened.status}`;
    } else {
      const hint = opened.status === 401 ? "; if the server wants a key, pass it with --api-key" : "";
      result.violations.push({
        rule: "websocket.upgrade",
        message: `the WebSocket upgrade at /responses was answered ${opened.status} (${show(opened.body, 120)}): it must switch protocols (101), or refuse with 404, 405, 426 or 501 where WebSocket mode is not served${hint}`,
        path: "$",
        request: 0,
      });
      result.outcome = "fail";
    }
    return { result };
  }
  const { connection } = opened;
  const done: WsTurn[] = [];
  const notes: string[] = [];
  try {
    for (let step = check.next(run.model, done); step; step = check.next(run.model, done)) {
      const turn = await readTurn(connection, step, run.dialect);
      const n = done.length;
      done.push(turn);
      result.requests.push(summarise(turn));
      result.violations.push(...judgeTurn(turn, run.dialect, run.model).map((v) => ({ ...v, request: n })));
      // A note said on every turn ([DONE] after each) is said once.
      for (const v of turn.notes)
        if (!result.specNotes.some((x) => x.rule === v.rule && x.message === v.message))
          result.specNotes.push({ ...v, request: n });
      for (const [rule, c] of Object.entries(turn.verdict?.suppressed ?? {}) as [Violation["rule"], number][]) {
        result.suppressed += c;
        result.suppressedByRule[rule] = (result.suppressedByRule[rule] ?? 0) + c;
      }
      if (turn.end !== undefined) break;
    }
  } finally {
    connection.close();
  }
  const failed = done.findIndex((t) => t.step.expect === "events" && t.verdict?.response?.status === "failed");
  if (result.violations.length > 0 || result.suppressed > 0) result.outcome = "fail";
  else if (failed >= 0) {
    result.outcome = "skipped";
    notes.push(`turn ${failed + 1}: the response failed, so nothing was exercised`);
  }
  if (notes.length > 0) result.note = notes.join("; ");
  return { result };
}
