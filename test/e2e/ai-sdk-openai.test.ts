/**
 * The Vercel AI SDK's OpenAI provider (`@ai-sdk/openai`, the Responses API
 * model `openai.responses(...)`) against a real server, in both dialects: a
 * tool loop with `generateText` and `streamText` (`stopWhen:
 * stepCountIs(3)`), the `failure-mid-stream` scenario non-streamed and
 * streamed (its error must reach the caller with the mock's message), and
 * the hosted `web_search` tool, which the provider sends with `include:
 * ["web_search_call.action.sources"]` and the server must accept.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool, type TextStreamPart, type ToolSet } from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { useServer } from "../support/server.js";

const server = useServer({ seed: 5 });

const FAILURE = JSON.parse(
  await readFile(fileURLToPath(new URL("../../scenarios/failure-mid-stream.json", import.meta.url)), "utf8"),
);
const FAILURE_MESSAGE: string = FAILURE.turns[0].end.error.message;

const weatherInput = z.object({ city: z.string() });
const WEATHER = "rainy and 12C";

function weatherTool() {
  const execute = vi.fn(async ({ city }: z.infer<typeof weatherInput>) => `${WEATHER} in ${city}`);
  return {
    execute,
    tool: tool({ description: "Get the current weather for a city.", inputSchema: weatherInput, execute }),
  };
}

async function collect<T extends ToolSet>(stream: AsyncIterable<TextStreamPart<T>>) {
  const parts: TextStreamPart<T>[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe.each(["openai", "open-responses"] as const)("@ai-sdk/openai responses model, %s dialect", (dialect) => {
  const provider = (headers: Record<string, string> = {}) =>
    createOpenAI({ baseURL: server().baseURL, apiKey: "test-key", headers: { "x-mock-dialect": dialect, ...headers } });

  it("generateText runs the tool with plausible arguments and answers with its output", async () => {
    const weather = weatherTool();
    const result = await generateText({
      model: provider().responses("mock-model"),
      prompt: "What's the weather in Oslo today?",
      tools: { get_weather: weather.tool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(weather.execute).toHaveBeenCalledTimes(1);
    expect(weather.execute.mock.calls[0][0].city).toMatch(/Oslo/);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(result.steps[0].toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
    expect(result.text).toContain(`${WEATHER} in Oslo`);
    expect(result.response.id).toMatch(/^resp_/);
  });

  it("streamText runs the tool and streams an answer with its output", async () => {
    const weather = weatherTool();
    const errors: unknown[] = [];
    const result = streamText({
      model: provider().responses("mock-model"),
      prompt: "What's the weather in Bergen today?",
      tools: { get_weather: weather.tool },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const parts = await collect(result.fullStream);
    expect(errors).toEqual([]);
    expect(parts.filter((p) => p.type === "error")).toEqual([]);
    expect(weather.execute).toHaveBeenCalledTimes(1);
    expect(weather.execute.mock.calls[0][0].city).toMatch(/Bergen/);
    expect(parts.filter((p) => p.type === "tool-call")).toHaveLength(1);
    expect(parts.filter((p) => p.type === "tool-result")).toHaveLength(1);
    const text = await result.text;
    expect(parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join("")).toContain(text);
    expect(text).toContain(`${WEATHER} in Bergen`);
    expect(await result.finishReason).toBe("stop");
  });

  it("failure-mid-stream, not streamed: generateText rejects with the mock's message", async () => {
    const error = await generateText({
      model: provider({ "x-mock-scenario": "failure-mid-stream" }).responses("mock-model"),
      prompt: "Walk me through the setup.",
      maxRetries: 0,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(FAILURE_MESSAGE);
  });

  it("failure-mid-stream, streamed: the error part and onError carry the mock's message, and the finish reason is error", async () => {
    const errors: unknown[] = [];
    const result = streamText({
      model: provider({ "x-mock-scenario": "failure-mid-stream" }).responses("mock-model"),
      prompt: "Walk me through the setup.",
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    const parts = await collect(result.fullStream);
    const errorParts = parts.filter((p) => p.type === "error");
    expect(errorParts).toHaveLength(1);
    expect((errorParts[0] as { error: { message: string } }).error.message).toBe(FAILURE_MESSAGE);
    expect(errors.map((e) => (e as Error).message)).toEqual([FAILURE_MESSAGE]);
    expect(await result.finishReason).toBe("error");
    // The text streamed before the failure is the start of the scripted answer.
    expect(
      FAILURE.turns[0].steps[0].text.startsWith(
        parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : [])).join(""),
      ),
    ).toBe(true);
  });

  it("accepts the hosted web_search tool with include web_search_call.action.sources", async () => {
    const openai = provider();
    const from = (server().requests.at(-1)?.seq ?? -1) + 1;
    const result = await generateText({
      model: openai.responses("mock-model"),
      prompt: "What happened in Berlin today?",
      tools: { web_search: openai.tools.webSearch({}) },
      maxRetries: 0,
    });
    const entry = server().requests.find((e) => e.seq >= from)!;
    const body = entry.body as { tools: Array<{ type: string }>; include?: string[] };
    expect(body.tools.map((t) => t.type)).toEqual(["web_search"]);
    expect(body.include).toContain("web_search_call.action.sources");
    expect(entry.status).toBe(200);
    expect(result.finishReason).toBe("stop");
    expect(result.text.length).toBeGreaterThan(0);
  });
});
