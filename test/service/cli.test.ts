/**
 * The service file and its flags on the command line, as a user runs them
 * (the built dist/): `validate` on service files, `serve --service` with a bad
 * file, `list --profiles`, bad flag values named as typed, and `--workers`
 * refused with limits and no shared store.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runCli, startCliLine } from "../support/run.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/service.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "orm-service-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

const run = (args: string[]) => runCli(args, { cwd: dir });
const lines = (text: string) => text.split("\n").filter((l) => l.length > 0);
const write = (name: string, value: unknown) =>
  writeFileSync(join(dir, name), typeof value === "string" ? value : JSON.stringify(value, null, 2));

const PROFILE = { ttftMs: { median: 100, p99: 400 }, itlMs: { median: 10, p99: 30 } };
const SCENARIO = {
  name: "hello",
  description: "Says hello.",
  turns: [{ steps: [{ type: "message", text: "Hello." }] }],
};
const BAD_SERVICE = {
  $schema: "https://example.com/service.schema.json",
  models: { "gpt-x": { prices: { input: "2.5" }, profile: "typicl" } },
  keys: { "sk-1": { budgetUsd: -1 } },
};
const BAD_LINES = [
  `bad-service.json: $.models["gpt-x"].prices.input: expected number`,
  'bad-service.json: $.keys["sk-1"].budgetUsd: must be >= 0',
];

write("service.json", readFileSync(EXAMPLE, "utf8"));
write("bad-service.json", BAD_SERVICE);
write("hello.json", SCENARIO);
mkdirSync(join(dir, "mixed"));
write("mixed/a-scenario.json", { ...SCENARIO, name: "hello-again" });
write("mixed/b-service.json", { profiles: { mine: PROFILE } });

describe("validate FILE... takes service files", () => {
  it("service and scenario files side by side: one ok line each, in order", async () => {
    const { code, stdout, stderr } = await run(["validate", "service.json", "hello.json", "mixed"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(lines(stdout)).toEqual([
      "ok service.json (service: 4 models, 1 profile)",
      "ok hello.json (hello)",
      "ok mixed/a-scenario.json (hello-again)",
      "ok mixed/b-service.json (service: 0 models, 1 profile)",
    ]);
  });

  it("a bad service file: each problem with the file and the JSON path, exit 1", async () => {
    const { code, stdout, stderr } = await run(["validate", "bad-service.json", "hello.json"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual(BAD_LINES);
  });

  it("a semantic problem: the unknown profile, naming the known ones", async () => {
    write("semantic.json", { models: { m: { profile: "typicl" } } });
    const { code, stderr } = await run(["validate", "semantic.json"]);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      "semantic.json: $.models.m.profile: unknown profile 'typicl'. Did you mean 'typical'? Known profiles: fast, instant, slow-reasoning, typical.",
    ]);
  });

  it("a file whose $schema names service.schema.json is a service file, whatever its keys", async () => {
    write("typo.json", { $schema: "./service.schema.json", modles: {} });
    const { code, stderr } = await run(["validate", "typo.json"]);
    expect(code).toBe(1);
    expect(lines(stderr)[0]).toMatch(/^typo\.json: \$\.modles: unknown key; did you mean 'models'\?/);
  });
});

/** Starts the CLI and resolves with the first stdout line. */
const start = (args: string[]) => startCliLine(args, children, dir);

describe("serve --service", () => {
  it("serves the file's models", async () => {
    const { child, line } = await start(["serve", "--port", "0", "--log", "off", "--service", "service.json"]);
    const baseURL = line.split(" ").at(-1)!;
    const body = (await (await fetch(`${baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(body.data.map((m) => m.id)).toEqual(["mock-mini", "mock-large", "mock-reasoner", "mock-local"]);
    child.kill("SIGTERM");
  });

  it("a bad file stops it before it listens, with validate's lines, exit 1", async () => {
    const { code, stdout, stderr } = await run(["serve", "--port", "0", "--service", "bad-service.json"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual(BAD_LINES);
  });

  it("a file that is not there", async () => {
    const { code, stderr } = await run(["serve", "--port", "0", "--service", "nope.json"]);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual(["nope.json: $: cannot read: ENOENT"]);
  });

  it("an unknown --profile is refused, naming the known ones (the file's too)", async () => {
    const { code, stderr } = await run(["serve", "--port", "0", "--service", "service.json", "--profile", "local-gpo"]);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      "openresponses-mock: --profile: unknown profile 'local-gpo'. Did you mean 'local-gpu'? Known profiles: fast, instant, local-gpu, slow-reasoning, typical.",
    ]);
  });
});

describe("a service file in a folder of scenarios", () => {
  it("is not loaded as a scenario by --scenarios DIR (list shows the folder's scenarios alone)", async () => {
    const { code, stdout, stderr } = await run(["list", "--no-library", "--scenarios", "mixed"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(lines(stdout).map((l) => l.split(/\s{2,}/)[0])).toEqual(["auto (default)", "hello-again"]);
  });

  it("named by itself as a scenario file, it is one, and refused as such", async () => {
    const { code, stderr } = await run(["list", "--no-library", "--scenarios", "mixed/b-service.json"]);
    expect(code).toBe(1);
    expect(stderr).toContain("mixed/b-service.json: $");
  });
});

describe("bad flag values are named as typed", () => {
  const cases: [string[], string][] = [
    [["--rpm", "abc"], "--rpm: expected a whole number of requests per minute, 1 or more, got 'abc'"],
    [["--rpm", "0"], "--rpm: expected a whole number of requests per minute, 1 or more, got 0"],
    [["--tpm", "1.5"], "--tpm: expected a whole number of tokens per minute, 1 or more, got 1.5"],
    [["--max-concurrent", "0"], "--max-concurrent: expected a whole number of answers, 1 or more, got 0"],
    [["--queue", "-1"], "--queue: expected a whole number of waiting answers, 0 or more, got -1"],
    [
      ["--queue-timeout-ms", "soon"],
      "--queue-timeout-ms: expected a whole number of milliseconds from 1 to 3600000, got 'soon'",
    ],
    [["--service", ""], "--service: expected a path to a service file, or a service object, got nothing"],
  ];
  for (const [flags, message] of cases) {
    it(flags.join(" "), async () => {
      const { code, stdout, stderr } = await run(["serve", "--port", "0", ...flags]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(lines(stderr)).toEqual([`openresponses-mock: ${message}`]);
    });
  }

  it("proxy takes the limits but not --profile (its answers keep the upstream's pace)", async () => {
    const { code, stderr } = await run(["proxy", "--upstream", "http://127.0.0.1:9/v1", "--profile", "fast"]);
    expect(code).toBe(1);
    expect(lines(stderr)[0]).toBe("openresponses-mock: unknown option '--profile'");
    const help = await run(["proxy", "--help"]);
    for (const flag of ["--service", "--rpm", "--tpm", "--max-concurrent", "--queue", "--queue-timeout-ms"])
      expect(help.stdout).toContain(flag);
  });
});

describe("list --profiles", () => {
  it("one aligned line per built-in profile: TTFT and ITL median/p99, slowdown, description; instant the default", async () => {
    const { code, stdout } = await run(["list", "--profiles"]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        "instant (default)  ttft 0/0 ms         itl 0/0 ms     slowdown k=0 capacity=1      no latency: every event at once (what the mock does without a profile)",
        "fast               ttft 150/450 ms     itl 8/20 ms    slowdown k=0.25 capacity=64  a small, fast model on an idle service",
        "typical            ttft 500/2000 ms    itl 25/80 ms   slowdown k=0.5 capacity=32   a mid-sized model on a busy service",
        "slow-reasoning     ttft 4000/15000 ms  itl 40/120 ms  slowdown k=1 capacity=16     a reasoning model: long thought before the first token",
        "",
      ].join("\n"),
    );
  });

  it("--service FILE adds the file's profiles and marks its default; --profile marks another", async () => {
    const withFile = lines((await run(["list", "--profiles", "--service", "service.json"])).stdout);
    expect(withFile.map((l) => l.split(/\s{2,}/)[0])).toEqual([
      "instant",
      "fast (default)",
      "typical",
      "slow-reasoning",
      "local-gpu",
    ]);
    expect(withFile[4]).toMatch(
      /^local-gpu +ttft 80\/300 ms +itl 15\/45 ms +slowdown k=2 capacity=4 +a model on one local GPU/,
    );
    const marked = lines(
      (await run(["list", "--profiles", "--service", "service.json", "--profile", "typical"])).stdout,
    );
    expect(marked.filter((l) => l.includes("(default)"))).toEqual([expect.stringMatching(/^typical \(default\)/)]);
  });

  it("reports a bad file like validate, an unknown --profile, and --service without --profiles", async () => {
    const bad = await run(["list", "--profiles", "--service", "bad-service.json"]);
    expect(bad.code).toBe(1);
    expect(lines(bad.stderr)).toEqual(BAD_LINES);
    const unknown = await run(["list", "--profiles", "--profile", "slow"]);
    expect(unknown.code).toBe(1);
    expect(lines(unknown.stderr)).toEqual([
      "openresponses-mock: --profile: unknown profile 'slow'. Known profiles: fast, instant, slow-reasoning, typical.",
    ]);
    const alone = await run(["list", "--service", "service.json"]);
    expect(alone.code).toBe(1);
    expect(lines(alone.stderr)).toEqual([
      "openresponses-mock: --service: goes with --profiles (list --profiles --service …)",
    ]);
  });
});

describe("--workers N with limits needs a shared store", () => {
  it("a limit from a flag, with the memory store: refused at start, saying why", async () => {
    const { code, stdout, stderr } = await run(["serve", "--port", "0", "--workers", "2", "--rpm", "3"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(lines(stderr)).toEqual([
      "openresponses-mock: --workers 2 with limits (rpm) and the memory store: each worker process would keep its own rate-limit buckets, budgets and concurrency counts, so 2 workers would let through 2 times the limits. Give --store redis://HOST:PORT to share them, or run one worker.",
    ]);
  });

  it("limits from the service file: refused, naming the file", async () => {
    write("capacity-only.json", { models: { m: { maxConcurrent: 2 } } });
    const { code, stderr } = await run(["serve", "--port", "0", "--workers", "2", "--service", "capacity-only.json"]);
    expect(code).toBe(1);
    expect(lines(stderr)).toEqual([
      expect.stringMatching(
        /^openresponses-mock: --workers 2 with limits \(maxConcurrent; service file capacity-only\.json\) and the memory store: .* Give --store redis:\/\/HOST:PORT/,
      ),
    ]);
  });

  it("with --store redis://… the limits are not refused (here the store is not there: that is the error)", async () => {
    const { code, stderr } = await run([
      "serve",
      "--port",
      "0",
      "--workers",
      "2",
      "--rpm",
      "3",
      "--store",
      "redis://127.0.0.1:1",
    ]);
    expect(code).toBe(1);
    expect(stderr).not.toContain("--workers 2 with limits");
    expect(stderr).toContain("--store: cannot connect to Redis at redis://127.0.0.1:1");
  });

  it("a service file without limits (profiles, prices) is no reason to refuse", async () => {
    write("no-limits.json", { models: { m: { prices: { input: 1 }, profile: "fast" } }, profiles: { mine: PROFILE } });
    const { child, line } = await start([
      "serve",
      "--port",
      "0",
      "--log",
      "off",
      "--workers",
      "2",
      "--service",
      "no-limits.json",
    ]);
    expect(line).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
    child.kill("SIGTERM");
  });
});
