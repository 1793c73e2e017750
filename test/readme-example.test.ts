// The "Use it in your tests" example of README.md, verbatim (a test checks they match).
import OpenAI from "openai";
import { expect, it } from "vitest";
import { useMockServer } from "openresponses-mock/vitest";

const mock = useMockServer();

it("runs a two-turn tool loop", async () => {
  mock.enqueue(
    { steps: [{ type: "function_call", name: "get_weather", arguments: { city: "Paris" }, call_id: "call_1" }] },
    { steps: [{ type: "message", text: "It is sunny in Paris." }] },
  );
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
  const first = await client.responses.create({ model: "m", input: "Weather in Paris?" });
  const output = { type: "function_call_output" as const, call_id: "call_1", output: "sunny" };
  const second = await client.responses.create({ model: "m", previous_response_id: first.id, input: [output] });
  expect(second.output_text).toBe("It is sunny in Paris.");
  expect(mock.requests.map((r) => r.body)).toEqual([
    { model: "m", input: "Weather in Paris?" },
    { model: "m", previous_response_id: first.id, input: [output] },
  ]);
});
