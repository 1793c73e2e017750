/**
 * A dialect: how the core's spec answer goes over the wire for one family of
 * servers. It is a declarative description: the generic renderers in
 * render.ts read it. The core (plan, events, fold, conformance checks) always
 * speaks the spec; a dialect only changes what is generated where the wire
 * differs (id shapes, vendor extensions, where annotations go) and how the
 * spec's objects are spelled at the edge. Adding a dialect is a new file with
 * a description, listed in index.ts.
 */
import type { IdStyle } from "../generate/ids.js";
import type { RateLimitInfo } from "../spec/errors.js";

export interface ErrorSpelling {
  /** Error `type` names: spec name → this dialect's. Names not listed are sent as they are. */
  types: Record<string, string>;
  /** Error `code`s: spec code → this dialect's (`null` sends no code). Codes not listed are sent as they are. */
  codes: Record<string, string | null>;
  /**
   * Codes that depend on the kind of number, for a value below a minimum or
   * above a maximum: e.g. `decimal_below_min_value` / `integer_below_min_value`.
   */
  bounds?: {
    /** Parameters whose values are decimals (the others are integers when the bound is). */
    decimalParams: readonly string[];
    below: { integer: string; decimal: string };
    above: { integer: string; decimal: string };
    /** The message, from the parameter, the side, the kind of number, the bound and the value sent. */
    message: (
      param: string,
      side: "below" | "above",
      kind: "integer" | "decimal",
      bound: number,
      got: unknown,
    ) => string;
  };
  /**
   * A 503 `server_is_overloaded` (more answers than the capacity and its
   * queue take: src/turn/capacity.ts): this dialect's error `type` and message.
   */
  overloaded?: { type: string; message: string };
  /**
   * Codes for a string or list longer than its maximum (`string_above_max_length`,
   * `array_above_max_length`), and their message.
   */
  lengths?: {
    above: { string: string; array: string };
    message: (param: string, kind: "string" | "array", limit: number, got: number) => string;
  };
  /** Extra headers on a scripted 429 (e.g. `x-ratelimit-*`); never on the limiter's, which sends the real ones. */
  rateLimitHeaders?: Record<string, string>;
  /** The `type`, `code` and message of the limiter's refusals (a bucket or the budget), spelled the dialect's way. */
  rateLimit?: (info: RateLimitInfo) => { type: string; code: string | null; message: string };
}

export interface DialectDescription {
  name: string;
  /** One line for `--help` and error messages. */
  summary: string;

  // ---- what the generators do differently ---------------------------------
  /** The shape of response, item and call ids. */
  ids: IdStyle;
  /** Whether `auto`/`random` may draw vendor items and events (scripted steps play as written). */
  vendorExtensions: boolean;
  /**
   * How scripted hosted-tool steps go out: OpenAI's own items and events
   * (`native`), or `openai:`-prefixed vendor items, the spec's extension form (`vendor`).
   */
  hostedItems: "native" | "vendor";
  /** Whether `output_text.annotation.added` follows the delta that completes the span (else after the text). */
  annotationsInline: boolean;

  // ---- the stream ---------------------------------------------------------
  sse: {
    /** The `content-type` of an SSE answer. */
    contentType: string;
    /** Whether the stream ends with `data: [DONE]`. */
    done: boolean;
  };
  /** Event types renamed on the wire (spec name → this dialect's). */
  eventNames: Record<string, string>;
  /** Whether a reasoning item's `encrypted_content` is sent on `output_item.added` too (not only on `.done`). */
  encryptedContentOnAdded: boolean;

  // ---- the response object -------------------------------------------------
  response: {
    /** `reasoning` when the request did not ask for it: `null` (spec) or this object. */
    reasoningDefault: { effort: string | null; summary: string | null } | null;
    /** `reasoning.effort` when reasoning was asked without an effort. */
    reasoningEffortDefault: string | null;
    /** `reasoning.summary` values echoed resolved (e.g. `auto` → `detailed`). */
    reasoningSummaryEcho: Record<string, string>;
    /** `text.verbosity` when the request set none (`undefined`: left out). */
    verbosityDefault?: string;
    /** Whether `output_text` parts always carry `logprobs` (`[]` unless asked). */
    outputTextLogprobs: boolean;
    /** Request fields echoed in every response, with their default when not sent. */
    echoFields: Record<string, null>;
    /** Whether a `json_schema` text format is echoed with its schema (else `schema: null`, as the spec types it). */
    echoJsonSchema: boolean;
    /**
     * `service_tier` while the response is queued or in progress, when the
     * request sent none or `auto` (`undefined`: the final value throughout).
     */
    serviceTierInProgress?: string;
    /** Top-level numbers written with a decimal point (`1.0`): JSON-equal, only byte comparisons see it. */
    floatFields: readonly string[];
    /** Whether hosted tools are echoed in `tools` with the defaults the server applied filled in (else as sent). */
    hostedToolDefaults?: boolean;
  };

  // ---- errors and headers -------------------------------------------------
  errors: ErrorSpelling;
  /**
   * Headers on every answer of `POST /v1/responses` and the stored-response
   * routes: a request id with this prefix, and the time spent, as names.
   */
  headers?: { requestId?: { name: string; prefix: string }; processingMs?: string; constant?: Record<string, string> };
}
