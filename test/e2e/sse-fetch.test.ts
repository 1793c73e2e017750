/**
 * Raw `fetch` with a strict SSE parser: framing, headers, conformance of every
 * stream for many kinds of request, stream/JSON agreement, and determinism.
 */
import { describe, expect, it } from "vitest";
import { expectConformantStream, expectValidResponse } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { startMockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { withoutIds } from "../support/ids.js";
import { postResponses, TEST_NOW_MS, useServer } from "../support/server.js";

const server = useServer({ seed: 42 });

const weather = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const time = {
  type: "function",
  name: "get_time",
  parameters: { type: "object", properties: { tz: { type: "string", format: "date-time" } } },
};

const REQUESTS: Record<string, Record<string, unknown>> = {
  text: { model: "m", input: "Say hello in three words." },
  items: {
    model: "m",
    instructions: "Answer briefly.",
    input: [
      { type: "message", role: "system", content: "You are terse." },
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Prefer metric units." }] },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in this picture?" },
          { type: "input_image", image_url: "https://example.com/cat.png", detail: "low" },
        ],
      },
      {
        type: "message",
        role: "assistant",
        phase: "final_answer",
        content: [{ type: "output_text", text: "A cat.", annotations: [] }],
      },
      { type: "message", role: "user", content: "And now?" },
    ],
  },
  oneTool: { model: "m", input: "Weather in Paris?", tools: [weather] },
  parallelTools: { model: "m", input: "Weather and time?", tools: [weather, time] },
  toolOutputs: {
    model: "m",
    tools: [weather],
    input: [
      { type: "message", role: "user", content: "Weather in Paris?" },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"temp_c":18}' },
    ],
  },
  jsonSchema: {
    model: "m",
    input: "JSON please",
    text: {
      format: {
        type: "json_schema",
        name: "x",
        schema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
      },
    },
  },
  reasoning: {
    model: "m",
    input: "Think.",
    reasoning: { effort: "high", summary: "detailed" },
    include: ["reasoning.encrypted_content"],
  },
  reasoningAndTools: {
    model: "m",
    input: "Think, then call.",
    reasoning: { effort: "low" },
    tools: [weather, time],
    parallel_tool_calls: false,
  },
  budget: { model: "m", input: "Long answer please.", max_output_tokens: 16, text: { verbosity: "high" } },
  budgetInReasoning: { model: "m", input: "Think a lot.", max_output_tokens: 16, reasoning: { effort: "xhigh" } },
  budgetInArguments: {
    model: "m",
    input: "Call it.",
    max_output_tokens: 16,
    tools: [weather, time],
    reasoning: { effort: "low" },
  },
  logprobs: { model: "m", input: "With logprobs.", include: ["message.output_text.logprobs"], top_logprobs: 3 },
  noObfuscation: { model: "m", input: "No padding.", stream_options: { include_obfuscation: false } },
  vendorTool: { model: "m", input: "Search.", tools: [{ type: "acme:doc_search", index: "kb" }] },
};

async function stream(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await postResponses(server(), { ...body, stream: true }, headers);
  expect(res.status, res.text).toBe(200);
  return res;
}

describe("SSE over raw fetch", () => {
  it("answers with text/event-stream and frames each event as event: + one data: line", async () => {
    const res = await stream(REQUESTS.text);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toContain("no-cache");
    const parsed = parseSseStrict(res.text);
    expect(parsed.done).toBe(true);
    expect(res.text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(res.text).not.toMatch(/^id:/m);
  });

  for (const [name, body] of Object.entries(REQUESTS)) {
    it(`${name}: the stream is conformant and folds to the same response as the JSON body`, async () => {
      const sse = parseSseStrict((await stream(body)).text);
      const folded = expectConformantStream(sse.events);
      const plain = await postResponses(server(), body);
      expect(plain.status).toBe(200);
      expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
      const json = JSON.parse(plain.text);
      expectValidResponse(json);
      // The same answer; its ids are its own (no two answers of a server share one).
      expect(withoutIds(json)).toEqual(withoutIds(folded));
      expect(json.id).not.toBe(folded.id);
    });
  }

  it("obfuscation is on by default and off when include_obfuscation is false", async () => {
    const on = parseSseStrict((await stream(REQUESTS.text)).text).events.filter((e) => e.type.endsWith(".delta"));
    const off = parseSseStrict((await stream(REQUESTS.noObfuscation)).text).events.filter((e) =>
      e.type.endsWith(".delta"),
    );
    expect(on.every((e) => typeof e.obfuscation === "string")).toBe(true);
    expect(off.some((e) => "obfuscation" in e)).toBe(false);
  });
});

describe("determinism", () => {
  it("the same request gives the same bytes on a fresh server (a test run twice), and new ids on the same one", async () => {
    for (const body of Object.values(REQUESTS)) {
      const runs: string[] = [];
      for (let run = 0; run < 2; run++) {
        const fresh = await startMockServer({ port: 0, seed: 42, clock: fixedClock(TEST_NOW_MS) });
        try {
          // The first and the second identical request of the run: ids of "request + k".
          const first = await postResponses(fresh, { ...body, stream: true });
          const second = await postResponses(fresh, { ...body, stream: true });
          expect(second.text).not.toBe(first.text);
          expect(withoutIds(parseSseStrict(second.text).events)).toEqual(withoutIds(parseSseStrict(first.text).events));
          runs.push(first.text + second.text);
        } finally {
          await fresh.close();
        }
      }
      expect(runs[1]).toBe(runs[0]);
    }
  });

  it("never gives two answers of a server the same response or item id", async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      for (const body of [REQUESTS.text, REQUESTS.parallelTools, REQUESTS.reasoning]) {
        const json = JSON.parse((await postResponses(server(), body, i % 2 ? { "x-mock-session": "other" } : {})).text);
        for (const id of [json.id, ...json.output.map((o: { id: string }) => o.id)]) {
          expect(ids.has(id)).toBe(false);
          ids.add(id);
        }
      }
    }
    expect(ids.size).toBeGreaterThan(20);
  });

  it("x-mock-seed picks the answer: same seed same answer, another seed another answer", async () => {
    const a = await stream(REQUESTS.text, { "x-mock-seed": "1" });
    const b = await stream(REQUESTS.text, { "x-mock-seed": "1" });
    const c = await stream(REQUESTS.text, { "x-mock-seed": "2" });
    expect(withoutIds(parseSseStrict(b.text).events)).toEqual(withoutIds(parseSseStrict(a.text).events));
    expect(withoutIds(parseSseStrict(c.text).events)).not.toEqual(withoutIds(parseSseStrict(a.text).events));
    expectConformantStream(parseSseStrict(c.text).events);
  });

  it("key order in the request body does not change the answer (the second is a repeat: new ids)", async () => {
    const a = await postResponses(server(), '{"model":"m","input":"Order?","temperature":0.5}');
    const b = await postResponses(server(), '{"temperature":0.5,"input":"Order?","model":"m"}');
    expect(withoutIds(JSON.parse(b.text))).toEqual(withoutIds(JSON.parse(a.text)));
    expect(JSON.parse(b.text).id).not.toBe(JSON.parse(a.text).id);
  });

  it("different requests with the same seed get different response ids", async () => {
    const a = JSON.parse((await postResponses(server(), REQUESTS.text, { "x-mock-seed": "5" })).text);
    const b = JSON.parse(
      (await postResponses(server(), { ...REQUESTS.text, input: "Another question" }, { "x-mock-seed": "5" })).text,
    );
    expect(a.id).not.toBe(b.id);
  });
});
