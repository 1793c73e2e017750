/**
 * The conformance battery that `openresponses-mock check URL` runs: a list
 * of checks, each a few requests and a judgement of what came back. Pure:
 * the transport is passed in (`send`), so the battery runs the same against
 * a real server, a fake one, or recorded answers.
 *
 * A server with no model behind it cannot be made to call a tool or to
 * reason. So the battery asks only for what the spec makes a server do
 * (`tool_choice` naming a function, `"required"`), and where a feature is
 * the model's choice (several calls at once, a reasoning item, an answer
 * long enough to be cut) a server that did not use it is reported "skipped",
 * not passed. So is a check whose valid request got a well-formed `failed`
 * response: it broke no rule, but nothing was exercised.
 */
import { checkCompactBody, COMPACT_NOT_SERVED } from "./compact.js";
import type { CheckDialect } from "./dialects.js";
import { ANSWER_SCHEMA, REQUESTS, WEATHER_TOOL } from "./fixtures.js";
import { checkAnswer, checkErrorBody, type Verdict } from "./http.js";
import { show, type Violation } from "./rules.js";
import { isObject } from "./shape.js";
import { runWebSocketCheck, WEBSOCKET_CHECK_NAMES, type WsConnect } from "./websocket.js";

/** One request of a check. */
export interface BatteryRequest {
  /** The JSON body (ignored when `raw` is set). */
  body?: Record<string, unknown>;
  /** A body sent as is (not JSON). */
  raw?: string;
  stream: boolean;
  /** `compact`: sent to `POST /responses/compact` (default: `POST /responses`). */
  endpoint?: "compact";
  /** A valid request refused with a 4xx or 5xx breaks this rule (default `http.status`). */
  refusedRule?: Violation["rule"];
  /** A bad request: it must get a 4xx error object naming `param` (when given). */
  bad?: {
    param?: string;
    /** Why a 2xx answer is allowed too (the spec leaves the field optional). */ answerAllowed?: string;
  };
}

/** What came back, as the transport saw it. */
export interface RawAnswer {
  status?: number;
  contentType?: string | null;
  /** The body as text (as much as arrived). */
  body: string;
  /** Why no whole answer came: a refused connection, a timeout, a cut stream. */
  failure?: string;
  /** The answer's headers that a rule reads (`retry-after`), lower-case names. */
  headers?: Record<string, string>;
}

export type Send = (request: BatteryRequest) => Promise<RawAnswer>;

export interface Exchange {
  request: BatteryRequest;
  answer: RawAnswer;
  verdict?: Verdict;
  /**
   * The status (501 or 405) with which the server refused this request sent
   * without `stream`: it was sent again with `stream: true`, and `answer` is
   * that stream, its fold standing for the response.
   */
  refused?: number;
}

/** A violation found by a check, with the request (0-based, within the check) it belongs to. */
export type CheckViolation = Violation & {
  request: number;
  /** `check --bridge`: which side of the bridge the violation is about. */
  side?: "downstream" | "upstream";
};

export interface ExchangeSummary {
  stream: boolean;
  /** `websocket`: a turn of WebSocket mode (or its refused upgrade), not an HTTP request. */
  transport?: "websocket";
  /** `compact`: a request to `POST /responses/compact`. */
  endpoint?: "compact";
  /** WebSocket mode: the error event the turn got instead of events. */
  errorEvent?: { status?: number; code?: string };
  status?: number;
  contentType?: string | null;
  /** SSE messages, for streams. */
  messages?: number;
  /** The response's status (completed, incomplete, failed), when there was a response. */
  responseStatus?: string;
  failure?: string;
  /** The request was sent without `stream`, refused with this status (501 or 405), and sent again streamed: the rest describes the stream. */
  refusedNonStreamed?: number;
}

export interface CheckResult {
  name: string;
  title: string;
  /** `info`: an informational check (`check --bridge`'s slow-upstream): it says what it saw and fails nothing. */
  outcome: "pass" | "fail" | "skipped" | "info";
  /** Why it was skipped, or what it saw worth saying. */
  note?: string;
  requests: ExchangeSummary[];
  violations: CheckViolation[];
  /** Violations found beyond the checker's limits, not listed. */
  suppressed: number;
  /** The same, by rule. */
  suppressedByRule: Partial<Record<Violation["rule"], number>>;
  /** What the spec allows but is worth saying (`usage: null`): these fail nothing. */
  specNotes: CheckViolation[];
  /** Whether a non-streamed request of the check was refused (501, 405) and judged over a stream instead. */
  streamedInstead?: boolean;
  /** `check --bridge`: the requests the upstream received in this check. */
  upstream?: { requests: { method: string; path: string; body: unknown }[] };
}

export interface BatteryReport {
  dialect: CheckDialect;
  model: string;
  ok: boolean;
  /** Set when the server could not be reached at all: no check ran. */
  unreachable?: string;
  results: CheckResult[];
  summary: { passed: number; failed: number; skipped: number; info?: number; violations: number };
  /** The checks judged over streams because the server refused their non-streamed requests (501, 405). */
  streamedInstead: string[];
  /** What the base URL looks like from outside (set by the shell, which probes): hints, in words. */
  baseUrl?: string[];
  /** Set by `check --bridge`: the upstream API the bridge was judged against. */
  bridge?: { upstreamApi: "chat" | "responses" };
}

interface Judgement {
  violations?: Violation[];
  skipped?: string;
  note?: string;
}

interface BatteryCheck {
  name: string;
  title: string;
  /** The next request given those made so far, or undefined when the check is through. */
  next(model: string, done: readonly Exchange[]): BatteryRequest | undefined;
  /** What the checker cannot see on one answer: the behaviour asked for, and whether the feature was exercised. */
  judge?(done: readonly Exchange[]): Judgement;
}

// ---------------------------------------------------------------- helpers

/** One request, then done. */
const once = (make: (model: string) => BatteryRequest) => (model: string, done: readonly Exchange[]) =>
  done.length === 0 ? make(model) : undefined;

const outputOf = (ex: Exchange | undefined): Record<string, unknown>[] => {
  const output = ex?.verdict?.response?.output;
  return Array.isArray(output) ? output.filter(isObject) : [];
};
const responseStatus = (ex: Exchange | undefined) =>
  typeof ex?.verdict?.response?.status === "string" ? (ex.verdict.response.status as string) : undefined;
const calls = (ex: Exchange | undefined) => outputOf(ex).filter((i) => i.type === "function_call");
const violation = (rule: Violation["rule"], message: string, path = "$"): Violation => ({ rule, message, path });

/** The output text of the messages of a response. */
function outputText(ex: Exchange | undefined): { text: string; refused: boolean; messages: number } {
  let text = "";
  let refused = false;
  let messages = 0;
  for (const item of outputOf(ex)) {
    if (item.type !== "message" || !Array.isArray(item.content)) continue;
    messages++;
    for (const part of item.content) {
      if (!isObject(part)) continue;
      if (part.type === "output_text" && typeof part.text === "string") text += part.text;
      if (part.type === "refusal") refused = true;
    }
  }
  return { text, refused, messages };
}

/** The function calls' arguments: JSON objects, call ids unique. */
function callViolations(ex: Exchange): Violation[] {
  const out: Violation[] = [];
  const ids = new Set<unknown>();
  calls(ex).forEach((call) => {
    const at = `$.output[${outputOf(ex).indexOf(call)}]`;
    if (ids.has(call.call_id))
      out.push(
        violation(
          "behaviour.tool-choice",
          `two function calls share \`call_id\` ${show(call.call_id)}`,
          `${at}.call_id`,
        ),
      );
    ids.add(call.call_id);
    if (typeof call.arguments !== "string") return;
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      out.push(
        violation(
          "behaviour.tool-choice",
          `\`arguments\` of ${show(call.name)} is not JSON: ${show(call.arguments)}`,
          `${at}.arguments`,
        ),
      );
      return;
    }
    if (!isObject(args))
      out.push(
        violation(
          "behaviour.tool-choice",
          `\`arguments\` of ${show(call.name)} is ${show(args)}, not a JSON object`,
          `${at}.arguments`,
        ),
      );
    else if (typeof args.city !== "string")
      out.push(
        violation(
          "behaviour.tool-choice",
          `\`arguments\` of ${show(call.name)} lack the required parameter \`city\`: ${show(call.arguments)}`,
          `${at}.arguments`,
        ),
      );
  });
  return out;
}

/** Whether a value fits ANSWER_SCHEMA; the reasons it does not. */
function answerSchemaFaults(value: unknown): string[] {
  if (!isObject(value)) return [`it is ${show(value)}, not an object`];
  const faults: string[] = [];
  if (typeof value.city !== "string") faults.push("`city` must be a string");
  if (typeof value.temp_c !== "number") faults.push("`temp_c` must be a number");
  const extra = Object.keys(value).filter((k) => k !== "city" && k !== "temp_c");
  if (extra.length > 0) faults.push(`extra keys ${extra.join(", ")} (additionalProperties is false)`);
  return faults;
}

// ---------------------------------------------------------------- the checks

export const BATTERY: readonly BatteryCheck[] = [
  {
    name: "text",
    title: "text answer, JSON",
    next: once(REQUESTS.text),
  },
  {
    name: "text-stream",
    title: "text answer, streamed",
    next: once(REQUESTS.textStream),
  },
  {
    name: "instructions",
    title: "instructions, echoed",
    next: once(REQUESTS.instructions),
  },
  {
    name: "function-tool",
    title: "a forced function call, streamed",
    next: once(REQUESTS.functionTool),
    judge([ex]) {
      if (responseStatus(ex) !== "completed") return {};
      const found = calls(ex);
      if (found.length === 0)
        return {
          violations: [
            violation(
              "behaviour.tool-choice",
              "`tool_choice` named get_weather, but the response has no function_call",
              "$.output",
            ),
          ],
        };
      const other = found.filter((c) => c.name !== "get_weather");
      const out = other.map((c) =>
        violation(
          "behaviour.tool-choice",
          `\`tool_choice\` named get_weather, but the response calls ${show(c.name)}`,
          `$.output[${outputOf(ex).indexOf(c)}].name`,
        ),
      );
      return { violations: [...out, ...callViolations(ex)] };
    },
  },
  {
    name: "parallel-tools",
    title: "parallel function calls (tool_choice required), streamed",
    next: once(REQUESTS.parallelTools),
    judge([ex]) {
      if (responseStatus(ex) !== "completed") return {};
      const found = calls(ex);
      if (found.length === 0)
        return {
          violations: [
            violation(
              "behaviour.tool-choice",
              '`tool_choice` is "required", but the response has no function_call',
              "$.output",
            ),
          ],
        };
      const violations = callViolations(ex);
      if (found.length === 1)
        return { violations, skipped: "the server made one call; parallel calls are allowed, not required" };
      return { violations, note: `${found.length} calls: ${found.map((c) => String(c.name)).join(", ")}` };
    },
  },
  {
    name: "function-call-output",
    title: "a turn with function_call_output",
    next: once((model) => ({
      stream: false,
      body: {
        model,
        tools: [WEATHER_TOOL],
        input: [
          { type: "message", role: "user", content: "What is the weather in Paris?" },
          { type: "function_call", call_id: "call_check_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: "call_check_1", output: '{"temp_c":18,"sky":"clear"}' },
        ],
      },
    })),
  },
  {
    name: "previous-response-id",
    title: "previous_response_id continues a stored response",
    next(model, done) {
      if (done.length === 0)
        return { stream: false, body: { model, input: "Remember the code word: cobalt. Reply with OK.", store: true } };
      if (done.length === 1) {
        const id = done[0].verdict?.response?.id;
        if (!done[0].verdict || done[0].verdict.kind === "error" || typeof id !== "string") return undefined;
        return { stream: false, body: { model, previous_response_id: id, input: "What was the code word?" } };
      }
      return undefined;
    },
    judge(done) {
      const [first, second] = done;
      if (!first.verdict || first.verdict.kind === "error") return {};
      if (typeof first.verdict.response?.id !== "string")
        return {
          violations: [
            violation("behaviour.previous-response", "the first response has no `id` to continue from", "$.id"),
          ],
        };
      if (!second) return {};
      if (second.verdict?.kind === "error") {
        const error = second.verdict.error;
        return {
          violations: [
            violation(
              "behaviour.previous-response",
              `the server refused \`previous_response_id\` of a response stored with \`store: true\` (${show(error?.code ?? error?.message)})`,
              "$.error",
            ),
          ],
        };
      }
      return {};
    },
  },
  {
    name: "json-schema",
    title: "json_schema output",
    next: once((model) => ({
      stream: false,
      body: {
        model,
        input: "Give the weather in Paris as JSON: the city and the temperature in Celsius.",
        text: { format: { type: "json_schema", name: "weather_answer", schema: ANSWER_SCHEMA, strict: true } },
      },
    })),
    judge([ex]) {
      if (responseStatus(ex) !== "completed") return {};
      const { text, refused, messages } = outputText(ex);
      if (messages === 0)
        return {
          violations: [
            violation("behaviour.json-schema", "the response has no message with the JSON answer", "$.output"),
          ],
        };
      if (refused && text === "") return { skipped: "the model refused" };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return {
          violations: [violation("behaviour.json-schema", `the output text is not JSON: ${show(text)}`, "$.output")],
        };
      }
      const faults = answerSchemaFaults(value);
      return faults.length > 0
        ? {
            violations: [
              violation(
                "behaviour.json-schema",
                `the output JSON does not fit the strict schema: ${faults.join("; ")}`,
                "$.output",
              ),
            ],
          }
        : {};
    },
  },
  {
    name: "max-output-tokens",
    title: "max_output_tokens cuts the answer, streamed",
    next: once((model) => ({
      stream: true,
      body: {
        model,
        input: "Write a long story about a lighthouse keeper, at least five paragraphs.",
        max_output_tokens: 16,
        stream: true,
      },
    })),
    judge([ex]) {
      const status = responseStatus(ex);
      const response = ex.verdict?.response;
      if (status === "incomplete") {
        const reason = isObject(response?.incomplete_details) ? response.incomplete_details.reason : undefined;
        return { note: `incomplete, reason ${show(reason)}` };
      }
      if (status !== "completed") return {};
      const usage = isObject(response?.usage) ? response.usage : undefined;
      const used = typeof usage?.output_tokens === "number" ? usage.output_tokens : undefined;
      if (used !== undefined && used > 16) {
        return {
          violations: [
            violation(
              "behaviour.max-output-tokens",
              `the response is completed with ${used} output tokens, over \`max_output_tokens\` 16: it must stop and end incomplete`,
              "$.usage.output_tokens",
            ),
          ],
        };
      }
      return { skipped: `the answer fit in the budget (${used ?? "?"} output tokens), so nothing was cut` };
    },
  },
  {
    name: "reasoning",
    title: "reasoning, streamed",
    next: once((model) => ({
      stream: true,
      body: {
        model,
        input: "Think it through: what is 17 times 23?",
        reasoning: { effort: "low", summary: "auto" },
        stream: true,
      },
    })),
    judge([ex]) {
      if (responseStatus(ex) !== "completed" && responseStatus(ex) !== "incomplete") return {};
      const items = outputOf(ex).filter((i) => i.type === "reasoning");
      if (items.length === 0)
        return { skipped: "the server sent no reasoning item (reasoning is the model's to give)" };
      return { note: `${items.length} reasoning item(s)` };
    },
  },
  {
    name: "bad-missing-model",
    title: "a request without model",
    next: once(() => ({
      stream: false,
      body: { input: "Say hello." },
      bad: {
        param: "model",
        answerAllowed: "the server applied a default model, which the spec allows (model is optional in openapi.json)",
      },
    })),
  },
  {
    name: "bad-input-type",
    title: "input of the wrong type",
    next: once((model) => ({ stream: false, body: { model, input: 42 }, bad: { param: "input" } })),
  },
  {
    name: "bad-tool-choice",
    title: "a tool_choice that is not one",
    next: once((model) => ({
      stream: false,
      body: { model, input: "Say hello.", tool_choice: "sometimes" },
      bad: { param: "tool_choice" },
    })),
  },
  {
    name: "bad-max-output-tokens",
    title: "max_output_tokens below its minimum (16)",
    next: once((model) => ({
      stream: false,
      body: { model, input: "Say hello.", max_output_tokens: 1 },
      bad: { param: "max_output_tokens" },
    })),
  },
  {
    name: "bad-json",
    title: "a body that is not JSON",
    next: once((model) => ({ stream: false, raw: `{"model": ${JSON.stringify(model)}, "input": `, bad: {} })),
  },
  {
    name: "compact",
    title: "POST /responses/compact, its output sent back as input, and one without model",
    next(model, done) {
      if (done.length === 0) return { stream: false, endpoint: "compact", body: { model, input: COMPACT_INPUT } };
      // Not served (or not reached): nothing more to ask.
      if (done[0].answer.status !== 200) return undefined;
      const output = done[0].verdict?.response?.output;
      if (done.length === 1 && Array.isArray(output) && output.some(isCompaction))
        return {
          stream: false,
          refusedRule: "compact.continue",
          body: { model, input: [...output, { type: "message", role: "user", content: "When is the launch?" }] },
        };
      if (!done.some((ex) => ex.request.bad))
        // `model` is required here (CompactResponseMethodPublicBody), unlike on POST /responses.
        return { stream: false, endpoint: "compact", body: { input: COMPACT_INPUT }, bad: { param: "model" } };
      return undefined;
    },
    judge([first]) {
      const status = first.answer.status ?? 0;
      if (COMPACT_NOT_SERVED.has(status))
        return { skipped: `the server does not serve POST /responses/compact (${status}); the spec makes it optional` };
      return {};
    },
  },
];

/** A short conversation to compact (the spec's own example). */
const COMPACT_INPUT = [
  { type: "message", role: "user", content: "We launch on Tuesday and tell support first." },
  { type: "message", role: "assistant", content: "Understood: Tuesday launch, support notified first." },
];
const isCompaction = (item: unknown) => isObject(item) && item.type === "compaction";

/** Every check's name: the HTTP ones, then WebSocket mode's (run when the shell gives a WebSocket transport). */
export const BATTERY_NAMES: readonly string[] = [...BATTERY.map((c) => c.name), ...WEBSOCKET_CHECK_NAMES];

// ---------------------------------------------------------------- judging one answer

/** The checker's verdict on one answer, with what the request expected. */
export function judgeAnswer(
  request: BatteryRequest,
  answer: RawAnswer,
  dialect: CheckDialect,
): { verdict?: Verdict; violations: Violation[]; note?: string } {
  const extra: Violation[] = [];
  if (answer.status === undefined) {
    return { violations: [violation("http.unreachable", `no answer: ${answer.failure ?? "the connection failed"}`)] };
  }
  if (answer.failure) extra.push(violation("http.unreachable", `the answer was cut short: ${answer.failure}`));
  if (request.endpoint === "compact") {
    const input = {
      request: request.body,
      status: answer.status,
      contentType: answer.contentType,
      body: answer.body,
      dialect,
    };
    if (request.bad) {
      if (answer.status >= 400 && answer.status < 500) {
        const verdict = checkErrorBody({ ...input, param: request.bad.param });
        return { verdict, violations: [...verdict.violations, ...extra] };
      }
      return {
        violations: [
          violation(
            "http.status",
            `a compaction request without \`model\` got status ${answer.status}; \`model\` is required there, so it must be refused with a 4xx error object`,
          ),
          ...extra,
        ],
      };
    }
    // Not served: the check is skipped (its judge says so), nothing judged.
    if (COMPACT_NOT_SERVED.has(answer.status)) return { violations: extra };
    if (answer.status >= 400) {
      const verdict = checkErrorBody(input);
      return {
        verdict,
        violations: [
          violation("http.status", `a valid compaction request got status ${answer.status}`),
          ...extra,
          ...verdict.violations,
        ],
      };
    }
    const verdict = checkCompactBody(input);
    return { verdict, violations: [...extra, ...verdict.violations] };
  }
  const input = {
    request: request.body ?? request.raw,
    status: answer.status,
    contentType: answer.contentType,
    body: answer.body,
    dialect,
  };
  if (request.bad) {
    const what = request.raw !== undefined ? "a body that is not JSON" : `a bad \`${request.bad.param ?? "body"}\``;
    if (answer.status >= 400 && answer.status < 500) {
      const verdict = checkErrorBody({ ...input, param: request.bad.param });
      return { verdict, violations: [...verdict.violations, ...extra] };
    }
    if (answer.status >= 500) {
      const verdict = checkErrorBody({ ...input, param: request.bad.param });
      return {
        verdict,
        violations: [
          violation("http.status", `${what} got status ${answer.status}: it is the caller's fault, so a 4xx`),
          ...verdict.violations,
          ...extra,
        ],
      };
    }
    const verdict = checkAnswer({ ...input, stream: request.stream });
    if (request.bad.answerAllowed && answer.status === 200)
      return { verdict, violations: [...verdict.violations, ...extra], note: request.bad.answerAllowed };
    return {
      verdict,
      violations: [
        violation("http.status", `${what} got status ${answer.status}; it must be refused with a 4xx error object`),
        ...verdict.violations,
        ...extra,
      ],
    };
  }
  const verdict = checkAnswer({ ...input, stream: request.stream });
  if (answer.status >= 400) {
    const error = verdict.error;
    const aboutModel =
      error && (error.param === "model" || (typeof error.code === "string" && error.code.includes("model")));
    const detail = error ? ` (${show(error.code ?? error.type)}: ${show(error.message, 120)})` : "";
    const hint =
      answer.status === 401
        ? "; if the server wants a key, pass it with --api-key"
        : aboutModel
          ? `; if the server does not know the model ${show(input.request && (input.request as { model?: unknown }).model)}, pass one it serves with --model`
          : "";
    extra.unshift(
      violation(
        request.refusedRule ?? "http.status",
        `${request.refusedRule === "compact.continue" ? "the compacted output, sent back as input," : "a valid request"} got status ${answer.status}${detail}${hint}`,
      ),
    );
  }
  return { verdict, violations: [...extra, ...verdict.violations] };
}

// ---------------------------------------------------------------- running

export interface RunOptions {
  model: string;
  dialect: CheckDialect;
  /** Names of the checks to run (default: all). */
  only?: readonly string[];
  send: Send;
  /** Opens a WebSocket at the server's /responses: the WebSocket checks run only when it is given. */
  connect?: WsConnect;
  /** Called after each check, for a live report. */
  onResult?: (result: CheckResult) => void;
}

/** Runs the battery through `send`. Stops at once if the first request gets no answer at all. */
export async function runBattery(options: RunOptions): Promise<BatteryReport> {
  const checks =
    options.only && options.only.length > 0 ? BATTERY.filter((c) => options.only!.includes(c.name)) : BATTERY;
  const results: CheckResult[] = [];
  let unreachable: string | undefined;
  outer: for (const check of checks) {
    const done: Exchange[] = [];
    const violations: CheckViolation[] = [];
    const notes: string[] = [];
    const specNotes: CheckViolation[] = [];
    const suppressedByRule: CheckResult["suppressedByRule"] = {};
    let suppressed = 0;
    let streamedInstead = false;
    for (let request = check.next(options.model, done); request; request = check.next(options.model, done)) {
      let answer = await options.send(request);
      if (answer.status === undefined && results.length === 0 && done.length === 0) {
        unreachable = answer.failure ?? "the connection failed";
        break outer;
      }
      let refused: number | undefined;
      if (!request.stream && request.body && !request.endpoint && REFUSED_NON_STREAMED.has(answer.status ?? 0)) {
        // A server that only streams: ask again with stream: true, and judge the stream by the same rules.
        refused = answer.status;
        request = { ...request, stream: true, body: { ...request.body, stream: true } };
        answer = await options.send(request);
        streamedInstead = true;
      }
      const judged = judgeAnswer(request, answer, options.dialect);
      const n = done.length;
      violations.push(...judged.violations.map((v) => ({ ...v, request: n })));
      specNotes.push(...(judged.verdict?.notes ?? []).map((v) => ({ ...v, request: n })));
      if (judged.note) notes.push(judged.note);
      for (const [rule, c] of Object.entries(judged.verdict?.suppressed ?? {}) as [Violation["rule"], number][]) {
        suppressed += c;
        suppressedByRule[rule] = (suppressedByRule[rule] ?? 0) + c;
      }
      const verdict = refused !== undefined && judged.verdict ? asResponse(judged.verdict) : judged.verdict;
      done.push({ request, answer, verdict, ...(refused !== undefined ? { refused } : {}) });
      if (refused !== undefined)
        notes.push(
          `${done.length > 1 || check.next(options.model, done) ? `request ${n + 1}: ` : ""}the server refused the request without \`stream\` (${refused}), so it was sent again with \`stream: true\` and judged over the stream`,
        );
      if (answer.status === undefined) break;
    }
    const judged =
      check.judge && done.every((ex) => ex.answer.status !== undefined) && done.length > 0 ? check.judge(done) : {};
    const failed = judged.skipped ? undefined : failedResponse(done);
    const judgement: Judgement = failed ? { ...judged, skipped: failed } : judged;
    violations.push(...(judgement.violations ?? []).map((v) => ({ ...v, request: done.length - 1 })));
    if (judgement.note) notes.push(judgement.note);
    const faulty = violations.length > 0 || suppressed > 0;
    const result: CheckResult = {
      name: check.name,
      title: check.title,
      outcome: faulty ? "fail" : judgement.skipped ? "skipped" : "pass",
      ...(judgement.skipped || notes.length > 0
        ? { note: [judgement.skipped, ...notes].filter(Boolean).join("; ") }
        : {}),
      requests: done.map(summarise),
      violations,
      suppressed,
      suppressedByRule,
      specNotes,
      ...(streamedInstead ? { streamedInstead } : {}),
    };
    results.push(result);
    options.onResult?.(result);
  }
  if (!unreachable && options.connect) {
    const names = WEBSOCKET_CHECK_NAMES.filter(
      (n) => !options.only || options.only.length === 0 || options.only.includes(n),
    );
    for (const name of names) {
      const run = await runWebSocketCheck(
        name,
        { model: options.model, dialect: options.dialect, connect: options.connect },
        results.length === 0,
      );
      if ("unreachable" in run) {
        unreachable = run.unreachable;
        break;
      }
      results.push(run.result);
      options.onResult?.(run.result);
    }
  }
  const count = (o: CheckResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  const summary = {
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skipped"),
    violations: results.reduce((n, r) => n + r.violations.length + r.suppressed, 0),
  };
  return {
    dialect: options.dialect,
    model: options.model,
    ok: !unreachable && summary.failed === 0,
    ...(unreachable ? { unreachable } : {}),
    results,
    summary,
    streamedInstead: results.filter((r) => r.streamedInstead).map((r) => r.name),
  };
}

/** The statuses that mean "not without a stream": Not Implemented, Method Not Allowed. */
export const REFUSED_NON_STREAMED: ReadonlySet<number> = new Set([501, 405]);

/**
 * A stream's verdict standing for the JSON response the request would have
 * got: the terminal snapshot, its `output` the fold of the stream's events
 * (what a client reading the stream has), so the check judges it as it
 * would judge the body.
 */
export function asResponse(verdict: Verdict): Verdict {
  const snapshot = verdict.response;
  const fold = verdict.stream?.output;
  if (!snapshot || !fold || fold.length === 0) return verdict;
  return { ...verdict, response: { ...snapshot, output: fold } };
}

/**
 * Why a check exercised nothing because a valid request's response ended
 * `failed` (a well-formed `response.failed` breaks no rule, but what was
 * asked for never happened, so the check is not passed), or undefined.
 */
function failedResponse(done: readonly Exchange[]): string | undefined {
  const i = done.findIndex((ex) => !ex.request.bad && ex.verdict?.response?.status === "failed");
  if (i < 0) return undefined;
  const error = done[i].verdict?.response?.error;
  const why = isObject(error) ? ` (${show(error.code ?? error.type)}: ${show(error.message, 120)})` : "";
  return `${done.length > 1 ? `request ${i + 1}: ` : ""}the response failed${why}, so nothing was exercised`;
}

function summarise(ex: Exchange): ExchangeSummary {
  const out: ExchangeSummary = {
    stream: ex.request.stream,
    ...(ex.request.endpoint ? { endpoint: ex.request.endpoint } : {}),
  };
  if (ex.answer.status !== undefined) out.status = ex.answer.status;
  if (ex.answer.contentType !== undefined) out.contentType = ex.answer.contentType;
  if (ex.verdict?.stream) out.messages = ex.verdict.stream.messages;
  const status = ex.verdict?.response?.status;
  if (typeof status === "string") out.responseStatus = status;
  if (ex.answer.failure) out.failure = ex.answer.failure;
  if (ex.refused !== undefined) out.refusedNonStreamed = ex.refused;
  return out;
}
