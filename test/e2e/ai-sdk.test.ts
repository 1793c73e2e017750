/**
 * End to end with the Vercel AI SDK: a real server on a free port, driven by
 * `@ai-sdk/open-responses` through `generateText` / `streamText`, the way a
 * user of the mock would.
 */
import { createOpenResponses } from "@ai-sdk/open-responses";
import { APICallError, generateText, stepCountIs, streamText, tool, type TextStreamPart, type ToolSet } from "ai";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { MockServer } from "../../src/server.js";
import { useServer } from "../support/server.js";

const MODEL = "mock-model";

/** A provider pointed at the server's POST endpoint (the provider takes the full URL, not a base). */
function providerFor(mock: MockServer, apiKey?: string) {
  return createOpenResponses({ name: "mock", url: `${mock.baseURL}/responses`, ...(apiKey ? { apiKey } : {}) });
}

const weatherInput = z.object({ city: z.string() });
const timeInput = z.object({ timezone: z.string(), hour24: z.boolean() });

/** The value the weather tool returns; the final answer must quote it back. */
const WEATHER_RESULT = "sunny and 21C";
const TIME_RESULT = "half past nine";

function weatherTool() {
  const execute = vi.fn(async (input: z.infer<typeof weatherInput>) => {
    // The SDK validated the input already; check it again so a loose schema would show.
    weatherInput.parse(input);
    return WEATHER_RESULT;
  });
  const t = tool({ description: "Get the current weather for a city.", inputSchema: weatherInput, execute });
  return { tool: t, execute };
}

function timeTool() {
  const execute = vi.fn(async (input: z.infer<typeof timeInput>) => {
    timeInput.parse(input);
    return TIME_RESULT;
  });
  const t = tool({ description: "Get the local time in a timezone.", inputSchema: timeInput, execute });
  return { tool: t, execute };
}

/** Asserts that the stream had no `error` part and returns its parts. */
async function collectParts<T extends ToolSet>(stream: AsyncIterable<TextStreamPart<T>>): Promise<TextStreamPart<T>[]> {
  const parts: TextStreamPart<T>[] = [];
  for await (const part of stream) parts.push(part);
  const errors = parts.filter((p) => p.type === "error");
  expect(errors, `error parts: ${JSON.stringify(errors)}`).toEqual([]);
  return parts;
}

describe("Vercel AI SDK (@ai-sdk/open-responses) against the mock", () => {
  const server = useServer();

  it("generateText answers a plain prompt by quoting it, with stop and usage", async () => {
    const prompt = "Tell me about the lighthouse keepers of Brittany";
    const result = await generateText({ model: providerFor(server())(MODEL), prompt });

    expect(result.text.length).toBeGreaterThan(0);
    expect(result.text).toContain(prompt);
    expect(result.finishReason).toBe("stop");
    expect(result.steps).toHaveLength(1);
    expect(result.toolCalls).toEqual([]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(result.usage.inputTokens! + result.usage.outputTokens!);
    expect(result.response.modelId).toBe(MODEL);
    expect(result.response.id).toMatch(/^resp_/);
  });

  it("streamText streams a plain prompt in several chunks that join to the final text", async () => {
    const prompt = "Describe a quiet harbour at dawn";
    const result = streamText({
      model: providerFor(server())(MODEL),
      prompt,
      onError: ({ error }) => {
        throw error;
      },
    });

    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    const parts = await collectParts(result.fullStream);

    const text = await result.text;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(text);
    expect(text).toContain(prompt);
    expect(await result.finishReason).toBe("stop");
    const usage = await result.usage;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);

    // The full stream tells the same story: one text block, deltas that add up, one finish.
    expect(parts.filter((p) => p.type === "text-start")).toHaveLength(1);
    expect(parts.filter((p) => p.type === "text-end")).toHaveLength(1);
    const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.text] : []));
    expect(deltas.join("")).toBe(text);
    expect(parts.at(-1)?.type).toBe("finish");
  });

  it("generateText runs a tool and answers from its result in two steps", async () => {
    const weather = weatherTool();
    const result = await generateText({
      model: providerFor(server())(MODEL),
      prompt: "What is the weather like in Lisbon today?",
      tools: { get_weather: weather.tool },
      stopWhen: stepCountIs(3),
    });

    expect(weather.execute).toHaveBeenCalledTimes(1);
    const args = weather.execute.mock.calls[0][0];
    expect(weatherInput.safeParse(args).success).toBe(true);

    expect(result.steps).toHaveLength(2);
    const [first, second] = result.steps;
    expect(first.finishReason).toBe("tool-calls");
    expect(first.toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
    expect(first.toolCalls[0].input).toEqual(args);
    expect(first.toolResults.map((r) => r.output)).toEqual([WEATHER_RESULT]);
    expect(second.toolCalls).toEqual([]);

    expect(result.text.startsWith("Based on the tool results:")).toBe(true);
    expect(result.text).toContain("get_weather");
    expect(result.text).toContain(WEATHER_RESULT);
    expect(result.finishReason).toBe("stop");
  });

  it("streamText runs a tool and answers from its result in two steps", async () => {
    const weather = weatherTool();
    const result = streamText({
      model: providerFor(server())(MODEL),
      prompt: "What is the weather like in Lisbon today?",
      tools: { get_weather: weather.tool },
      stopWhen: stepCountIs(3),
    });
    const parts = await collectParts(result.fullStream);

    expect(weather.execute).toHaveBeenCalledTimes(1);
    const args = weather.execute.mock.calls[0][0];
    expect(weatherInput.safeParse(args).success).toBe(true);

    const steps = await result.steps;
    expect(steps).toHaveLength(2);
    expect(steps[0].finishReason).toBe("tool-calls");
    expect(steps[0].toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
    expect(steps[0].toolCalls[0].input).toEqual(args);
    expect(steps[0].toolResults.map((r) => r.output)).toEqual([WEATHER_RESULT]);
    expect(steps[1].toolCalls).toEqual([]);

    const text = await result.text;
    expect(text.startsWith("Based on the tool results:")).toBe(true);
    expect(text).toContain(WEATHER_RESULT);
    expect(await result.finishReason).toBe("stop");

    // The stream carried the call, its result and two step boundaries.
    expect(parts.filter((p) => p.type === "tool-call")).toHaveLength(1);
    expect(parts.filter((p) => p.type === "tool-result")).toHaveLength(1);
    expect(parts.filter((p) => p.type === "finish-step")).toHaveLength(2);
  });

  it("calls both tools in parallel when the prompt points at both, then answers", async () => {
    const weather = weatherTool();
    const time = timeTool();
    const result = await generateText({
      model: providerFor(server())(MODEL),
      prompt: "What's the weather and the local time in Lisbon? I am planning an afternoon walk.",
      tools: { get_weather: weather.tool, get_time: time.tool },
      stopWhen: stepCountIs(3),
    });

    expect(weather.execute).toHaveBeenCalledTimes(1);
    expect(time.execute).toHaveBeenCalledTimes(1);
    expect(weatherInput.safeParse(weather.execute.mock.calls[0][0]).success).toBe(true);
    expect(timeInput.safeParse(time.execute.mock.calls[0][0]).success).toBe(true);

    expect(result.steps).toHaveLength(2);
    const [first, second] = result.steps;
    expect(first.toolCalls.map((c) => c.toolName).sort()).toEqual(["get_time", "get_weather"]);
    expect(new Set(first.toolCalls.map((c) => c.toolCallId)).size).toBe(2);
    expect(second.toolCalls).toEqual([]);

    expect(result.text.startsWith("Based on the tool results:")).toBe(true);
    expect(result.text).toContain(WEATHER_RESULT);
    expect(result.text).toContain(TIME_RESULT);
    expect(result.finishReason).toBe("stop");
  });
});

describe("Vercel AI SDK against a server with an API key", () => {
  const server = useServer({ apiKey: "sekret" });

  it("works with the right key", async () => {
    const result = await generateText({ model: providerFor(server(), "sekret")(MODEL), prompt: "Knock knock" });
    expect(result.text).toContain("Knock knock");
    expect(result.finishReason).toBe("stop");
  });

  it("streams with the right key", async () => {
    const result = streamText({ model: providerFor(server(), "sekret")(MODEL), prompt: "Knock knock" });
    await collectParts(result.fullStream);
    expect(await result.text).toContain("Knock knock");
  });

  it("rejects a wrong key with a 401", async () => {
    const error = await generateText({
      model: providerFor(server(), "wrong")(MODEL),
      prompt: "Knock knock",
      maxRetries: 0,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(401);
    expect(apiError.isRetryable).toBe(false);
    expect(apiError.responseBody).toContain("invalid_api_key");
  });

  it("rejects a missing key with a 401", async () => {
    const error = await generateText({
      model: providerFor(server())(MODEL),
      prompt: "Knock knock",
      maxRetries: 0,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(401);
  });
});
