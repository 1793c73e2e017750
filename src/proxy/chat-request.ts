/**
 * A Responses request, as the Chat Completions request that asks the same:
 * `instructions` and the conversation become `messages` (function calls and
 * their outputs as assistant `tool_calls` and `tool` messages), function
 * tools and `tool_choice`, `max_output_tokens`, the sampling fields, the text
 * format and the reasoning effort are mapped across. What Chat Completions
 * cannot carry (hosted tools, items it has no message for) is a 400 naming
 * the field, never dropped in silence. Pure.
 */
import { contentText } from "../scenario/conversation.js";
import type { ChatMessage, ChatToolCall } from "../dialect/chat-request.js";
import { ApiError, type CreateResponseBody, type ItemParam } from "../spec/index.js";

type Json = Record<string, unknown>;

// The Chat Completions message types are shared with the mock's own /v1/chat/completions (the reverse mapping).
export type { ChatMessage, ChatToolCall } from "../dialect/chat-request.js";

/** The body of `POST {upstream}/chat/completions`. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  stream_options?: { include_usage: boolean };
  tools?: { type: "function"; function: { name: string; description?: string; parameters?: Json; strict?: boolean } }[];
  tool_choice?: "none" | "auto" | "required" | { type: "function"; function: { name: string } };
  parallel_tool_calls?: boolean;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  response_format?: Json;
  reasoning_effort?: string;
  user?: string;
}

const untranslatable = (param: string, message: string) =>
  new ApiError({
    status: 400,
    type: "invalid_request",
    code: "unsupported_parameter",
    param,
    message: `${message} The proxy's upstream speaks Chat Completions (--upstream-api chat), which has no equivalent.`,
  });

/** A user message's content parts as Chat Completions parts (text, image_url, file). */
function userParts(content: unknown, where: string): string | Json[] {
  if (typeof content === "string") return content;
  return (content as Json[]).map((part, i) => {
    switch (part.type) {
      case "input_text":
        return { type: "text", text: part.text };
      case "input_image": {
        if (typeof part.image_url !== "string")
          throw untranslatable(
            `${where}.content[${i}]`,
            "An input_image without an image_url (a file_id) cannot be sent.",
          );
        const image: Json = { url: part.image_url };
        if (part.detail) image.detail = part.detail;
        return { type: "image_url", image_url: image };
      }
      case "input_file": {
        if (typeof part.file_data !== "string")
          throw untranslatable(
            `${where}.content[${i}]`,
            "An input_file without file_data (a file_url or file_id) cannot be sent.",
          );
        const file: Json = { file_data: part.file_data };
        if (typeof part.filename === "string") file.filename = part.filename;
        return { type: "file", file };
      }
      default:
        throw untranslatable(`${where}.content[${i}].type`, `A '${String(part.type)}' content part cannot be sent.`);
    }
  });
}

/** System and developer messages: their text (Chat Completions servers take `system` alike; `developer` is OpenAI's alone). */
const systemText = (content: unknown): string => contentText(content);

/** A function output as a tool message's content: the text, or the text parts joined. */
function toolOutput(output: unknown, where: string): string {
  if (typeof output === "string") return output;
  const parts = output as Json[];
  const other = parts.findIndex((p) => p.type !== "input_text");
  if (other >= 0)
    throw untranslatable(
      `${where}.output[${other}]`,
      `A tool output with a '${String(parts[other].type)}' part cannot be sent to a tool message (text only).`,
    );
  return parts.map((p) => p.text as string).join("");
}

/**
 * The messages of a conversation: `instructions` first as a system message,
 * then one message per item; an assistant message and the function calls
 * right after it are one assistant message with `tool_calls`. Reasoning items
 * are left out (Chat Completions takes no reasoning back).
 */
export function chatMessages(instructions: string | null | undefined, items: readonly ItemParam[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (instructions) out.push({ role: "system", content: instructions });
  /** The assistant message the next function calls join, while nothing else came between. */
  let assistant: Extract<ChatMessage, { role: "assistant" }> | null = null;
  items.forEach((raw, i) => {
    const item = raw as unknown as Json;
    const where = `input[${i}]`;
    if (item.type === "message" || (item.type === undefined && typeof item.role === "string")) {
      const role = item.role;
      if (role === "assistant") {
        const parts =
          typeof item.content === "string" ? [{ type: "output_text", text: item.content }] : (item.content as Json[]);
        const text = parts
          .filter((p) => p.type === "output_text")
          .map((p) => p.text as string)
          .join("");
        const refusal = parts
          .filter((p) => p.type === "refusal")
          .map((p) => p.refusal as string)
          .join("");
        assistant = { role: "assistant", content: text === "" && refusal !== "" ? null : text };
        if (refusal !== "") assistant.refusal = refusal;
        out.push(assistant);
        return;
      }
      assistant = null;
      if (role === "user") out.push({ role: "user", content: userParts(item.content, where) });
      else if (role === "system" || role === "developer")
        out.push({ role: "system", content: systemText(item.content) });
      else throw untranslatable(`${where}.role`, `A message with role '${String(role)}' cannot be sent.`);
      return;
    }
    switch (item.type) {
      case "function_call": {
        const call: ChatToolCall = {
          id: item.call_id as string,
          type: "function",
          function: { name: item.name as string, arguments: item.arguments as string },
        };
        if (!assistant) out.push((assistant = { role: "assistant", content: null }));
        (assistant.tool_calls ??= []).push(call);
        return;
      }
      case "function_call_output":
        assistant = null;
        out.push({ role: "tool", tool_call_id: item.call_id as string, content: toolOutput(item.output, where) });
        return;
      case "reasoning":
        return;
      default:
        throw untranslatable(`${where}.type`, `An input item of type '${String(item.type)}' cannot be sent.`);
    }
  });
  return out;
}

/** The function tools, and the tool_choice; an `allowed_tools` choice keeps only the allowed tools. */
function toolsOf(request: CreateResponseBody): Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls"> {
  const tools = (request.tools ?? []).map((raw, i) => {
    const tool = raw as unknown as Json;
    if (tool.type !== "function")
      throw untranslatable(
        `tools[${i}].type`,
        `A '${String(tool.type)}' tool cannot be offered; only function tools can.`,
      );
    const fn: NonNullable<ChatRequest["tools"]>[number]["function"] = { name: tool.name as string };
    if (typeof tool.description === "string") fn.description = tool.description;
    if (tool.parameters != null) fn.parameters = tool.parameters as Json;
    if (typeof tool.strict === "boolean") fn.strict = tool.strict;
    return { type: "function" as const, function: fn };
  });
  const out: Pick<ChatRequest, "tools" | "tool_choice" | "parallel_tool_calls"> = {};
  let offered = tools;
  const choice = request.tool_choice as unknown;
  if (typeof choice === "string") out.tool_choice = choice as "none" | "auto" | "required";
  else if (choice && typeof choice === "object") {
    const c = choice as Json;
    if (c.type === "function" && typeof c.name === "string")
      out.tool_choice = { type: "function", function: { name: c.name } };
    else if (c.type === "allowed_tools") {
      const allowed = new Set<string>();
      (c.tools as Json[]).forEach((t, i) => {
        if (t.type !== "function")
          throw untranslatable(
            `tool_choice.tools[${i}].type`,
            `An allowed '${String(t.type)}' tool cannot be offered.`,
          );
        allowed.add(t.name as string);
      });
      offered = tools.filter((t) => allowed.has(t.function.name));
      out.tool_choice = ((c.mode as string | undefined) ?? "auto") as "auto" | "required";
    } else throw untranslatable("tool_choice.type", `A tool_choice of type '${String(c.type)}' cannot be sent.`);
  }
  if (offered.length > 0) {
    out.tools = offered;
    if (request.parallel_tool_calls != null) out.parallel_tool_calls = request.parallel_tool_calls;
  } else if (out.tool_choice !== undefined && out.tool_choice !== "none" && out.tool_choice !== "auto") {
    throw untranslatable("tool_choice", "A tool_choice that requires a tool needs function tools in 'tools'.");
  } else delete out.tool_choice;
  return out;
}

/** `text.format` as `response_format`. */
function responseFormat(request: CreateResponseBody): Json | undefined {
  const format = request.text?.format as Json | null | undefined;
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const schema: Json = { name: (format.name as string | undefined) ?? "response" };
  if (typeof format.description === "string") schema.description = format.description;
  if (format.schema !== undefined) schema.schema = format.schema;
  if (typeof format.strict === "boolean") schema.strict = format.strict;
  return { type: "json_schema", json_schema: schema };
}

/**
 * The Chat Completions request for a Responses request and its whole
 * conversation (`items`: the previous_response_id chain, then the input).
 * `max_output_tokens` is sent as `max_tokens`, the name every Chat
 * Completions server (Ollama, vLLM, llama.cpp, OpenAI's non-reasoning
 * models) knows. A stream asks for the usage chunk.
 */
export function buildChatRequest(
  request: CreateResponseBody,
  items: readonly ItemParam[],
  stream: boolean,
): ChatRequest {
  if (request.background) throw untranslatable("background", "A background response cannot be proxied.");
  const body: ChatRequest = { model: request.model, messages: chatMessages(request.instructions, items), stream };
  if (stream) body.stream_options = { include_usage: true };
  Object.assign(body, toolsOf(request));
  if (request.max_output_tokens != null) body.max_tokens = request.max_output_tokens;
  if (request.temperature != null) body.temperature = request.temperature;
  if (request.top_p != null) body.top_p = request.top_p;
  if (request.presence_penalty != null) body.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty != null) body.frequency_penalty = request.frequency_penalty;
  if (request.include?.includes("message.output_text.logprobs") || (request.top_logprobs ?? 0) > 0) {
    body.logprobs = true;
    if ((request.top_logprobs ?? 0) > 0) body.top_logprobs = request.top_logprobs!;
  }
  const format = responseFormat(request);
  if (format) body.response_format = format;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  const user = request.safety_identifier ?? request.user;
  if (user) body.user = user;
  return body;
}
