/**
 * A strict parser for Chat Completions streams as OpenAI sends them: `\n`
 * line endings only, every message exactly one `data:` line (no `event:`,
 * `id:` or `retry:` lines), comments only between messages, each data a JSON
 * object, and the stream ending with `data: [DONE]`, or, for a failed answer,
 * with an `{"error": …}` data line and nothing after it.
 */
import { SseFormatError } from "./sse-parser.js";

export type Json = Record<string, unknown>;

/** Two function tools in Chat Completions' form (the chat tests' and the chat clients'). */
export const CHAT_TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      description: "Current weather for a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "get_time",
      description: "Local time in a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];

export interface ParsedChatStream {
  /** Every `chat.completion.chunk`, in order. */
  chunks: Json[];
  /** The error object a failed stream ended with, if any. */
  error: Json | null;
  done: boolean;
  comments: string[];
}

export function parseChatSse(text: string, { requireEnd = true } = {}): ParsedChatStream {
  if (text.includes("\r")) throw new SseFormatError("stream contains \\r: lines must end with \\n only");
  if (text.length > 0 && !text.endsWith("\n\n")) throw new SseFormatError("stream does not end with a blank line");
  const out: ParsedChatStream = { chunks: [], error: null, done: false, comments: [] };
  const blocks = text.split("\n\n");
  blocks.pop();
  for (const block of blocks) {
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        if (data.length > 0) throw new SseFormatError(`comment inside a message: ${line}`);
        out.comments.push(line);
        continue;
      }
      if (!line.startsWith("data: ")) throw new SseFormatError(`not a 'data: ' line: ${JSON.stringify(line)}`);
      data.push(line.slice(6));
    }
    if (data.length === 0) continue;
    if (data.length !== 1) throw new SseFormatError(`a message must have exactly one data line, got ${data.length}`);
    if (out.done || out.error) throw new SseFormatError(`message after the end: ${data[0].slice(0, 80)}`);
    if (data[0] === "[DONE]") {
      out.done = true;
      continue;
    }
    const json = JSON.parse(data[0]) as Json;
    if (json.error !== undefined) {
      out.error = json.error as Json;
      continue;
    }
    if (json.object !== "chat.completion.chunk") throw new SseFormatError(`not a chunk: ${data[0].slice(0, 80)}`);
    out.chunks.push(json);
  }
  if (requireEnd && !out.done && !out.error)
    throw new SseFormatError("stream did not end with data: [DONE] or an error");
  return out;
}

/** What a chat stream says, joined: its text, refusal, calls (by index) and finish reason. */
export function foldChatChunks(chunks: readonly Json[]): {
  role: string | null;
  content: string;
  refusal: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string | null;
  usage: Json | null;
} {
  let role: string | null = null;
  let content = "";
  let refusal = "";
  let finish: string | null = null;
  let usage: Json | null = null;
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage as Json;
    for (const choice of chunk.choices as Json[]) {
      const delta = choice.delta as Json;
      if (typeof delta.role === "string") role = delta.role;
      if (typeof delta.content === "string") content += delta.content;
      if (typeof delta.refusal === "string") refusal += delta.refusal;
      for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
        const index = call.index as number;
        const fn = (call.function ?? {}) as Json;
        if (!calls[index]) calls[index] = { id: call.id as string, name: fn.name as string, arguments: "" };
        calls[index].arguments += (fn.arguments as string | undefined) ?? "";
      }
      if (choice.finish_reason) finish = choice.finish_reason as string;
    }
  }
  return { role, content, refusal, calls, finish, usage };
}
