/**
 * The official `openai` SDK against a real server: create, stream with the
 * SDK's accumulator (which throws on malformed streams), and a two-turn tool
 * loop with parallel calls.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { expectValidResponse } from "../support/conformance.js";
import { useServer } from "../support/server.js";
import { withoutIds } from "../support/ids.js";

const server = useServer({ seed: 7 });
const client = () => new OpenAI({ baseURL: server().baseURL, apiKey: "test-key", maxRetries: 0 });

const tools = [
  {
    type: "function" as const,
    name: "get_weather",
    description: "Current weather for a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city", "unit"],
      additionalProperties: false,
    },
    strict: true,
  },
  {
    type: "function" as const,
    name: "get_time",
    description: "Local time in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
];

describe("openai SDK", () => {
  it("responses.create returns a completed text answer", async () => {
    const res = await client().responses.create({ model: "mock-model-1", input: "Say hello in three words." });
    expectValidResponse(res);
    expect(res.status).toBe("completed");
    expect(res.output_text).toContain("Say hello in three words.");
    expect(res.usage!.total_tokens).toBe(res.usage!.input_tokens + res.usage!.output_tokens);
  });

  it("responses.stream(...).finalResponse() accumulates the stream without error", async () => {
    const stream = client().responses.stream({
      model: "mock-model-1",
      input: "Count from 1 to 5.",
      instructions: "Be brief.",
    });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expectValidResponse(final);
    expect(final.status).toBe("completed");
    expect(final.instructions).toBe("Be brief.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(final.output_text);
  });

  it("streaming and non-streaming give the same response for the same request and seed", async () => {
    const body = { model: "mock-model-1", input: "Same answer twice, please." };
    const plain = await client().responses.create(body);
    const streamed = await client().responses.stream(body).finalResponse();
    // The same answer; the second request is a repeat, so it has ids of its own.
    expect(withoutIds(JSON.parse(JSON.stringify(streamed)))).toMatchObject(
      withoutIds(JSON.parse(JSON.stringify(plain))),
    );
    expect(streamed.id).not.toBe(plain.id);
  });

  it("runs a two-turn loop: two parallel tool calls, then a text answer using the outputs", async () => {
    const input: OpenAI.Responses.ResponseInput = [
      { role: "user", content: "What's the weather and the time in Paris?" },
    ];
    const first = await client().responses.create({ model: "mock-model-1", input, tools });
    expectValidResponse(first);
    const calls = first.output.filter(
      (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call",
    );
    expect(calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    for (const c of calls) {
      const args = JSON.parse(c.arguments);
      expect(typeof args.city).toBe("string");
      if (c.name === "get_weather") expect(["c", "f"]).toContain(args.unit);
    }
    input.push(...first.output);
    input.push({ type: "function_call_output", call_id: calls[0].call_id, output: '{"temp_c":18}' });
    input.push({ type: "function_call_output", call_id: calls[1].call_id, output: "14:05" });

    const second = await client().responses.stream({ model: "mock-model-1", input, tools }).finalResponse();
    expectValidResponse(second);
    expect(second.output.map((o) => o.type)).toEqual(["message"]);
    expect(second.output_text).toContain('get_weather returned {"temp_c":18}');
    expect(second.output_text).toContain("get_time returned 14:05");
  });

  it("honours tool_choice none, a named function and allowed_tools", async () => {
    const none = await client().responses.create({
      model: "m",
      input: "Weather in Paris?",
      tools,
      tool_choice: "none",
    });
    expect(none.output.map((o) => o.type)).toEqual(["message"]);
    const named = await client().responses.create({
      model: "m",
      input: "Weather in Paris?",
      tools,
      tool_choice: { type: "function", name: "get_time" },
    });
    expect(named.output.map((o) => (o as { name?: string }).name)).toEqual(["get_time"]);
    const allowed = await client().responses.create({
      model: "m",
      input: "Weather in Paris?",
      tools,
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "get_weather" }] },
    });
    expect(allowed.output.map((o) => (o as { name?: string }).name)).toEqual(["get_weather"]);
    expect(allowed.tool_choice).toEqual({
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "get_weather" }],
    });
  });

  it("with parallel_tool_calls false makes exactly one call", async () => {
    const res = await client().responses.create({ model: "m", input: "Weather?", tools, parallel_tool_calls: false });
    expect(res.output.filter((o) => o.type === "function_call")).toHaveLength(1);
  });

  it("answers text.format json_schema with JSON that fits the schema", async () => {
    const res = await client().responses.create({
      model: "m",
      input: "Describe Paris as JSON.",
      text: {
        format: {
          type: "json_schema",
          name: "city",
          strict: true,
          schema: {
            type: "object",
            properties: {
              name: { type: "string" },
              population: { type: "integer", minimum: 0 },
              tags: { type: "array", items: { type: "string" }, minItems: 1 },
            },
            required: ["name", "population", "tags"],
            additionalProperties: false,
          },
        },
      },
    });
    expectValidResponse(res);
    const value = JSON.parse(res.output_text);
    expect(Object.keys(value)).toEqual(["name", "population", "tags"]);
    expect(Number.isInteger(value.population) && value.population >= 0).toBe(true);
    expect(value.tags.length).toBeGreaterThanOrEqual(1);
    expect(res.text.format).toMatchObject({ type: "json_schema", name: "city", schema: null, strict: true });
  });

  it("puts a reasoning item first when reasoning is asked, with encrypted content when included", async () => {
    const res = await client().responses.create({
      model: "m",
      input: "Think first.",
      reasoning: { effort: "low", summary: "auto" },
      include: ["reasoning.encrypted_content"],
    });
    expectValidResponse(res);
    expect(res.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
    const reasoning = res.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary[0].text).toContain("Think first.");
    expect(reasoning.encrypted_content).toMatch(/^enc_/);
    expect(res.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(res.reasoning).toEqual({ effort: "low", summary: "auto" });
  });

  it("ends incomplete at max_output_tokens, with the text cut at the budget", async () => {
    const res = await client().responses.create({
      model: "m",
      input: "Write at length about nothing in particular.",
      max_output_tokens: 16,
      text: { verbosity: "high" },
    });
    expectValidResponse(res);
    expect(res.status).toBe("incomplete");
    expect(res.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(res.usage!.output_tokens).toBe(16);
    expect((res.output.at(-1) as { status: string }).status).toBe("incomplete");
  });

  it("echoes the request fields the spec says to echo", async () => {
    const earlier = await client().responses.create({ model: "mock-model-1", input: "First turn." });
    const res = await client().responses.create({
      model: "mock-model-1",
      input: "Echo check.",
      instructions: "Answer briefly.",
      metadata: { ticket: "T-42" },
      temperature: 0.2,
      top_p: 0.9,
      store: false,
      safety_identifier: "user-hash-123",
      prompt_cache_key: "cache-1",
      max_tool_calls: 3,
      truncation: "auto",
      service_tier: "auto",
      previous_response_id: earlier.id,
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming); // max_tool_calls is not in the SDK's param types; it passes through
    expect(res).toMatchObject({
      model: "mock-model-1",
      instructions: "Answer briefly.",
      metadata: { ticket: "T-42" },
      temperature: 0.2,
      top_p: 0.9,
      store: false,
      safety_identifier: "user-hash-123",
      prompt_cache_key: "cache-1",
      max_tool_calls: 3,
      truncation: "auto",
      service_tier: "default",
      previous_response_id: earlier.id,
      tools: [],
      tool_choice: "auto",
    });
  });

  it("surfaces a 400 as an SDK BadRequestError carrying the spec error object", async () => {
    const err = await client()
      .responses.create({ model: "m", input: [{ type: "message", role: "robot" as "user", content: "hi" }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: "invalid_request", param: "input[0].role" });
  });
});
