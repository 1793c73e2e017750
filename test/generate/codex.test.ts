/**
 * `auto` against the tools Codex CLI sends (a trimmed fixture written from its
 * real requests): one plausible call, arguments that fit the tool's schema,
 * whole numbers where Codex wants integers (`yield_time_ms` is a u64 to it).
 */
import { describe, expect, it } from "vitest";
import { planAuto } from "../../src/generate/auto.js";
import { createRng } from "../../src/generate/rng.js";
import { createIdSource } from "../../src/generate/ids.js";
import { inputItems } from "../../src/scenario/conversation.js";
import { CreateResponseBody } from "../../src/spec/index.js";
import fixture from "./fixtures/codex-tools.json" with { type: "json" };
import { validate } from "./schema-check.js";

type Tool = { type: string; name?: string; parameters?: Record<string, unknown> };
const TOOLS = fixture.tools as Tool[];
const byName = new Map(TOOLS.filter((t) => t.type === "function").map((t) => [t.name!, t]));
/** Codex's own tool set today, and the older one with `shell` (argv array) instead of `exec_command`. */
const CURRENT = TOOLS.filter((t) => t.name !== "shell" && t.name !== "update_plan");
const OLDER = TOOLS.filter((t) =>
  ["shell", "update_plan", "view_image", "apply_patch", "web_search"].includes(t.name ?? t.type),
);

/** Codex's request: developer and environment messages first, the user's words last; tools as sent (not all are function tools). */
function codexRequest(prompt: string, tools: Tool[]): CreateResponseBody {
  const body = {
    model: "gpt-5-codex",
    stream: true,
    store: false,
    tool_choice: "auto",
    parallel_tool_calls: true,
    reasoning: { summary: "auto" },
    include: ["reasoning.encrypted_content"],
    instructions: "You are Codex, a coding agent.",
    input: [
      {
        type: "message",
        role: "developer",
        content: [
          { type: "input_text", text: "<permissions instructions>sandbox read-only</permissions instructions>" },
        ],
      },
      {
        type: "message",
        role: "user",
        content: [
          {
            type: "input_text",
            text: "<environment_context>\n  <cwd>/tmp/work</cwd>\n  <shell>bash</shell>\n</environment_context>",
          },
        ],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
    ],
    tools,
  };
  // Codex's tools are OpenAI's, not all the spec's: the server's default (superset) schema must take them as sent.
  return CreateResponseBody.parse(body);
}

function calls(prompt: string, tools: Tool[], seed: string) {
  const request = codexRequest(prompt, tools);
  const plan = planAuto({
    request,
    items: inputItems(request.input),
    rng: createRng(seed),
    ids: createIdSource("ids"),
    vendorExtensions: true,
    createdAt: 1_767_225_600,
  });
  // The plan, not the stream: the stream check knows only function and vendor tools until the request schema takes Codex's others.
  return plan.items.flatMap((i) =>
    i.kind === "function_call"
      ? [{ name: i.name, args: JSON.parse(i.chunks.join("")) as Record<string, unknown> }]
      : [],
  );
}

/** Requests a shell answers. */
const PROMPTS = [
  "list the files here",
  "what does this project do?",
  "run the tests",
  "show me README.md",
  "what is the git status?",
  "Fix the failing build",
];
const SEEDS = Array.from({ length: 25 }, (_, i) => String(i + 1));
const MANY_SEEDS = Array.from({ length: 100 }, (_, i) => String(i + 1));
const INTEGER_NAMED = /(_ms|_tokens|_id|timeout|limit|page|count|index|offset|port)$/;

function expectIntegersWhereNamed(args: Record<string, unknown>, where: string) {
  for (const [k, v] of Object.entries(args))
    if (INTEGER_NAMED.test(k)) expect(Number.isInteger(v), `${where}: ${k} = ${v}`).toBe(true);
}

describe("auto with Codex CLI's tools", () => {
  it("makes exactly one plausible call whose arguments fit the tool's schema", () => {
    for (const prompt of PROMPTS) {
      for (const seed of SEEDS) {
        const made = calls(prompt, CURRENT, seed);
        const where = `${prompt} / seed ${seed}: ${JSON.stringify(made)}`;
        expect(made, where).toHaveLength(1);
        const [{ name, args }] = made;
        expect(name, where).toBe("exec_command");
        expect(validate(byName.get(name)!.parameters, args), where).toEqual([]);
        expect(args.cmd, where).toBeTypeOf("string");
        expect(args.cmd as string, where).toMatch(/^(ls|pwd|git|cat) ?/);
        if ("yield_time_ms" in args) {
          expect(Number.isInteger(args.yield_time_ms), where).toBe(true);
          expect(args.yield_time_ms as number, where).toBeGreaterThanOrEqual(1000);
          expect(args.yield_time_ms as number, where).toBeLessThanOrEqual(10000);
        }
        if ("max_output_tokens" in args) expect(Number.isInteger(args.max_output_tokens), where).toBe(true);
        if ("workdir" in args) expect(args.workdir, where).toBe(".");
        expect(args, where).not.toHaveProperty("justification");
        expect(args, where).not.toHaveProperty("prefix_rule");
        expectIntegersWhereNamed(args, where);
      }
    }
  });

  it("fills yield_time_ms and other optional fields only sometimes", () => {
    const args = MANY_SEEDS.map((seed) => calls("list the files here", CURRENT, seed)[0].args);
    const withYield = args.filter((a) => "yield_time_ms" in a).length;
    expect(withYield).toBeGreaterThan(0);
    expect(withYield).toBeLessThan(40);
    expect(args.filter((a) => Object.keys(a).length === 1).length).toBeGreaterThan(10);
    expect(args.filter((a) => Object.keys(a).length > 4).length).toBeLessThan(10);
  });

  it("never overrides a choice that Codex defaults (sandbox_permissions stays use_default: Codex refuses require_escalated)", () => {
    for (const prompt of PROMPTS) {
      for (const seed of MANY_SEEDS) {
        const [{ args }] = calls(prompt, CURRENT, seed);
        expect(args, `${prompt} / seed ${seed}`).not.toHaveProperty("sandbox_permissions");
      }
    }
  });

  it("with no hint in the words still makes one call that fits its tool", () => {
    for (const seed of MANY_SEEDS) {
      const made = calls("hello", CURRENT, seed);
      expect(made).toHaveLength(1);
      expect(validate(byName.get(made[0].name)!.parameters, made[0].args)).toEqual([]);
      expectIntegersWhereNamed(made[0].args, `hello / seed ${seed}`);
    }
  });

  it("sends argv to the older shell tool, with an integer timeout_ms", () => {
    for (const prompt of PROMPTS) {
      for (const seed of SEEDS) {
        const made = calls(prompt, OLDER, seed);
        const where = `${prompt} / seed ${seed}: ${JSON.stringify(made)}`;
        expect(
          made.map((c) => c.name),
          where,
        ).toEqual(["shell"]);
        const { args } = made[0];
        expect(validate(byName.get("shell")!.parameters, args), where).toEqual([]);
        expect((args.command as string[]).slice(0, 2), where).toEqual(["bash", "-lc"]);
        if ("timeout_ms" in args) expect(Number.isInteger(args.timeout_ms), where).toBe(true);
        expectIntegersWhereNamed(args, where);
      }
    }
  });

  it("picks the other tools when the words point at them", () => {
    for (const seed of SEEDS.slice(0, 10)) {
      expect(calls("Take a look at the screenshot in docs/ui.png", CURRENT, seed)).toEqual([
        { name: "view_image", args: { path: "docs/ui.png" } },
      ]);
      const update = calls("mark the goal complete", CURRENT, seed);
      expect(update.map((c) => c.name)).toEqual(["update_goal"]);
      expect(validate(byName.get("update_goal")!.parameters, update[0].args)).toEqual([]);
      const write = calls("write y to the stdin of session 3", CURRENT, seed);
      expect(write.map((c) => c.name)).toEqual(["write_stdin"]);
      expect(Number.isInteger(write[0].args.session_id)).toBe(true);
    }
  });

  it("never calls hosted, custom or namespace tools", () => {
    for (const seed of SEEDS) {
      for (const prompt of [
        "apply_patch to fix the typo",
        "search the web for the docs",
        "close_agent now",
        ...PROMPTS,
      ]) {
        for (const c of calls(prompt, TOOLS, seed)) expect(byName.has(c.name), `${prompt}: ${c.name}`).toBe(true);
      }
    }
  });

  it("is deterministic: the same seed gives the same call", () => {
    for (const seed of SEEDS)
      expect(calls("list the files here", CURRENT, seed)).toEqual(calls("list the files here", CURRENT, seed));
  });
});

it("fixture: every function tool has an object schema", () => {
  for (const t of byName.values()) expect(t.parameters?.type).toBe("object");
});
