/**
 * Running a schema on a value and turning zod's issues into violations that
 * name the field at fault (`total_tokens is required`), with their JSON path.
 * Also `tagged`, a union dispatched on `type`, so a bad item is reported at
 * its own fields instead of as "matches no alternative".
 */
import { z } from "zod";
import { show, subPath, type RuleId, type Violation, type Where } from "./rules.js";

/** A vendor extension type: an implementor slug, a colon, a name (`acme:search_call`). */
export const VENDOR_TYPE = /^[A-Za-z0-9][A-Za-z0-9_.-]*:[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;
export const isVendorType = (type: unknown): type is string => typeof type === "string" && VENDOR_TYPE.test(type);

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A union dispatched on one key. Unknown tags are an issue at that key that
 * lists the known ones; `fallback` decides the schema for other tags (vendor
 * or hosted types), or undefined to refuse them.
 */
export function tagged(
  key: string,
  table: Record<string, z.ZodType>,
  fallback?: (tag: string) => z.ZodType | undefined,
): z.ZodType {
  const names = Object.keys(table);
  return z.unknown().superRefine((value, ctx) => {
    if (!isObject(value)) {
      ctx.addIssue({ code: "custom", message: `must be an object, got ${kindOf(value)}`, input: value });
      return;
    }
    const tag = value[key];
    const schema = typeof tag === "string" ? (Object.hasOwn(table, tag) ? table[tag] : fallback?.(tag)) : undefined;
    if (!schema) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        input: tag,
        message:
          tag === undefined
            ? `\`${key}\` is required: one of ${names.map((n) => `'${n}'`).join(", ")}`
            : `\`${key}\` ${show(tag)} is not one of ${names.map((n) => `'${n}'`).join(", ")}${fallback ? " (nor a vendor type 'slug:name')" : ""}`,
      });
      return;
    }
    const result = schema.safeParse(value, { reportInput: true });
    if (!result.success) for (const issue of result.error.issues) ctx.addIssue(issue as never);
  });
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${show(v, 30)}`;
}

/** The name of the field a path points at: `total_tokens`, `output[0]`. */
function fieldName(path: readonly PropertyKey[]): string {
  let i = path.length - 1;
  let suffix = "";
  while (i >= 0 && typeof path[i] === "number") {
    suffix = `[${String(path[i])}]` + suffix;
    i--;
  }
  return i >= 0 ? `${String(path[i])}${suffix}` : suffix || "the value";
}

/** Our wording of one zod issue; issues from `tagged` are worded already (and carry no input). */
function describeIssue(issue: z.core.$ZodIssue): string {
  const name = `\`${fieldName(issue.path)}\``;
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return `${name} is required but missing`;
      return `${name} must be ${article(issue.expected)}, got ${kindOf(input)}`;
    case "invalid_value":
      return `${name} must be ${issue.values.length === 1 ? show(issue.values[0]) : `one of ${issue.values.map((v) => show(v)).join(", ")}`}, got ${show(input)}`;
    case "invalid_union":
      return `${name} matches none of its allowed shapes (got ${kindOf(input)})`;
    case "too_small":
      return `${name} must be ≥ ${String(issue.minimum)}, got ${show(input)}`;
    case "too_big":
      return `${name} must be ≤ ${String(issue.maximum)}, got ${show(input)}`;
    default:
      return issue.message.startsWith("`") ? issue.message : `${name}: ${issue.message}`;
  }
}

const article = (expected: string) =>
  expected === "null"
    ? "null"
    : expected === "int"
      ? "an integer"
      : /^[aeiou]/.test(expected)
        ? `an ${expected}`
        : `a ${expected}`;

/**
 * Validates `value` against `schema`; each issue becomes a violation of
 * `rule` at `base` + the issue's path. At most `max` are returned (the first
 * ones): a wholly wrong object is reported by its first faults. `label`
 * names the value itself ("the response lacks required keys: …").
 */
export function shapeViolations(
  schema: z.ZodType,
  value: unknown,
  base: string,
  where: Where,
  rule: RuleId = "schema",
  max = 8,
  label = "the event",
): Violation[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  // Missing keys of one object are reported together: "`response` lacks required keys: a, b, c".
  const found: { path: (string | number)[]; message?: string; missing?: string[] }[] = [];
  const groups = new Map<string, string[]>();
  for (const issue of result.error.issues) {
    const path = issue.path as (string | number)[];
    const last = path[path.length - 1];
    // Any issue about an absent value at a key is a missing key (enums, unions and custom checks report them their own way).
    if ((issue as { input?: unknown }).input === undefined && typeof last === "string") {
      const parent = path.slice(0, -1);
      const key = JSON.stringify(parent);
      const keys = groups.get(key);
      if (keys) keys.push(last);
      else {
        const missing = [last];
        groups.set(key, missing);
        found.push({ path: parent, missing });
      }
      continue;
    }
    found.push({ path, message: describeIssue(issue) });
  }
  const out: Violation[] = found.slice(0, max).map(({ path, message, missing }) => {
    if (!missing) return { rule, message: message!, path: subPath(base, ...path), ...where };
    if (missing.length === 1)
      return {
        rule,
        message: `\`${missing[0]}\` is required but missing`,
        path: subPath(base, ...path, missing[0]),
        ...where,
      };
    const owner = path.length === 0 ? label : `\`${fieldName(path)}\``;
    return {
      rule,
      message: `${owner} lacks required keys: ${missing.join(", ")}`,
      path: subPath(base, ...path),
      ...where,
    };
  });
  const more = found.length - out.length;
  if (more > 0) out[out.length - 1].message += ` (and ${more} more schema issue${more === 1 ? "" : "s"} here)`;
  return out;
}
