/**
 * The answer of `POST /v1/responses/compact` (openapi.json `compactResponse`):
 * a `CompactResource` — `id`, `object: "response.compaction"`, `output`
 * (items), `created_at`, `usage` (not nullable) — whose output holds a
 * `compaction` item that a later request sends back as input. Pure.
 */
import { dialectRules } from "./dialects.js";
import type { AnswerInput, Verdict } from "./http.js";
import { usageViolations } from "./response.js";
import { show, ViolationList } from "./rules.js";
import { schemasFor } from "./schemas.js";
import { isObject, shapeViolations } from "./shape.js";
import { mediaType } from "./stream.js";

/** The statuses that mean "this server has no /responses/compact": not found, method not allowed, not implemented. */
export const COMPACT_NOT_SERVED: ReadonlySet<number> = new Set([404, 405, 501]);

/** A 2xx answer of `POST /responses/compact`: a CompactResource with a compaction item. */
export function checkCompactBody(input: AnswerInput): Verdict {
  const rules = dialectRules(input.dialect);
  const schemas = schemasFor(rules);
  const list = new ViolationList(input.limits);
  const done = (response?: Record<string, unknown>): Verdict => ({
    ok: list.found === 0,
    violations: list.items,
    suppressed: list.suppressed,
    kind: "response",
    notes: list.notes,
    ...(response ? { response } : {}),
  });
  if (input.status !== 200)
    list.add({
      rule: "http.status",
      message: `a compaction is answered with status 200, got ${input.status}`,
      path: "$",
    });
  if (mediaType(input.contentType) !== "application/json")
    list.add({
      rule: "http.content-type",
      message: `a compaction must be application/json, got ${show(input.contentType ?? "none")}`,
      path: "$",
    });
  let value: unknown;
  try {
    value = JSON.parse(input.body);
  } catch (err) {
    list.add({
      rule: "json.body",
      message: `the body is not JSON (${(err as Error).message}): ${show(input.body)}`,
      path: "$",
    });
    return done();
  }
  for (const v of shapeViolations(schemas.compact, value, "$", {}, "schema", 8, "the compaction")) list.add(v);
  if (!isObject(value)) return done();
  if (isObject(value.usage)) for (const v of usageViolations(value.usage, "$.usage", {})) list.add(v);
  if (Array.isArray(value.output) && !value.output.some((i) => isObject(i) && i.type === "compaction"))
    list.add({
      rule: "compact.item",
      message: `\`output\` holds no item of type "compaction" (types: ${show(value.output.map((i) => (isObject(i) ? i.type : i)))}): a compaction is what a later request sends back`,
      path: "$.output",
    });
  return done(value);
}
