// The jest helper in jest: `openresponses-mock/jest` resolves to the built package
// (dist/) as in a user's project, and the openai SDK talks to the server it starts.
import { describe, expect, test } from "@jest/globals";
import OpenAI from "openai";
import { useMockServer } from "openresponses-mock/jest";

const mock = useMockServer();

test("a two-turn tool loop through the openai SDK", async () => {
  mock.enqueue(
    { steps: [{ type: "function_call", name: "get_weather", arguments: { city: "Paris" }, call_id: "call_1" }] },
    { steps: [{ type: "message", text: "It is sunny in Paris." }] },
  );
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
  const first = await client.responses.create({ model: "m", input: "Weather in Paris?" });
  expect(first.output).toMatchObject([{ type: "function_call", name: "get_weather", call_id: "call_1" }]);
  const output = { type: "function_call_output", call_id: "call_1", output: "sunny" };
  const second = await client.responses.create({ model: "m", previous_response_id: first.id, input: [output] });
  expect(second.output_text).toBe("It is sunny in Paris.");
  expect(mock.requests.map((r) => r.body)).toEqual([
    { model: "m", input: "Weather in Paris?" },
    { model: "m", previous_response_id: first.id, input: [output] },
  ]);
});

test("after each test the journal and the controls are reset", async () => {
  expect(mock.requests).toEqual([]);
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
  const stream = await client.responses.create({ model: "mock-model", input: "Hi", stream: true });
  const types = [];
  for await (const event of stream) types.push(event.type);
  expect(types[0]).toBe("response.created");
  expect(types.at(-1)).toBe("response.completed");
  expect(mock.requests).toHaveLength(1);
  // Left queued on purpose: the reset after this test drops it (the next test checks).
  mock.enqueue({ steps: [{ type: "message", text: "left over" }] });
});

describe("a session", () => {
  test("keeps its own queue and journal; nothing is left over from the last test", async () => {
    const session = mock.session();
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test", defaultHeaders: session.headers });
    session.enqueue({ steps: [{ type: "message", text: "Only this session sees me." }] });
    const res = await client.responses.create({ model: "m", input: "Hi" });
    expect(res.output_text).toBe("Only this session sees me.");
    const plain = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
    const other = await plain.responses.create({ model: "m", input: "Hi" });
    expect(other.output_text).not.toBe("left over");
    expect(session.requests).toHaveLength(1);
    expect(mock.requests).toHaveLength(2);
  });
});
