import { describe, expect, it } from "vitest";
import { createRng } from "../../src/generate/rng.js";
import {
  filesIn,
  nameWords,
  namedTargets,
  pickTools,
  planToolCalls,
  requestPhrase,
  urlsIn,
} from "../../src/generate/tool-pick.js";
import type { FunctionToolParam } from "../../src/spec/index.js";

const fn = (
  name: string,
  description?: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
): FunctionToolParam => ({
  type: "function",
  name,
  description,
  parameters: { type: "object", properties, required, additionalProperties: false },
});

const weather = fn(
  "get_weather",
  "Current weather for a city",
  { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
  ["city"],
);
const time = fn("get_time", "Local time in a city", { city: { type: "string" } }, ["city"]);
const email = fn(
  "send_email",
  "Send an email message",
  { to: { type: "string", format: "email" }, body: { type: "string" } },
  ["to", "body"],
);
const population = fn("lookup_a", "Find the population of a country", { country: { type: "string" } }, ["country"]);
const currency = fn("lookup_b", "Convert an amount between currencies", { amount: { type: "number" } }, ["amount"]);
const exec = fn("exec_command", "Runs a command in a PTY, returning output.", { cmd: { type: "string" } }, ["cmd"]);
const image = fn("view_image", "View a local image file from the filesystem.", { path: { type: "string" } }, ["path"]);
const stdin = fn("write_stdin", "Writes characters to an existing session.", { session_id: { type: "number" } }, [
  "session_id",
]);
const goals = [
  fn("get_goal", "Get the current goal."),
  fn("create_goal", "Create a goal only when explicitly requested by the user."),
  fn("update_goal", "Update the existing goal."),
];
const fetchUrl = fn("fetch_page", "Fetch a web page", { url: { type: "string" } }, ["url"]);

const SEEDS = Array.from({ length: 40 }, (_, i) => `seed-${i}`);
const names = (tools: FunctionToolParam[], text: string, seed = "s") =>
  pickTools(tools, text, createRng(seed)).map((t) => t.name);

describe("which tool auto calls", () => {
  it("splits names into words", () => {
    expect(nameWords("get_weather")).toEqual(["get", "weather"]);
    expect(nameWords("getWeather")).toEqual(["get", "weather"]);
    expect(nameWords("read-file2")).toEqual(["read", "file", "2"]);
  });

  it("picks the tool the user names, by identifier or by its words", () => {
    for (const seed of SEEDS) {
      expect(names([weather, time, email], "Please use send_email to tell Bob.", seed)).toEqual(["send_email"]);
      expect(names([weather, time, email], "What's the weather like?", seed)).toEqual(["get_weather"]);
      expect(names([email, weather, time], "Send an email to the team", seed)).toEqual(["send_email"]);
    }
  });

  it("picks by description words when the name says nothing", () => {
    for (const seed of SEEDS) {
      expect(names([currency, population], "What is the population of Peru?", seed)).toEqual(["lookup_a"]);
      expect(names([population, currency], "Convert 20 euros into other currencies", seed)).toEqual(["lookup_b"]);
    }
  });

  it("breaks ties with the seed, the same way for the same seed", () => {
    const a = fn("tool_one", "Weather data");
    const b = fn("tool_two", "Weather data");
    const picked = new Set(SEEDS.map((seed) => names([a, b], "weather please", seed)[0]));
    expect(picked).toEqual(new Set(["tool_one", "tool_two"]));
    for (const seed of SEEDS)
      expect(names([a, b], "weather please", seed)).toEqual(names([a, b], "weather please", seed));
  });

  it("with no signal picks one tool from the seed, mostly a shell tool", () => {
    const tools = [image, stdin, exec, ...goals];
    const counts = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const picked = names(tools, "Hello there!", `seed-${i}`);
      expect(picked).toHaveLength(1);
      counts.set(picked[0], (counts.get(picked[0]) ?? 0) + 1);
    }
    expect(counts.get("exec_command")!).toBeGreaterThan(100);
    expect(counts.get("create_goal") ?? 0).toBeLessThan(10);
    expect(counts.get("write_stdin") ?? 0).toBeLessThan(10); // needs a session an earlier call started
    expect(counts.get("view_image") ?? 0).toBeLessThan(25); // needs a file the user did not name (about 40 otherwise)
  });

  it("picks a shell tool for requests to run, list or show things", () => {
    const tools = [image, stdin, exec, ...goals];
    for (const seed of SEEDS) {
      for (const text of ["list the files here", "run the tests", "show me the git status", "What's in package.json?"])
        expect(names(tools, text, seed)).toEqual(["exec_command"]);
      expect(names(tools, "look at the screenshot docs/ui.png", seed)).toEqual(["view_image"]);
      expect(names(tools, "update the goal: it is complete", seed)).toEqual(["update_goal"]);
    }
  });

  it("calls several tools only when the words name several, in the order they are named", () => {
    for (const seed of SEEDS) {
      expect(names([time, weather, email], "What's the weather and the local time in Oslo?", seed)).toEqual([
        "get_weather",
        "get_time",
      ]);
      expect(names([weather, time, email], "What time is it, and what's the weather?", seed)).toEqual([
        "get_time",
        "get_weather",
      ]);
      expect(names([weather, time, email], "Call send_email and get_time.", seed)).toEqual(["send_email", "get_time"]);
    }
  });
});

describe("things the user names", () => {
  it("finds files and URLs", () => {
    expect(filesIn("Show README.md, src/index.ts and docs/a.png, e.g. the logo.")).toEqual([
      "README.md",
      "src/index.ts",
      "docs/a.png",
    ]);
    expect(filesIn("Open https://example.com/a.html please")).toEqual([]);
    expect(urlsIn("Fetch https://example.com/a and http://x.org/b.")).toEqual([
      "https://example.com/a",
      "http://x.org/b",
    ]);
    expect(requestPhrase("What's the weather like in Paris and Tokyo?")).toBe("weather Paris Tokyo");
  });

  it("puts each in the tool's matching property", () => {
    expect(namedTargets(weather, "Weather in Paris and Tokyo?")).toEqual({ key: "city", values: ["Paris", "Tokyo"] });
    expect(namedTargets(image, "look at docs/a.png and docs/b.png")).toEqual({
      key: "path",
      values: ["docs/a.png", "docs/b.png"],
    });
    expect(namedTargets(fetchUrl, "Fetch https://example.com/a")).toEqual({
      key: "url",
      values: ["https://example.com/a"],
    });
    expect(namedTargets(email, "Email Paris")).toBeUndefined();
  });

  it("makes one call per thing, capped by max_tool_calls, and one call when parallel calls are off", () => {
    const text = "Fetch https://example.com/a, https://example.com/b and https://example.com/c";
    const rng = () => createRng("s");
    const urls = (calls: ReturnType<typeof planToolCalls>) => calls.map((c) => c.overrides.url);
    expect(urls(planToolCalls([fetchUrl], { text, parallel: true }, rng()))).toEqual([
      "https://example.com/a",
      "https://example.com/b",
      "https://example.com/c",
    ]);
    expect(urls(planToolCalls([fetchUrl], { text, parallel: true, maxCalls: 2 }, rng()))).toEqual([
      "https://example.com/a",
      "https://example.com/b",
    ]);
    expect(urls(planToolCalls([fetchUrl], { text, parallel: false }, rng()))).toEqual(["https://example.com/a"]);
    // Two tools and two places: each tool for each place.
    const calls = planToolCalls(
      [weather, time],
      { text: "Weather and time in Paris and Tokyo?", parallel: true },
      rng(),
    );
    expect(calls.map((c) => [c.tool.name, c.overrides.city])).toEqual([
      ["get_weather", "Paris"],
      ["get_weather", "Tokyo"],
      ["get_time", "Paris"],
      ["get_time", "Tokyo"],
    ]);
  });
});
