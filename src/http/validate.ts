/**
 * Request validation with the spec schemas, and the translation of the first
 * zod issue into a spec error object whose `param` names the offending field
 * the way OpenAI does (`input[0].content[1].type`). `parseCreateRequest` is
 * the one way into a request body: OpenAI's superset by default, the spec
 * alone when strict.
 */
import type { z } from "zod";
import { ApiError, CreateResponseBody, SpecCreateResponseBody } from "../spec/index.js";
import { fastCreateRequest } from "../spec/fast-request.js";

/** `["input", 0, "content", 1, "type"]` → `input[0].content[1].type`. */
export function paramPath(path: readonly PropertyKey[]): string | null {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out.length === 0 ? String(key) : `.${String(key)}`;
  }
  return out.length > 0 ? out : null;
}

function describeInput(input: unknown): string {
  if (input === undefined) return "nothing";
  if (input === null) return "null";
  if (Array.isArray(input)) return "an array";
  if (typeof input === "string") return `'${input.length > 40 ? input.slice(0, 40) + "…" : input}'`;
  if (typeof input === "object") return "an object";
  return `${typeof input} ${String(input)}`;
}

function messageFor(issue: z.core.$ZodIssue, param: string | null): { code: string; message: string } {
  const where = param ? `'${param}'` : "the request body";
  const custom =
    issue.message && !/^Invalid /.test(issue.message) && !/^Too (big|small)/.test(issue.message) ? issue.message : null;
  switch (issue.code) {
    case "invalid_type": {
      // With reportInput on, an absent field is an invalid_type issue whose input is undefined.
      if ((issue as { input?: unknown }).input === undefined) {
        return { code: "missing_required_parameter", message: `Missing required parameter: ${where}.` };
      }
      return {
        code: "invalid_type",
        message: `Invalid type for ${where}: expected ${custom && custom !== "is required" && custom !== "must be a string" ? custom.replace(/^expected /, "") : issue.expected}, got ${describeInput((issue as { input?: unknown }).input)}.`,
      };
    }
    case "invalid_value": {
      const values = (issue as { values?: unknown[] }).values ?? [];
      if (custom?.startsWith("is required"))
        return {
          code: "missing_required_parameter",
          message: `Missing required parameter: ${where} (${custom.replace(/^is required: /, "")}).`,
        };
      return {
        code: "invalid_value",
        message: custom
          ? `Invalid value for ${where}: ${custom}.`
          : `Invalid value for ${where}: expected one of ${values.map((v) => `'${String(v)}'`).join(", ")}.`,
      };
    }
    case "too_big":
    case "too_small": {
      const i = issue as { origin?: string; maximum?: unknown; minimum?: unknown; input?: unknown };
      const bound = issue.code === "too_big" ? `at most ${String(i.maximum)}` : `at least ${String(i.minimum)}`;
      const unit = i.origin === "string" ? " characters" : i.origin === "array" ? " items" : "";
      const length = typeof i.input === "string" || Array.isArray(i.input) ? ` (got ${i.input.length})` : "";
      return {
        code: issue.code === "too_big" ? "value_above_maximum" : "value_below_minimum",
        message:
          custom && !/^Too /.test(custom)
            ? `Invalid value for ${where}: ${custom}${length}.`
            : `Invalid value for ${where}: must be ${bound}${unit}${length}.`,
      };
    }
    case "invalid_format":
      return { code: "invalid_value", message: `Invalid value for ${where}: ${issue.message}.` };
    case "unrecognized_keys":
      return {
        code: "unknown_parameter",
        message: `Unknown parameter: ${where}. Strict mode accepts only the fields of the Open Responses spec (drop --strict or x-mock-strict to allow OpenAI's).`,
      };
    case "invalid_union":
      return {
        code: "invalid_type",
        message: `Invalid value for ${where}: ${custom ?? "it matches none of the allowed forms"}.`,
      };
    default:
      return { code: "invalid_value", message: `Invalid value for ${where}: ${issue.message}.` };
  }
}

/** Turns a zod error into the 400 a client gets for it. */
export function zodToApiError(error: z.ZodError, prefix: readonly PropertyKey[] = []): ApiError {
  const issue = error.issues[0];
  // An unknown key is reported at the key itself (`user`), not at the object that holds it.
  const unknown = issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [];
  const param = paramPath([...prefix, ...issue.path, ...unknown]);
  const { code, message } = messageFor(issue, param);
  const i = issue as { origin?: string; maximum?: unknown; minimum?: unknown; input?: unknown };
  const limit = issue.code === "too_big" ? i.maximum : issue.code === "too_small" ? i.minimum : undefined;
  const bound =
    i.origin === "number" && typeof limit === "number"
      ? { side: issue.code === "too_big" ? ("above" as const) : ("below" as const), limit, got: i.input }
      : undefined;
  // A string or list over its maximum length (dialects spell these their own way: OpenAI's `array_above_max_length`).
  const kind =
    typeof i.input === "string" ? ("string" as const) : Array.isArray(i.input) ? ("array" as const) : undefined;
  const length =
    issue.code === "too_big" && kind && typeof limit === "number"
      ? { kind, limit, got: (i.input as string | unknown[]).length }
      : undefined;
  return new ApiError({ status: 400, type: "invalid_request", code, param, message, bound, length });
}

/** Parses `value` with `schema`, or throws the 400 that describes the first problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw zodToApiError(result.error);
  return result.data;
}

/** How strictly a request is read: the spec alone (`--strict`, `x-mock-strict: 1`), or OpenAI's superset. */
export interface ParsePolicy {
  strict: boolean;
}

/** A request schema in both policies: OpenAI's superset, and the spec alone (whose values are the superset's too). */
export interface PolicySchemas<T> {
  superset: z.ZodType<T, unknown>;
  strict: z.ZodType<unknown, unknown>;
}

/** Parses `value` with the schema of the policy, or throws the 400 that describes the first problem. */
export function parseWithPolicy<T>(schemas: PolicySchemas<T>, value: unknown, policy: ParsePolicy): T {
  return (policy.strict ? parseOrThrow(schemas.strict, value) : parseOrThrow(schemas.superset, value)) as T;
}

const CREATE: PolicySchemas<CreateResponseBody> = { superset: CreateResponseBody, strict: SpecCreateResponseBody };

/**
 * A `POST /v1/responses` body (HTTP, WebSocket, play), validated under the
 * policy; throws the ApiError 400. The common shapes take the fast path
 * (src/spec/fast-request.ts), which gives zod's value; anything else, and
 * every error, is zod's.
 */
export function parseCreateRequest(json: unknown, opts: ParsePolicy): CreateResponseBody {
  if (!opts.strict) {
    const fast = fastCreateRequest(json);
    if (fast !== undefined) return fast;
  }
  return parseWithPolicy(CREATE, json, opts);
}
