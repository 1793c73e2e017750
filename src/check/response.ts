/**
 * Checks on one response object (`ResponseResource`): its schema, its status
 * for where it stands (a snapshot in a lifecycle event, or a JSON body), the
 * fields a finished response must fill, the final state of its items, usage
 * arithmetic, and the echo of the request.
 */
import type { DialectRules } from "./dialects.js";
import { echoViolations } from "./echo.js";
import { show, subPath, type Violation, type Where } from "./rules.js";
import type { Schemas } from "./schemas.js";
import { isObject, shapeViolations } from "./shape.js";

/** Where a response object was seen: a lifecycle event's type, or the JSON body of a non-streaming answer. */
export type ResponseRole =
  | "body"
  | "response.created"
  | "response.queued"
  | "response.in_progress"
  | "response.completed"
  | "response.incomplete"
  | "response.failed";

const STATUS_OF_EVENT: Record<string, readonly string[]> = {
  "response.created": ["in_progress", "queued"],
  "response.queued": ["queued"],
  "response.in_progress": ["in_progress"],
  "response.completed": ["completed"],
  "response.incomplete": ["incomplete"],
  "response.failed": ["failed"],
};

const FINISHED = new Set(["completed", "incomplete", "failed", "cancelled"]);

export interface ResponseContext {
  rules: DialectRules;
  schemas: Schemas;
  /** The parsed request body, for the echo rules (undefined: not checked). */
  request?: unknown;
  /** The path of the response object: `$` for a body, `$.response` in an event. */
  base: string;
  where: Where;
  role: ResponseRole;
}

/** Every violation of one response object. */
export function responseViolations(res: unknown, ctx: ResponseContext): Violation[] {
  const out = shapeViolations(ctx.schemas.response, res, ctx.base, ctx.where, "schema", 8, "the response");
  if (!isObject(res)) return out;
  const at = (...segments: (string | number)[]) => subPath(ctx.base, ...segments);
  const add = (rule: Violation["rule"], message: string, path: string) =>
    out.push({ rule, message, path, ...ctx.where });
  const status = res.status;

  if (typeof status === "string" && !ctx.rules.statuses.includes(status)) {
    add(
      "response.status",
      `\`status\` ${show(status)} is not one the spec uses (${ctx.rules.statuses.join(", ")})`,
      at("status"),
    );
  }
  const expected = STATUS_OF_EVENT[ctx.role];
  if (expected && typeof status === "string" && !expected.includes(status)) {
    add(
      "response.status",
      `\`status\` is ${show(status)} in ${ctx.role}; it must be ${expected.map((s) => `"${s}"`).join(" or ")}`,
      at("status"),
    );
  }
  const background = isObject(ctx.request) && ctx.request.background === true;
  if (ctx.role === "body" && typeof status === "string" && !FINISHED.has(status) && !background) {
    add(
      "response.status",
      `\`status\` is ${show(status)} in a JSON answer to a request that was not background: the response must be finished`,
      at("status"),
    );
  }

  if (isObject(res.usage)) out.push(...usageViolations(res.usage, at("usage"), ctx.where));

  const final =
    ctx.role === "body"
      ? typeof status === "string" && FINISHED.has(status)
      : ctx.role === "response.completed" || ctx.role === "response.incomplete" || ctx.role === "response.failed";
  if (!final) return out;

  // What a finished response fills in.
  if (status === "completed") {
    if (res.completed_at === null)
      add("response.terminal", "`completed_at` is null in a completed response", at("completed_at"));
    // openapi.json makes `usage` nullable ("if applicable"): a note, not a violation.
    if (res.usage === null)
      out.push({
        rule: "response.terminal",
        message:
          "`usage` is null in a completed response: the spec allows it (usage is nullable), but clients that count tokens get nothing",
        path: at("usage"),
        level: "note",
        ...ctx.where,
      });
    if (res.error !== null && res.error !== undefined)
      add("response.terminal", `\`error\` is ${show(res.error)} in a completed response; it must be null`, at("error"));
    if (res.incomplete_details !== null && res.incomplete_details !== undefined)
      add(
        "response.terminal",
        "`incomplete_details` is set in a completed response; it must be null",
        at("incomplete_details"),
      );
  } else if (status === "incomplete") {
    if (res.incomplete_details === null)
      add(
        "response.terminal",
        "`incomplete_details` is null in an incomplete response: it must say the `reason`",
        at("incomplete_details"),
      );
    if (res.error !== null && res.error !== undefined)
      add(
        "response.terminal",
        `\`error\` is ${show(res.error)} in an incomplete response; it must be null`,
        at("error"),
      );
  } else if (status === "failed") {
    if (res.error === null)
      add("response.terminal", "`error` is null in a failed response: it must hold `code` and `message`", at("error"));
  }

  // The final state of the items.
  if (Array.isArray(res.output) && status !== "failed") {
    const items = res.output;
    items.forEach((item, i) => {
      if (!isObject(item)) return;
      if (item.status === "in_progress")
        add(
          "item.status",
          `\`output[${i}]\` (${show(item.type)} ${show(item.id)}) is still in_progress in a ${String(status)} response`,
          at("output", i, "status"),
        );
      if (item.status === "incomplete") {
        if (i !== items.length - 1)
          add(
            "item.status",
            `\`output[${i}]\` is incomplete but is not the last item (an incomplete item must be last)`,
            at("output", i, "status"),
          );
        if (status !== "incomplete")
          add(
            "item.status",
            `\`output[${i}]\` is incomplete, so the response must be incomplete, not ${show(status)}`,
            at("status"),
          );
      }
    });
  }

  if (ctx.request !== undefined) out.push(...echoViolations(ctx.request, res, ctx.rules, ctx.base, ctx.where));
  return out;
}

/** Usage arithmetic: the total, the details within their totals, nothing negative. */
export function usageViolations(usage: Record<string, unknown>, base: string, where: Where): Violation[] {
  const out: Violation[] = [];
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const input = n(usage.input_tokens);
  const output = n(usage.output_tokens);
  const total = n(usage.total_tokens);
  const cached = isObject(usage.input_tokens_details) ? n(usage.input_tokens_details.cached_tokens) : undefined;
  const reasoning = isObject(usage.output_tokens_details) ? n(usage.output_tokens_details.reasoning_tokens) : undefined;
  const add = (message: string, ...segments: string[]) =>
    out.push({ rule: "usage", message, path: subPath(base, ...segments), ...where });
  if (input !== undefined && output !== undefined && total !== undefined && total !== input + output) {
    add(
      `\`total_tokens\` is ${total}, but input_tokens + output_tokens = ${input} + ${output} = ${input + output}`,
      "total_tokens",
    );
  }
  for (const [name, v, path] of [
    ["input_tokens", input, ["input_tokens"]],
    ["output_tokens", output, ["output_tokens"]],
    ["total_tokens", total, ["total_tokens"]],
    ["cached_tokens", cached, ["input_tokens_details", "cached_tokens"]],
    ["reasoning_tokens", reasoning, ["output_tokens_details", "reasoning_tokens"]],
  ] as const) {
    if (v !== undefined && v < 0) add(`\`${name}\` is negative (${v})`, ...path);
  }
  if (cached !== undefined && input !== undefined && cached > input)
    add(`\`cached_tokens\` (${cached}) exceeds \`input_tokens\` (${input})`, "input_tokens_details", "cached_tokens");
  if (reasoning !== undefined && output !== undefined && reasoning > output)
    add(
      `\`reasoning_tokens\` (${reasoning}) exceeds \`output_tokens\` (${output})`,
      "output_tokens_details",
      "reasoning_tokens",
    );
  return out;
}
