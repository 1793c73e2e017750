/**
 * A planned answer rendered as Chat Completions, the reverse of
 * src/proxy/chat-stream.ts: from the Responses events the turn plays, the
 * `chat.completion.chunk`s that say the same (`ChatChunker`, one event in,
 * the chunks it completes out, so the turn's schedule paces the chunks and
 * its faults cut them where they cut the events); from the final response, the
 * whole `chat.completion` (`chatCompletion`). Pure: no clock, no I/O.
 *
 * The mapping: an assistant message's text → `content` (its url_citation
 * annotations → the message's `annotations`, in a whole completion only), its
 * refusal → `refusal`; function calls → `tool_calls` (index by order, the call id, the
 * name first, then argument fragments); reasoning and hosted tool items are
 * left out; `finish_reason` is `tool_calls` when a call was made, `length`
 * for an answer cut by max_output_tokens, `content_filter` for one stopped by
 * the filter, `stop` otherwise; a failed answer is an `error` object.
 */
import type { ResponseResource, StreamEvent } from "../spec/index.js";

type Json = Record<string, unknown>;

/** What every chunk and completion of one answer shares. */
export interface ChatFrame {
  /** `chatcmpl-…`, from the response id (the same answer, the same id). */
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  /** `stream_options.include_usage`: every chunk carries `usage: null`, and a last chunk with no choices carries the usage. */
  includeUsage: boolean;
}

/** A Chat Completions id for a response id: `resp_abc…` → `chatcmpl-abc…`. */
export function chatId(responseId: string): string {
  const at = responseId.indexOf("_");
  return `chatcmpl-${at >= 0 ? responseId.slice(at + 1) : responseId}`;
}

/** OpenAI's fingerprint field: one constant, as the mock has one backend. */
const FINGERPRINT = "fp_mock";

/** The Chat Completions `usage` of a response's usage (all the details objects, zero where Responses has no count). */
export function chatUsage(usage: ResponseResource["usage"]): Json | null {
  if (!usage) return null;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** The `finish_reason` of a final response. */
export function finishReason(response: Pick<ResponseResource, "status" | "incomplete_details" | "output">): string {
  if (response.status === "incomplete") {
    const reason = (response.incomplete_details as { reason?: string } | null)?.reason;
    return reason === "content_filter" ? "content_filter" : "length";
  }
  return response.output.some((item) => (item as { type: string }).type === "function_call") ? "tool_calls" : "stop";
}

/** A failed response's error, as the error object Chat Completions sends (`{message, type, param, code}`). */
export function chatError(error: unknown): Json {
  const e = (error ?? {}) as Json;
  return {
    message: typeof e.message === "string" ? e.message : "The model failed to produce a response.",
    type: typeof e.type === "string" ? e.type : "server_error",
    param: typeof e.param === "string" ? e.param : null,
    code: typeof e.code === "string" ? e.code : null,
  };
}

/**
 * The whole `chat.completion` of a final response: the message's text and
 * refusal, the calls in order, the finish reason, the usage. A failed
 * response has no completion (its error is answered instead).
 */
export function chatCompletion(frame: Omit<ChatFrame, "includeUsage">, response: ResponseResource): Json {
  let content: string | null = null;
  let refusal: string | null = null;
  const calls: Json[] = [];
  const annotations: Json[] = [];
  for (const raw of response.output) {
    const item = raw as unknown as Json;
    if (item.type === "message") {
      for (const part of item.content as Json[]) {
        if (part.type === "output_text") {
          // A url_citation's indices count from the start of its part: shifted to the start of the whole content.
          const offset = content?.length ?? 0;
          for (const a of (part.annotations as Json[] | undefined) ?? [])
            if (a.type === "url_citation")
              annotations.push({
                type: "url_citation",
                url_citation: {
                  start_index: (a.start_index as number) + offset,
                  end_index: (a.end_index as number) + offset,
                  title: a.title,
                  url: a.url,
                },
              });
          content = (content ?? "") + (part.text as string);
        } else if (part.type === "refusal") refusal = (refusal ?? "") + (part.refusal as string);
      }
    } else if (item.type === "function_call") {
      calls.push({
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      });
    }
  }
  const message: Json = { role: "assistant", content, refusal, annotations };
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: frame.id,
    object: "chat.completion",
    created: frame.created,
    model: frame.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(response) }],
    usage: chatUsage(response.usage),
    service_tier: "default",
    system_fingerprint: FINGERPRINT,
  };
}

/** What a chunker gives for one event: chunks to send, or an error object that ends the stream (no `[DONE]` after it). */
export type ChatOut = { kind: "chunk"; chunk: Json } | { kind: "error"; error: Json };

/**
 * Responses events → `chat.completion.chunk`s, one event at a time. The
 * first chunk (on `response.created`) holds the role; each text or refusal
 * delta is a chunk; a function call's `output_item.added` is a tool_calls
 * delta with its `index`, `id`, `type` and name (arguments `""`), each
 * arguments delta a fragment; the terminal event gives the chunk with the
 * finish reason (and, when asked, the usage chunk); an `error` event gives
 * the error object, and the failed response after it nothing.
 */
export class ChatChunker {
  private calls = 0;
  private failed = false;

  constructor(private readonly frame: ChatFrame) {}

  /** Whether the answer failed (an `error` was given): the stream then ends without `[DONE]`. */
  get errored(): boolean {
    return this.failed;
  }

  private chunk(delta: Json, finish: string | null = null): ChatOut {
    const { frame } = this;
    const choices = [{ index: 0, delta, logprobs: null, finish_reason: finish }];
    // Two literals rather than a key added after: every chunk of a kind has one shape (one hidden class).
    const chunk: Json = frame.includeUsage
      ? {
          id: frame.id,
          object: "chat.completion.chunk",
          created: frame.created,
          model: frame.model,
          service_tier: "default",
          system_fingerprint: FINGERPRINT,
          choices,
          usage: null,
        }
      : {
          id: frame.id,
          object: "chat.completion.chunk",
          created: frame.created,
          model: frame.model,
          service_tier: "default",
          system_fingerprint: FINGERPRINT,
          choices,
        };
    return { kind: "chunk", chunk };
  }

  /** The chunks (or the error) one event completes; none for an event that says nothing in chat. */
  event(event: StreamEvent): ChatOut[] {
    if (this.failed) return [];
    const e = event as unknown as Json;
    switch (e.type) {
      case "response.created":
        return [this.chunk({ role: "assistant", content: "", refusal: null })];
      case "response.output_text.delta":
        return e.delta === "" ? [] : [this.chunk({ content: e.delta })];
      case "response.refusal.delta":
        return e.delta === "" ? [] : [this.chunk({ refusal: e.delta })];
      case "response.output_item.added": {
        const item = e.item as Json;
        if (item.type !== "function_call") return [];
        const index = this.calls++;
        return [
          this.chunk({
            tool_calls: [{ index, id: item.call_id, type: "function", function: { name: item.name, arguments: "" } }],
          }),
        ];
      }
      case "response.function_call_arguments.delta":
        return e.delta === ""
          ? []
          : [this.chunk({ tool_calls: [{ index: this.calls - 1, function: { arguments: e.delta } }] })];
      case "response.completed":
      case "response.incomplete": {
        const response = e.response as ResponseResource;
        const out = [this.chunk({}, finishReason(response))];
        if (this.frame.includeUsage) {
          const { frame } = this;
          out.push({
            kind: "chunk",
            chunk: {
              id: frame.id,
              object: "chat.completion.chunk",
              created: frame.created,
              model: frame.model,
              service_tier: "default",
              system_fingerprint: FINGERPRINT,
              choices: [],
              usage: chatUsage(response.usage),
            },
          });
        }
        return out;
      }
      case "error":
        this.failed = true;
        return [{ kind: "error", error: chatError(e.error) }];
      case "response.failed":
        this.failed = true;
        return [{ kind: "error", error: chatError((e.response as ResponseResource).error) }];
      default:
        return [];
    }
  }
}
