/** The `openresponses-mock` command, run as a user runs it (the built dist/). */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectConformantStream, expectErrorBody } from "./support/conformance.js";
import { parseSseStrict } from "./support/sse-parser.js";
import { startCliLine } from "./support/run.js";

const BIN = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

/** Starts the CLI and resolves with the first stdout line. */
const start = (args: string[], cwd?: string) => startCliLine(args, children, cwd);

describe("openresponses-mock serve", () => {
  it("prints the base URL, serves, and stops cleanly on SIGTERM", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--seed", "3"]);
    const match = /^openresponses-mock listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line);
    expect(match, line).not.toBeNull();
    const baseURL = match![1];
    const res = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("is the default command, and SIGINT stops it", async () => {
    const { child, line } = await start(["--port", "0"]);
    expect(line).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
    child.kill("SIGINT");
    const [code] = await once(child, "exit");
    expect(code).toBe(130);
  });

  it("requires the API key it was given", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--api-key", "k1"]);
    const baseURL = line.split(" ").at(-1)!;
    const denied = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(denied.status).toBe(401);
    const allowed = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k1" },
      body: JSON.stringify({ model: "m", input: "x" }),
    });
    expect(allowed.status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("--strict accepts only the spec: an OpenAI field is a 400 naming it, unless x-mock-strict: 0", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--strict"]);
    const baseURL = line.split(" ").at(-1)!;
    const send = (headers: Record<string, string> = {}) =>
      fetch(`${baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "m", input: "x", user: "u1" }),
      });
    const refused = await send();
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: "unknown_parameter",
      param: "user",
    });
    expect((await send({ "x-mock-strict": "0" })).status).toBe(200);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("refuses a bad option with a message and exit code 1", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "99999"], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d) => (err += d));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(err).toMatch(/port/);
  });
});

/** Runs the CLI to its end and collects its output. */
function run(args: string[], cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Timestamps are the only bytes that depend on the wall clock. */
const timeless = (text: string) =>
  text.replace(/"created_at":\d+/g, '"created_at":0').replace(/"completed_at":\d+/g, '"completed_at":0');

/** Scenarios of the tests' own, in a temp folder (the shipped library may change under us). */
const SCENARIOS: Record<string, object> = {
  "hello.json": {
    name: "hello",
    description: "Greets the user\n  by quoting them.",
    turns: [{ steps: [{ type: "message", text: "Hi there! You said: {{input}}" }] }],
  },
  "tools.json": {
    name: "tools",
    description: "Reasons, then calls a tool with chunked arguments.",
    turns: [
      {
        steps: [
          { type: "reasoning", summary: ["Look it up."] },
          { type: "function_call", name: "get_weather", arguments: { city: "Paris" }, chunk: { chars: 5 } },
        ],
      },
    ],
  },
  "dice.json": {
    name: "dice",
    description: "Seeded-random answers.",
    generate: { strategy: "random", weights: { text: 1, reasoning_text: 1, refusal: 1 } },
  },
  "cut.json": {
    name: "cut",
    description: "Fails mid-stream.",
    turns: [
      {
        steps: [{ type: "message", text: "One two three four five six seven." }],
        end: { type: "failed", afterEvents: 5 },
      },
    ],
  },
  "limited.json": {
    name: "limited",
    description: "Always rate-limited.",
    turns: [
      {
        steps: [],
        end: {
          type: "http_error",
          status: 429,
          headers: { "retry-after": "3" },
          error: { message: "Slow down, please (scripted)." },
        },
      },
    ],
  },
};

let dir: string;
let badDir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "orm-cli-"));
  for (const [file, scenario] of Object.entries(SCENARIOS))
    writeFileSync(join(dir, file), JSON.stringify(scenario, null, 2));
  badDir = mkdtempSync(join(tmpdir(), "orm-cli-bad-"));
  writeFileSync(
    join(badDir, "good.json"),
    JSON.stringify({ name: "good", description: "Fine.", generate: { strategy: "auto" } }),
  );
  writeFileSync(
    join(badDir, "broken.json"),
    JSON.stringify({
      name: "Broken!",
      description: "x",
      turns: [{ steps: [{ type: "message", txet: "hi" }], end: { type: "http_error", status: 418 } }],
    }),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(badDir, { recursive: true, force: true });
});

async function post(baseURL: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("openresponses-mock serve --scenarios / --scenario", () => {
  it("loads a folder of scenarios, selectable by the x-mock-scenario header", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--scenarios", dir, "--no-library"]);
    const baseURL = line.split(" ").at(-1)!;
    const res = await post(baseURL, { model: "m", input: "ping" }, { "x-mock-scenario": "hello" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-mock-scenario")).toBe("hello");
    const body = JSON.parse(res.text) as { output: { content: { text: string }[] }[] };
    expect(body.output[0].content[0].text).toBe("Hi there! You said: ping");
    const auto = await post(baseURL, { model: "m", input: "ping" });
    expect(auto.headers.get("x-mock-scenario")).toBe("auto");
    const unknown = await post(baseURL, { model: "m", input: "ping" }, { "x-mock-scenario": "nope" });
    expect(unknown.status).toBe(400);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("takes several --scenarios paths, and --scenario sets the default", async () => {
    const { child, line } = await start([
      "serve",
      "--port",
      "0",
      "--no-library",
      "--scenarios",
      join(dir, "hello.json"),
      join(dir, "tools.json"),
      "--scenario",
      "hello",
    ]);
    const baseURL = line.split(" ").at(-1)!;
    const res = await post(baseURL, { model: "m", input: "yo" });
    expect(res.headers.get("x-mock-scenario")).toBe("hello");
    const tools = await post(baseURL, { model: "m", input: "yo" }, { "x-mock-scenario": "tools" });
    expect(tools.status).toBe(200);
    expect(tools.text).toContain('"get_weather"');
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("refuses a broken scenario file before listening, with validate's message, exit 1", async () => {
    const served = await run(["serve", "--port", "0", "--no-library", "--scenarios", "."], badDir);
    const validated = await run(["validate", "."], badDir);
    expect(validated.code).toBe(1);
    expect(validated.stderr.split("\n").filter(Boolean)).toEqual([
      "broken.json: $.name: must be 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit",
      "broken.json: $.turns[0].steps[0]: unknown key 'txet' (check the spelling; see scenario.schema.json)",
      "broken.json: $.turns[0].steps[0]: a message needs 'text', 'refusal' or both",
      "broken.json: $.turns[0].end.status: must be one of 400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503",
    ]);
    expect(served.code).toBe(1);
    expect(served.stdout).toBe("");
    expect(served.stderr).toBe(validated.stderr);
  });

  it("refuses an unknown --scenario, listing the known names", async () => {
    const { code, stdout, stderr } = await run([
      "serve",
      "--port",
      "0",
      "--no-library",
      "--scenarios",
      dir,
      "--scenario",
      "nope",
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("'nope'");
    expect(stderr).toContain("auto, cut, dice, hello, limited, tools");
  });

  it("refuses a --scenarios path that does not exist", async () => {
    const { code, stdout, stderr } = await run(
      ["serve", "--port", "0", "--no-library", "--scenarios", "no-such-dir"],
      dir,
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe("no-such-dir: $: cannot read: ENOENT\n");
  });
});

describe("openresponses-mock list", () => {
  it("shows auto (the default) and the given scenarios, aligned, one line each", async () => {
    const { code, stdout, stderr } = await run(["list", "--no-library", "--scenarios", dir]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const rows = stdout.split("\n").filter(Boolean);
    // Load order: the built-in auto first, then the folder's files sorted by file name.
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).toEqual([
      "auto (default)",
      "cut",
      "dice",
      "hello",
      "limited",
      "tools",
    ]);
    expect(rows.find((r) => r.startsWith("hello"))).toMatch(/^hello\s+Greets the user by quoting them\.$/);
    // Every description starts in the same column, two spaces after the longest name.
    const descriptions = [
      "Behaves like",
      "Fails mid-stream.",
      "Seeded-random answers.",
      "Greets the user",
      "Always rate-limited.",
      "Reasons, then",
    ];
    const columns = rows.map((row, i) => row.indexOf(descriptions[i]));
    expect(new Set(columns).size).toBe(1);
    expect(columns[0]).toBe("auto (default)".length + 2);
  });

  it("marks the --scenario default", async () => {
    const { code, stdout } = await run(["list", "--no-library", "--scenarios", dir, "--scenario", "dice"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^dice \(default\)\s+Seeded-random answers\.$/m);
    expect(stdout).toMatch(/^auto\s+Behaves like/m);
  });

  it("shows the built-in auto with the shipped library too", async () => {
    const { code, stdout } = await run(["list"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^auto \(default\)\s+Behaves like a plausible model/m);
  });

  it("reports broken scenario files like validate", async () => {
    const { code, stdout, stderr } = await run(["list", "--no-library", "--scenarios", "."], badDir);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe((await run(["validate", "."], badDir)).stderr);
  });
});

describe("openresponses-mock play", () => {
  it("prints a conformant SSE stream ending with data: [DONE]", async () => {
    const { code, stdout, stderr } = await run([
      "play",
      "hello",
      "--no-library",
      "--scenarios",
      dir,
      "--input",
      "Bonjour",
      "--model",
      "m-2",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout.endsWith("data: [DONE]\n\n")).toBe(true);
    const { events } = parseSseStrict(stdout);
    const response = expectConformantStream(events);
    expect(response.status).toBe("completed");
    expect(response.model).toBe("m-2");
    expect(response.output).toEqual([
      expect.objectContaining({
        type: "message",
        content: [expect.objectContaining({ text: "Hi there! You said: Bonjour" })],
      }),
    ]);
  });

  it("plays every kind of scenario conformantly: auto, scripted tools, random, mid-stream failure", async () => {
    for (const name of ["auto", "tools", "dice", "cut"]) {
      const { code, stdout } = await run(["play", name, "--no-library", "--scenarios", dir, "--seed", "11"]);
      expect(code, name).toBe(0);
      const response = expectConformantStream(parseSseStrict(stdout).events);
      if (name === "cut") expect(response.status).toBe("failed");
      if (name === "tools") expect(response.output.map((i) => i.type)).toEqual(["reasoning", "function_call"]);
    }
  });

  it("defaults to {model: mock-model-1, input: Hello!} and seed 0; the seed decides the bytes", async () => {
    const args = ["play", "dice", "--no-library", "--scenarios", dir];
    const [a, b, zero, other] = await Promise.all([
      run(args),
      run(args),
      run([...args, "--seed", "0"]),
      run([...args, "--seed", "1"]),
    ]);
    expect(timeless(a.stdout)).toBe(timeless(b.stdout));
    expect(timeless(a.stdout)).toBe(timeless(zero.stdout));
    expect(timeless(a.stdout)).not.toBe(timeless(other.stdout));
    const response = expectConformantStream(parseSseStrict(a.stdout).events);
    expect(response.model).toBe("mock-model-1");
    expect(a.stdout).toContain('"model":"mock-model-1"');
  });

  it("prints exactly the bytes a server with the same seed streams for the same request", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--seed", "42", "--no-library", "--scenarios", dir]);
    const baseURL = line.split(" ").at(-1)!;
    const cases: { name: string; input?: string; model?: string }[] = [
      { name: "hello" },
      { name: "tools", input: "Weather in Paris?" },
      { name: "dice" },
      { name: "dice", input: "Another question", model: "other-model" },
      { name: "cut" },
      { name: "auto", input: "Tell me a story." },
    ];
    for (const [i, { name, input, model }] of cases.entries()) {
      // A seed per case: identical requests to one server get new ids, and play shows a server's first answer.
      const seed = String(42 + i);
      const flags = [...(input ? ["--input", input] : []), ...(model ? ["--model", model] : [])];
      const played = await run(["play", name, "--seed", seed, "--no-library", "--scenarios", dir, ...flags]);
      expect(played.code).toBe(0);
      const served = await post(
        baseURL,
        { model: model ?? "mock-model-1", input: input ?? "Hello!", stream: true },
        { "x-mock-scenario": name, "x-mock-seed": seed },
      );
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("text/event-stream");
      expect(timeless(played.stdout), name).toBe(timeless(served.text));
    }
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("prints an http_error turn's status and error body on stderr, exit 1, like the server answers it", async () => {
    const played = await run(["play", "limited", "--no-library", "--scenarios", dir]);
    expect(played.code).toBe(1);
    expect(played.stdout).toBe("");
    const lines = played.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("HTTP 429 Too Many Requests");
    expect(lines).toContain("retry-after: 3");
    const body = JSON.parse(lines.at(-1)!);
    expectErrorBody(body);
    expect(body.error.message).toBe("Slow down, please (scripted).");

    const { child, line } = await start(["serve", "--port", "0", "--no-library", "--scenarios", dir]);
    const served = await post(
      line.split(" ").at(-1)!,
      { model: "mock-model-1", input: "Hello!", stream: true },
      { "x-mock-scenario": "limited" },
    );
    expect(served.status).toBe(429);
    expect(served.headers.get("retry-after")).toBe("3");
    expect(JSON.parse(served.text)).toEqual(body);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("refuses an unknown scenario name, listing the known ones", async () => {
    const { code, stdout, stderr } = await run(["play", "nope", "--no-library", "--scenarios", dir]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "openresponses-mock: unknown scenario 'nope'. Known scenarios: auto, cut, dice, hello, limited, tools.\n",
    );
  });

  it("--dialect openai prints OpenAI's stream: no [DONE], OpenAI's ids; an unknown dialect is refused, listing the known ones", async () => {
    const { code, stdout } = await run(["play", "hello", "--no-library", "--scenarios", dir, "--dialect", "openai"]);
    expect(code).toBe(0);
    expect(stdout).not.toContain("[DONE]");
    const { events } = parseSseStrict(stdout, { requireDone: false });
    expect(events.at(-1)!.type).toBe("response.completed");
    expect((events[0].response as { id: string }).id).toMatch(/^resp_[0-9a-f]{50}$/);
    const bad = await run(["play", "hello", "--no-library", "--scenarios", dir, "--dialect", "klingon"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unknown dialect 'klingon'; known dialects: open-responses, openai/);
  });

  it("refuses a bad seed with the options' message", async () => {
    const { code, stderr } = await run(["play", "auto", "--no-library", "--seed", "-1"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/seed/);
  });
});

describe("help and strict options", () => {
  for (const command of ["serve", "validate", "list", "play"]) {
    it(`${command} --help`, async () => {
      const { code, stdout } = await run([command, "--help"]);
      expect(code).toBe(0);
      expect(stdout).toContain(`openresponses-mock ${command}`);
      expect(stdout).toContain("--help");
    });

    it(`${command} refuses an unknown option, naming it and pointing to its help`, async () => {
      const args = {
        serve: ["serve", "--port", "0"],
        validate: ["validate", join(dir, "hello.json")],
        list: ["list"],
        play: ["play", "auto", "--no-library"],
      }[command]!;
      const { code, stdout, stderr } = await run([...args, "--bogus-option", "1"]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toBe(
        `openresponses-mock: unknown option '--bogus-option'\nopenresponses-mock: see 'openresponses-mock ${command} --help' for the options\n`,
      );
    });
  }

  it("the top-level --help lists every command", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    for (const command of ["serve", "validate <files..>", "list", "play <name>"])
      expect(stdout).toContain(`openresponses-mock ${command}`);
  });

  it("refuses an unknown command, listing the commands", async () => {
    const { code, stderr } = await run(["frobnicate"]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      "openresponses-mock: unknown command 'frobnicate'. Commands: serve, proxy, validate, list, play, check, exam (serve is the default); see 'openresponses-mock --help'\n",
    );
  });
});

describe("serve timing options", () => {
  it("--latency-ms, --chunk-ms and --heartbeat-ms pace the stream: heartbeats come before the first event", async () => {
    const { child, line } = await start([
      "serve",
      "--port",
      "0",
      "--latency-ms",
      "200",
      "--chunk-ms",
      "2",
      "--heartbeat-ms",
      "40",
      "--no-library",
    ]);
    const baseURL = line.split(" ").at(-1)!;
    const res = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    });
    const text = await res.text();
    expect(text.startsWith(": keep-alive\n\n")).toBe(true);
    expect(text.slice(0, text.indexOf("event:")).split(": keep-alive").length - 1).toBeGreaterThanOrEqual(2);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("--journal-bytes bounds the journal: a body over 1/16 of it is kept truncated", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--journal-bytes", "65536"]);
    const baseURL = line.split(" ").at(-1)!;
    const body = JSON.stringify({ model: "m", input: "z".repeat(10_000) });
    expect(
      (await fetch(`${baseURL}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body }))
        .status,
    ).toBe(200);
    const list = (await (await fetch(new URL("/__mock/requests", baseURL))).json()) as {
      data: { truncated: boolean; bodyBytes: number; body: unknown }[];
    };
    expect(list.data).toEqual([expect.objectContaining({ truncated: true, bodyBytes: body.length, body: null })]);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it.each([["-5"], ["1.5"], ["64MiB"]])("refuses --journal-bytes %s, naming the flag", async (value) => {
    const { code, stdout, stderr } = await run(["serve", "--port", "0", "--journal-bytes", value]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `openresponses-mock: --journal-bytes: expected a whole number of bytes, 0 or more (0 keeps no bodies), got ${value === "64MiB" ? "'64MiB'" : value}\n`,
    );
  });

  it("refuses a negative --chunk-ms", async () => {
    const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--chunk-ms", "-1"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let err = "";
    child.stderr!.on("data", (d) => (err += d));
    const [code] = await once(child, "exit");
    expect(code).toBe(1);
    expect(err).toMatch(/--chunk-ms: /);
  });
});

describe("security defaults", () => {
  it("warns when binding to all interfaces with no API key, and not with one", async () => {
    const run = async (args: string[]) => {
      const child = spawn(
        process.execPath,
        [BIN, "serve", "--port", "0", "--host", "0.0.0.0", "--no-library", ...args],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let err = "";
      child.stderr!.on("data", (d) => (err += d));
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
      child.kill("SIGTERM");
      await once(child, "exit");
      return err;
    };
    expect(await run([])).toMatch(/all interfaces .* no API key/);
    expect(await run(["--api-key", "k"])).toBe("");
  });
});

/** Runs the CLI and expects it to fail before doing anything: exit 1, nothing on stdout; resolves with stderr. */
async function refused(args: string[], cwd?: string): Promise<string> {
  const { code, stdout, stderr } = await run(args, cwd);
  expect(code, `${args.join(" ")}: ${stderr}`).toBe(1);
  expect(stdout).toBe("");
  return stderr;
}

describe("-h/--help and -v/--version everywhere", () => {
  const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
    .version;

  it.each([[[]], [["serve"]], [["validate"]], [["list"]], [["play"]]])(
    "%j -h and --help print the help, exit 0",
    async (command) => {
      for (const flag of ["-h", "--help"]) {
        const { code, stdout, stderr } = await run([...command, flag]);
        expect(code, flag).toBe(0);
        expect(stderr, flag).toBe("");
        expect(stdout).toContain(`openresponses-mock${command.length ? ` ${command[0]}` : ""}`);
        expect(stdout).toContain("-h, --help");
        expect(stdout).toContain("-v, --version");
      }
    },
  );

  it.each([[["-v"]], [["--version"]], [["serve", "-v"]], [["play", "--version"]]])(
    "%j prints the version, exit 0",
    async (args) => {
      expect(await run(args)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    },
  );

  it("serve's help states the --scenarios rule", async () => {
    const { stdout } = await run(["serve", "--help"]);
    expect(stdout.replace(/\s+/g, " ")).toContain(
      "Takes every path after it up to the next flag (or repeat the flag); typed before the command, it stops at the command's name: '--scenarios DIR serve' is 'serve --scenarios DIR'",
    );
  });
});

describe("a bad flag is named as typed, in words", () => {
  it.each([
    ["--port", "abc", "--port: expected a port number (0-65535), got 'abc'"],
    ["--port", "99999", "--port: expected a port number (0-65535), got 99999"],
    ["--port", "1.5", "--port: expected a port number (0-65535), got 1.5"],
    ["--body-limit", "1MB", "--body-limit: expected a number of bytes (a whole number, 1 or more), got '1MB'"],
    ["--body-limit", "0", "--body-limit: expected a number of bytes (a whole number, 1 or more), got 0"],
    ["--seed", "x", "--seed: expected a whole number from 0 to 9007199254740991, got 'x'"],
    ["--seed", "-1", "--seed: expected a whole number from 0 to 9007199254740991, got -1"],
    ["--latency-ms", "1s", "--latency-ms: expected a number of milliseconds from 0 to 3600000, got '1s'"],
    ["--chunk-ms", "-1", "--chunk-ms: expected a number of milliseconds from 0 to 3600000, got -1"],
    ["--jitter-ms", "lots", "--jitter-ms: expected a number of milliseconds from 0 to 3600000, got 'lots'"],
    [
      "--heartbeat-ms",
      "5000000",
      "--heartbeat-ms: expected a number of milliseconds from 0 to 3600000 (0: never), got 5000000",
    ],
    [
      "--tokens-per-second",
      "0",
      "--tokens-per-second: expected a number of tokens per second, above 0 and at most 1000000, got 0",
    ],
    ["--store-limit", "many", "--store-limit: expected a whole number of responses from 0 to 10000000, got 'many'"],
    [
      "--store-bytes",
      "64MiB",
      "--store-bytes: expected a whole number of bytes, 0 or more (0 keeps no inputs), got '64MiB'",
    ],
    ["--store-bytes", "-5", "--store-bytes: expected a whole number of bytes, 0 or more (0 keeps no inputs), got -5"],
    [
      "--journal-bytes",
      "64MiB",
      "--journal-bytes: expected a whole number of bytes, 0 or more (0 keeps no bodies), got '64MiB'",
    ],
    ["--host", "", "--host: expected a host name or IP address, got nothing"],
    [
      "--dialect",
      "opnai",
      "--dialect: unknown dialect 'opnai'; did you mean 'openai'? known dialects: open-responses, openai",
    ],
    ["--dialect", "klingon", "--dialect: unknown dialect 'klingon'; known dialects: open-responses, openai"],
  ])("serve %s %j", async (flag, value, message) => {
    expect(await refused(["serve", ...(flag === "--port" ? [] : ["--port", "0"]), "--no-library", flag, value])).toBe(
      `openresponses-mock: ${message}\n`,
    );
  });

  it("play's --seed and --dialect are named the same way", async () => {
    expect(await refused(["play", "auto", "--no-library", "--seed", "1e999"])).toBe(
      "openresponses-mock: --seed: expected a whole number from 0 to 9007199254740991, got '1e999'\n",
    );
    expect(await refused(["play", "auto", "--no-library", "--dialect", "x"])).toBe(
      "openresponses-mock: --dialect: unknown dialect 'x'; known dialects: open-responses, openai\n",
    );
  });

  it("every problem gets its line", async () => {
    expect(await refused(["serve", "--port", "70000", "--chunk-ms", "-1", "--no-library"])).toBe(
      "openresponses-mock: --port: expected a port number (0-65535), got 70000\nopenresponses-mock: --chunk-ms: expected a number of milliseconds from 0 to 3600000, got -1\n",
    );
  });

  it("a flag with no value, or given twice, says so", async () => {
    expect(await refused(["serve", "--port"])).toBe("openresponses-mock: --port: needs a value\n");
    expect(await refused(["serve", "--port", "--no-library"])).toBe("openresponses-mock: --port: needs a value\n");
    expect(await refused(["play", "auto", "--dialect"])).toBe("openresponses-mock: --dialect: needs a value\n");
    expect(await refused(["serve", "--port", "1", "--port", "2"])).toBe(
      "openresponses-mock: --port: given 2 times (1, 2); give it once\n",
    );
  });

  it("an unknown flag gets the nearest known one, and the command's help", async () => {
    expect(await refused(["serve", "--prot", "0"])).toBe(
      "openresponses-mock: unknown option '--prot'; did you mean '--port'?\nopenresponses-mock: see 'openresponses-mock serve --help' for the options\n",
    );
    expect(await refused(["--no-admn"])).toBe(
      "openresponses-mock: unknown option '--no-admn'; did you mean '--no-admin'?\nopenresponses-mock: see 'openresponses-mock --help' for the options\n",
    );
    expect(await refused(["list", "--scenarioes", dir])).toBe(
      "openresponses-mock: unknown option '--scenarioes'; did you mean '--scenarios'?\nopenresponses-mock: see 'openresponses-mock list --help' for the options\n",
    );
    expect(await refused(["list", "--seed", "1", "-q"])).toBe(
      "openresponses-mock: unknown option '--seed'\nopenresponses-mock: unknown option '-q'\nopenresponses-mock: see 'openresponses-mock list --help' for the options\n",
    );
  });

  it("words left over are named: a mistyped command, a path without --scenarios, one NAME too many", async () => {
    expect(await refused(["plya", "auto"])).toBe(
      "openresponses-mock: unknown command 'plya', 'auto' (did you mean 'play'?). Commands: serve, proxy, validate, list, play, check, exam (serve is the default); see 'openresponses-mock --help'\n",
    );
    expect(await refused(["serve", "./scenarios"])).toBe(
      "openresponses-mock: serve takes no arguments, got './scenarios'; to load scenario files, write --scenarios ./scenarios; see 'openresponses-mock serve --help'\n",
    );
    expect(await refused(["play", "auto", "hello"])).toBe(
      "openresponses-mock: play takes one scenario NAME, got 'auto' and then 'hello'; see 'openresponses-mock play --help'\n",
    );
  });

  it("a missing NAME or FILE says what to give", async () => {
    expect(await refused(["validate"])).toBe(
      "openresponses-mock: validate: give one or more scenario files or folders, e.g. 'openresponses-mock validate scenarios/'\n",
    );
    expect(await refused(["play", "--scenarios", dir, "hello"])).toBe(
      "openresponses-mock: play: give the scenario NAME first, e.g. 'openresponses-mock play text' ('openresponses-mock list' shows the names); --scenarios takes every path after it, so write 'play NAME --scenarios DIR'\n",
    );
  });
});

describe("--scenarios does not swallow the command", () => {
  it("--scenarios DIR serve runs serve with the folder loaded", async () => {
    const { child, line } = await start(["--scenarios", dir, "serve", "--port", "0", "--no-library"]);
    const baseURL = line.split(" ").at(-1)!;
    const res = await post(baseURL, { model: "m", input: "ping" }, { "x-mock-scenario": "hello" });
    expect(res.status).toBe(200);
    expect(res.text).toContain("Hi there! You said: ping");
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  it("--scenarios A B list lists both; so does --scenarios A --scenarios B", async () => {
    const names = (stdout: string) =>
      stdout
        .split("\n")
        .filter(Boolean)
        .map((r) => r.split(/\s{2,}/)[0]);
    const greedy = await run(["--no-library", "--scenarios", join(dir, "hello.json"), join(dir, "dice.json"), "list"]);
    expect(greedy.stderr).toBe("");
    expect(names(greedy.stdout)).toEqual(["auto (default)", "hello", "dice"]);
    const repeated = await run([
      "list",
      "--no-library",
      "--scenarios",
      join(dir, "hello.json"),
      "--scenarios",
      join(dir, "dice.json"),
    ]);
    expect(names(repeated.stdout)).toEqual(["auto (default)", "hello", "dice"]);
  });

  it("--scenarios DIR play NAME plays NAME", async () => {
    const { code, stdout } = await run(["--no-library", "--scenarios", dir, "play", "hello"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Hi there! You said: Hello!");
  });
});

describe("serve cannot listen", () => {
  it("a port in use: pick another or --port 0, exit 1, no stack", async () => {
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as { port: number }).port;
    try {
      expect(await refused(["serve", "--port", String(port), "--no-library"])).toBe(
        `openresponses-mock: port ${port} is already in use on 127.0.0.1: pick another with --port N, or --port 0 for a free one\n`,
      );
    } finally {
      taken.close();
    }
  });

  it("an address this machine does not have is a --host problem", async () => {
    // 192.0.2.1 is TEST-NET-1: never an address of this machine.
    expect(await refused(["serve", "--port", "0", "--host", "192.0.2.1", "--no-library"])).toBe(
      "openresponses-mock: --host: this machine has no network interface with the address 192.0.2.1; use 127.0.0.1 (the default), 0.0.0.0 for every interface, or one of this machine's addresses\n",
    );
  });

  it("a host name that does not resolve is a --host problem", async () => {
    const stderr = await refused(["serve", "--port", "0", "--host", "no-such-host.invalid", "--no-library"]);
    expect(stderr).toBe(
      "openresponses-mock: --host: cannot find the address of 'no-such-host.invalid'; give an IP address (127.0.0.1, the default, or 0.0.0.0 for every interface) or a host name of this machine\n",
    );
  });
});

describe("validate DIR and --scenarios DIR skip node_modules and dot-entries", () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "orm-cli-walk-"));
    writeFileSync(
      join(project, "mine.json"),
      JSON.stringify({ name: "mine", description: "Mine.", generate: { strategy: "auto" } }),
    );
    mkdirSync(join(project, "sub"));
    writeFileSync(
      join(project, "sub", "nested.json"),
      JSON.stringify({ name: "nested", description: "Nested.", generate: { strategy: "auto" } }),
    );
    // None of these is a scenario: read, they would be errors.
    for (const folder of ["node_modules/some-package", "sub/node_modules/x", ".git", ".vscode"]) {
      mkdirSync(join(project, folder), { recursive: true });
      writeFileSync(join(project, folder, "package.json"), JSON.stringify({ name: "some-package", version: "1.0.0" }));
    }
    writeFileSync(join(project, ".eslintrc.json"), JSON.stringify({ root: true }));
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("validate . checks only the user's files", async () => {
    const { code, stdout, stderr } = await run(["validate", "."], project);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toBe("ok mine.json (mine)\nok sub/nested.json (nested)\n");
  });

  it("list --scenarios . loads the same", async () => {
    const { code, stdout } = await run(["list", "--no-library", "--scenarios", "."], project);
    expect(code).toBe(0);
    expect(
      stdout
        .split("\n")
        .filter(Boolean)
        .map((r) => r.split(/\s{2,}/)[0]),
    ).toEqual(["auto (default)", "mine", "nested"]);
  });

  it("a dot-folder or node_modules given by name is still read", async () => {
    const { code, stderr } = await run(["validate", ".vscode"], project);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^\.vscode\/package\.json: /);
  });
});

describe("an unknown scenario name suggests the nearest", () => {
  const KNOWN = "Known scenarios: auto, cut, dice, hello, limited, tools.";

  it("play NAME", async () => {
    expect(await refused(["play", "helo", "--no-library", "--scenarios", dir])).toBe(
      `openresponses-mock: unknown scenario 'helo'. Did you mean 'hello'? ${KNOWN}\n`,
    );
    expect(await refused(["play", "nope", "--no-library", "--scenarios", dir])).toBe(
      `openresponses-mock: unknown scenario 'nope'. ${KNOWN}\n`,
    );
  });

  it("--scenario NAME on serve and list names the flag", async () => {
    expect(await refused(["serve", "--port", "0", "--no-library", "--scenarios", dir, "--scenario", "Tool"])).toBe(
      `openresponses-mock: --scenario: unknown scenario 'Tool'. Did you mean 'tools'? ${KNOWN}\n`,
    );
    expect(await refused(["list", "--no-library", "--scenarios", dir, "--scenario", "dize"])).toBe(
      `openresponses-mock: --scenario: unknown scenario 'dize'. Did you mean 'dice'? ${KNOWN}\n`,
    );
  });
});
