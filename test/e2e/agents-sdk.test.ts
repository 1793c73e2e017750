/**
 * The OpenAI Agents SDK (`@openai/agents`) against a real server: a text run,
 * a tool loop whose output reaches the final answer, and a streamed run —
 * over HTTP (`OpenAIResponsesModel`) and over the Responses WebSocket
 * transport (`OpenAIResponsesWSModel`, which sends every turn as a
 * `response.create` frame with `stream: true` on one socket), in both
 * dialects. The journal must show `WS` turns for the WebSocket runs, so they
 * cannot pass over HTTP by accident.
 *
 * The SDK ships its own `openai` (v7), whose client it expects; it is loaded
 * from the SDK's own dependency tree. Tracing is off (it would call out).
 * Node 20 has no global WebSocket: the `ws` package's stands in for it.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import {
  Agent,
  OpenAIResponsesModel,
  OpenAIResponsesWSModel,
  run,
  setTracingDisabled,
  tool,
  type Model,
  type OpenAIClient,
} from "@openai/agents";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WebSocket as WsWebSocket } from "ws";
import { z } from "zod";
import type { JournalEntry } from "../../src/index.js";
import { formatViolation, validateOpenAIStream } from "../compliance/openai-schemas.js";
import * as spec from "../compliance/schemas.js";
import { useServer } from "../support/server.js";

type ClientOptions = { baseURL: string; apiKey: string; maxRetries?: number; defaultHeaders?: Record<string, string> };
type OpenAIConstructor = new (options: ClientOptions) => OpenAIClient;

/** The `openai` the Agents SDK itself resolves (ESM build), not the project's v6. */
async function agentsOpenAI(): Promise<OpenAIConstructor> {
  const sdk = createRequire(import.meta.url).resolve("@openai/agents-openai");
  const cjs = createRequire(sdk).resolve("openai");
  const mod = await import(pathToFileURL(cjs.replace(/\.js$/, ".mjs")).href);
  return mod.default as OpenAIConstructor;
}

const server = useServer({ seed: 11 });
let OpenAIv7: OpenAIConstructor;
const hadWebSocket = "WebSocket" in globalThis;

beforeAll(async () => {
  setTracingDisabled(true);
  OpenAIv7 = await agentsOpenAI();
  if (!hadWebSocket) (globalThis as { WebSocket?: unknown }).WebSocket = WsWebSocket;
});
afterAll(() => {
  if (!hadWebSocket) delete (globalThis as { WebSocket?: unknown }).WebSocket;
});

const WEATHER = "light rain and 14°C";
const weatherInput = z.object({ city: z.string() });

function weatherTool() {
  const execute = vi.fn(async ({ city }: z.infer<typeof weatherInput>) => `${WEATHER} in ${city}`);
  return {
    execute,
    tool: tool({ name: "get_weather", description: "Current weather for a city.", parameters: weatherInput, execute }),
  };
}

type Transport = "http" | "websocket";
type Dialect = "open-responses" | "openai";

/** This test's journal entries: those after `from`. */
const since = (from: number) => server().requests.filter((e: JournalEntry) => e.seq >= from);
const nextSeq = () => (server().requests.at(-1)?.seq ?? -1) + 1;

describe.each([
  ["http", "openai"],
  ["http", "open-responses"],
  ["websocket", "openai"],
  ["websocket", "open-responses"],
] as Array<[Transport, Dialect]>)("Agents SDK over %s, %s dialect", (transport, dialect) => {
  let models: Model[] = [];

  function model(): Model {
    const client = new OpenAIv7({
      baseURL: server().baseURL,
      apiKey: "test-key",
      maxRetries: 0,
      defaultHeaders: { "x-mock-dialect": dialect },
    });
    const m =
      transport === "websocket"
        ? new OpenAIResponsesWSModel(client, "mock-agent-model")
        : new OpenAIResponsesModel(client, "mock-agent-model");
    models.push(m);
    return m;
  }

  afterAll(async () => {
    await Promise.all(models.map((m) => (m as { close?: () => Promise<void> }).close?.()));
    models = [];
  });

  /** Every request of the run went over the chosen transport, with this dialect, and answered 200 (101 for an upgrade). */
  function expectTransport(entries: JournalEntry[], turns: number) {
    const turnEntries = entries.filter((e) => e.path === "/v1/responses" && e.status !== 101);
    expect(turnEntries.map((e) => e.method)).toEqual(Array(turns).fill(transport === "websocket" ? "WS" : "POST"));
    for (const e of turnEntries) {
      expect(e.status).toBe(200);
      expect(e.headers["x-mock-dialect"]).toBe(dialect);
      if (transport === "websocket") expect((e.body as { type?: string }).type).toBe("response.create");
    }
  }

  it("a text run ends with a text finalOutput", async () => {
    const from = nextSeq();
    const agent = new Agent({ name: "Guide", instructions: "Answer in one short paragraph.", model: model() });
    const result = await run(agent, "Tell me about the lighthouses of Brittany.");
    expect(typeof result.finalOutput).toBe("string");
    expect(result.finalOutput).toContain("lighthouses of Brittany");
    expect(result.rawResponses).toHaveLength(1);
    expect(result.rawResponses[0].responseId).toMatch(/^resp_/);
    expectTransport(since(from), 1);
    expect((since(from).at(-1)!.body as { instructions?: string }).instructions).toBe("Answer in one short paragraph.");
  });

  it("a tool loop: the model calls the tool, and the final answer quotes its output", async () => {
    const from = nextSeq();
    const weather = weatherTool();
    const agent = new Agent({
      name: "Weather",
      instructions: "Use the tool for weather questions.",
      model: model(),
      tools: [weather.tool],
    });
    const result = await run(agent, "What's the weather in Lisbon right now?");

    expect(weather.execute).toHaveBeenCalledTimes(1);
    expect(weather.execute.mock.calls[0][0].city).toMatch(/Lisbon/);
    expect(result.newItems.map((i) => i.type)).toEqual([
      "tool_call_item",
      "tool_call_output_item",
      "message_output_item",
    ]);
    expect(typeof result.finalOutput).toBe("string");
    expect(result.finalOutput).toContain(`${WEATHER} in Lisbon`);
    expect(result.rawResponses).toHaveLength(2);

    expectTransport(since(from), 2);
    const second = since(from)
      .filter((e) => e.status === 200)
      .at(-1)!.body as { input: Array<{ type?: string; output?: unknown }> };
    expect(second.input.find((i) => i.type === "function_call_output")?.output).toBe(`${WEATHER} in Lisbon`);
  });

  it("a streamed run: text deltas add up to finalOutput, the raw events are the dialect's, and the run completes", async () => {
    const from = nextSeq();
    const weather = weatherTool();
    const agent = new Agent({
      name: "Weather",
      instructions: "Use the tool for weather questions.",
      model: model(),
      tools: [weather.tool],
    });
    const result = await run(agent, "What's the weather in Porto this evening?", { stream: true });
    const chunks: string[] = [];
    const responses: Array<Array<{ type: string; [k: string]: unknown }>> = [];
    for await (const event of result) {
      if (event.type !== "raw_model_stream_event") continue;
      const data = event.data as { type: string; delta?: string; event?: { type: string } };
      if (data.type === "output_text_delta") chunks.push(data.delta!);
      if (data.type === "model" && data.event) {
        if (data.event.type === "response.created" || responses.length === 0) responses.push([]);
        responses.at(-1)!.push(data.event);
      }
    }
    await result.completed;

    // The events the SDK received, one list per model response: what the dialect says.
    expect(responses).toHaveLength(2);
    for (const events of responses) {
      if (dialect === "openai") expect(validateOpenAIStream(events).map(formatViolation)).toEqual([]);
      else for (const ev of events) expect(spec.StreamingEvent.safeParse(ev).success, ev.type).toBe(true);
    }

    expect(result.error ?? null).toBeNull();
    expect(weather.execute).toHaveBeenCalledTimes(1);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join("")).toBe(result.finalOutput);
    expect(result.finalOutput).toContain(`${WEATHER} in Porto`);
    expectTransport(since(from), 2);
    for (const e of since(from).filter((x) => x.status === 200)) expect(e.streamed).toBe(true);
  });
});
