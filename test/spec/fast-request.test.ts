/**
 * The fast path of request parsing (src/spec/fast-request.ts) against zod's
 * `CreateResponseBody`: whatever the fast path takes, zod takes too and parses
 * to the same value (same keys in the same order); whatever zod refuses, the
 * fast path declines, so the error a client gets is zod's, byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCreateRequest, parseWithPolicy } from "../../src/http/validate.js";
import { CreateResponseBody, SpecCreateResponseBody, type ApiError } from "../../src/spec/index.js";
import { fastCreateRequest } from "../../src/spec/fast-request.js";
import { anyText, validBody } from "../robust/arbitraries.js";

const RUNS = Number(process.env.ORM_FUZZ_RUNS ?? 2000);

/** Absent, or one of `values`. */
const maybe = (...values: fc.Arbitrary<unknown>[]) => fc.option(fc.oneof(...values), { nil: undefined, freq: 2 });
/** Values zod refuses for most fields, or that are at the edge of a range. */
const odd = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  15,
  16,
  2.5,
  -0,
  1e21,
  2 ** 53,
  "",
  "x",
  [],
  {},
  [1],
  { a: 1 },
  "none",
  "auto",
);

const text = fc.oneof(anyText, fc.constantFrom("hello 1", "", "é\ud800", "a".repeat(65)));
const inputText = fc.record(
  { type: fc.constantFrom("input_text", "output_text", "input_image"), text: fc.oneof(text, odd) },
  { requiredKeys: ["type"] },
);
const outputText = fc.record(
  {
    type: fc.constantFrom("output_text", "input_text", "refusal"),
    text: fc.oneof(text, odd),
    annotations: fc.oneof(fc.constant([]), odd),
  },
  { requiredKeys: ["type"] },
);
const message = fc.record(
  {
    type: fc.constantFrom("message", "messages", null),
    role: fc.constantFrom("user", "system", "developer", "assistant", "tool", "User"),
    content: fc.oneof(text, fc.array(fc.oneof(inputText, outputText), { maxLength: 3 }), odd),
    id: fc.oneof(text, odd),
    status: fc.oneof(text, odd),
    phase: fc.oneof(fc.constantFrom("commentary", "final_answer"), odd),
    extra: odd,
  },
  { requiredKeys: ["role"] },
);
const callId = fc.oneof(fc.constantFrom("call_1", "", "c".repeat(64), "c".repeat(65)), odd);
const functionName = fc.oneof(fc.constantFrom("get_weather", "a b", "", "n".repeat(64), "n".repeat(65), "ünï"), odd);
const functionCall = fc.record(
  {
    type: fc.constant("function_call"),
    call_id: callId,
    name: functionName,
    arguments: fc.oneof(fc.constant('{"city":"Paris"}'), odd),
    id: fc.oneof(text, odd),
    status: fc.oneof(fc.constantFrom("completed", "done"), odd),
    namespace: fc.oneof(text, odd),
  },
  { requiredKeys: ["type"] },
);
const functionOutput = fc.record(
  {
    type: fc.constant("function_call_output"),
    call_id: callId,
    output: fc.oneof(text, odd, fc.constant([{ type: "input_text", text: "x" }])),
    id: fc.oneof(text, odd),
    status: fc.oneof(fc.constantFrom("completed", "done"), odd),
  },
  { requiredKeys: ["type"] },
);
const item = fc.oneof(
  message,
  functionCall,
  functionOutput,
  odd,
  fc.record({ type: fc.constantFrom("reasoning", "item_reference", "acme:thing"), id: text }),
);
const parameters = fc.oneof(
  fc.constant({ type: "object", properties: { city: { type: "string" } } }),
  fc.dictionary(fc.constantFrom("type", "__proto__", "constructor", "1", "b", "a"), fc.jsonValue({ maxDepth: 1 }), {
    maxKeys: 3,
  }),
  odd,
);
const tool = fc.record(
  {
    type: fc.constantFrom("function", "web_search", "acme:tool"),
    name: functionName,
    description: fc.oneof(text, odd),
    parameters,
    strict: fc.oneof(fc.boolean(), odd),
  },
  { requiredKeys: ["type"] },
);
const toolChoice = fc.oneof(
  fc.constantFrom("none", "auto", "required", "any"),
  fc.record({ type: fc.constantFrom("function", "allowed_tools", "web_search"), name: functionName }),
  odd,
);
const metadata = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.constantFrom("k", "__proto__", "k".repeat(65)), fc.string({ maxLength: 3 })),
    fc.oneof(fc.string({ maxLength: 4 }), fc.constant("v".repeat(513)), odd),
    { maxKeys: 18 },
  ),
  odd,
);

/** Mostly a good value, now and then an odd one. */
const good = (arb: fc.Arbitrary<unknown>) => fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: odd });

/** Bodies near the common shapes: every field the fast path knows, with good, edge and bad values, and now and then a key it does not know. */
const nearCommonBody = fc
  .record(
    {
      model: good(fc.constant("mock-model-1")),
      input: good(fc.oneof(text, fc.array(item, { maxLength: 4 }))),
      instructions: good(text),
      previous_response_id: good(text),
      parallel_tool_calls: good(fc.boolean()),
      max_output_tokens: good(fc.integer({ min: 0, max: 5000 })),
      max_tool_calls: good(fc.integer({ min: -1, max: 5 })),
      temperature: good(fc.double({ min: -1, max: 3, noNaN: true })),
      top_p: good(fc.double({ min: -1, max: 2, noNaN: true })),
      presence_penalty: good(fc.double({ noNaN: true })),
      frequency_penalty: good(fc.double({ noNaN: true })),
      top_logprobs: good(fc.integer({ min: -1, max: 21 })),
      metadata: good(metadata),
      safety_identifier: good(text),
      prompt_cache_key: good(text),
      include: good(
        fc.subarray([
          "reasoning.encrypted_content",
          "message.output_text.logprobs",
          "file_search_call.results",
          "bogus",
        ]),
      ),
      tools: good(fc.array(tool, { maxLength: 3 })),
      tool_choice: good(toolChoice),
      text: good(
        fc.record(
          {
            format: fc.oneof(fc.record({ type: fc.constantFrom("text", "json_object", "json_schema") }), odd),
            verbosity: fc.oneof(fc.constantFrom("low", "high", "loud"), odd),
          },
          { requiredKeys: [] },
        ),
      ),
      reasoning: good(
        fc.record(
          {
            effort: fc.oneof(fc.constantFrom("minimal", "max", "xhigh", "huge"), odd),
            summary: fc.oneof(fc.constantFrom("auto", "short"), odd),
            generate_summary: fc.constantFrom("auto"),
          },
          { requiredKeys: [] },
        ),
      ),
      truncation: good(fc.constantFrom("auto", "disabled", "on")),
      store: good(fc.boolean()),
      stream: good(fc.boolean()),
      stream_options: good(fc.record({ include_obfuscation: fc.oneof(fc.boolean(), odd) }, { requiredKeys: [] })),
      background: good(fc.boolean()),
      service_tier: good(fc.constantFrom("auto", "scale", "fast")),
      user: good(text),
      prompt_cache_retention: good(fc.constantFrom("in_memory", "24h", "1h")),
      conversation: good(fc.constant("conv_1")),
      prompt: odd,
      context_management: odd,
      moderation: odd,
      unknown_key: odd,
    },
    { requiredKeys: [] },
  )
  .chain((body) =>
    // model and input nearly always; a few of the other fields.
    fc
      .tuple(
        fc.subarray(
          Object.keys(body).filter((k) => k !== "model" && k !== "input"),
          { maxLength: 6 },
        ),
        fc.boolean(),
        fc.integer({ min: 0, max: 19 }),
      )
      .map(([keys, which, drop]) => {
        const kept = drop === 0 ? [which ? "input" : "model"] : ["model", "input"];
        return Object.fromEntries([...kept, ...keys].map((k) => [k, body[k as keyof typeof body]]));
      }),
  );

/** A body as a server receives it: JSON text, parsed. */
const wire = (body: unknown) => JSON.parse(JSON.stringify(body)) as unknown;

/** The fast path gives zod's value, or declines; never takes a body zod refuses. */
function agree(json: unknown): "fast" | "zod" | "refused" {
  const fast = fastCreateRequest(json);
  const zod = CreateResponseBody.safeParse(json);
  if (fast === undefined) return zod.success ? "zod" : "refused";
  expect(zod.success, `zod refuses what the fast path took: ${JSON.stringify(json)}`).toBe(true);
  expect(fast).toStrictEqual(zod.data);
  // The same keys in the same order, at every level.
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
  return "fast";
}

/** Generous: thousands of runs on a machine that others share. */
const PROPERTY_TIMEOUT = 120_000;

describe("the fast path of request parsing agrees with zod", () => {
  it(
    "on bodies near the common shapes (good, edge and bad values)",
    () => {
      const seen = { fast: 0, zod: 0, refused: 0 };
      fc.assert(
        fc.property(nearCommonBody.map(wire), (json) => {
          seen[agree(json)]++;
        }),
        { numRuns: RUNS },
      );
      // The property is only worth something if all three outcomes happen.
      expect(seen.fast).toBeGreaterThan(RUNS / 50);
      expect(seen.zod).toBeGreaterThan(0);
      expect(seen.refused).toBeGreaterThan(RUNS / 10);
    },
    PROPERTY_TIMEOUT,
  );

  it(
    "on valid bodies of every shape the schema has",
    () => {
      const seen = { fast: 0, zod: 0, refused: 0 };
      fc.assert(
        fc.property(validBody.map(wire), (json) => {
          seen[agree(json)]++;
        }),
        { numRuns: Math.ceil(RUNS / 4) },
      );
      expect(seen.refused).toBe(0);
      expect(seen.fast).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );

  it(
    "errors: a body the fast path declines gets zod's error, the same object",
    () => {
      fc.assert(
        fc.property(nearCommonBody.map(wire), (json) => {
          let ours: ApiError | undefined;
          let theirs: ApiError | undefined;
          try {
            parseCreateRequest(json, { strict: false });
          } catch (err) {
            ours = err as ApiError;
          }
          try {
            parseWithPolicy({ superset: CreateResponseBody, strict: SpecCreateResponseBody }, json, { strict: false });
          } catch (err) {
            theirs = err as ApiError;
          }
          expect(ours === undefined).toBe(theirs === undefined);
          if (ours && theirs)
            expect({ ...ours, message: ours.message, status: ours.status }).toStrictEqual({
              ...theirs,
              message: theirs.message,
              status: theirs.status,
            });
        }),
        { numRuns: Math.ceil(RUNS / 4) },
      );
    },
    PROPERTY_TIMEOUT,
  );

  it("takes what SDKs and test suites send most: a string, messages, tool results, function tools", () => {
    const bodies = [
      { model: "mock-model-1", input: "hello 1" },
      { model: "mock-model-1", input: "hello 1", stream: true },
      {
        model: "gpt-4.1",
        instructions: "Be brief.",
        input: [{ role: "user", content: "Hi" }],
        temperature: 0.2,
        store: false,
        metadata: { run: "7" },
      },
      {
        model: "gpt-4.1",
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "Weather in Paris?" }] },
          {
            type: "function_call",
            call_id: "call_1",
            name: "get_weather",
            arguments: '{"city":"Paris"}',
            id: "fc_1",
            status: "completed",
          },
          { type: "function_call_output", call_id: "call_1", output: "18°C" },
          { role: "assistant", content: [{ type: "output_text", text: "It is 18°C.", annotations: [] }] },
        ],
        tools: [
          {
            type: "function",
            name: "get_weather",
            description: "Weather",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            strict: true,
          },
        ],
        tool_choice: { type: "function", name: "get_weather" },
        parallel_tool_calls: false,
        reasoning: { effort: "low", summary: "auto" },
        text: { format: { type: "text" }, verbosity: "low" },
        stream_options: { include_obfuscation: false },
        max_output_tokens: 256,
      },
    ];
    for (const body of bodies) expect(agree(wire(body)), JSON.stringify(body)).toBe("fast");
  });

  it("declines what it does not know, and strict mode never takes it", () => {
    for (const body of [
      { model: "m", input: "x", unknown_key: 1 },
      { model: "m", input: [{ type: "reasoning", summary: [] }] },
      { model: "m", input: "x", text: { format: { type: "json_schema", name: "n", schema: {} } } },
      { model: "m", input: "x", tools: [{ type: "web_search" }] },
      { model: "m", input: "x", metadata: JSON.parse('{"__proto__":"x"}') },
    ]) {
      expect(fastCreateRequest(wire(body)), JSON.stringify(body)).toBeUndefined();
    }
    // --strict refuses an unknown key the default drops: zod's answer, not the fast path's.
    expect(() => parseCreateRequest({ model: "m", input: "x", user: "u" }, { strict: true })).toThrow(
      /Unknown parameter: 'user'/,
    );
  });
});
