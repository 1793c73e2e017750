/** An unknown scenario name suggests the nearest known one, wherever a name is given. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/spec/index.js";
import {
  UnknownScenarioError,
  createRegistry,
  knownScenariosHint,
  selectScenario,
} from "../../src/scenario/registry.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { expectErrorBody } from "../support/conformance.js";
import { postResponses, useServer } from "../support/server.js";
import { refusedUpgrade } from "../compliance/ws-client.js";

const s = (name: string): Scenario => ({
  name,
  description: name,
  turns: [{ steps: [{ type: "message", text: name }] }],
});
const SCENARIOS = [s("hello"), s("tool-call"), s("error-429")];
const KNOWN = "Known scenarios: auto, error-429, hello, tool-call.";

describe("knownScenariosHint", () => {
  it("names the nearest when close, then every known name, sorted", () => {
    expect(knownScenariosHint("helo", ["tool-call", "hello", "auto"])).toBe(
      "Did you mean 'hello'? Known scenarios: auto, hello, tool-call.",
    );
    expect(knownScenariosHint("tool_call", ["tool-call", "hello"])).toBe(
      "Did you mean 'tool-call'? Known scenarios: hello, tool-call.",
    );
    expect(knownScenariosHint("nothing-like-it", ["tool-call", "hello"])).toBe("Known scenarios: hello, tool-call.");
    expect(knownScenariosHint("x".repeat(8_000), ["hello"])).toBe("Known scenarios: hello.");
  });
});

describe("the registry refuses unknown names with a suggestion", () => {
  it("an unknown default is an UnknownScenarioError", () => {
    let caught: unknown;
    try {
      createRegistry(SCENARIOS, "Hello");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UnknownScenarioError);
    expect((caught as UnknownScenarioError).scenario).toBe("Hello");
    expect((caught as Error).message).toBe(`Unknown default scenario 'Hello'. Did you mean 'hello'? ${KNOWN}`);
  });

  it("an unknown x-mock-scenario is a 400 with the suggestion", () => {
    const registry = createRegistry(SCENARIOS);
    let caught: unknown;
    try {
      selectScenario(registry, { model: "m" } as never, [], "error-492");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect(caught).toMatchObject({
      status: 400,
      code: "unknown_scenario",
      param: "x-mock-scenario",
      message: `Unknown scenario 'error-492' in x-mock-scenario. Did you mean 'error-429'? ${KNOWN}`,
    });
  });

  it("startMockServer({ scenario }) rejects naming the nearest", async () => {
    await expect(
      startMockServer({ port: 0, library: false, scenarios: SCENARIOS, scenario: "tool-cal" }),
    ).rejects.toThrow(`Unknown default scenario 'tool-cal'. Did you mean 'tool-call'? ${KNOWN}`);
  });
});

describe("the x-mock-scenario header over HTTP and WebSocket", () => {
  const server = useServer({ library: false, scenarios: SCENARIOS });

  it("HTTP: the 400 suggests the nearest, in both dialects", async () => {
    for (const stream of [false, true]) {
      const res = await postResponses(server(), { model: "m", input: "hi", stream }, { "x-mock-scenario": "helo" });
      expect(res.status).toBe(400);
      const body = JSON.parse(res.text);
      expectErrorBody(body);
      expect(body.error).toEqual({
        type: "invalid_request",
        code: "unknown_scenario",
        param: "x-mock-scenario",
        message: `Unknown scenario 'helo' in x-mock-scenario. Did you mean 'hello'? ${KNOWN}`,
      });
    }
    const openai = await postResponses(
      server(),
      { model: "m", input: "hi" },
      { "x-mock-scenario": "helo", "x-mock-dialect": "openai" },
    );
    expect(openai.status).toBe(400);
    expect(JSON.parse(openai.text).error.message).toBe(
      `Unknown scenario 'helo' in x-mock-scenario. Did you mean 'hello'? ${KNOWN}`,
    );
  });

  it("WebSocket: the refused upgrade says the same", async () => {
    const mock: MockServer = server();
    const refused = await refusedUpgrade(`${mock.url.replace(/^http/, "ws")}/v1/responses`, {
      "x-mock-scenario": "Hello",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      `Unknown scenario 'Hello' in x-mock-scenario. Did you mean 'hello'? ${KNOWN}`,
    );
  });
});
