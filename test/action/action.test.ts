/**
 * The GitHub Action (action.yml, action/*.mjs) under the runner's protocol,
 * simulated: its main and post steps run as processes with INPUT_* variables and
 * the GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE and GITHUB_STEP_SUMMARY files in a
 * temporary folder (RUNNER_TEMP), the state handed to post as STATE_* variables, as
 * the runner does. A later step (test/action/later-step.mjs, the openai SDK with a
 * default client) reaches the server through the exported environment.
 *
 * Linux: "no process left" is read from /proc. Needs `npm run build` (dist/).
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI, runProcess } from "../support/run.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "action/main.mjs");
const POST = join(ROOT, "action/post.mjs");
const LATER_STEP = fileURLToPath(new URL("later-step.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "openresponses-mock-action-"));
/** Process groups a test started: killed after each test should a step have left one. */
const started: number[] = [];

afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Parses a runner file of `name=value` lines and `name<<DELIMITER` … `DELIMITER` blocks. */
function fileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === "") continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      expect(end, `the closing ${heredoc[2]}`).toBeGreaterThan(i);
      out[heredoc[1]] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = line.indexOf("=");
    expect(eq, `a name=value line: ${line}`).toBeGreaterThan(0);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** A job's runner files, in a folder of its own. */
function job(name: string) {
  const dir = join(work, name);
  const temp = join(dir, "runner-temp");
  mkdirSync(temp, { recursive: true });
  const files = {
    GITHUB_OUTPUT: join(dir, "output"),
    GITHUB_ENV: join(dir, "env"),
    GITHUB_STATE: join(dir, "state"),
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
  };
  for (const file of Object.values(files)) writeFileSync(file, "");
  const read = (file: keyof typeof files) => readFileSync(files[file], "utf8");
  /** The environment of a step: this process's, without any GitHub or INPUT_ variable, plus the runner's. */
  const baseEnv = (): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env))
      if (!/^(GITHUB_|INPUT_|STATE_|RUNNER_|VITEST|OPENAI_)/.test(k)) env[k] = v;
    return { ...env, ...files, RUNNER_TEMP: temp, GITHUB_WORKSPACE: ROOT };
  };
  const inputEnv = (inputs: Record<string, string>) =>
    Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
  return {
    dir,
    temp,
    files,
    read,
    outputs: () => fileCommands(read("GITHUB_OUTPUT")),
    exported: () => fileCommands(read("GITHUB_ENV")),
    state: () => fileCommands(read("GITHUB_STATE")),
    async main(inputs: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) {
      const run = await runProcess(process.execPath, [MAIN], {
        cwd: ROOT,
        env: { ...baseEnv(), ...inputEnv(inputs), ...env },
      });
      const pid = Number(fileCommands(read("GITHUB_STATE")).pid);
      if (pid) started.push(pid);
      return run;
    },
    /** post, with main's state as STATE_* (the runner hands the same inputs to both steps). */
    post(inputs: Record<string, string> = {}, env: NodeJS.ProcessEnv = {}) {
      const state = Object.fromEntries(Object.entries(this.state()).map(([k, v]) => [`STATE_${k}`, v]));
      return runProcess(process.execPath, [POST], {
        cwd: ROOT,
        env: { ...baseEnv(), ...inputEnv(inputs), ...state, ...env },
      });
    },
    /** A later step: the job's environment with what the action exported. */
    later(script: string) {
      return runProcess(process.execPath, [script], { cwd: ROOT, env: { ...baseEnv(), ...this.exported() } });
    },
  };
}

/** The processes of a process group that are still running (zombies waiting to be reaped do not count). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") members.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return members;
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`);
    return true;
  } catch {
    return false;
  }
}

describe("the GitHub Action, run under the runner's protocol", () => {
  it("main starts the server, a later step reaches it through the exported env, post stops it and sums up", async () => {
    const j = job("full");
    const inputs = { "api-key": "sekret", args: `--seed 7 --scenario 'text'` };
    const main = await j.main(inputs);
    expect(main.code, main.stdout + main.stderr).toBe(0);
    expect(main.stdout).toContain("::add-mask::sekret\n");
    expect(main.stdout).toContain(
      `starting ${join(ROOT, "dist/cli/main.js")} serve --port 0 --api-key *** --seed 7 --scenario text`,
    );
    expect(main.stdout).not.toContain("sekret ");

    const outputs = j.outputs();
    expect(outputs["base-url"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(outputs.url).toBe(outputs["base-url"].replace(/\/v1$/, ""));
    expect(outputs["log-file"]).toBe(join(j.temp, "openresponses-mock.log"));
    expect(j.exported()).toEqual({ OPENAI_BASE_URL: outputs["base-url"], OPENAI_API_KEY: "sekret" });
    const state = j.state();
    const pid = Number(state.pid);
    expect(state.url).toBe(outputs.url);
    expect(groupMembers(pid)).toEqual([pid]);
    // The key is required: without it, 401.
    const noKey = await fetch(`${outputs["base-url"]}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(noKey.status).toBe(401);

    const later = await j.later(LATER_STEP);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toMatch(/^answer: .*Hello from a later step/m); // the text scenario quotes the input
    expect(later.stdout).toContain("error-500: 500");

    const post = await j.post(inputs);
    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toContain(`the server (pid ${pid}) stopped.`);
    expect(groupMembers(pid)).toEqual([]);
    expect(await answers(outputs.url)).toBe(false);

    const summary = j.read("GITHUB_STEP_SUMMARY");
    expect(summary).toContain("### openresponses-mock\n");
    // main's GET /health (ok), the 401 above, the later step's answer and its error-500.
    expect(summary).toContain(
      [
        "4 requests to " + outputs.url + " (journal entries #0–#3); the server stopped.",
        "",
        "| Scenario | Requests | completed | error | ok |",
        "|---|---:|---:|---:|---:|",
        "| (none) | 2 | 0 | 1 | 1 |",
        "| error-500 | 1 | 0 | 1 | 0 |",
        "| text | 1 | 1 | 0 | 0 |",
        "| **all** | **4** | **1** | **2** | **1** |",
        "",
        "2 failed requests, newest first:",
        "",
        "| # | Time (UTC) | Request | Session | Status | Scenario | Outcome | Error |",
        "|---:|---|---|---|---:|---|---|---|",
      ].join("\n"),
    );
    expect(summary).toMatch(
      /^\| 3 \| \d\d:\d\d:\d\d\.\d{3} \| POST \/v1\/responses \|  \| 500 \| error-500 \| error \| internal_error \|\n\| 1 \| [\d:.]+ \| POST \/v1\/responses \|  \| 401 \|  \| error \| invalid_api_key \|$/m,
    );
    expect(summary).toContain(`The server's log: \`${outputs["log-file"]}\`.`);

    const log = readFileSync(outputs["log-file"], "utf8");
    expect(log).toContain(`openresponses-mock listening on ${outputs["base-url"]}`);
    expect(log).toMatch(/POST +\/v1\/responses +500 error/);
    expect(log).toContain("openresponses-mock stopped");
  }, 60_000);

  it("runs the package installed in the workspace's node_modules, on the port asked for, without exporting env", async () => {
    const j = job("workspace");
    const workspace = join(j.dir, "project");
    mkdirSync(join(workspace, "node_modules"), { recursive: true });
    symlinkSync(ROOT, join(workspace, "node_modules/openresponses-mock"));
    const port = await freePort();
    const main = await j.main({ port: String(port), "export-env": "false" }, { GITHUB_WORKSPACE: workspace });
    expect(main.code, main.stdout + main.stderr).toBe(0);
    expect(main.stdout).toContain(
      `starting ${join(workspace, "node_modules/openresponses-mock/dist/cli/main.js")} serve --port ${port}`,
    );
    expect(j.outputs()["base-url"]).toBe(`http://127.0.0.1:${port}/v1`);
    expect(j.read("GITHUB_ENV")).toBe("");
    const post = await j.post();
    expect(post.code).toBe(0);
    expect(groupMembers(Number(j.state().pid))).toEqual([]);
    // No request but main's /health: the table has that one, and no failed request.
    expect(j.read("GITHUB_STEP_SUMMARY")).toContain("No request failed.");
  }, 60_000);

  it("with version, runs npx openresponses-mock@VERSION, and post stops npx's whole process group", async () => {
    const j = job("npx");
    // An npx that stays in between, as the real one does (it runs the bin through a shell).
    const bin = join(j.dir, "bin");
    mkdirSync(bin);
    const argsFile = join(j.dir, "npx-args");
    writeFileSync(
      join(bin, "npx"),
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nshift 2\n"${process.execPath}" "${CLI}" "$@"\necho "npx: the server exited"\n`,
    );
    chmodSync(join(bin, "npx"), 0o755);
    const main = await j.main(
      { version: "1.2.3", scenarios: "scenarios/text.json\nscenarios/tool-call.json" },
      {
        PATH: `${bin}:${process.env.PATH}`,
      },
    );
    expect(main.code, main.stdout + main.stderr).toBe(0);
    expect(readFileSync(argsFile, "utf8").trim().split("\n")).toEqual([
      "--yes",
      "openresponses-mock@1.2.3",
      "serve",
      "--port",
      "0",
      "--scenarios",
      "scenarios/text.json",
      "scenarios/tool-call.json",
    ]);
    expect(j.exported().OPENAI_API_KEY).toBe("openresponses-mock");
    const pid = Number(j.state().pid);
    expect(groupMembers(pid)).toHaveLength(2); // sh (npx) and node (the server)
    const post = await j.post({ version: "1.2.3" });
    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toContain(`the server (pid ${pid}) stopped.`); // on SIGTERM, not killed after the grace time
    expect(groupMembers(pid)).toEqual([]);
    expect(await answers(j.outputs().url)).toBe(false);
  }, 60_000);

  it("sums up the expectations, unmet ones with their message", async () => {
    const j = job("expectations");
    const main = await j.main();
    expect(main.code, main.stdout + main.stderr).toBe(0);
    const { url, "base-url": baseURL } = j.outputs();
    const use = await fetch(`${url}/__mock/scenarios`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        scenario: {
          name: "two-calls",
          turns: [
            {
              steps: [
                { type: "function_call", name: "lookup", call_id: "call_1", arguments: { q: "a" } },
                { type: "function_call", name: "lookup", call_id: "call_2", arguments: { q: "b" } },
              ],
              expect: { tool_outputs: true },
            },
            { steps: [{ type: "message", text: "Both found." }] },
          ],
        },
      }),
    });
    expect(use.status).toBe(201);
    const client = new OpenAI({ baseURL, apiKey: j.exported().OPENAI_API_KEY, maxRetries: 0 });
    const first = await client.responses.create({ model: "m", input: "Look up a and b" });
    const output = { type: "function_call_output" as const, call_id: "call_1", output: "found" };
    await client.responses.create({ model: "m", previous_response_id: first.id, input: [output] });
    const post = await j.post();
    expect(post.code, post.stdout + post.stderr).toBe(0);
    const summary = j.read("GITHUB_STEP_SUMMARY");
    expect(summary).toContain("Expectations: 0 met, 1 unmet, 0 pending.\n\n");
    expect(summary).toContain(
      "- unmet: `tool_outputs` (scenario two-calls, turn 0, request #2): expected function_call_output for call_2; got outputs for call_1 only\n",
    );
  }, 60_000);

  it("with --no-admin, stops the server and says the journal could not be read", async () => {
    const j = job("no-admin");
    const main = await j.main({ args: "--no-admin" });
    expect(main.code, main.stdout + main.stderr).toBe(0);
    const pid = Number(j.state().pid);
    const post = await j.post({ args: "--no-admin" });
    expect(post.code, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toContain(
      "::warning::openresponses-mock: cannot read the journal: GET /__mock/requests answered 404",
    );
    expect(groupMembers(pid)).toEqual([]);
    expect(j.read("GITHUB_STEP_SUMMARY")).toMatch(
      /^### openresponses-mock\n\nThe journal could not be read: GET \/__mock\/requests answered 404 \(are the admin routes off\? --no-admin\)\.\n\n0 requests to http:\/\/127\.0\.0\.1:\d+; the server stopped\./,
    );
  }, 60_000);

  it("names a bad input, and starts nothing", async () => {
    const j = job("bad-inputs");
    for (const [inputs, message] of [
      [{ port: "abc" }, "Input port: expected a port number from 0 to 65535, got 'abc'."],
      [{ port: "70000" }, "Input port: expected a port number from 0 to 65535, got '70000'."],
      [{ "export-env": "yes" }, "Input export-env: expected true or false, got 'yes'."],
      [{ args: "--seed '7" }, "Input args: a ' quote is never closed."],
    ] as const) {
      const main = await j.main(inputs);
      expect(main.code).toBe(1);
      expect(main.stdout).toContain(`::error::openresponses-mock: ${message}`);
    }
    expect(j.read("GITHUB_STATE") + j.read("GITHUB_OUTPUT") + j.read("GITHUB_ENV")).toBe("");
  }, 60_000);

  it("outside a runner (no GITHUB_STATE), fails before it starts a server", async () => {
    const j = job("no-runner");
    const main = await j.main({}, { GITHUB_STATE: "" });
    expect(main.code).toBe(1);
    expect(main.stdout).toContain(
      "::error::openresponses-mock: GITHUB_STATE is not set: run this as a step of a GitHub Actions job.",
    );
    expect(main.stdout).not.toContain("starting");
  });

  it("fails with the server's own message when it does not start, leaving nothing running", async () => {
    const j = job("bad-flag");
    const main = await j.main({ args: "--no-such-flag" });
    expect(main.code).toBe(1);
    expect(main.stdout).toMatch(
      /::error::openresponses-mock: the server exited with code \d+ before it started\. Its output:%0A.*no-such-flag/,
    );
    expect(j.read("GITHUB_STATE")).toBe("");
  }, 60_000);

  it("fails, naming what to do, when no openresponses-mock is installed and no version is given", async () => {
    const j = job("none");
    const empty = join(j.dir, "empty");
    mkdirSync(empty);
    // The action's own checkout without dist/: a copy of action/ and package.json elsewhere.
    const copy = join(j.dir, "action-copy");
    mkdirSync(join(copy, "action"), { recursive: true });
    for (const f of ["main.mjs", "post.mjs", "runner.mjs", "server.mjs", "summary.mjs"])
      writeFileSync(join(copy, "action", f), readFileSync(join(ROOT, "action", f)));
    writeFileSync(join(copy, "package.json"), readFileSync(join(ROOT, "package.json")));
    const run = await runProcess(process.execPath, [join(copy, "action/main.mjs")], {
      cwd: empty,
      env: { PATH: process.env.PATH, ...j.files, RUNNER_TEMP: j.temp, GITHUB_WORKSPACE: empty },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "::error::openresponses-mock: cannot find openresponses-mock: install it in the workspace",
    );
    expect(run.stdout).toContain("or give the input version (e.g. version: latest) to run it with npx.");
    expect(run.stdout).toContain(`${join(copy, "dist/cli/main.js")} (not built: run npm run build)`);
  }, 60_000);

  it("post after a main that started nothing says so and succeeds", async () => {
    const j = job("post-only");
    const post = await j.post();
    expect(post.code).toBe(0);
    expect(post.stdout).toContain("no server was started");
    expect(j.read("GITHUB_STEP_SUMMARY")).toBe("");
  });

  it("writes a multi-line value with the heredoc syntax", async () => {
    const j = job("heredoc");
    const script = `import { setOutput, exportVariable } from ${JSON.stringify(join(ROOT, "action/runner.mjs"))};
setOutput("one", "a single line");
setOutput("many", "first\\nsecond=2\\nthird");
exportVariable("MULTI", "x\\ny");`;
    const run = await runProcess(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, ...j.files },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(j.read("GITHUB_OUTPUT")).toMatch(
      /^one=a single line\nmany<<ghadelimiter_[0-9a-f-]{36}\nfirst\nsecond=2\nthird\nghadelimiter_[0-9a-f-]{36}\n$/,
    );
    expect(j.outputs()).toEqual({ one: "a single line", many: "first\nsecond=2\nthird" });
    expect(j.exported()).toEqual({ MULTI: "x\ny" });
  });
});

/** A port nothing listens on, as far as one can tell. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
