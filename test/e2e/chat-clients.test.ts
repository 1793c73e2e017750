/**
 * `POST /v1/chat/completions` driven by the clients that speak Chat
 * Completions: openai-node's `chat.completions.create` and `.stream()` over
 * every shipped scenario (each outcome stated below, held to what
 * `/v1/responses` answers for the same conversation), tools and parallel
 * calls, `include_usage`; the AI SDK's `.chat()` model (generateText and
 * streamText, a tool loop); LangChain's `ChatOpenAI` without the Responses API.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { tool as lcTool } from "@langchain/core/tools";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI, { APIError } from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { readChatRequest } from "../../src/dialect/chat-request.js";
import type { MockServer } from "../../src/server.js";
import { CHAT_TOOLS } from "../support/chat-sse.js";
import { useServer } from "../support/server.js";

type Json = Record<string, unknown>;

const TOOLS: ChatCompletionTool[] = CHAT_TOOLS;

const MESSAGES: ChatCompletionMessageParam[] = [
  { role: "developer", content: "Answer briefly." },
  { role: "user", content: "What is the weather in Paris right now?" },
];

const SCENARIOS = readdirSync(fileURLToPath(new URL("../../scenarios/", import.meta.url)))
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.replace(/\.json$/, ""))
  .sort();

const client = (mock: MockServer, headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: mock.baseURL, apiKey: "sk-test", maxRetries: 0, defaultHeaders: headers });

/** What `/v1/responses` answers to the Responses request the chat request maps to (the same seed, so the same answer). */
async function direct(mock: MockServer, scenario: string) {
  const { body } = readChatRequest({ model: "gpt-4o", messages: MESSAGES, tools: TOOLS } as Json);
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-mock-scenario": scenario },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) return { kind: "http" as const, status: res.status };
  const response = (await res.json()) as {
    status: string;
    incomplete_details: { reason: string } | null;
    output: Json[];
  };
  let content = "";
  let refusal = "";
  const calls: [string, string, string][] = [];
  for (const item of response.output) {
    if (item.type === "message")
      for (const part of item.content as Json[]) {
        if (part.type === "output_text") content += part.text as string;
        if (part.type === "refusal") refusal += part.refusal as string;
      }
    if (item.type === "function_call")
      calls.push([item.call_id as string, item.name as string, item.arguments as string]);
  }
  const finish =
    response.status === "failed"
      ? "failed"
      : response.status === "incomplete"
        ? response.incomplete_details?.reason === "content_filter"
          ? "content_filter"
          : "length"
        : calls.length > 0
          ? "tool_calls"
          : "stop";
  return { kind: "answer" as const, finish, content, refusal, calls };
}

/**
 * Each shipped scenario's outcome through the chat API, as a client sees it:
 * an HTTP error (the status), a failure (500 not streamed, an error mid-stream),
 * or a finish_reason.
 */
const OUTCOMES: Record<string, string> = {
  annotations: "stop",
  "content-filter": "content_filter",
  "error-400": "http 400",
  "error-401": "http 401",
  "error-403": "http 403",
  "error-404": "http 404",
  "error-409": "http 409",
  "error-413": "http 413",
  "error-422": "http 422",
  "error-429": "http 429",
  "error-500": "http 500",
  "error-502": "http 502",
  "error-503": "http 503",
  "failure-mid-stream": "failed",
  incomplete: "length",
  "long-text": "stop",
  "parallel-tool-calls": "tool_calls",
  random: "(seeded: as /v1/responses)",
  "random-chaos": "(seeded: as /v1/responses)",
  reasoning: "stop",
  refusal: "stop",
  "streamed-arguments": "tool_calls",
  text: "stop",
  "tool-call": "tool_calls",
  vendor: "stop",
};

describe("openai-node chat.completions against every shipped scenario", () => {
  const server = useServer();

  it("the table of outcomes names every shipped scenario", () => {
    expect(Object.keys(OUTCOMES).sort()).toEqual(SCENARIOS);
  });

  it.each(SCENARIOS)("%s: create and stream() say what /v1/responses says", async (scenario) => {
    const expected = await direct(server(), scenario);
    const stated = OUTCOMES[scenario];
    if (!stated.startsWith("(")) {
      expect(expected.kind === "http" ? `http ${expected.status}` : expected.finish).toBe(stated);
    }
    const openai = client(server(), { "x-mock-scenario": scenario });
    const params = { model: "gpt-4o", messages: MESSAGES, tools: TOOLS };

    // create, not streamed
    const created = await openai.chat.completions.create(params).then(
      (c) => ({ ok: true as const, c }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    // stream(), with the usage chunk
    const stream = openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    const streamed = await stream.finalChatCompletion().then(
      (c) => ({ ok: true as const, c }),
      (e: unknown) => ({ ok: false as const, e }),
    );

    if (expected.kind === "http") {
      for (const r of [created, streamed]) {
        expect(r.ok).toBe(false);
        expect((r as { e: APIError }).e).toBeInstanceOf(APIError);
        expect((r as { e: APIError }).e.status).toBe(expected.status);
      }
      return;
    }
    if (expected.finish === "failed") {
      expect(created.ok).toBe(false);
      expect((created as { e: APIError }).e.status).toBe(500);
      expect(streamed.ok).toBe(false);
      expect((streamed as { e: Error }).e).toBeInstanceOf(Error);
      return;
    }
    for (const r of [created, streamed]) {
      if (!r.ok) throw r.e;
      const [choice] = r.c.choices;
      expect(choice.finish_reason).toBe(expected.finish);
      expect(choice.message.content ?? "").toBe(expected.content);
      expect(choice.message.refusal ?? "").toBe(expected.refusal);
      // The same calls; their ids are new (an identical request again never reuses ids), in OpenAI's shape.
      const calls = choice.message.tool_calls ?? [];
      expect(calls.map((c) => c.type === "function" && [c.function.name, c.function.arguments])).toEqual(
        expected.calls.map(([, name, args]) => [name, args]),
      );
      for (const call of calls) expect(call.id).toMatch(/^call_[A-Za-z0-9]+$/);
      expect(r.c.usage?.total_tokens).toBeGreaterThan(0);
    }
  });

  it("stream() emits content deltas and the parallel tool calls' argument events", async () => {
    const openai = client(server(), { "x-mock-scenario": "parallel-tool-calls" });
    const stream = openai.chat.completions.stream({
      model: "gpt-4o",
      messages: MESSAGES,
      tools: TOOLS,
      stream_options: { include_usage: true },
    });
    const done: { name: string; index: number; arguments: string }[] = [];
    stream.on("tool_calls.function.arguments.done", (e) =>
      done.push({ name: e.name, index: e.index, arguments: e.arguments }),
    );
    const final = await stream.finalChatCompletion();
    expect(done.map((d) => d.index)).toEqual(done.map((_, i) => i));
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(final.choices[0].message.tool_calls!.map((c) => c.type === "function" && c.function.arguments)).toEqual(
      done.map((d) => d.arguments),
    );
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);

    const text = client(server(), { "x-mock-scenario": "text" }).chat.completions.stream({
      model: "gpt-4o",
      messages: MESSAGES,
    });
    const deltas: string[] = [];
    text.on("content.delta", (e) => deltas.push(e.delta));
    const content = await text.finalContent();
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join("")).toBe(content);
  });

  it("create with stream: true iterates the chunks; a tool loop continues from the tool messages", async () => {
    const openai = client(server(), { "x-mock-scenario": "tool-call" });
    const chunks = await openai.chat.completions.create({
      model: "gpt-4o",
      messages: MESSAGES,
      tools: TOOLS,
      stream: true,
    });
    let name = "";
    let args = "";
    let id = "";
    for await (const chunk of chunks) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        if (call.id) id = call.id;
        name += call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
    }
    expect(name).toBe("get_weather");
    const next = await openai.chat.completions.create({
      model: "gpt-4o",
      tools: TOOLS,
      messages: [
        ...MESSAGES,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id, type: "function", function: { name, arguments: args } }],
        },
        { role: "tool", tool_call_id: id, content: "Light rain, 14°C" },
      ],
    });
    expect(next.choices[0].finish_reason).toBe("stop");
    expect(next.choices[0].message.content).toContain("Light rain, 14°C");
  });

  it("n: 2 is refused with a 400 naming n", async () => {
    const err = await client(server())
      .chat.completions.create({ model: "gpt-4o", messages: MESSAGES, n: 2 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(400);
    expect((err as APIError).param).toBe("n");
    expect((err as APIError).type).toBe("invalid_request_error");
  });
});

describe("AI SDK (@ai-sdk/openai) .chat() model", () => {
  const server = useServer();
  const model = (mock: MockServer, scenario?: string) =>
    createOpenAI({
      baseURL: mock.baseURL,
      apiKey: "sk-test",
      headers: scenario ? { "x-mock-scenario": scenario } : {},
    }).chat("gpt-4o");

  it("generateText: text, finish reason stop, usage", async () => {
    const result = await generateText({
      model: model(server(), "text"),
      prompt: "Hello from the AI SDK",
      maxRetries: 0,
    });
    expect(result.text).toContain("Hello from the AI SDK");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it("streamText: text in several deltas, the usage", async () => {
    const result = streamText({ model: model(server(), "long-text"), prompt: "Tell me a long story", maxRetries: 0 });
    const parts: string[] = [];
    for await (const delta of result.textStream) parts.push(delta);
    expect(parts.length).toBeGreaterThan(5);
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it("a tool loop over parallel calls (generateText and streamText): each tool runs, the answer follows", async () => {
    for (const mode of ["generate", "stream"] as const) {
      const weather = vi.fn(async ({ city }: { city: string }) => `Sunny in ${city}`);
      const time = vi.fn(async ({ city }: { city: string }) => `Noon in ${city}`);
      const tools = {
        get_weather: tool({ description: "weather", inputSchema: z.object({ city: z.string() }), execute: weather }),
        get_time: tool({ description: "time", inputSchema: z.object({ city: z.string() }), execute: time }),
      };
      const options = {
        model: model(server(), "parallel-tool-calls"),
        prompt: "Weather and time in Paris?",
        tools,
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      };
      const result = mode === "generate" ? await generateText(options) : streamText(options);
      const steps = await result.steps;
      expect(steps[0].finishReason).toBe("tool-calls");
      expect(steps[0].toolCalls.length).toBeGreaterThanOrEqual(2);
      expect(weather).toHaveBeenCalled();
      expect(time).toHaveBeenCalled();
      expect(await result.finishReason).toBe("stop");
    }
  });

  it("an incomplete answer is finish reason length; a refusal is the SDK's content-filter, its text the refusal", async () => {
    const cut = await generateText({ model: model(server(), "incomplete"), prompt: "x", maxRetries: 0 });
    expect(cut.finishReason).toBe("length");
    const filtered = await generateText({ model: model(server(), "content-filter"), prompt: "x", maxRetries: 0 });
    expect(filtered.finishReason).toBe("content-filter");
    // The AI SDK reads a `refusal` with finish_reason stop as content-filter, and gives the refusal as text.
    const refused = await generateText({ model: model(server(), "refusal"), prompt: "x", maxRetries: 0 });
    expect(refused.finishReason).toBe("content-filter");
    expect(refused.text).toMatch(/sorry/i);
  });
});

describe("LangChain ChatOpenAI without the Responses API", () => {
  const server = useServer();
  const chatModel = (mock: MockServer, scenario: string) =>
    new ChatOpenAI({
      model: "gpt-4o",
      apiKey: "sk-test",
      useResponsesApi: false,
      maxRetries: 0,
      configuration: { baseURL: mock.baseURL, defaultHeaders: { "x-mock-scenario": scenario } },
    });

  it("invoke and stream answer text through /v1/chat/completions", async () => {
    const reply = await chatModel(server(), "text").invoke("Hello from LangChain");
    expect(String(reply.content)).toContain("Hello from LangChain");
    let streamed = "";
    for await (const chunk of await chatModel(server(), "text").stream("Hello from LangChain"))
      streamed += String(chunk.content);
    expect(streamed).toBe(String(reply.content));
    expect(server().requests.every((r) => r.path === "/v1/chat/completions")).toBe(true);
  });

  it("bound tools: parallel tool calls come back as tool_calls with parsed args", async () => {
    const weather = lcTool(async ({ city }: { city: string }) => `Sunny in ${city}`, {
      name: "get_weather",
      description: "weather",
      schema: z.object({ city: z.string() }),
    });
    const time = lcTool(async ({ city }: { city: string }) => `Noon in ${city}`, {
      name: "get_time",
      description: "time",
      schema: z.object({ city: z.string() }),
    });
    const reply = await chatModel(server(), "parallel-tool-calls").bindTools([weather, time]).invoke("Paris?");
    expect(reply.tool_calls!.length).toBeGreaterThanOrEqual(2);
    for (const call of reply.tool_calls!) {
      expect(["get_weather", "get_time"]).toContain(call.name);
      expect(typeof call.args).toBe("object");
      expect(call.id).toMatch(/^call_/);
    }
  });
});
