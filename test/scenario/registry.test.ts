import { describe, expect, it } from "vitest";
import { AUTO_SCENARIO, createRegistry, selectScenario } from "../../src/scenario/registry.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { validateScenario } from "../../src/scenario/parse.js";
import { ApiError, CreateResponseBody } from "../../src/spec/index.js";

const s = (name: string, match?: object) =>
  validateScenario(
    {
      name,
      description: `the ${name} scenario`,
      ...(match ? { match } : {}),
      turns: [{ steps: [{ type: "message", text: name }] }],
    },
    "test",
  );

const registry = createRegistry([
  s("weather", { contains: "WEATHER" }),
  s("ticket", { matches: "^ticket-\\d+$" }),
  s("gpt-special", { model: "special-model" }),
  s("tooly", { tool: "lookup" }),
  s("after-tools", { afterToolOutput: true }),
  s("tagged", { metadata: { suite: "a", case: "1" } }),
  s("both", { contains: "both", model: "m2" }),
  s("mock-model-named"),
]);

const pick = (body: object, header?: string) => {
  const request = CreateResponseBody.parse({ model: "m", input: "hello", ...body });
  return selectScenario(registry, request, inputItems(request.input), header);
};

describe("scenario selection", () => {
  it("takes the header first, then the model name, then match rules, then the default", () => {
    expect(pick({ model: "mock-model-named", input: "weather?" }, "ticket")).toMatchObject({
      scenario: { name: "ticket" },
      reason: "header",
    });
    expect(pick({ model: "mock-model-named", input: "weather?" })).toMatchObject({
      scenario: { name: "mock-model-named" },
      reason: "model",
    });
    expect(pick({ input: "weather?" })).toMatchObject({ scenario: { name: "weather" }, reason: "match" });
    expect(pick({ input: "nothing special" })).toMatchObject({ scenario: { name: "auto" }, reason: "default" });
  });

  it("applies each kind of match rule", () => {
    expect(pick({ input: "ticket-42" }).scenario.name).toBe("ticket");
    expect(pick({ input: "a ticket-42" }).scenario.name).toBe("auto");
    expect(pick({ model: "special-model" }).scenario.name).toBe("gpt-special");
    expect(pick({ tools: [{ type: "function", name: "lookup" }] }).scenario.name).toBe("tooly");
    expect(
      pick({
        input: [
          { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
          { type: "function_call_output", call_id: "c", output: "x" },
        ],
      }).scenario.name,
    ).toBe("after-tools");
    expect(pick({ metadata: { suite: "a", case: "1", extra: "x" } }).scenario.name).toBe("tagged");
    expect(pick({ metadata: { suite: "a" } }).scenario.name).toBe("auto");
  });

  it("requires every rule of a scenario to hold", () => {
    expect(pick({ input: "both", model: "m2" }).scenario.name).toBe("both");
    expect(pick({ input: "both", model: "m3" }).scenario.name).toBe("auto");
  });

  it("rejects an unknown header name with a 400 that lists the known names", () => {
    try {
      pick({}, "../../etc/passwd");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      const e = err as ApiError;
      expect([e.status, e.code, e.param]).toEqual([400, "unknown_scenario", "x-mock-scenario"]);
      expect(e.message).toContain("auto, both, gpt-special");
    }
  });

  it("knows auto, and refuses an unknown default", () => {
    expect(createRegistry([]).defaultScenario).toBe(AUTO_SCENARIO);
    expect(createRegistry([s("x")], "x").defaultScenario.name).toBe("x");
    expect(() => createRegistry([], "nope")).toThrow(/Unknown default scenario 'nope'.*auto/);
  });
});
