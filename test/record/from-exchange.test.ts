/**
 * A recorded exchange as a scenario turn, pure: the file is one conversation,
 * its turns indexed by the assistant turns before them; chunking and timing
 * as recorded; what the format cannot hold is named. Every scenario built
 * here must load as `validate` loads it.
 */
import { describe, expect, it } from "vitest";
import { emitStream } from "../../src/emit/emit-events.js";
import { createIdSource, createRng, planScenario } from "../../src/generate/index.js";
import {
  chunkingOf,
  conversationName,
  recordInto,
  timingOf,
  userTextPerTurn,
  type Exchange,
  type RecordedEvent,
} from "../../src/record/from-exchange.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { validateScenario } from "../../src/scenario/parse.js";
import { CreateResponseBody, type ItemParam } from "../../src/spec/index.js";

const tools = [
  { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
];
const request = (input: unknown, extra: object = {}) =>
  CreateResponseBody.parse({ model: "gpt-x", input, tools, ...extra });

/** A stream played from a scripted turn, each event `gap` ms after the one before. */
function streamOf(steps: object[], gap = 10, end?: object): RecordedEvent[] {
  const scenario = validateScenario({ name: "src", description: "source", turns: [{ steps, end }] }, "test");
  const r = request("hi");
  const plan = planScenario(scenario, {
    request: r,
    items: inputItems(r.input),
    rng: createRng("s"),
    ids: createIdSource("ids"),
    vendorExtensions: false,
    createdAt: 1,
  });
  return emitStream(plan).events.map((event, i) => ({
    at: 100 + i * gap,
    event: event as unknown as RecordedEvent["event"],
  }));
}

const exchange = (items: ItemParam[], events: RecordedEvent[], extra: Partial<Exchange> = {}): Exchange => ({
  request: request(items),
  items,
  answer: { kind: "stream", events },
  upstream: "responses http://127.0.0.1:1/v1",
  recordedAt: "2026-01-01T00:00:00.000Z",
  ...extra,
});

const user = (text: string): ItemParam => ({ type: "message", role: "user", content: text }) as ItemParam;

describe("recording an exchange", () => {
  it("names the file after the conversation: readable, stable, the same for every turn of it", () => {
    const first = [user("What's the weather in Paris and Rome today, please?")];
    const later = [
      ...first,
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}" } as ItemParam,
      { type: "function_call_output", call_id: "c1", output: "sunny" } as ItemParam,
    ];
    const name = conversationName(request(first), first);
    expect(name).toMatch(/^what-s-the-weather-in-paris-and-rome-[0-9a-f]{8}$/);
    expect(conversationName(request(later), later)).toBe(name);
    // Other tools, other instructions: another conversation.
    expect(conversationName(request(first, { tools: [] }), first)).not.toBe(name);
    expect(conversationName(request(first, { instructions: "Be terse." }), first)).not.toBe(name);
  });

  it("writes a turn with the items, text, arguments and call ids as sent, the chunking as recorded, and a match", () => {
    const events = streamOf([
      { type: "message", text: "Let me check the weather.", chunk: { sizes: [4, 7, 3, 11] } },
      {
        type: "function_call",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        call_id: "call_rec",
        chunk: { chars: 5 },
      },
    ]);
    const items = [user("Weather in Paris?")];
    const { scenario, turn, notes } = recordInto(null, exchange(items, events));
    expect(turn).toBe(0);
    expect(notes).toEqual([]);
    expect(() => validateScenario(scenario, "recorded")).not.toThrow();
    expect(scenario.match).toEqual({ matches: "^Weather in Paris\\?$", tool: "get_weather" });
    const [t] = scenario.turns as { steps: Record<string, unknown>[]; end: unknown; timing: unknown }[];
    expect(t.steps).toEqual([
      { type: "message", text: "Let me check the weather.", chunk: { sizes: [4, 7, 3, 11] } },
      {
        type: "function_call",
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        call_id: "call_rec",
        chunk: { chars: 5 },
      },
    ]);
    expect(t.end).toEqual({ type: "completed" });
    expect(t.timing).toEqual({ recorded: true, latencyMs: 100, chunkMs: 10 });
  });

  it("puts each turn of a loop at its index, and drops the turns after a turn recorded again", () => {
    const first = [user("Weather in Paris?")];
    const second = [
      ...first,
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}" } as ItemParam,
      { type: "function_call_output", call_id: "c1", output: "sunny" } as ItemParam,
    ];
    const one = recordInto(
      null,
      exchange(first, streamOf([{ type: "function_call", name: "get_weather", arguments: "{}" }])),
    ).scenario;
    const two = recordInto(one, exchange(second, streamOf([{ type: "message", text: "Sunny." }])));
    expect(two.turn).toBe(1);
    expect((two.scenario.turns as unknown[]).length).toBe(2);
    expect(() => validateScenario(two.scenario, "recorded")).not.toThrow();
    // The first turn again: the second belonged to the old run of the loop.
    const again = recordInto(
      two.scenario,
      exchange(first, streamOf([{ type: "message", text: "No tool this time." }])),
    );
    expect((again.scenario.turns as unknown[]).length).toBe(1);
  });

  it("fills a turn that was never recorded with an error that says so", () => {
    const later = [user("a"), { type: "message", role: "assistant", content: "b" } as ItemParam, user("c")];
    const { scenario, turn } = recordInto(null, exchange(later, streamOf([{ type: "message", text: "d" }])));
    expect(turn).toBe(1);
    const turns = scenario.turns as { end?: { type: string; error?: { message: string } } }[];
    expect(turns[0].end).toMatchObject({ type: "http_error", status: 500, error: { code: "not_recorded" } });
    expect(scenario.match).toEqual({ matches: "^(?:a|c)$", tool: "get_weather" });
    expect(() => validateScenario(scenario, "recorded")).not.toThrow();
  });

  it("keeps the outcome: incomplete with its reason, failed with its error, an HTTP error with its status", () => {
    const items = [user("x")];
    const incomplete = recordInto(
      null,
      exchange(
        items,
        streamOf([{ type: "message", text: "cut" }], 1, { type: "incomplete", reason: "max_output_tokens" }),
      ),
    );
    expect((incomplete.scenario.turns as { end: unknown }[])[0].end).toEqual({
      type: "incomplete",
      reason: "max_output_tokens",
    });
    const failed = recordInto(
      null,
      exchange(
        items,
        streamOf([{ type: "message", text: "oops" }], 1, {
          type: "failed",
          error: { type: "server_error", code: "boom", message: "It broke." },
        }),
      ),
    );
    expect((failed.scenario.turns as { end: unknown }[])[0].end).toEqual({
      type: "failed",
      error: { type: "server_error", code: "boom", message: "It broke." },
    });
    const http = recordInto(
      null,
      exchange(items, [], {
        answer: {
          kind: "http_error",
          status: 429,
          error: { type: "too_many_requests", code: "rate_limit_exceeded", message: "Slow down.", param: null },
          retryAfter: "2",
        },
      }),
    );
    expect((http.scenario.turns as { end: unknown }[])[0]).toEqual({
      steps: [],
      end: {
        type: "http_error",
        status: 429,
        error: { type: "too_many_requests", code: "rate_limit_exceeded", message: "Slow down.", param: null },
        headers: { "retry-after": "2" },
      },
    });
    const gateway = recordInto(
      null,
      exchange(items, [], { answer: { kind: "http_error", status: 504, error: { message: "late" } } }),
    );
    expect(gateway.notes[0]).toMatch(/504 is replayed as 503/);
    for (const r of [incomplete, failed, http, gateway])
      expect(() => validateScenario(r.scenario, "recorded")).not.toThrow();
  });

  it("names the items a scenario cannot hold, and keeps the rest", () => {
    const events = streamOf([{ type: "message", text: "ok" }]);
    const terminal = events.at(-1)!.event as unknown as { response: { output: unknown[] } };
    terminal.response.output = [
      { type: "computer_call", id: "cu_1", call_id: "call_1", status: "completed" },
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search" } },
      ...terminal.response.output,
    ];
    const { scenario, notes } = recordInto(null, exchange([user("x")], events));
    expect(notes).toEqual([
      "output[0]: a 'computer_call' item has no scenario step and is left out",
      expect.stringMatching(
        /^output\[1\]: a 'web_search_call' item does not fit its scenario step \(query: .*\) and is left out$/,
      ),
    ]);
    expect((scenario.turns as { steps: unknown[] }[])[0].steps).toHaveLength(1);
  });

  it("records OpenAI's hosted-tool calls as hosted steps (without their ids), and the file validates", () => {
    const events = streamOf([{ type: "message", text: "ok" }]);
    const terminal = events.at(-1)!.event as unknown as { response: { output: unknown[] } };
    terminal.response.output = [
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "berlin", sources: [{ type: "url", url: "https://example.com/b" }] },
      },
      {
        type: "code_interpreter_call",
        id: "ci_1",
        status: "completed",
        code: "print(1)",
        container_id: "cntr_1",
        outputs: [{ type: "logs", logs: "1" }],
      },
      { type: "image_generation_call", id: "ig_1", status: "completed", result: "aGk=" },
      { type: "file_search_call", id: "fs_1", status: "completed", queries: ["q"], results: null },
      {
        type: "mcp_list_tools",
        id: "mcpl_1",
        server_label: "s",
        tools: [{ name: "t", description: null, input_schema: { type: "object" }, annotations: null }],
        error: null,
      },
      {
        type: "mcp_call",
        id: "mcp_1",
        server_label: "s",
        name: "t",
        arguments: "{}",
        output: null,
        error: "boom",
        approval_request_id: null,
      },
      { type: "mcp_approval_request", id: "mcpr_1", server_label: "s", name: "t", arguments: "{}" },
      ...terminal.response.output,
    ];
    const { scenario, notes } = recordInto(null, exchange([user("x")], events));
    expect(notes).toEqual([]);
    expect((scenario.turns as { steps: unknown[] }[])[0].steps.slice(0, 7)).toEqual([
      { type: "web_search_call", query: "berlin", sources: ["https://example.com/b"] },
      {
        type: "code_interpreter_call",
        code: "print(1)",
        container_id: "cntr_1",
        outputs: [{ type: "logs", logs: "1" }],
      },
      { type: "image_generation_call", result: "aGk=" },
      { type: "file_search_call", queries: ["q"] },
      { type: "mcp_list_tools", server_label: "s", tools: [{ name: "t", input_schema: { type: "object" } }] },
      { type: "mcp_call", server_label: "s", name: "t", arguments: "{}", error: "boom" },
      { type: "mcp_approval_request", server_label: "s", name: "t", arguments: "{}" },
    ]);
    expect(() => validateScenario(scenario, "recorded")).not.toThrow();
  });
});

describe("chunking and timing", () => {
  it("writes even deltas as chars, uneven ones as sizes, and none when the deltas do not spell the text", () => {
    expect(chunkingOf(["abc", "def", "g"], "abcdefg")).toEqual({ chars: 3 });
    expect(chunkingOf(["ab", "cdef", "g"], "abcdefg")).toEqual({ sizes: [2, 4, 1] });
    expect(chunkingOf(["a😀", "b"], "a😀b")).toEqual({ chars: 2 });
    expect(chunkingOf(["ab"], "abc")).toBeUndefined();
  });

  it("matches each item's start with a delay, on top of the latency and the mean gap", () => {
    const at = [50, 60, 70, 500, 510, 520, 530];
    const events = at.map((t, i) => ({ at: t, event: { type: `e${i}` } }));
    const { timing, delays } = timingOf(events, [2, 3]);
    expect(timing).toEqual({ latencyMs: 50, chunkMs: 10 });
    // Item 0 starts at event 2 (70 ms: on time); item 1 at event 3 (500 ms, 420 ms late).
    expect(delays).toEqual([0, 420]);
  });

  it("reads the last user message each turn answered", () => {
    const items = [
      user("a"),
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" } as ItemParam,
      { type: "function_call_output", call_id: "c", output: "o" } as ItemParam,
    ];
    expect(userTextPerTurn(items)).toEqual(["a", "a"]);
  });
});

describe("the file's layout", () => {
  it("keeps number lists on one line and never touches text that looks like one", async () => {
    const { formatJson } = await import("../../src/record/writer.js");
    const value = { chunk: { sizes: [3, 1, 12] }, arguments: '{"ids":[1,2]}', nested: [[1, 2], ["a"]] };
    const text = formatJson(value);
    expect(text).toContain('"sizes": [3, 1, 12]');
    expect(JSON.parse(text)).toEqual(value);
  });
});
