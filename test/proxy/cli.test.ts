/**
 * `openresponses-mock proxy`, run as a user runs it (the built dist/): the
 * key from the environment variable `--upstream-key-env` names reaches the
 * upstream and nothing else (not stdout, not stderr, not the journal, not a
 * recorded file); `validate` accepts what `--record` wrote, and `serve
 * --scenarios` replays it. Bad flags are named as typed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startMockServer } from "../../src/server.js";

const BIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const KEY = "sk-cli-upstream-Vb6Rt3Nq8Lw1";
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
}

/** Starts the CLI; resolves once it prints the `listening on` line. */
function start(args: string[], env: Record<string, string> = {}): Promise<Run & { baseURL: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)\n/.exec(out);
      if (m) resolve({ child, baseURL: m[1], stdout: () => out, stderr: () => err });
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} before listening: ${err}`)));
  });
}

/** Runs the CLI to its end. */
async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const [code] = (await once(child, "exit")) as [number];
  return { code, stdout, stderr };
}

describe("openresponses-mock proxy", () => {
  it("sends the key from --upstream-key-env upstream only, records, and the record validates and replays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "orm-cli-record-"));
    dirs.push(dir);
    const upstream = await startMockServer({ port: 0, seed: 5, apiKey: KEY });
    try {
      const proxy = await start(
        [
          "proxy",
          "--port",
          "0",
          "--upstream",
          upstream.baseURL,
          "--upstream-key-env",
          "ORM_TEST_UPSTREAM_KEY",
          "--record",
          dir,
        ],
        { ORM_TEST_UPSTREAM_KEY: KEY },
      );
      expect(proxy.stdout()).toMatch(
        new RegExp(
          `^  upstream +responses ${upstream.baseURL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, recording into ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
          "m",
        ),
      );
      const body = { model: "m", input: "Name three colours.", stream: true };
      const res = await fetch(`${proxy.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-client-cli-Jx2Kp9" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const streamed = await res.text();
      const text = streamed
        .split("\n")
        .filter((l) => l.includes('"type":"response.output_text.done"'))
        .map((l) => JSON.parse(l.slice(6)).text as string)[0];
      expect(text.length).toBeGreaterThan(0);
      const journal = await (await fetch(`${proxy.baseURL.replace(/\/v1$/, "")}/__mock/requests`)).text();
      proxy.child.kill("SIGTERM");
      const [code] = await once(proxy.child, "exit");
      expect(code).toBe(0);
      for (const where of [proxy.stdout(), proxy.stderr(), journal]) {
        expect(where).not.toContain(KEY);
        expect(where).not.toContain("sk-client-cli-Jx2Kp9");
      }
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(readFileSync(join(dir, files[0]), "utf8")).not.toContain(KEY);
      const validated = await run(["validate", dir]);
      expect(validated.code).toBe(0);
      expect(validated.stdout).toMatch(
        /^ok .*name-three-colours-[0-9a-f]{8}\.json \(name-three-colours-[0-9a-f]{8}\)\n$/,
      );

      // Offline replay: the same text.
      const replay = await start(["serve", "--port", "0", "--scenarios", dir]);
      const again = await fetch(`${replay.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, stream: false }),
      });
      expect(((await again.json()) as { output: { content: { text: string }[] }[] }).output[0].content[0].text).toBe(
        text,
      );
      replay.child.kill("SIGTERM");
      await once(replay.child, "exit");
    } finally {
      await upstream.close();
    }
  });

  it.each([
    [["proxy", "--port", "0"], /Missing required argument: upstream/],
    [
      ["proxy", "--port", "0", "--upstream", "ftp://example.com/v1"],
      /--upstream: must be an http:\/\/ or https:\/\/ URL, got 'ftp:'/,
    ],
    [
      ["proxy", "--port", "0", "--upstream", "not a url"],
      /--upstream: must be a URL such as http:\/\/127\.0\.0\.1:11434\/v1, got 'not a url'/,
    ],
    [
      ["proxy", "--port", "0", "--upstream", "http://127.0.0.1:9/v1", "--upstream-api", "soap"],
      /--upstream-api: must be 'responses' or 'chat', got "soap"/,
    ],
    [
      ["proxy", "--port", "0", "--upstream", "http://127.0.0.1:9/v1", "--upstream-key-env", "ORM_TEST_UNSET_VARIABLE"],
      /--upstream-key-env ORM_TEST_UNSET_VARIABLE: the environment variable ORM_TEST_UNSET_VARIABLE is not set/,
    ],
    [
      ["proxy", "--port", "0", "--upstream", "http://127.0.0.1:9/v1", "--upstream-key-env", "sk-looks-like-a-key-123"],
      /--upstream-key-env takes the name of an environment variable .* got 'sk-l…'/,
    ],
    [
      ["proxy", "--port", "0", "--upstream", "http://127.0.0.1:9/v1", "--upstream-timeout-ms", "0"],
      /--upstream-timeout-ms: /,
    ],
  ])("refuses %j, naming the flag", async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toContain("sk-looks-like-a-key-123");
  });
});
