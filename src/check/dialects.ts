/**
 * What the checker judges differently per dialect. Written from the spec and
 * from the measured differences of api.openai.com (docs/check.md cites each
 * row), not read from src/dialect: the server's renderers are what the checker
 * checks, so it must not take its rules from them.
 */

export const CHECK_DIALECTS = ["open-responses", "openai"] as const;
export type CheckDialect = (typeof CHECK_DIALECTS)[number];

export interface DialectRules {
  name: CheckDialect;
  /** Whether the stream must end with `data: [DONE]` (true), or must not send it (false). */
  done: boolean;
  /** The raw reasoning text events' names. */
  reasoningDelta: string;
  reasoningDone: string;
  /** The other dialect's names for them, reported as "this dialect calls it …". */
  foreignReasoning: Record<string, string>;
  /** HTTP error `type`s allowed (undefined: any string). */
  errorTypes?: readonly string[];
  /** A json_schema `text.format` echoes `schema` as null (the spec's type) or as the object sent. */
  jsonSchemaEcho: "null" | "object";
  /** Reasoning efforts a response may report. */
  efforts: readonly string[];
  /** Whether OpenAI's hosted tools, items and events (web_search_call, …) are accepted (with a loose shape). */
  hosted: boolean;
  /** Response statuses a snapshot may carry. */
  statuses: readonly string[];
  /** `reasoning.summary` values a response may echo for a requested one (OpenAI resolves `auto` to `detailed`). */
  summaryEcho: Record<string, readonly string[]>;
}

const SPEC_STATUSES = ["queued", "in_progress", "completed", "failed", "incomplete"] as const;
const SPEC_EFFORTS = ["none", "low", "medium", "high", "xhigh"] as const;

export const DIALECT_RULES: Record<CheckDialect, DialectRules> = {
  "open-responses": {
    name: "open-responses",
    done: true,
    reasoningDelta: "response.reasoning.delta",
    reasoningDone: "response.reasoning.done",
    foreignReasoning: {
      "response.reasoning_text.delta": "response.reasoning.delta",
      "response.reasoning_text.done": "response.reasoning.done",
    },
    errorTypes: ["invalid_request", "not_found", "too_many_requests", "server_error", "model_error"],
    jsonSchemaEcho: "null",
    efforts: SPEC_EFFORTS,
    hosted: false,
    statuses: SPEC_STATUSES,
    summaryEcho: {},
  },
  openai: {
    name: "openai",
    done: false,
    reasoningDelta: "response.reasoning_text.delta",
    reasoningDone: "response.reasoning_text.done",
    foreignReasoning: {
      "response.reasoning.delta": "response.reasoning_text.delta",
      "response.reasoning.done": "response.reasoning_text.done",
    },
    errorTypes: undefined,
    jsonSchemaEcho: "object",
    efforts: [...SPEC_EFFORTS, "minimal"],
    hosted: true,
    statuses: [...SPEC_STATUSES, "cancelled"],
    summaryEcho: { auto: ["auto", "detailed", "concise"] },
  },
};

export function dialectRules(name: CheckDialect = "open-responses"): DialectRules {
  return DIALECT_RULES[name];
}

export const isCheckDialect = (name: unknown): name is CheckDialect =>
  (CHECK_DIALECTS as readonly unknown[]).includes(name);
