// Run by vitest in a consumer project: the README's way of using the helper.
import { expect, it } from "vitest";
import { useMockServer } from "openresponses-mock/vitest";

const mock = useMockServer({ seed: 7 });

it("answers a Responses request and journals it", async () => {
  mock.use({
    name: "hello",
    description: "Says hello.",
    turns: [{ steps: [{ type: "message", text: "Hello from the mock" }] }],
  });
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "any-model", input: "hi" }),
  });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.status).toBe("completed");
  expect(JSON.stringify(body.output)).toContain("Hello from the mock");
  expect(mock.requests.map((e) => [e.path, e.scenario])).toEqual([["/v1/responses", "hello"]]);
});
