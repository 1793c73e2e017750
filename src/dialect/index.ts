/**
 * The dialects the server speaks, by name. `open-responses` (the spec) is the
 * default; each other dialect is one description file.
 */
import { ApiError } from "../spec/index.js";
import type { DialectDescription } from "./dialect.js";
import { openResponses } from "./open-responses.js";
import { openai } from "./openai.js";
import { compileDialect, type Dialect } from "./render.js";

export type { DialectDescription } from "./dialect.js";
export * from "./render.js";

const DESCRIPTIONS: readonly DialectDescription[] = [openResponses, openai];

/** Every dialect, compiled, by name. */
export const DIALECTS: ReadonlyMap<string, Dialect> = new Map(DESCRIPTIONS.map((d) => [d.name, compileDialect(d)]));

/** The names of the dialects, default first. */
export const DIALECT_NAMES: readonly string[] = DESCRIPTIONS.map((d) => d.name);

export const DEFAULT_DIALECT: Dialect = DIALECTS.get(openResponses.name)!;

/** The dialect an `x-mock-dialect` header names; a 400 listing the known names otherwise. */
export function dialectFromHeader(value: string, header = "x-mock-dialect"): Dialect {
  const dialect = DIALECTS.get(value.trim());
  if (!dialect) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_header",
      param: header,
      message: `Header ${header} names an unknown dialect '${value.slice(0, 40)}'. Known dialects: ${DIALECT_NAMES.join(", ")}.`,
    });
  }
  return dialect;
}
