/**
 * The checker against the real mock, in both dialects: every library
 * scenario, streamed and as JSON, is quiet; and a stream judged by the other
 * dialect's rules shows exactly where the dialects differ.
 */
import { describe, expect, it } from "vitest";
import { checkAnswer, StreamChecker } from "../../src/check/index.js";
import { useServer } from "../support/server.js";

const SCENARIOS = [
  "text",
  "annotations",
  "content-filter",
  "failure-mid-stream",
  "incomplete",
  "long-text",
  "parallel-tool-calls",
  "reasoning",
  "refusal",
  "streamed-arguments",
  "tool-call",
  "vendor",
  "random",
  "random-chaos",
  "error-400",
  "error-401",
  "error-403",
  "error-404",
  "error-409",
  "error-413",
  "error-422",
  "error-429",
  "error-500",
  "error-502",
  "error-503",
];
const WEATHER = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

for (const dialect of ["open-responses", "openai"] as const) {
  describe(`the mock in the ${dialect} dialect`, () => {
    const server = useServer({ dialect });

    async function answer(body: Record<string, unknown>, scenario: string, seed = "1") {
      const res = await fetch(`${server().baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-scenario": scenario, "x-mock-seed": seed },
        body: JSON.stringify(body),
      });
      return { status: res.status, contentType: res.headers.get("content-type"), body: await res.text() };
    }

    for (const scenario of SCENARIOS) {
      it(`${scenario}: streamed and JSON answers have no violation`, async () => {
        const body = {
          model: "mock-model-1",
          input: "What is the weather in Paris?",
          tools: [WEATHER],
          reasoning: { effort: "low", summary: "auto" },
        };
        for (const seed of scenario.startsWith("random") ? ["1", "2", "3", "4", "5"] : ["1"]) {
          for (const stream of [true, false]) {
            const request = { ...body, stream };
            const got = await answer(request, scenario, seed);
            const verdict = checkAnswer({ request, ...got, dialect, stream });
            expect(verdict.violations, `${scenario} seed ${seed} stream ${stream}: ${got.body.slice(0, 300)}`).toEqual(
              [],
            );
            if (scenario.startsWith("error-")) expect(verdict.kind).toBe("error");
            else if (stream) expect(verdict.stream?.terminal).toMatch(/^response\.(completed|incomplete|failed)$/);
            else expect(verdict.response?.status).toMatch(/^(completed|incomplete|failed)$/);
          }
        }
      });
    }

    it("a stream fed to the checker chunk by chunk as it arrives has no violation", async () => {
      const request = { model: "mock-model-1", input: "Tell me a long story.", stream: true };
      const res = await fetch(`${server().baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-scenario": "long-text" },
        body: JSON.stringify(request),
      });
      const checker = new StreamChecker({
        request,
        dialect,
        status: res.status,
        contentType: res.headers.get("content-type"),
      });
      let chunks = 0;
      for await (const chunk of res.body!) {
        chunks++;
        expect(checker.write(chunk)).toEqual([]);
      }
      const verdict = checker.end();
      expect(chunks).toBeGreaterThan(0);
      expect(verdict.violations).toEqual([]);
      expect(verdict.messages).toBeGreaterThan(100);
    });

    it("judged by the other dialect's rules, a stream shows the differences", async () => {
      const other = dialect === "openai" ? "open-responses" : "openai";
      const request = {
        model: "mock-model-1",
        input: "Think first.",
        reasoning: { effort: "low", summary: "auto" },
        stream: true,
      };
      const got = await answer(request, "reasoning");
      const rules = new Set(
        checkAnswer({ request, ...got, dialect: other, stream: true }).violations.map((v) => v.rule),
      );
      expect(rules.has("sse.done")).toBe(true);
      expect(rules.has("event.type")).toBe(true); // response.reasoning.delta vs response.reasoning_text.delta
    });
  });
}
