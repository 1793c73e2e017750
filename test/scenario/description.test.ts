/**
 * A scenario's `description` is optional: a file, an inline `mock.use()`
 * and `POST /__mock/scenarios` may leave it out, and `list` then shows the
 * name alone. When given it must not be empty.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatList } from "../../src/cli/list.js";
import { ScenarioError, parseScenarioText, validateScenario } from "../../src/scenario/parse.js";
import { AUTO_SCENARIO, createRegistry } from "../../src/scenario/registry.js";
import type { ScenarioInput } from "../../src/scenario/schema.js";
import { useServer } from "../support/server.js";
import { runCli } from "../support/run.js";

/** The first output item's first text, from a non-streamed answer. */
const firstText = async (res: Response) =>
  ((await res.json()) as { output: { content: { text: string }[] }[] }).output[0].content[0].text;

const run = (args: string[], cwd: string) => runCli(args, { cwd });

const TERSE: ScenarioInput = { name: "terse", turns: [{ steps: [{ type: "message", text: "Short and sweet." }] }] };

describe("parsing", () => {
  it("accepts a scenario without a description", () => {
    const scenario = parseScenarioText(JSON.stringify(TERSE), "terse.json");
    expect(scenario.name).toBe("terse");
    expect(scenario.description).toBeUndefined();
  });

  it("refuses an empty one, saying it may be left out", () => {
    expect(() => validateScenario({ ...TERSE, description: "" }, "f.json")).toThrow(ScenarioError);
    expect(() => validateScenario({ ...TERSE, description: "" }, "f.json")).toThrow(
      "f.json: $.description: describe the scenario in one line, or leave 'description' out",
    );
  });
});

describe("list", () => {
  it("shows a scenario without a description as its name alone, the others still aligned", () => {
    const registry = createRegistry([
      AUTO_SCENARIO,
      validateScenario(TERSE, "t.json"),
      validateScenario({ ...TERSE, name: "a-much-longer-name", description: "Has  one,\n  on two lines." }, "l.json"),
    ]);
    expect(formatList(registry).split("\n")).toEqual([
      `auto (default)      ${AUTO_SCENARIO.description}`,
      "terse",
      "a-much-longer-name  Has one, on two lines.",
      "",
    ]);
  });
});

describe("the CLI", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "orm-description-"));
    writeFileSync(join(dir, "terse.json"), JSON.stringify(TERSE, null, 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("validate accepts the file", async () => {
    const { code, stdout, stderr } = await run(["validate", "terse.json"], dir);
    expect(stderr).toBe("");
    expect(stdout).toBe("ok terse.json (terse)\n");
    expect(code).toBe(0);
  });

  it("list shows its name on a line of its own, with no trailing blanks", async () => {
    const { code, stdout, stderr } = await run(["list", "--no-library", "--scenarios", "."], dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.split("\n")).toContain("terse");
  });
});

describe("a server", () => {
  const server = useServer({ library: false });

  it("takes a scenario without a description from use()", async () => {
    server().reset();
    server().use(TERSE, { times: 1 });
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(res.status).toBe(200);
    expect(await firstText(res)).toBe("Short and sweet.");
  });

  it("takes one from POST /__mock/scenarios", async () => {
    server().reset();
    const used = await fetch(`${server().url}/__mock/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scenario: { ...TERSE, name: "over-http" }, times: 1 }),
    });
    expect(used.status).toBe(201);
    expect(await used.json()).toEqual({ name: "over-http", times: 1 });
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(await firstText(res)).toBe("Short and sweet.");
  });

  it("still refuses an empty description over HTTP, with a 400 that says where", async () => {
    const res = await fetch(`${server().url}/__mock/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ scenario: { ...TERSE, description: "" } }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error).toMatchObject({ type: "invalid_request", code: "invalid_scenario", param: "$.description" });
    expect(body.error.message).toContain("leave 'description' out");
  });
});

describe("use() by name, with the library loaded", () => {
  const server = useServer();

  it("use() takes a loaded scenario's name, and names the known ones for an unknown name", async () => {
    server().use("tool-call", { times: 1 });
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(res.headers.get("x-mock-scenario")).toBe("tool-call");
    const body = (await res.json()) as { output: { type: string; name?: string }[] };
    expect(body.output.map((i) => [i.type, i.name])).toEqual([["function_call", "get_weather"]]);
    expect(() => server().use("tool-cal")).toThrow(
      /^use\(\): \$: no loaded scenario is named 'tool-cal'\. Did you mean 'tool-call'\? Known scenarios: .*\btext\b/,
    );
    const session = server().session();
    expect(() => session.use("nope")).toThrow(/^session\.use\(\): \$: no loaded scenario is named 'nope'/);
  });

  it("POST /__mock/scenarios takes a name too; an unknown one is a 400 naming it", async () => {
    const session = server().session();
    const post = (scenario: unknown) =>
      fetch(`${server().url}/__mock/scenarios`, {
        method: "POST",
        headers: { "content-type": "application/json", ...session.headers },
        body: JSON.stringify({ scenario, times: 1 }),
      });
    const ok = await post("refusal");
    expect(ok.status).toBe(201);
    expect(await ok.json()).toEqual({ name: "refusal", times: 1 });
    const answer = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", ...session.headers },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(answer.headers.get("x-mock-scenario")).toBe("refusal");
    const bad = await post("refusl");
    expect(bad.status).toBe(400);
    const error = ((await bad.json()) as { error: { message: string } }).error;
    expect(error.message).toMatch(/no loaded scenario is named 'refusl'\. Did you mean 'refusal'\?/);
  });
});
