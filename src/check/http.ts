/**
 * Checks on a whole HTTP answer of `POST /v1/responses`: a JSON response
 * body, an HTTP error body, or an SSE stream, dispatched on the status and
 * the content-type, with the request that produced it.
 */
import { dialectRules, type CheckDialect } from "./dialects.js";
import { responseViolations } from "./response.js";
import { show, ViolationList, type RuleId, type Violation, type ViolationLimits } from "./rules.js";
import { schemasFor } from "./schemas.js";
import { isObject, shapeViolations } from "./shape.js";
import { checkStream, mediaType, type StreamVerdict } from "./stream.js";

export interface AnswerInput {
  /** The parsed request body (for the echo rules); a string that is not JSON is kept as is. */
  request?: unknown;
  status: number;
  contentType?: string | null;
  /** The body as text. */
  body: string;
  dialect?: CheckDialect;
  limits?: ViolationLimits;
}

export interface Verdict {
  ok: boolean;
  violations: Violation[];
  suppressed: Partial<Record<RuleId, number>>;
  /** What the answer was. */
  kind: "response" | "error" | "stream";
  /** The response object (the JSON body, or the stream's terminal snapshot), when there is one. */
  response?: Record<string, unknown>;
  /** The error object of an error answer, when it has one. */
  error?: Record<string, unknown>;
  /** For streams, the stream's verdict. */
  stream?: StreamVerdict;
  /** What the spec allows but is worth saying (`usage: null`); fails nothing. */
  notes: Violation[];
}

function finish(list: ViolationList, kind: Verdict["kind"], extra: Partial<Verdict> = {}): Verdict {
  return {
    ok: list.found === 0,
    violations: list.items,
    suppressed: list.suppressed,
    kind,
    notes: list.notes,
    ...extra,
  };
}

function parseBody(body: string, list: ViolationList): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (err) {
    list.add({
      rule: "json.body",
      message: `the body is not JSON (${(err as Error).message}): ${show(body)}`,
      path: "$",
    });
    return { ok: false };
  }
}

/** A non-streaming answer with a 2xx status: the response object. */
export function checkResponseBody(input: AnswerInput): Verdict {
  const rules = dialectRules(input.dialect);
  const list = new ViolationList(input.limits);
  if (input.status !== 200)
    list.add({
      rule: "http.status",
      message: `a response is answered with status 200, got ${input.status}`,
      path: "$",
    });
  if (mediaType(input.contentType) !== "application/json")
    list.add({
      rule: "http.content-type",
      message: `a JSON answer must be application/json, got ${show(input.contentType ?? "none")}`,
      path: "$",
    });
  const parsed = parseBody(input.body, list);
  if (!parsed.ok) return finish(list, "response");
  for (const v of responseViolations(parsed.value, {
    rules,
    schemas: schemasFor(rules),
    request: input.request,
    base: "$",
    where: {},
    role: "body",
  }))
    list.add(v);
  return finish(list, "response", { response: isObject(parsed.value) ? parsed.value : undefined });
}

/**
 * An error answer (4xx/5xx): the error object's shape and type. `param`, when
 * given, is the field the error must name. The type is not matched against
 * the status: the spec says it "generally, though not always" matches.
 */
export function checkErrorBody(input: AnswerInput & { param?: string }): Verdict {
  const rules = dialectRules(input.dialect);
  const schemas = schemasFor(rules);
  const list = new ViolationList(input.limits);
  if (input.status < 400 || input.status > 599)
    list.add({
      rule: "http.status",
      message: `an error answer has a 4xx or 5xx status, got ${input.status}`,
      path: "$",
    });
  if (mediaType(input.contentType) !== "application/json")
    list.add({
      rule: "http.content-type",
      message: `an error answer must be application/json, got ${show(input.contentType ?? "none")}`,
      path: "$",
    });
  const parsed = parseBody(input.body, list);
  if (!parsed.ok) return finish(list, "error");
  for (const v of shapeViolations(schemas.errorBody, parsed.value, "$", {}, "error.shape", 8, "the error body"))
    list.add(v);
  const error = isObject(parsed.value) && isObject(parsed.value.error) ? parsed.value.error : undefined;
  if (error && typeof error.type === "string" && rules.errorTypes && !rules.errorTypes.includes(error.type)) {
    list.add({
      rule: "error.type",
      message: `\`error.type\` ${show(error.type)} is not one of the spec's error types (${rules.errorTypes.join(", ")})`,
      path: "$.error.type",
    });
  }
  if (error && input.param !== undefined) {
    const p = error.param;
    const names =
      typeof p === "string" &&
      (p === input.param || p.startsWith(`${input.param}.`) || p.startsWith(`${input.param}[`));
    // A missing `param` is the shape rule's to report.
    if (!names && p !== undefined)
      list.add({
        rule: "error.param",
        message: `\`error.param\` is ${show(p)}; the error is about \`${input.param}\` and must name it`,
        path: "$.error.param",
      });
  }
  return finish(list, "error", { error });
}

/**
 * Any answer of `POST /v1/responses`, by its status and content-type: 4xx/5xx
 * → an error body; text/event-stream → a stream; otherwise a JSON response.
 * `stream` says whether the request asked for one (a JSON answer to a
 * streamed request is a violation, and the other way round).
 */
export function checkAnswer(input: AnswerInput & { stream?: boolean }): Verdict {
  if (input.status >= 400) return checkErrorBody(input);
  const isSse = mediaType(input.contentType) === "text/event-stream";
  if (input.stream && !isSse) {
    // Judged as what it is, a JSON response, after saying that it is not the stream asked for.
    const v = checkResponseBody(input);
    const wrong: Violation = {
      rule: "http.content-type",
      message: `the request asked for a stream (stream: true), but the answer is ${show(input.contentType ?? "without a content-type")}, not text/event-stream`,
      path: "$",
    };
    return { ...v, ok: false, violations: [wrong, ...v.violations.filter((x) => x.rule !== "http.content-type")] };
  }
  if (isSse) {
    const v = checkStream(input.body, {
      request: input.request,
      dialect: input.dialect,
      status: input.status,
      contentType: input.contentType ?? null,
      limits: input.limits,
    });
    const violations = [...v.violations];
    if (isSse && input.stream === false)
      violations.unshift({
        rule: "http.content-type",
        message: "the request did not ask for a stream, but the answer is text/event-stream",
        path: "$",
      });
    return {
      ok: v.ok && violations.length === v.violations.length,
      violations,
      suppressed: v.suppressed,
      kind: "stream",
      response: v.response,
      stream: v,
      notes: v.notes,
    };
  }
  return checkResponseBody(input);
}
