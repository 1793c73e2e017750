/**
 * A `POST /v1/chat/completions` body, validated against OpenAI's Chat
 * Completions shapes and mapped onto the Responses request that asks the
 * same, so that the one turn (selection, `auto`, seeds, timing, sessions,
 * limits, expectations) answers it:
 *
 *   messages      system/developer/user messages → message items; an
 *                 assistant message → an assistant message item, its
 *                 `tool_calls` → function_call items; a tool message →
 *                 a function_call_output item (`tool_call_id` → `call_id`)
 *   tools         function tools → Responses function tools
 *   tool_choice   as it is (a named function flattened)
 *   response_format → text.format (json_schema flattened, json_object)
 *   max_completion_tokens / max_tokens → max_output_tokens
 *
 * The reverse of src/proxy/chat-request.ts, which shares these types. A bad
 * body is an ApiError naming the field the way OpenAI's errors do. Pure.
 */
import { ApiError } from "../spec/index.js";

type Json = Record<string, unknown>;

/** A Chat Completions message. */
export type ChatMessage =
  | { role: "system" | "user"; content: string | Json[] }
  | { role: "assistant"; content: string | null; refusal?: string; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** What a chat request asks of its answer besides the turn itself. */
export interface ChatAsk {
  /** The Responses request body (JSON, not yet validated by the Responses schemas) that asks the same. */
  body: Json;
  /** `max_completion_tokens` or `max_tokens`, when given (kept apart: Chat Completions takes values under the Responses minimum of 16). */
  maxTokens: number | null;
  stream: boolean;
  /** `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The request's `seed`, when given (an `x-mock-seed` header wins over it). */
  seed: number | null;
  model: string;
}

/** The parameters OpenAI documents for `POST /v1/chat/completions`; anything else is refused, as OpenAI does. */
const KNOWN = new Set([
  "messages",
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
]);

const bad = (param: string, message: string, code: string | null = "invalid_value") =>
  new ApiError({ status: 400, type: "invalid_request", code, param, message });

const unsupported = (param: string, message: string) =>
  bad(
    param,
    `${message} openresponses-mock answers Chat Completions from its Responses scenarios, which cannot express it.`,
    "unsupported_parameter",
  );

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `'${v.length > 40 ? v.slice(0, 40) + "…" : v}'`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

const wrongType = (param: string, expected: string, got: unknown) =>
  bad(param, `Invalid type for '${param}': expected ${expected}, but got ${describe(got)}.`, "invalid_type");

const missing = (param: string) => bad(param, `Missing required parameter: '${param}'.`, "missing_required_parameter");

function str(json: Json, key: string, where: string, required = false): string | undefined {
  const v = json[key];
  if (v === undefined || v === null) {
    if (required) throw missing(where);
    return undefined;
  }
  if (typeof v !== "string") throw wrongType(where, "a string", v);
  return v;
}

function num(json: Json, key: string, min: number, max: number, integer: boolean): number | undefined {
  const v = json[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
    throw wrongType(key, integer ? "an integer" : "a number", v);
  if (v < min) throw bad(key, `Invalid '${key}': ${v} is less than the minimum of ${min}.`, "invalid_value");
  if (v > max) throw bad(key, `Invalid '${key}': ${v} is greater than the maximum of ${max}.`, "invalid_value");
  return v;
}

function bool(json: Json, key: string): boolean | undefined {
  const v = json[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw wrongType(key, "a boolean", v);
  return v;
}

/** Text-only content (system, developer, tool messages): a string, or text parts joined. */
function textContent(content: unknown, where: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw wrongType(`${where}.content`, "a string or an array of text parts", content);
  return content
    .map((part, i) => {
      const at = `${where}.content[${i}]`;
      if (!isObject(part)) throw wrongType(at, "an object", part);
      if (part.type !== "text")
        throw bad(
          `${at}.type`,
          `Invalid value for '${at}.type': this message takes 'text' parts only, got ${describe(part.type)}.`,
        );
      return str(part, "text", `${at}.text`, true)!;
    })
    .join("");
}

/** A user message's content as Responses content: input_text, input_image, input_file parts. */
function userContent(content: unknown, where: string): string | Json[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw wrongType(`${where}.content`, "a string or an array of content parts", content);
  return content.map((part, i) => {
    const at = `${where}.content[${i}]`;
    if (!isObject(part)) throw wrongType(at, "an object", part);
    switch (part.type) {
      case "text":
        return { type: "input_text", text: str(part, "text", `${at}.text`, true)! };
      case "image_url": {
        const image = part.image_url;
        if (!isObject(image)) throw wrongType(`${at}.image_url`, "an object with a url", image);
        const out: Json = {
          type: "input_image",
          image_url: str(image, "url", `${at}.image_url.url`, true)!,
          detail: "auto",
        };
        const detail = str(image, "detail", `${at}.image_url.detail`);
        if (detail !== undefined) {
          if (detail !== "auto" && detail !== "low" && detail !== "high")
            throw bad(
              `${at}.image_url.detail`,
              `Invalid value for '${at}.image_url.detail': expected one of 'auto', 'low', 'high'.`,
            );
          out.detail = detail;
        }
        return out;
      }
      case "file": {
        const file = part.file;
        if (!isObject(file)) throw wrongType(`${at}.file`, "an object", file);
        const out: Json = { type: "input_file" };
        const data = str(file, "file_data", `${at}.file.file_data`);
        const id = str(file, "file_id", `${at}.file.file_id`);
        const name = str(file, "filename", `${at}.file.filename`);
        if (data === undefined && id === undefined) throw missing(`${at}.file.file_data`);
        if (data !== undefined) out.file_data = data;
        if (id !== undefined) out.file_id = id;
        if (name !== undefined) out.filename = name;
        return out;
      }
      case "input_audio":
        throw unsupported(`${at}.type`, "Audio input is not answered.");
      default:
        throw bad(
          `${at}.type`,
          `Invalid value for '${at}.type': expected one of 'text', 'image_url', 'input_audio', 'file', got ${describe(part.type)}.`,
        );
    }
  });
}

/** An assistant message: its text (or refusal) as an assistant message item, its tool calls as function_call items. */
function assistantItems(message: Json, where: string, out: Json[]): void {
  const parts: Json[] = [];
  const content = message.content;
  if (typeof content === "string") {
    if (content !== "") parts.push({ type: "output_text", text: content, annotations: [] });
  } else if (Array.isArray(content)) {
    content.forEach((part, i) => {
      const at = `${where}.content[${i}]`;
      if (!isObject(part)) throw wrongType(at, "an object", part);
      if (part.type === "text")
        parts.push({ type: "output_text", text: str(part, "text", `${at}.text`, true)!, annotations: [] });
      else if (part.type === "refusal")
        parts.push({ type: "refusal", refusal: str(part, "refusal", `${at}.refusal`, true)! });
      else
        throw bad(
          `${at}.type`,
          `Invalid value for '${at}.type': expected one of 'text', 'refusal', got ${describe(part.type)}.`,
        );
    });
  } else if (content !== undefined && content !== null) {
    throw wrongType(`${where}.content`, "a string, an array of parts or null", content);
  }
  const refusal = str(message, "refusal", `${where}.refusal`);
  if (refusal) parts.push({ type: "refusal", refusal });
  const calls = message.tool_calls;
  if (calls !== undefined && calls !== null && !Array.isArray(calls))
    throw wrongType(`${where}.tool_calls`, "an array", calls);
  if (parts.length === 0 && (!Array.isArray(calls) || calls.length === 0) && message.function_call == null)
    throw bad(
      `${where}.content`,
      `Invalid value for '${where}': an assistant message needs 'content' or 'tool_calls'.`,
      "missing_required_parameter",
    );
  if (message.function_call != null)
    throw unsupported(`${where}.function_call`, "The deprecated 'function_call' is not answered; send 'tool_calls'.");
  if (parts.length > 0) out.push({ type: "message", role: "assistant", content: parts });
  (calls as unknown[] | undefined)?.forEach((call, i) => {
    const at = `${where}.tool_calls[${i}]`;
    if (!isObject(call)) throw wrongType(at, "an object", call);
    const id = str(call, "id", `${at}.id`, true)!;
    if (call.type !== "function")
      throw bad(`${at}.type`, `Invalid value for '${at}.type': expected 'function', got ${describe(call.type)}.`);
    const fn = call.function;
    if (!isObject(fn)) throw wrongType(`${at}.function`, "an object", fn);
    out.push({
      type: "function_call",
      call_id: id,
      name: str(fn, "name", `${at}.function.name`, true)!,
      arguments: str(fn, "arguments", `${at}.function.arguments`, true)!,
    });
  });
}

/** The messages as Responses input items, in order. */
export function chatInputItems(messages: unknown): Json[] {
  if (messages === undefined || messages === null) throw missing("messages");
  if (!Array.isArray(messages)) throw wrongType("messages", "an array", messages);
  if (messages.length === 0)
    throw bad(
      "messages",
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "empty_array",
    );
  const out: Json[] = [];
  messages.forEach((message, i) => {
    const where = `messages[${i}]`;
    if (!isObject(message)) throw wrongType(where, "an object", message);
    const role = message.role;
    switch (role) {
      case "system":
      case "developer":
        out.push({ type: "message", role, content: textContent(message.content, where) });
        return;
      case "user":
        if (message.content === undefined || message.content === null) throw missing(`${where}.content`);
        out.push({ type: "message", role, content: userContent(message.content, where) });
        return;
      case "assistant":
        assistantItems(message, where, out);
        return;
      case "tool": {
        const callId = str(message, "tool_call_id", `${where}.tool_call_id`, true)!;
        out.push({ type: "function_call_output", call_id: callId, output: textContent(message.content, where) });
        return;
      }
      case "function":
        throw unsupported(`${where}.role`, "The deprecated 'function' role is not answered; send 'tool' messages.");
      default:
        if (role === undefined) throw missing(`${where}.role`);
        throw bad(
          `${where}.role`,
          `Invalid value for '${where}.role': expected one of 'system', 'developer', 'user', 'assistant', 'tool', got ${describe(role)}.`,
        );
    }
  });
  return out;
}

/** `tools` as Responses function tools. */
function toolsOf(tools: unknown): Json[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw wrongType("tools", "an array", tools);
  return tools.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) throw wrongType(at, "an object", tool);
    if (tool.type === "custom") throw unsupported(`${at}.type`, "A custom tool is not answered; offer function tools.");
    if (tool.type !== "function")
      throw bad(
        `${at}.type`,
        `Invalid value for '${at}.type': expected one of 'function', 'custom', got ${describe(tool.type)}.`,
      );
    const fn = tool.function;
    if (!isObject(fn)) throw missing(`${at}.function`);
    const out: Json = { type: "function", name: str(fn, "name", `${at}.function.name`, true)! };
    const description = str(fn, "description", `${at}.function.description`);
    if (description !== undefined) out.description = description;
    if (fn.parameters !== undefined && fn.parameters !== null) {
      if (!isObject(fn.parameters)) throw wrongType(`${at}.function.parameters`, "an object", fn.parameters);
      out.parameters = fn.parameters;
    } else out.parameters = { type: "object", properties: {} };
    const strict = fn.strict;
    if (strict !== undefined && strict !== null) {
      if (typeof strict !== "boolean") throw wrongType(`${at}.function.strict`, "a boolean", strict);
      out.strict = strict;
    } else out.strict = false;
    return out;
  });
}

/** `tool_choice` as the Responses one. */
function toolChoiceOf(choice: unknown, tools: Json[] | undefined): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === "string") {
    if (choice !== "none" && choice !== "auto" && choice !== "required")
      throw bad(
        "tool_choice",
        `Invalid value for 'tool_choice': expected one of 'none', 'auto', 'required', or an object, got ${describe(choice)}.`,
      );
    if (choice === "required" && !tools?.length)
      throw bad(
        "tool_choice",
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      );
    return choice;
  }
  if (!isObject(choice)) throw wrongType("tool_choice", "a string or an object", choice);
  if (!tools?.length)
    throw bad(
      "tool_choice",
      "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
    );
  if (choice.type === "function") {
    const fn = choice.function;
    if (!isObject(fn)) throw missing("tool_choice.function");
    return { type: "function", name: str(fn, "name", "tool_choice.function.name", true)! };
  }
  if (choice.type === "allowed_tools") {
    const allowed = choice.allowed_tools;
    if (!isObject(allowed)) throw missing("tool_choice.allowed_tools");
    const mode = str(allowed, "mode", "tool_choice.allowed_tools.mode", true)!;
    if (mode !== "auto" && mode !== "required")
      throw bad(
        "tool_choice.allowed_tools.mode",
        "Invalid value for 'tool_choice.allowed_tools.mode': expected one of 'auto', 'required'.",
      );
    if (!Array.isArray(allowed.tools)) throw wrongType("tool_choice.allowed_tools.tools", "an array", allowed.tools);
    const list = (allowed.tools as unknown[]).map((t, i) => {
      const at = `tool_choice.allowed_tools.tools[${i}]`;
      if (!isObject(t) || t.type !== "function" || !isObject(t.function)) throw wrongType(at, "a function tool", t);
      return { type: "function", name: str(t.function, "name", `${at}.function.name`, true)! };
    });
    return { type: "allowed_tools", mode, tools: list };
  }
  if (choice.type === "custom") throw unsupported("tool_choice.type", "A custom tool choice is not answered.");
  throw bad(
    "tool_choice.type",
    `Invalid value for 'tool_choice.type': expected one of 'function', 'allowed_tools', got ${describe(choice.type)}.`,
  );
}

/** `response_format` as the Responses `text.format`. */
function formatOf(format: unknown): Json | undefined {
  if (format === undefined || format === null) return undefined;
  if (!isObject(format)) throw wrongType("response_format", "an object", format);
  switch (format.type) {
    case "text":
      return { type: "text" };
    case "json_object":
      return { type: "json_object" };
    case "json_schema": {
      const schema = format.json_schema;
      if (!isObject(schema)) throw missing("response_format.json_schema");
      const out: Json = { type: "json_schema", name: str(schema, "name", "response_format.json_schema.name", true)! };
      const description = str(schema, "description", "response_format.json_schema.description");
      if (description !== undefined) out.description = description;
      if (schema.schema !== undefined && schema.schema !== null) {
        if (!isObject(schema.schema)) throw wrongType("response_format.json_schema.schema", "an object", schema.schema);
        out.schema = schema.schema;
      }
      if (schema.strict !== undefined && schema.strict !== null) {
        if (typeof schema.strict !== "boolean")
          throw wrongType("response_format.json_schema.strict", "a boolean", schema.strict);
        out.strict = schema.strict;
      }
      return out;
    }
    default:
      throw bad(
        "response_format.type",
        `Invalid value for 'response_format.type': expected one of 'text', 'json_object', 'json_schema', got ${describe(format.type)}.`,
      );
  }
}

/**
 * Validates a chat request body and maps it onto the Responses request that
 * asks the same (`store: false`: a chat completion is no stored response).
 * Throws the ApiError (a 400 naming the field) of a bad body.
 */
export function readChatRequest(json: Json): ChatAsk {
  for (const key of Object.keys(json))
    if (!KNOWN.has(key))
      throw bad(key, `Unrecognized request argument supplied: ${key.slice(0, 60)}`, "unknown_parameter");
  const model = str(json, "model", "model", true)!;
  const input = chatInputItems(json.messages);
  const n = num(json, "n", 1, 128, true);
  if (n !== undefined && n > 1)
    throw unsupported("n", `Invalid value for 'n': ${n}; only one choice (n: 1) is answered.`);
  const stream = bool(json, "stream") ?? false;
  let includeUsage = false;
  if (json.stream_options !== undefined && json.stream_options !== null) {
    if (!stream)
      throw bad("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
    if (!isObject(json.stream_options)) throw wrongType("stream_options", "an object", json.stream_options);
    includeUsage = bool(json.stream_options, "include_usage") ?? false;
  }
  if (json.functions != null)
    throw unsupported("functions", "The deprecated 'functions' are not answered; send 'tools'.");
  if (json.function_call != null)
    throw unsupported("function_call", "The deprecated 'function_call' is not answered; send 'tool_choice'.");
  if (bool(json, "logprobs")) throw unsupported("logprobs", "Log probabilities are not answered.");
  num(json, "top_logprobs", 0, 20, true);
  if (json.audio != null) throw unsupported("audio", "Audio output is not answered.");
  if (Array.isArray(json.modalities) && json.modalities.some((m) => m !== "text"))
    throw unsupported("modalities", "Only the 'text' modality is answered.");
  const maxCompletion = num(json, "max_completion_tokens", 1, Number.MAX_SAFE_INTEGER, true);
  const maxTokens = num(json, "max_tokens", 1, Number.MAX_SAFE_INTEGER, true);
  const seed = num(json, "seed", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
  const temperature = num(json, "temperature", 0, 2, false);
  const topP = num(json, "top_p", 0, 1, false);
  const presence = num(json, "presence_penalty", -2, 2, false);
  const frequency = num(json, "frequency_penalty", -2, 2, false);
  const parallel = bool(json, "parallel_tool_calls");
  const tools = toolsOf(json.tools);
  const toolChoice = toolChoiceOf(json.tool_choice, tools);
  const format = formatOf(json.response_format);
  const user = str(json, "user", "user");
  const safety = str(json, "safety_identifier", "safety_identifier");
  const effort = str(json, "reasoning_effort", "reasoning_effort");
  const verbosity = str(json, "verbosity", "verbosity");
  if (json.metadata !== undefined && json.metadata !== null && !isObject(json.metadata))
    throw wrongType("metadata", "an object", json.metadata);

  const body: Json = { model, input, store: false, stream };
  if (tools?.length) body.tools = tools;
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (parallel !== undefined) body.parallel_tool_calls = parallel;
  if (format || verbosity) {
    const text: Json = {};
    if (format) text.format = format;
    if (verbosity) text.verbosity = verbosity;
    body.text = text;
  }
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (presence !== undefined) body.presence_penalty = presence;
  if (frequency !== undefined) body.frequency_penalty = frequency;
  if (user !== undefined) body.user = user;
  if (safety !== undefined) body.safety_identifier = safety;
  if (effort !== undefined) body.reasoning = { effort };
  if (isObject(json.metadata)) body.metadata = json.metadata;
  return {
    body,
    maxTokens: maxCompletion ?? maxTokens ?? null,
    stream,
    includeUsage,
    seed: seed ?? null,
    model,
  };
}
