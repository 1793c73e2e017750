import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { planScenario } from "../../src/generate/scenario-plan.js";
import { createRng } from "../../src/generate/rng.js";
import { createIdSource } from "../../src/generate/ids.js";
import { chunkWith } from "../../src/generate/scripted.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { validateScenario } from "../../src/scenario/parse.js";
import { ApiError, CreateResponseBody } from "../../src/spec/index.js";
import { expectConformantStream } from "../support/conformance.js";

const scenario = validateScenario(
  {
    name: "loop",
    description: "two turns",
    model: "scripted-model",
    turns: [
      {
        steps: [
          { type: "reasoning", summary: ["Plan."] },
          { type: "function_call", name: "get_weather" },
          { type: "function_call", name: "raw", arguments: "not json", call_id: "call_fixed" },
        ],
      },
      {
        steps: [
          { type: "vendor_item", item: { type: "acme:search_call", query: "q" } },
          { type: "message", text: "You said {{input}}; the tool said {{tool_output}}.", chunk: { chars: 4 } },
        ],
      },
      { steps: [], end: { type: "http_error", status: 429, headers: { "retry-after": "2" } } },
    ],
  },
  "test",
);

const run = (input: unknown, extra: object = {}) => {
  const request = CreateResponseBody.parse({ model: "m", input, ...extra });
  const plan = planScenario(scenario, {
    request,
    items: inputItems(request.input),
    rng: createRng("seed"),
    ids: createIdSource("ids"),
    vendorExtensions: true,
    createdAt: 1,
  });
  return { plan, response: expectConformantStream(emitEvents(plan) as never) };
};

const tools = [
  {
    type: "function",
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string", enum: ["Oslo"] } }, required: ["city"] },
  },
];

describe("scripted scenarios", () => {
  it("answers turn 1 when the conversation has no assistant turn yet", () => {
    const { response } = run("Weather in Oslo?", { tools });
    expect(response.model).toBe("scripted-model");
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "function_call", "function_call"]);
    expect(JSON.parse((response.output[1] as { arguments: string }).arguments)).toEqual({ city: "Oslo" }); // synthesized from the tool schema
    expect(response.output[2]).toMatchObject({ arguments: "not json", call_id: "call_fixed" });
  });

  it("picks the turn from the conversation, fills placeholders, and chunks as asked", () => {
    const { plan, response } = run([
      { role: "user", content: "hi there" },
      { type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "sunny" },
    ]);
    expect(response.output[0]).toMatchObject({ type: "acme:search_call", status: "completed", query: "q" });
    expect((response.output[0] as { id: string }).id).toMatch(/^searchca_/);
    const message = plan.items[1] as { parts: { chunks: string[] }[] };
    expect(message.parts[0].chunks.join("")).toBe("You said hi there; the tool said sunny.");
    expect(message.parts[0].chunks.every((c) => c.length <= 4)).toBe(true);
  });

  it("answers an http_error turn with its status, defaults and headers", () => {
    const twoTurns = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: "d" },
      { role: "user", content: "e" },
    ];
    try {
      run(twoTurns);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({
        status: 429,
        type: "too_many_requests",
        code: "rate_limit_exceeded",
        headers: { "retry-after": "2" },
      });
    }
    // Later turns repeat the last one.
    expect(() => run([...twoTurns, { role: "assistant", content: "f" }, { role: "user", content: "g" }])).toThrow(
      ApiError,
    );
  });

  it("lets the request's max_output_tokens cut a scripted answer", () => {
    const long = validateScenario(
      { name: "long", description: "long", turns: [{ steps: [{ type: "message", text: "word ".repeat(40) }] }] },
      "test",
    );
    const request = CreateResponseBody.parse({ model: "m", input: "x", max_output_tokens: 16 });
    const plan = planScenario(long, {
      request,
      items: inputItems(request.input),
      rng: createRng("seed"),
      ids: createIdSource("ids"),
      vendorExtensions: true,
      createdAt: 1,
    });
    const response = expectConformantStream(emitEvents(plan) as never);
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    expect(response.usage!.output_tokens).toBe(16);
  });
});

describe("chunk sizes (a recorded stream's chunking)", () => {
  it("splits text into deltas of the given sizes, the rest in one last delta", () => {
    expect(chunkWith("Hello, world!", { sizes: [3, 1, 5] }, createRng("x"))).toEqual(["Hel", "l", "o, wo", "rld!"]);
    expect(chunkWith("Hi", { sizes: [1, 5, 5] }, createRng("x"))).toEqual(["H", "i"]);
    // Sizes count characters: a surrogate pair is one.
    expect(chunkWith("a😀b", { sizes: [2, 1] }, createRng("x"))).toEqual(["a😀", "b"]);
  });

  it("is a valid chunking in a scenario file, and one of tokens, chars or sizes only", () => {
    expect(() =>
      validateScenario(
        {
          name: "s",
          description: "d",
          turns: [{ steps: [{ type: "message", text: "abc", chunk: { sizes: [1, 2] } }] }],
        },
        "t",
      ),
    ).not.toThrow();
    expect(() =>
      validateScenario(
        {
          name: "s",
          description: "d",
          turns: [{ steps: [{ type: "message", text: "abc", chunk: { sizes: [1], chars: 2 } }] }],
        },
        "t",
      ),
    ).toThrow(/exactly one of 'tokens', 'chars' or 'sizes'/);
    expect(() =>
      validateScenario(
        { name: "s", description: "d", turns: [{ steps: [{ type: "message", text: "abc", chunk: { sizes: [0] } }] }] },
        "t",
      ),
    ).toThrow();
  });
});
