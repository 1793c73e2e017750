/**
 * `openresponses-mock validate`: every kind of mistake in a scenario file is
 * reported as one exact `FILE: $.json.path: message` line, by the spawned CLI
 * (the built dist/) and by the pure `parseScenarioText` alike.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScenarioError, formatIssue, parseScenarioText } from "../../src/scenario/parse.js";
import { runCli } from "../support/run.js";

/** Runs the CLI in `cwd` and collects its output. */
const run = (args: string[], cwd: string) => runCli(args, { cwd });

const lines = (text: string) => text.split("\n").filter((l) => l.length > 0);

/** The issue lines the pure parser gives for a text, or [] when it is valid. */
function pureIssues(text: string, file: string): string[] {
  try {
    parseScenarioText(text, file);
    return [];
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err;
    return err.issues.map(formatIssue);
  }
}

const doc = (fields: Record<string, unknown>) =>
  JSON.stringify({ name: "s", description: "A scenario.", ...fields }, null, 2);
const turn = (steps: unknown[], end?: unknown) => ({ turns: [{ steps, ...(end ? { end } : {}) }] });

/** One mistake per file: its text and the exact lines `validate` prints for it (FILE is the file name). */
const MISTAKES: Record<string, { text: string; expected: string[] }> = {
  "json-syntax": {
    text: '{\n  "name": "x",\n  "description": "d"\n  "turns": []\n}\n',
    expected: ["FILE: $: invalid JSON at line 4, column 3: Expected ',' or '}' after property value"],
  },
  "empty-file": { text: "", expected: ["FILE: $: invalid JSON: Unexpected end of JSON input"] },
  "not-an-object": { text: "[]", expected: ["FILE: $: expected object"] },
  "missing-name": {
    text: JSON.stringify({ description: "d", turns: [{ steps: [] }] }),
    expected: ["FILE: $.name: is required (expected string)"],
  },
  "bad-name": {
    text: doc({ name: "Hello World", turns: [{}] }),
    expected: ["FILE: $.name: must be 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit"],
  },
  "empty-description": {
    text: doc({ description: "", turns: [{}] }),
    expected: ["FILE: $.description: describe the scenario in one line, or leave 'description' out"],
  },
  "turns-and-generate": {
    text: doc({ turns: [{}], generate: { strategy: "auto" } }),
    expected: ["FILE: $: give exactly one of 'turns' (scripted) or 'generate' (seeded)"],
  },
  "neither-turns-nor-generate": {
    text: doc({}),
    expected: ["FILE: $: give exactly one of 'turns' (scripted) or 'generate' (seeded)"],
  },
  "no-turns": { text: doc({ turns: [] }), expected: ["FILE: $.turns: a scripted scenario needs at least one turn"] },
  "unknown-step-type": {
    text: doc(
      turn([
        { type: "message", text: "ok" },
        { type: "mesage", text: "x" },
      ]),
    ),
    expected: [
      `FILE: $.turns[0].steps[1].type: unknown value "mesage": expected one of 'message', 'reasoning', 'function_call', 'vendor_item', 'vendor_event', 'web_search_call', 'code_interpreter_call', 'image_generation_call', 'file_search_call', 'mcp_list_tools', 'mcp_call', 'mcp_approval_request'`,
    ],
  },
  "typo-top-level-key": {
    text: doc({ ...turn([]), matchh: { contains: "x" } }),
    expected: ["FILE: $: unknown key 'matchh' (check the spelling; see scenario.schema.json)"],
  },
  "typo-step-key": {
    text: doc(turn([{ type: "message", txt: "hi" }])),
    expected: [
      "FILE: $.turns[0].steps[0]: unknown key 'txt' (check the spelling; see scenario.schema.json)",
      "FILE: $.turns[0].steps[0]: a message needs 'text', 'refusal' or both",
    ],
  },
  "message-without-text": {
    text: doc(turn([{ type: "message" }])),
    expected: ["FILE: $.turns[0].steps[0]: a message needs 'text', 'refusal' or both"],
  },
  "function-call-bad-name": {
    text: doc(turn([{ type: "function_call", name: "get weather" }])),
    expected: ["FILE: $.turns[0].steps[0].name: must match ^[a-zA-Z0-9_-]+$"],
  },
  "vendor-item-without-slug": {
    text: doc(turn([{ type: "vendor_item", item: { type: "search_call" } }])),
    expected: ["FILE: $.turns[0].steps[0].item.type: must be a vendor type 'slug:name', e.g. 'acme:search_call'"],
  },
  "vendor-event-with-sequence-number": {
    text: doc(turn([{ type: "vendor_event", event: { type: "acme:progress", sequence_number: 3 } }])),
    expected: ["FILE: $.turns[0].steps[0].event: sequence_number is set by the server"],
  },
  "chunk-tokens-and-chars": {
    text: doc(turn([{ type: "message", text: "x", chunk: { tokens: 2, chars: 3 } }])),
    expected: ["FILE: $.turns[0].steps[0].chunk: give exactly one of 'tokens', 'chars' or 'sizes'"],
  },
  "unknown-end-type": {
    text: doc(turn([], { type: "done" })),
    expected: [
      `FILE: $.turns[0].end.type: unknown value "done": expected one of 'completed', 'incomplete', 'failed', 'http_error'`,
    ],
  },
  "http-error-status": {
    text: doc(turn([], { type: "http_error", status: 418 })),
    expected: ["FILE: $.turns[0].end.status: must be one of 400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503"],
  },
  "negative-after-events": {
    text: doc(turn([{ type: "message", text: "x" }], { type: "failed", afterEvents: -1 })),
    expected: ["FILE: $.turns[0].end.afterEvents: must be >= 0"],
  },
  "invalid-regex": {
    text: doc({ ...turn([]), match: { matches: "([a-z" } }),
    expected: ["FILE: $.match.matches: is not a valid regular expression"],
  },
  "zero-weights": {
    text: doc({ generate: { strategy: "random", weights: { text: 0, tool_calls: 0 } } }),
    expected: ["FILE: $.generate.weights: at least one weight must be above 0"],
  },
  "unknown-strategy": {
    text: doc({ generate: { strategy: "chaos" } }),
    expected: [`FILE: $.generate.strategy: unknown value "chaos": expected one of 'auto', 'random'`],
  },
  "reversed-range": {
    text: doc({ generate: { strategy: "random", sentences: [3, 1] } }),
    expected: ["FILE: $.generate.sentences: a range is [min, max] with min <= max"],
  },
  "several-mistakes": {
    text: doc({
      name: "",
      turns: [{ steps: [{ type: "reasoning", summary: "not a list" }], end: { type: "failed", afterEvents: 1.5 } }],
    }),
    expected: [
      "FILE: $.name: must be 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit",
      "FILE: $.turns[0].steps[0].summary: expected array",
      "FILE: $.turns[0].end.afterEvents: expected int",
    ],
  },
};

const VALID = doc({
  name: "valid-one",
  match: { contains: "hello", matches: "^h" },
  turns: [
    {
      steps: [
        { type: "reasoning", summary: ["Think."] },
        { type: "message", text: "Hi, {{input}}", chunk: { chars: 4 } },
      ],
    },
    { steps: [], end: { type: "http_error", status: 429, headers: { "retry-after": "1" } } },
  ],
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "orm-validate-"));
  for (const [name, { text }] of Object.entries(MISTAKES)) writeFileSync(join(dir, `${name}.json`), text);
  writeFileSync(join(dir, "valid.json"), VALID);
  mkdirSync(join(dir, "dup"));
  writeFileSync(join(dir, "dup", "a.json"), doc({ name: "same", turns: [{}] }));
  writeFileSync(join(dir, "dup", "b.json"), doc({ name: "same", generate: { strategy: "auto" } }));
  mkdirSync(join(dir, "lib", "more"), { recursive: true });
  writeFileSync(join(dir, "lib", "one.json"), doc({ name: "one", turns: [{}] }));
  writeFileSync(join(dir, "lib", "more", "two.json"), doc({ name: "two", generate: { strategy: "random" } }));
  writeFileSync(join(dir, "lib", "notes.txt"), "not a scenario");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("validate: one exact line per mistake", () => {
  const files = Object.keys(MISTAKES).map((name) => `${name}.json`);
  const want = (name: string) => MISTAKES[name].expected.map((l) => l.replace(/^FILE:/, `${name}.json:`));
  /** One CLI run over every mistake file (a spawn costs about half a second). */
  let cli: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    cli = await run(["validate", ...files], dir);
  });

  it(`covers at least 12 kinds of mistakes (${files.length})`, () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  it("the CLI prints every issue of every file, in order, on stderr, and exits 1", () => {
    expect(cli.code).toBe(1);
    expect(cli.stdout).toBe("");
    expect(lines(cli.stderr)).toEqual(Object.keys(MISTAKES).flatMap(want));
  });

  for (const [name, { text }] of Object.entries(MISTAKES)) {
    it(`${name}: the CLI's lines for the file, and parseScenarioText gives the same`, () => {
      const file = `${name}.json`;
      expect(lines(cli.stderr).filter((l) => l.startsWith(`${file}: `))).toEqual(want(name));
      expect(pureIssues(text, file)).toEqual(want(name));
    });
  }

  it("a file on its own gives the same lines", async () => {
    for (const name of ["json-syntax", "typo-step-key"]) {
      const { code, stdout, stderr } = await run(["validate", `${name}.json`], dir);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(lines(stderr)).toEqual(want(name));
    }
  });
});

describe("validate: files, folders, several at once", () => {
  it("accepts a valid file: 'ok FILE (name)', exit 0", async () => {
    expect(pureIssues(VALID, "valid.json")).toEqual([]);
    const { code, stdout, stderr } = await run(["validate", "valid.json"], dir);
    expect(stderr).toBe("");
    expect(stdout).toBe("ok valid.json (valid-one)\n");
    expect(code).toBe(0);
  });

  it("walks folders recursively (*.json only), one ok line per scenario", async () => {
    const { code, stdout } = await run(["validate", "lib", "valid.json"], dir);
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([
      `ok ${join("lib", "more", "two.json")} (two)`,
      `ok ${join("lib", "one.json")} (one)`,
      "ok valid.json (valid-one)",
    ]);
  });

  it("reports duplicate names across the given files", async () => {
    // Each file is fine on its own.
    const { code, stdout, stderr } = await run(["validate", join("dup", "a.json"), join("dup", "b.json")], dir);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual([
      `${join("dup", "b.json")}: $.name: duplicate scenario name 'same' (also in ${join("dup", "a.json")})`,
    ]);
    // And in a folder.
    const folder = await run(["validate", "dup"], dir);
    expect(folder.code).toBe(1);
    expect(lines(folder.stderr)).toEqual(lines(stderr));
  });

  it("reports every error of every file, and prints no ok lines when any file is bad", async () => {
    const { code, stdout, stderr } = await run(["validate", "valid.json", "bad-name.json", "invalid-regex.json"], dir);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual([
      "bad-name.json: $.name: must be 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit",
      "invalid-regex.json: $.match.matches: is not a valid regular expression",
    ]);
  });

  it("reports a path that does not exist", async () => {
    const { code, stderr } = await run(["validate", "nope.json"], dir);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual(["nope.json: $: cannot read: ENOENT"]);
  });

  it("refuses a folder without scenario files", async () => {
    mkdirSync(join(dir, "empty"), { recursive: true });
    const { code, stderr } = await run(["validate", "empty"], dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(/no scenario files/);
  });

  it("needs at least one file", async () => {
    const { code, stderr } = await run(["validate"], dir);
    expect(code).toBe(1);
    expect(stderr).toContain(
      "validate: give one or more scenario files or folders, e.g. 'openresponses-mock validate scenarios/'",
    );
  });
});
