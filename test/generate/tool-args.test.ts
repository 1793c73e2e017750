import { describe, expect, it } from "vitest";
import { createRng } from "../../src/generate/rng.js";
import { optionalChance, shellCommandFor, toolArguments } from "../../src/generate/tool-args.js";
import type { FunctionToolParam } from "../../src/spec/index.js";
import { validate } from "./schema-check.js";

const tool = (parameters: Record<string, unknown> | undefined): FunctionToolParam => ({
  type: "function",
  name: "t",
  parameters,
});
const SEEDS = Array.from({ length: 200 }, (_, i) => `seed-${i}`);

const search = tool({
  type: "object",
  properties: {
    query: { type: "string" },
    limit: { type: "number", description: "How many results." },
    page: { type: "integer" },
    url: { type: "string" },
    safe: { type: "boolean" },
  },
  required: ["query"],
  additionalProperties: false,
});

describe("tool arguments", () => {
  it("always hold the required fields, and only some optional ones", () => {
    const seen = { limit: 0, page: 0, url: 0, safe: 0 };
    let all = 0;
    for (const seed of SEEDS) {
      const args = toolArguments(search, "search the web for lighthouse keepers", createRng(seed));
      expect(validate(search.parameters, args), JSON.stringify(args)).toEqual([]);
      expect(args.query).toBe("search web lighthouse keepers");
      for (const k of Object.keys(seen) as (keyof typeof seen)[]) if (k in args) seen[k]++;
      if (Object.keys(args).length === 5) all++;
    }
    for (const n of Object.values(seen)) {
      expect(n).toBeGreaterThan(20); // sometimes...
      expect(n).toBeLessThan(100); // ...not mostly
    }
    expect(all).toBeLessThan(5);
  });

  it("fill fewer optional fields when there are many, and none that only go with another choice", () => {
    const properties: Record<string, unknown> = { cmd: { type: "string" } };
    for (let i = 0; i < 10; i++) properties[`opt_${i}`] = { type: "string" };
    properties.justification = {
      type: "string",
      description: "User-facing approval question for `require_escalated`; omit otherwise.",
    };
    properties.prefix_rule = {
      type: "array",
      items: { type: "string" },
      description: "Only with `sandbox_permissions: require_escalated`.",
    };
    properties.token_budget = {
      type: "integer",
      description: "Positive token budget. Omit unless explicitly requested.",
    };
    const wide = tool({ type: "object", properties, required: ["cmd"] });
    let optionals = 0;
    for (const seed of SEEDS) {
      const args = toolArguments(wide, "list the files", createRng(seed));
      expect(args.cmd).toBe("ls -la");
      expect(args).not.toHaveProperty("justification");
      expect(args).not.toHaveProperty("prefix_rule");
      expect(args).not.toHaveProperty("token_budget");
      optionals += Object.keys(args).length - 1;
    }
    expect(optionals / SEEDS.length).toBeLessThan(2);
    expect(optionals / SEEDS.length).toBeGreaterThan(0.5);
    // A choice whose description names its default among its values is left at it; other described defaults are not.
    expect(
      optionalChance("mode", { type: "string", enum: ["safe", "fast"], description: "Defaults to `safe`." }, 2),
    ).toBe(0);
    expect(
      optionalChance("mode", { type: "string", enum: ["safe", "fast"], description: "Which mode." }, 2),
    ).toBeCloseTo(0.3);
    expect(optionalChance("wait_ms", { type: "number", description: "Defaults to 10000 ms." }, 2)).toBeCloseTo(0.3);
    expect(optionalChance("x", {}, 2)).toBeCloseTo(0.3);
    expect(optionalChance("x", {}, 10)).toBeCloseTo(0.15);
  });

  it("are an object even without a usable schema", () => {
    for (const parameters of [undefined, {}, { properties: { q: { type: "string" } }, required: ["q"] }]) {
      const args = toolArguments(tool(parameters), "find cats", createRng("s"));
      expect(args).toBeTypeOf("object");
      expect(Array.isArray(args)).toBe(false);
    }
  });

  it("use the caller's values for the things the user named", () => {
    const args = toolArguments(
      tool({ type: "object", properties: { city: { type: "string" } } }),
      "Weather in Paris and Tokyo",
      createRng("s"),
      { city: "Tokyo" },
    );
    expect(args).toEqual({ city: "Tokyo" });
  });

  it("are the same for the same seed", () => {
    for (const seed of SEEDS.slice(0, 20)) {
      expect(toolArguments(search, "search cats", createRng(seed))).toEqual(
        toolArguments(search, "search cats", createRng(seed)),
      );
    }
  });
});

describe("the shell command for a request", () => {
  const cmd = (text: string, seed = "s") => shellCommandFor(text, createRng(seed));

  it("fits what the user asked", () => {
    expect(cmd("list the files here")).toBe("ls -la");
    expect(cmd("What's in package.json and tsconfig.json?")).toBe("cat package.json tsconfig.json");
    expect(cmd("show me the readme")).toBe("cat README.md");
    expect(cmd("what is the git status?")).toBe("git status");
    expect(cmd("show the recent commits")).toBe("git log --oneline -5");
    expect(cmd("where am I?")).toBe("pwd");
    expect(cmd("please run `npm run lint`")).toBe("npm run lint");
  });

  it("is harmless: never a quoted command that changes things", () => {
    for (const text of ["run `rm -rf /`", "run `cat a > b`", "run `curl x | sh`", "please `sudo reboot`"]) {
      for (const seed of SEEDS.slice(0, 20))
        expect(["ls -la", "pwd", "git status", "cat README.md", "ls", "git log --oneline -5"]).toContain(
          cmd(text, seed),
        );
    }
    expect(cmd("cat the file -rf.txt")).not.toContain("-rf");
  });
});
