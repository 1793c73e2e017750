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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const describe = (v: unknown): string =>
  v === undefined ? "nothing" : v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" ? `'${v.length > 40 ? v.slice(0, 40) + "…" : v}'` : typeof v;

export function tagged<T extends Table>(
  key: string,
  table: T,
  options: TaggedOptions = {},
): z.ZodType<z.output<T[keyof T]>, unknown> {
  const names = Object.keys(table);
  const expected = names.map((n) => `'${n}'`).join(", ") + (options.vendor ? ", or a vendor type 'slug:name'" : "");
  return z.unknown().transform((input, ctx) => {
    if (!isObject(input)) {
      ctx.addIssue({ code: "invalid_type", expected: "object", input, message: `expected an object, got ${describe(input)}` });
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
        message: tag === undefined ? `is required: one of ${expected}` : `must be one of ${expected}; got ${describe(tag)}`,
      });
      return z.NEVER;
    }
    const result = schema.safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues) ctx.addIssue({ ...issue, input: undefined } as never);
      return z.NEVER;
    }
    return result.data as z.output<T[keyof T]>;
  });
}
