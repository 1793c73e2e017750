import { describe, expect, it } from "vitest";
import { emitEvents } from "../../src/emit/emit-events.js";
import { planAuto } from "../../src/generate/auto.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { createRng } from "../../src/generate/rng.js";
import { createIdSource } from "../../src/generate/ids.js";
import { properNames } from "../../src/generate/words.js";
import { CreateResponseBody } from "../../src/spec/index.js";
import { expectConformantStream } from "../support/conformance.js";

const plan = (body: unknown, seed = "s") => {
  const request = CreateResponseBody.parse(body);
  return planAuto({
    request,
    items: inputItems(request.input),
    rng: createRng(seed),
    ids: createIdSource("ids"),
    vendorExtensions: true,
    createdAt: 1_767_225_600,
  });
};
const output = (body: unknown, seed = "s") => {
  const events = emitEvents(plan(body, seed));
  return expectConformantStream(events as never).output as any[];
};

const weather = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] },
};
const email = {
  type: "function",
  name: "send_email",
  parameters: { type: "object", properties: { to: { type: "string", format: "email" } }, required: ["to"] },
};

describe("auto", () => {
  it("finds proper names that do not start a sentence", () => {
    expect(properNames("What's the weather like in San Francisco? Tell Bob.")).toEqual(["San Francisco", "Bob"]);
    expect(properNames("Weather in Paris?")).toEqual(["Paris"]);
  });

  it("calls a tool with arguments that use the place the user named", () => {
    const out = output({ model: "m", input: "What's the weather like in San Francisco?", tools: [weather] });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ type: "function_call", name: "get_weather", status: "completed" });
    expect(JSON.parse(out[0].arguments)).toEqual({ location: "San Francisco" });
  });

  it("calls only the tools the user mentions when it mentions some", () => {
    const out = output({ model: "m", input: "Please send email to the team.", tools: [weather, email] });
    expect(out.map((o) => o.name)).toEqual(["send_email"]);
    expect(JSON.parse(out[0].arguments).to).toMatch(/^[^@\s]+@[^@\s]+\.[a-z]+$/);
  });

  it("calls one tool, never every tool at once, when the user's words point at none", () => {
    const names = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const out = output({ model: "m", input: "Go.", tools: [weather, email] }, `seed-${seed}`);
      expect(out.map((o) => o.type)).toEqual(["function_call"]);
      names.add(out[0].name);
    }
    expect(names).toEqual(new Set(["get_weather", "send_email"]));
  });

  it("calls the tool once per place the user names, in parallel unless parallel_tool_calls is false, capped by max_tool_calls", () => {
    const body = { model: "m", input: "What's the weather in Paris and Tokyo?", tools: [weather, email] };
    for (let seed = 0; seed < 20; seed++) {
      const out = output(body, `seed-${seed}`);
      expect(out.map((o) => o.name)).toEqual(["get_weather", "get_weather"]);
      expect(out.map((o) => JSON.parse(o.arguments).location)).toEqual(["Paris", "Tokyo"]);
      expect(new Set(out.map((o) => o.call_id)).size).toBe(2);
      const one = output({ ...body, parallel_tool_calls: false }, `seed-${seed}`);
      expect(one.map((o) => [o.name, JSON.parse(o.arguments).location])).toEqual([["get_weather", "Paris"]]);
      expect(output({ ...body, max_tool_calls: 1 }, `seed-${seed}`)).toHaveLength(1);
    }
  });

  it("calls several different tools when the user's words name several", () => {
    const out = output({
      model: "m",
      input: "Check the weather in Oslo, then send_email to the team.",
      tools: [email, weather],
    });
    expect(out.map((o) => o.name)).toEqual(["get_weather", "send_email"]);
    expect(JSON.parse(out[0].arguments)).toEqual({ location: "Oslo" });
  });

  it("writes the answer as a JSON object for text.format json_object", () => {
    for (let seed = 0; seed < 20; seed++) {
      const request = CreateResponseBody.parse({
        model: "m",
        input: "Give me three facts about Lisbon.",
        text: { format: { type: "json_object" } },
      });
      const events = emitEvents(
        planAuto({
          request,
          items: inputItems(request.input),
          rng: createRng(`seed-${seed}`),
          ids: createIdSource("ids"),
          vendorExtensions: true,
          createdAt: 1_767_225_600,
        }),
      );
      const out = expectConformantStream(events as never).output as any[];
      expect(out.map((o) => o.type)).toEqual(["message"]);
      const value = JSON.parse(out[0].content[0].text);
      expect(value).toBeTypeOf("object");
      expect(Array.isArray(value)).toBe(false);
      expect(value.answer).toContain("Give me three facts about Lisbon.");
      expect(value.keywords).toContain("lisbon");
    }
  });

  it("treats tool_choice as a hard constraint", () => {
    expect(output({ model: "m", input: "Weather?", tools: [weather], tool_choice: "none" }).map((o) => o.type)).toEqual(
      ["message"],
    );
    const allowedNone = output({
      model: "m",
      input: "Weather?",
      tools: [weather],
      tool_choice: { type: "allowed_tools", mode: "none", tools: [{ type: "function", name: "get_weather" }] },
    });
    expect(allowedNone.map((o) => o.type)).toEqual(["message"]);
    // `required` calls even after tool outputs.
    const required = output({
      model: "m",
      tools: [weather],
      tool_choice: "required",
      input: [
        { type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "sunny" },
      ],
    });
    expect(required.map((o) => o.type)).toEqual(["function_call"]);
    // A named function is called even when the words point elsewhere; allowed_tools restricts the choice.
    const named = output({
      model: "m",
      input: "Weather in Paris?",
      tools: [weather, email],
      tool_choice: { type: "function", name: "send_email" },
    });
    expect(named.map((o) => o.name)).toEqual(["send_email"]);
    const allowed = output({
      model: "m",
      input: "Weather in Paris?",
      tools: [weather, email],
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "send_email" }] },
    });
    expect(allowed.map((o) => o.name)).toEqual(["send_email"]);
    expect(
      output({ model: "m", input: "Send an email.", tools: [weather, email], tool_choice: "none" }).map((o) => o.type),
    ).toEqual(["message"]);
  });

  it("answers tool outputs with a text that uses them", () => {
    const out = output({
      model: "m",
      tools: [weather],
      input: [
        { type: "message", role: "user", content: "Weather in Paris?" },
        { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"location":"Paris"}' },
        { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "18C and sunny" }] },
      ],
    });
    expect(out[0].content[0].text).toMatch(/^Based on the tool results: get_weather returned 18C and sunny\./);
  });

  it("quotes what follows an Output: line when a tool's result has a header block (Codex's exec results)", () => {
    const out = output({
      model: "m",
      tools: [weather],
      input: [
        { type: "message", role: "user", content: "list the files" },
        { type: "function_call", call_id: "c1", name: "exec_command", arguments: '{"cmd":"ls"}' },
        {
          type: "function_call_output",
          call_id: "c1",
          output: "Chunk ID: 1a2b\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\nREADME.md\nsrc\n",
        },
      ],
    });
    expect(out[0].content[0].text).toMatch(/^Based on the tool results: exec_command returned README\.md src\./);
  });

  it("depends on the input and on the seed, and on nothing else", () => {
    const a = JSON.stringify(emitEvents(plan({ model: "m", input: "One" })));
    expect(JSON.stringify(emitEvents(plan({ model: "m", input: "One" })))).toBe(a);
    expect(JSON.stringify(emitEvents(plan({ model: "m", input: "One" }, "other")))).not.toBe(a);
    expect(JSON.stringify(emitEvents(plan({ model: "m", input: "Two" })))).not.toBe(a);
  });

  it("gives conformant streams for many seeds and request shapes", () => {
    const shapes: unknown[] = [
      { model: "m", input: "Hello there" },
      { model: "m", input: "", text: { verbosity: "high" } },
      { model: "m", input: "Call things", tools: [weather, email], reasoning: { effort: "medium" } },
      { model: "m", input: "Budget", tools: [weather, email], max_output_tokens: 16, reasoning: {} },
      {
        model: "m",
        input: "JSON",
        text: {
          format: {
            type: "json_schema",
            schema: {
              type: "object",
              properties: { n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } },
              required: ["n"],
            },
          },
        },
      },
      {
        model: "m",
        input: "Logprobs",
        include: ["message.output_text.logprobs"],
        top_logprobs: 5,
        max_output_tokens: 20,
      },
    ];
    for (let seed = 0; seed < 100; seed++) for (const shape of shapes) output(shape, `seed-${seed}`);
  });
});
