// Run by test/jest/jest.test.ts on its own (not matched by jest.config.mjs): with
// `verify: true`, an expectation the client does not meet fails the test that made it
// (jest reports the unmet rule), and the next test starts clean.
import { expect, test } from "@jest/globals";
import OpenAI from "openai";
import { useMockServer } from "openresponses-mock/jest";

const mock = useMockServer({ verify: true });

test("sends back only one of two tool outputs", async () => {
  mock.use({
    name: "two-calls",
    turns: [
      {
        steps: [
          { type: "function_call", name: "lookup", call_id: "call_1", arguments: { q: "a" } },
          { type: "function_call", name: "lookup", call_id: "call_2", arguments: { q: "b" } },
        ],
        expect: { tool_outputs: true },
      },
      { steps: [{ type: "message", text: "Both found." }] },
    ],
  });
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
  const first = await client.responses.create({ model: "m", input: "Look up a and b" });
  const output = { type: "function_call_output", call_id: "call_1", output: "found" };
  const second = await client.responses.create({ model: "m", previous_response_id: first.id, input: [output] });
  expect(second.output_text).toBe("Both found.");
});

test("meets its expectation", async () => {
  mock.expect({ match: { contains: "hello" } });
  const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "test" });
  await client.responses.create({ model: "m", input: "hello there" });
  expect(mock.expectations.map((e) => e.status)).toEqual(["met"]);
});
