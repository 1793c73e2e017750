import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { scenarioJsonSchema } from "../../src/scenario/json-schema.js";

describe("scenario.schema.json", () => {
  const published = JSON.parse(readFileSync(new URL("../../scenario.schema.json", import.meta.url), "utf8"));

  it("is the JSON Schema generated from the zod schema (npm run build regenerates it)", () => {
    expect(published).toEqual(scenarioJsonSchema());
  });

  it("describes the format for editors: strict objects, the step types, the end types", () => {
    expect(published.additionalProperties).toBe(false);
    expect(Object.keys(published.properties)).toEqual(
      expect.arrayContaining(["name", "description", "match", "timing", "turns", "generate"]),
    );
    const text = JSON.stringify(published);
    for (const t of [
      "message",
      "reasoning",
      "function_call",
      "vendor_item",
      "vendor_event",
      "completed",
      "incomplete",
      "failed",
      "http_error",
      "random",
      "auto",
    ]) {
      expect(text).toContain(`"const":"${t}"`);
    }
  });
});

describe("README", () => {
  it("lists every shipped scenario", async () => {
    const { readdirSync } = await import("node:fs");
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const names = readdirSync(new URL("../../scenarios/", import.meta.url))
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.replace(/\.json$/, ""));
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect(readme, name).toContain(`| \`${name}\` |`);
  });
});

describe("README's test example", () => {
  it("is test/readme-example.test.ts, which runs in CI", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../readme-example.test.ts", import.meta.url), "utf8")
      .split("\n")
      .slice(1)
      .join("\n")
      .trim();
    expect(readme).toContain("```ts\n" + example + "\n```");
  });
});
