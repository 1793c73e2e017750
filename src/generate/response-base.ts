/**
 * The response a request starts: every one of the 31 keys, echoed from the
 * request or defaulted as the spec's `ResponseResource` says (openapi.json), with `output: []` and `usage: null`.
 */
import type { CreateResponseBody, ResponseResource, ToolChoice } from "../spec/index.js";

export interface BaseInit {
  id: string;
  createdAt: number;
  /** The model name reported back; the request's `model` unless a scenario says otherwise. */
  model?: string;
  /** Whether the response starts `queued` (background mode). */
  queued?: boolean;
  /** The `previous_response_id` to echo (defaults to the request's). */
  previousResponseId?: string | null;
}

function echoTools(tools: CreateResponseBody["tools"]): ResponseResource["tools"] {
  return (tools ?? []).map((tool) =>
    tool.type === "function"
      ? {
          type: "function" as const,
          name: (tool as { name: string }).name,
          description: (tool as { description?: string | null }).description ?? null,
          parameters: (tool as { parameters?: Record<string, unknown> | null }).parameters ?? null,
          strict: (tool as { strict?: boolean | null }).strict ?? true,
        }
      : tool,
  );
}

function echoToolChoice(choice: CreateResponseBody["tool_choice"]): ToolChoice {
  if (choice == null) return "auto";
  if (typeof choice === "string") return choice;
  if (choice.type === "function") return { type: "function", name: choice.name };
  // OpenAI's hosted, mcp and custom choices are echoed as sent.
  if (choice.type !== "allowed_tools") return choice;
  return {
    type: "allowed_tools",
    tools: choice.tools.map((t) => (t.type === "function" ? { type: "function" as const, name: t.name } : t)),
    mode: choice.mode ?? "auto",
  };
}

function echoText(text: CreateResponseBody["text"]): ResponseResource["text"] {
  const format = text?.format;
  const out: ResponseResource["text"] =
    format?.type === "json_schema"
      ? {
          format: {
            type: "json_schema",
            name: format.name ?? "response",
            description: format.description ?? null,
            // Typed `null` by the published schema (openapi.json; docs/architecture.md, "Where the spec is ambiguous"): we echo null.
            schema: null,
            strict: format.strict ?? false,
          },
        }
      : { format: { type: format?.type === "json_object" ? "json_object" : "text" } };
  if (text?.verbosity) out.verbosity = text.verbosity;
  return out;
}

/** Builds the starting snapshot of a response for a validated request. */
export function buildBaseResponse(request: CreateResponseBody, init: BaseInit): ResponseResource {
  return {
    id: init.id,
    object: "response",
    created_at: init.createdAt,
    completed_at: null,
    status: init.queued ? "queued" : "in_progress",
    incomplete_details: null,
    model: init.model ?? request.model,
    previous_response_id:
      init.previousResponseId !== undefined ? init.previousResponseId : (request.previous_response_id ?? null),
    instructions: request.instructions ?? null,
    output: [],
    error: null,
    tools: echoTools(request.tools),
    tool_choice: echoToolChoice(request.tool_choice),
    truncation: request.truncation ?? "disabled",
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    text: echoText(request.text),
    top_p: request.top_p ?? 1,
    presence_penalty: request.presence_penalty ?? 0,
    frequency_penalty: request.frequency_penalty ?? 0,
    top_logprobs: request.top_logprobs ?? 0,
    temperature: request.temperature ?? 1,
    reasoning: request.reasoning
      ? { effort: request.reasoning.effort ?? null, summary: request.reasoning.summary ?? null }
      : null,
    usage: null,
    max_output_tokens: request.max_output_tokens ?? null,
    max_tool_calls: request.max_tool_calls ?? null,
    store: request.store ?? true,
    background: request.background ?? false,
    service_tier: !request.service_tier || request.service_tier === "auto" ? "default" : request.service_tier,
    metadata: request.metadata ?? {},
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
  };
}
