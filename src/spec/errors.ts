/**
 * The HTTP error body (`{ error: { type, code, param, message } }`) and the
 * table from error `type` to HTTP status. Type names are the spec table's.
 */
import { z } from "zod";

export const ErrorType = z.enum(["invalid_request", "not_found", "too_many_requests", "server_error", "model_error"]);

export const ErrorObject = z.object({
  type: z.string(),
  code: z.string().nullable(),
  param: z.string().nullable(),
  message: z.string(),
});

export const ErrorBody = z.object({ error: ErrorObject });

export type ErrorObject = z.infer<typeof ErrorObject>;
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The status each error `type` is sent with, unless a caller sets another. */
export const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request: 400,
  not_found: 404,
  too_many_requests: 429,
  server_error: 500,
  model_error: 500,
};

/**
 * What refused a request: a bucket (`requests`, `tokens`) or the budget;
 * the bucket's limit, what it had used, what the request asked, and when it
 * fits (`retryMs` null: never, the request is over the limit itself).
 */
export interface RateLimitInfo {
  kind: "requests" | "tokens" | "budget";
  model: string;
  limit: number;
  used: number;
  requested: number;
  retryMs: number | null;
}

/**
 * An error answered to the client as a spec error object. Thrown anywhere on
 * the request path (validation, generation, routing) and rendered in one place.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  /** Extra response headers, e.g. `retry-after` on a 429. */
  readonly headers: Record<string, string>;
  /** For a number out of its range: which bound, and the value sent (dialects spell these errors their own way). */
  readonly bound?: { side: "below" | "above"; limit: number; got: unknown };
  /** For a string or list longer than its maximum: which, the maximum and its length (dialects spell these their own way). */
  readonly length?: { kind: "string" | "array"; limit: number; got: number };
  /** For a refusal by the limiter (src/turn/limits.ts): what refused it, for dialects that spell it their own way (OpenAI's messages). */
  readonly rateLimit?: RateLimitInfo;

  constructor(init: {
    status?: number;
    type?: string;
    code?: string | null;
    param?: string | null;
    message: string;
    headers?: Record<string, string>;
    bound?: ApiError["bound"];
    length?: ApiError["length"];
    rateLimit?: RateLimitInfo;
  }) {
    super(init.message);
    this.name = "ApiError";
    this.type = init.type ?? "invalid_request";
    this.status = init.status ?? STATUS_OF_ERROR_TYPE[this.type] ?? 400;
    this.code = init.code ?? null;
    this.param = init.param ?? null;
    this.headers = init.headers ?? {};
    if (init.bound) this.bound = init.bound;
    if (init.length) this.length = init.length;
    if (init.rateLimit) this.rateLimit = init.rateLimit;
  }

  /** The `{ error: {...} }` body. */
  toBody(): ErrorBody {
    return { error: { type: this.type, code: this.code, param: this.param, message: this.message } };
  }
}

/** A 400 `invalid_request` naming the offending parameter. */
export const invalidRequest = (param: string | null, message: string, code: string | null = "invalid_value") =>
  new ApiError({ status: 400, type: "invalid_request", code, param, message });
