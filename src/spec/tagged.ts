/**
 * `tagged`: a discriminated union that dispatches on one key and reports
 * errors the way a client developer needs them — "input[2].role must be one
 * of …" — instead of zod's generic "Invalid input" for a failed union.
 */
import { z } from "zod";
import { isVendorType } from "./common.js";

type Table = Record<string, z.ZodType>;

export interface TaggedOptions {
  /** Accepts `slug:name` tags with this schema (vendor extension types). */
  vendor?: z.ZodType;
  /** Rewrites the value before dispatch (e.g. default a missing `type`). */
  normalize?: (value: Record<string, unknown>) => Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const describe = (v: unknown): string =>
  v === undefined
    ? "nothing"
    : v === null
      ? "null"
      : Array.isArray(v)
        ? "an array"
        : typeof v === "string"
          ? `'${v.length > 40 ? v.slice(0, 40) + "…" : v}'`
          : typeof v;

export function tagged<T extends Table>(
  key: string,
  table: T,
  options: TaggedOptions = {},
): z.ZodType<z.output<T[keyof T]>, unknown> {
  const names = Object.keys(table);
  const expected = names.map((n) => `'${n}'`).join(", ") + (options.vendor ? ", or a vendor type 'slug:name'" : "");
  return z.unknown().transform((input, ctx) => {
    if (!isObject(input)) {
      ctx.addIssue({
        code: "invalid_type",
        expected: "object",
        input,
        message: `expected an object, got ${describe(input)}`,
      });
      return z.NEVER;
    }
    const value = options.normalize ? options.normalize(input) : input;
    const tag = value[key];
    const schema =
      typeof tag === "string" && Object.hasOwn(table, tag)
        ? table[tag]
        : options.vendor && isVendorType(tag)
          ? options.vendor
          : undefined;
    if (!schema) {
      ctx.addIssue({
        code: "invalid_value",
        values: names,
        input: tag,
        path: [key],
        message:
          tag === undefined ? `is required: one of ${expected}` : `must be one of ${expected}; got ${describe(tag)}`,
      });
      return z.NEVER;
    }
    const result = schema.safeParse(value, { reportInput: true });
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue(issue as never);
      return z.NEVER;
    }
    return result.data as z.output<T[keyof T]>;
  });
}

type Kind = "string" | "array" | "object" | "number" | "boolean";
const kindOf = (v: unknown): Kind | "null" | "undefined" | "other" =>
  v === null
    ? "null"
    : v === undefined
      ? "undefined"
      : Array.isArray(v)
        ? "array"
        : ((["string", "object", "number", "boolean"] as const).find((k) => typeof v === k) ?? "other");

/**
 * A union of differently-shaped alternatives (`string | Item[]`) dispatched
 * on the JSON kind of the value, so a bad array element is reported at its own
 * path (`input[3].role`) instead of as "matches no alternative" at `input`.
 */
export function byKind<T extends Partial<Record<Kind, z.ZodType>>>(
  alternatives: T,
  expected: string,
): z.ZodType<z.output<NonNullable<T[keyof T]>>, unknown> {
  return z.unknown().transform((input, ctx) => {
    const kind = kindOf(input);
    const schema = (alternatives as Record<string, z.ZodType | undefined>)[kind];
    if (!schema) {
      ctx.addIssue({ code: "invalid_type", expected: expected as never, input, message: `expected ${expected}` });
      return z.NEVER;
    }
    const result = schema.safeParse(input, { reportInput: true });
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue(issue as never);
      return z.NEVER;
    }
    return result.data as z.output<NonNullable<T[keyof T]>>;
  });
}
