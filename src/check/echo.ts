/**
 * Echo rules: which request fields a response carries back, and the value it
 * must show when the request left the field out. From the ResponseResource
 * field table of the spec (every field is a required key; the prose says
 * "echo the request value, else null" or names the default), checked on the
 * final response only, so that one wrong echo is one violation, not one per
 * snapshot.
 */
import type { DialectRules } from "./dialects.js";
import { isObject } from "./shape.js";
import { show, subPath, type Violation, type Where } from "./rules.js";

/** Deep JSON equality, key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Fields echoed as sent, and null when the request left them out. */
const ECHO_OR_NULL = [
  "previous_response_id",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "safety_identifier",
  "prompt_cache_key",
] as const;
/** Fields echoed as sent; when left out the server reports its own default (any value of the right type). */
const ECHO_IF_SENT = [
  "truncation",
  "parallel_tool_calls",
  "temperature",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "top_logprobs",
  "store",
] as const;

/**
 * The echo violations of a final response for the request that produced it.
 * `request` is the parsed request body (anything: a non-object yields none).
 */
export function echoViolations(
  request: unknown,
  response: Record<string, unknown>,
  rules: DialectRules,
  base: string,
  where: Where,
): Violation[] {
  if (!isObject(request)) return [];
  const out: Violation[] = [];
  const bad = (field: string, message: string, ...rest: (string | number)[]) =>
    out.push({ rule: "echo", message, path: subPath(base, field, ...rest), ...where });
  const sent = (k: string) => request[k] !== undefined && request[k] !== null;

  // model: the request's, or a resolved name that extends it (gpt-4o → gpt-4o-2024-08-06).
  if (typeof request.model === "string" && typeof response.model === "string") {
    const a = request.model;
    const b = response.model;
    if (!(b === a || b.startsWith(a) || a.startsWith(b)))
      bad("model", `\`model\` is ${show(b)}, not the request's ${show(a)} (nor a resolved name of it)`);
  }

  for (const k of ECHO_OR_NULL) {
    if (!(k in response)) continue; // the schema reports a missing key
    if (sent(k)) {
      if (!jsonEqual(response[k], request[k]))
        bad(k, `\`${k}\` is ${show(response[k])}; the request sent ${show(request[k])}`);
    } else if (response[k] !== null) {
      bad(k, `\`${k}\` is ${show(response[k])}, but the request sent none: it must be null`);
    }
  }
  for (const k of ECHO_IF_SENT) {
    if (!(k in response) || !sent(k)) continue;
    if (!jsonEqual(response[k], request[k]))
      bad(k, `\`${k}\` is ${show(response[k])}; the request sent ${show(request[k])}`);
  }
  if (sent("background") && "background" in response && response.background !== request.background)
    bad("background", `\`background\` is ${show(response.background)}; the request sent ${show(request.background)}`);
  if (!sent("background") && "background" in response && response.background !== false)
    bad(
      "background",
      `\`background\` is ${show(response.background)}, but the request did not ask for it: it must be false`,
    );

  if (sent("metadata") && "metadata" in response && !jsonEqual(response.metadata, request.metadata))
    bad("metadata", `\`metadata\` is ${show(response.metadata)}; the request sent ${show(request.metadata)}`);

  // tool_choice: as sent; "auto" by default (the spec page).
  if ("tool_choice" in response) {
    const got = response.tool_choice;
    const want = request.tool_choice;
    if (!sent("tool_choice")) {
      if (got !== "auto")
        bad("tool_choice", `\`tool_choice\` is ${show(got)}, but the request sent none: the default is "auto"`);
    } else if (typeof want === "string") {
      if (got !== want) bad("tool_choice", `\`tool_choice\` is ${show(got)}; the request sent ${show(want)}`);
    } else if (isObject(want) && isObject(got)) {
      if (got.type !== want.type)
        bad("tool_choice", `\`tool_choice.type\` is ${show(got.type)}; the request sent ${show(want.type)}`, "type");
      else if (want.type === "function" && got.name !== want.name)
        bad("tool_choice", `\`tool_choice.name\` is ${show(got.name)}; the request sent ${show(want.name)}`, "name");
      else if (want.type === "allowed_tools") {
        if (!jsonEqual(got.tools, want.tools))
          bad(
            "tool_choice",
            `\`tool_choice.tools\` is ${show(got.tools)}; the request sent ${show(want.tools)}`,
            "tools",
          );
        if (want.mode !== undefined && got.mode !== want.mode)
          bad("tool_choice", `\`tool_choice.mode\` is ${show(got.mode)}; the request sent ${show(want.mode)}`, "mode");
      }
    } else if (isObject(want)) {
      bad("tool_choice", `\`tool_choice\` is ${show(got)}; the request sent ${show(want)}`);
    }
  }

  // tools: one per tool sent, in order, same name, parameters and strict when sent.
  if (Array.isArray(response.tools)) {
    const want = Array.isArray(request.tools) ? request.tools : [];
    const got = response.tools;
    if (got.length !== want.length)
      bad("tools", `\`tools\` has ${got.length} tool${got.length === 1 ? "" : "s"}; the request sent ${want.length}`);
    else
      want.forEach((w, i) => {
        const g = got[i];
        if (!isObject(w) || !isObject(g)) return;
        if (g.type !== w.type)
          bad("tools", `\`tools[${i}].type\` is ${show(g.type)}; the request sent ${show(w.type)}`, i, "type");
        if (w.type !== "function") return;
        if (g.name !== w.name)
          bad("tools", `\`tools[${i}].name\` is ${show(g.name)}; the request sent ${show(w.name)}`, i, "name");
        if (w.parameters !== undefined && w.parameters !== null && !jsonEqual(g.parameters, w.parameters))
          bad("tools", `\`tools[${i}].parameters\` differs from the request's`, i, "parameters");
        if (typeof w.description === "string" && g.description !== w.description)
          bad(
            "tools",
            `\`tools[${i}].description\` is ${show(g.description)}; the request sent ${show(w.description)}`,
            i,
            "description",
          );
        if (typeof w.strict === "boolean" && g.strict !== w.strict)
          bad("tools", `\`tools[${i}].strict\` is ${show(g.strict)}; the request sent ${show(w.strict)}`, i, "strict");
      });
  }

  // text.format and verbosity.
  const text = isObject(request.text) ? request.text : undefined;
  const gotText = isObject(response.text) ? response.text : undefined;
  if (gotText && isObject(gotText.format)) {
    const format = gotText.format;
    const want = text && isObject(text.format) ? text.format : undefined;
    if (!want) {
      if (format.type !== "text")
        bad(
          "text",
          `\`text.format.type\` is ${show(format.type)}, but the request asked for no format: the default is "text"`,
          "format",
          "type",
        );
    } else if (format.type !== want.type) {
      bad(
        "text",
        `\`text.format.type\` is ${show(format.type)}; the request sent ${show(want.type)}`,
        "format",
        "type",
      );
    } else if (want.type === "json_schema") {
      if (typeof want.name === "string" && format.name !== want.name)
        bad(
          "text",
          `\`text.format.name\` is ${show(format.name)}; the request sent ${show(want.name)}`,
          "format",
          "name",
        );
      if (typeof want.strict === "boolean" && format.strict !== want.strict)
        bad(
          "text",
          `\`text.format.strict\` is ${show(format.strict)}; the request sent ${show(want.strict)}`,
          "format",
          "strict",
        );
      if (rules.jsonSchemaEcho === "object" && want.schema !== undefined && !jsonEqual(format.schema, want.schema))
        bad(
          "text",
          "`text.format.schema` is not the schema the request sent (this dialect echoes it)",
          "format",
          "schema",
        );
    }
  }
  if (text && typeof text.verbosity === "string" && gotText && gotText.verbosity !== text.verbosity)
    bad(
      "text",
      `\`text.verbosity\` is ${show(gotText.verbosity)}; the request sent ${show(text.verbosity)}`,
      "verbosity",
    );

  // reasoning: the effort and summary asked for.
  const reasoning = isObject(request.reasoning) ? request.reasoning : undefined;
  if (reasoning && "reasoning" in response) {
    const got = response.reasoning;
    if (!isObject(got)) bad("reasoning", `\`reasoning\` is ${show(got)}, but the request asked for ${show(reasoning)}`);
    else {
      if (typeof reasoning.effort === "string" && got.effort !== reasoning.effort)
        bad(
          "reasoning",
          `\`reasoning.effort\` is ${show(got.effort)}; the request sent ${show(reasoning.effort)}`,
          "effort",
        );
      if (typeof reasoning.summary === "string") {
        const allowed = rules.summaryEcho[reasoning.summary] ?? [reasoning.summary];
        if (!allowed.includes(got.summary as string))
          bad(
            "reasoning",
            `\`reasoning.summary\` is ${show(got.summary)}; the request sent ${show(reasoning.summary)}`,
            "summary",
          );
      }
    }
  }
  return out;
}
