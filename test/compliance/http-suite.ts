/**
 * The HTTP part of the Open Responses compliance suite, re-created: seven
 * request templates, each with its semantic validators, and the runner that
 * sends one, reads the answer (JSON, or SSE for the streaming ones),
 * validates the final response against ResponseResource, then runs the
 * validators.
 */
import { formatIssues, ResponseResource } from "./schemas.js";
import { parseSseStream, type SseParseResult } from "./sse.js";

export interface SuiteConfig {
  /** For example `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  apiKey: string;
  /** The header the key is sent in (`Authorization` by default). */
  authHeaderName: string;
  /** Send `Bearer KEY` (true) or the bare key (false). */
  useBearerPrefix: boolean;
  model: string;
}

export interface ValidatorContext {
  streaming: boolean;
  sse?: SseParseResult;
}

export type Validator = (response: ResponseResource, context: ValidatorContext) => string[];

export interface TestTemplate {
  id: string;
  name: string;
  streaming?: boolean;
  request: (config: SuiteConfig) => Record<string, unknown>;
  validators: Validator[];
}

export interface TestResult {
  id: string;
  status: "passed" | "failed";
  errors: string[];
  /** The HTTP status, when a response came. */
  httpStatus?: number;
  /** The final response as received (unvalidated). */
  response?: unknown;
  sse?: SseParseResult;
}

// ------------------------------------------------------------------ validators

const hasOutput: Validator = (r) => (r.output.length === 0 ? ["Response has no output items"] : []);

const hasOutputType =
  (type: string): Validator =>
  (r) =>
    r.output.some((item) => item.type === type) ? [] : [`Expected an output item of type "${type}" but none was found`];

const completedStatus: Validator = (r) =>
  r.status === "completed" ? [] : [`Expected status "completed" but got "${r.status}"`];

const streamingEvents: Validator = (_, ctx) => {
  if (!ctx.streaming) return [];
  return !ctx.sse || ctx.sse.events.length === 0 ? ["No streaming events received"] : [];
};

const streamingSchema: Validator = (_, ctx) => (ctx.streaming && ctx.sse ? ctx.sse.errors : []);

const eventType = (data: unknown): unknown => (data as { type?: unknown } | null)?.type;
const itemType = (data: unknown): unknown => (data as { item?: { type?: unknown } | null } | null)?.item?.type;

const functionCallEvents: Validator = (_, ctx) => {
  if (!ctx.streaming || !ctx.sse) return [];
  const events = ctx.sse.events.map((e) => e.data);
  const types = events.map(eventType);
  const errors: string[] = [];
  if (!events.some((d) => eventType(d) === "response.output_item.added" && itemType(d) === "function_call")) {
    errors.push("Missing response.output_item.added event with a function_call item");
  }
  if (!types.includes("response.function_call_arguments.delta"))
    errors.push("Missing response.function_call_arguments.delta event");
  if (!types.includes("response.function_call_arguments.done"))
    errors.push("Missing response.function_call_arguments.done event");
  if (!events.some((d) => eventType(d) === "response.output_item.done" && itemType(d) === "function_call")) {
    errors.push("Missing response.output_item.done event with a function_call item");
  }
  return errors;
};

// ------------------------------------------------------------------ templates

const weatherTool = {
  type: "function",
  name: "get_weather",
  description: "Get the current weather for a location",
  parameters: {
    type: "object",
    properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
    required: ["location"],
  },
};

/** A tiny PNG (1x1, one opaque pixel) as a data URL. */
export const TINY_PNG_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

export const TEMPLATES: TestTemplate[] = [
  {
    id: "basic-response",
    name: "Basic Text Response",
    request: (c) => ({
      model: c.model,
      input: [{ type: "message", role: "user", content: "Say hello in exactly 3 words." }],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: "streaming-response",
    name: "Streaming Response",
    streaming: true,
    request: (c) => ({ model: c.model, input: [{ type: "message", role: "user", content: "Count from 1 to 5." }] }),
    validators: [streamingEvents, streamingSchema, completedStatus],
  },
  {
    id: "system-prompt",
    name: "System Prompt",
    request: (c) => ({
      model: c.model,
      input: [
        { type: "message", role: "system", content: "You are a pirate. Always respond in pirate speak." },
        { type: "message", role: "user", content: "Say hello." },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: "tool-calling",
    name: "Tool Calling",
    request: (c) => ({
      model: c.model,
      input: [{ type: "message", role: "user", content: "What's the weather like in San Francisco?" }],
      tools: [weatherTool],
    }),
    validators: [hasOutput, hasOutputType("function_call")],
  },
  {
    id: "tool-calling-streaming",
    name: "Tool Calling (Streaming)",
    streaming: true,
    request: (c) => ({
      model: c.model,
      input: [{ type: "message", role: "user", content: "What's the weather like in San Francisco?" }],
      tools: [weatherTool],
    }),
    validators: [streamingEvents, streamingSchema, functionCallEvents],
  },
  {
    id: "image-input",
    name: "Image Input",
    request: (c) => ({
      model: c.model,
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What do you see in this image? Answer in one sentence." },
            { type: "input_image", image_url: TINY_PNG_DATA_URL },
          ],
        },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
  {
    id: "multi-turn",
    name: "Multi-turn Conversation",
    request: (c) => ({
      model: c.model,
      input: [
        { type: "message", role: "user", content: "My name is Alice." },
        { type: "message", role: "assistant", content: "Hello Alice! Nice to meet you. How can I help you today?" },
        { type: "message", role: "user", content: "What is my name?" },
      ],
    }),
    validators: [hasOutput, completedStatus],
  },
];

// ------------------------------------------------------------------ runner

export function authHeaders(
  config: Pick<SuiteConfig, "apiKey" | "authHeaderName" | "useBearerPrefix">,
): Record<string, string> {
  return { [config.authHeaderName]: config.useBearerPrefix ? `Bearer ${config.apiKey}` : config.apiKey };
}

export function postJson(config: SuiteConfig, path: string, body: unknown): Promise<Response> {
  return fetch(`${config.baseUrl}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authHeaders(config) },
    body: JSON.stringify(body),
  });
}

/** Runs one template the way the suite does; never throws. */
export async function runTemplate(template: TestTemplate, config: SuiteConfig): Promise<TestResult> {
  const streaming = template.streaming ?? false;
  const body = { ...template.request(config), stream: streaming };
  try {
    const res = await postJson(config, "/responses", body);
    if (!res.ok) {
      const text = await res.text();
      return {
        id: template.id,
        status: "failed",
        httpStatus: res.status,
        errors: [`HTTP ${res.status}: ${text}`],
        response: text,
      };
    }
    let raw: unknown;
    let sse: SseParseResult | undefined;
    if (streaming) {
      sse = await parseSseStream(res);
      raw = sse.finalResponse;
    } else {
      raw = await res.json();
    }
    const parsed = ResponseResource.safeParse(raw);
    if (!parsed.success) {
      return {
        id: template.id,
        status: "failed",
        httpStatus: res.status,
        errors: formatIssues(parsed.error),
        response: raw,
        sse,
      };
    }
    const context: ValidatorContext = { streaming, sse };
    const errors = template.validators.flatMap((v) => v(parsed.data, context));
    return {
      id: template.id,
      status: errors.length === 0 ? "passed" : "failed",
      httpStatus: res.status,
      errors,
      response: raw,
      sse,
    };
  } catch (err) {
    return { id: template.id, status: "failed", errors: [err instanceof Error ? err.message : String(err)] };
  }
}
