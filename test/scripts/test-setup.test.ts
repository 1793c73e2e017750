/**
 * `npm test`'s set-up (scripts/test.mjs), hermetically: a copy of the script in a temp
 * "repository", a PATH of fake commands only (no chromium, no redis-server; an apt-get and
 * a sudo that record being called), and OPENRESPONSES_MOCK_SETUP_UID standing in for the
 * user. Nothing is installed; the refusals must stop before anything runs.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runProcess } from "../support/run.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/test.mjs", import.meta.url));

let repo: string;
let bin: string;
let calls: string;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), "orm-test-setup-"));
  bin = join(repo, "fake-bin");
  calls = join(repo, "calls.log");
  mkdirSync(join(repo, "scripts"));
  mkdirSync(bin);
  copyFileSync(SCRIPT, join(repo, "scripts", "test.mjs"));
  writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "fake", scripts: {} }));
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** A fake command on the test's PATH that logs its name and arguments, then exits with `code`. */
function fake(name: string, code = 0) {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> "${calls}"\nexit ${code}\n`);
  chmodSync(file, 0o755);
}

const called = () => (existsSync(calls) ? readFileSync(calls, "utf8") : "");

/** The script as `npm test` starts it, as user `uid`, with only the fake commands on PATH. */
async function setUp(uid: number, args: string[] = []) {
  const env = { PATH: bin, HOME: repo, OPENRESPONSES_MOCK_SETUP_UID: String(uid) };
  const run = await runProcess(process.execPath, [join(repo, "scripts", "test.mjs"), ...args], { cwd: repo, env });
  return { ...run, output: run.stdout + run.stderr };
}

describe("npm test's set-up, when it cannot install what the tests need", () => {
  it("stops, not root and no sudo, printing the command to run as root", async () => {
    fake("apt-get");
    const run = await setUp(1000);
    expect(run.code).toBe(1);
    expect(run.output).toContain("it does not run as root and sudo is not installed");
    expect(run.output).toContain("\n    apt-get update && apt-get install -y chromium redis-server\n");
    expect(called()).toBe("");
  });

  it("stops, not root and sudo asks for a password, printing the sudo command", async () => {
    fake("apt-get");
    fake("sudo", 1);
    const run = await setUp(1000);
    expect(run.code).toBe(1);
    expect(run.output).toContain("sudo asks for a password");
    expect(run.output).toContain("\n    sudo apt-get update && sudo apt-get install -y chromium redis-server\n");
    expect(called()).toBe("sudo -n true\n");
    // The README quotes this message.
    const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
    expect(readme).toContain(run.stderr.trim());
  });

  it("stops, as root without apt-get, naming the Debian command", async () => {
    fake("chromium");
    const run = await setUp(0);
    expect(run.code).toBe(1);
    expect(run.output).toContain("there is no apt-get on this machine");
    expect(run.output).toContain("sudo apt-get update && sudo apt-get install -y redis-server\n");
    expect(called()).toBe("");
  });

  it("asks for python3 and its venv module too once python/pyproject.toml exists", async () => {
    mkdirSync(join(repo, "python"));
    writeFileSync(join(repo, "python", "pyproject.toml"), '[project]\nname = "fake"\n');
    fake("apt-get");
    fake("chromium");
    fake("redis-server");
    const run = await setUp(1000);
    expect(run.code).toBe(1);
    expect(run.output).toContain("apt-get install -y python3 python3-venv\n");
    expect(existsSync(join(repo, ".venv"))).toBe(false);
  });
});

describe("npm test's set-up check (--check), which installs nothing", () => {
  it("as root with apt-get, says what it would install", async () => {
    fake("apt-get");
    const run = await setUp(0, ["--check"]);
    expect(run.code).toBe(0);
    expect(run.output).toContain("would install chromium and redis-server");
    expect(called()).toBe("");
  });

  it("with passwordless sudo, would install through sudo", async () => {
    fake("apt-get");
    fake("sudo");
    const run = await setUp(1000, ["--check"]);
    expect(run.code).toBe(0);
    expect(run.output).toContain("would install chromium and redis-server: sudo -n env DEBIAN_FRONTEND=noninteractive");
    expect(called()).toBe("sudo -n true\n");
  });

  it("passes when everything is there, without python/ and so without a virtual environment", async () => {
    fake("chromium");
    fake("redis-server");
    const run = await setUp(1000, ["--check"]);
    expect(run.code).toBe(0);
    expect(run.output).toContain("chromium and redis-server are installed; no python/, so no virtual environment");
    expect(called()).toBe("");
  });
});
