// `npm test`: sets up what the tests need, then runs them all.
//
// 1. Set-up. The system packages the tests drive: Debian's `chromium` (the inspector's
//    browser tests, /usr/bin/chromium through playwright-core) and `redis-server` (the
//    shared-store tests start one on a free port). Missing ones are installed with
//    apt-get (`apt-get update` first) when this runs as root or has passwordless sudo;
//    otherwise it stops here, before building, printing the command to run.
//    When python/pyproject.toml exists, the Python package's tests need a virtual
//    environment: `.venv` at the repository root (git-ignored), made with
//    `python3 -m venv`, the package installed into it with `pip install -e "./python[test]"`
//    (again whenever python/pyproject.toml changes); python3 with venv is then one more
//    Debian package need (python3, python3-venv). Without python/ this step does nothing.
// 2. `npm run lint` when package.json defines it, else `npm run format:check`.
// 3. `npm run test:only` (build, type-check, vitest run); arguments after `npm test --` go
//    to vitest.
// 4. With python/pyproject.toml: pytest, from python/, in the virtual environment.
//
// `node scripts/test.mjs --check` runs the set-up's check only: it installs nothing and
// runs nothing, says what it would install, and exits 1 when something is missing that it
// cannot install. OPENRESPONSES_MOCK_SKIP_SETUP=1 skips step 1. For the tests of this
// script only, OPENRESPONSES_MOCK_SETUP_UID stands in for the user id.
// See docs/contributing.md.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PYPROJECT = join(ROOT, "python", "pyproject.toml");
const VENV = join(ROOT, ".venv");
const VENV_PYTHON = join(VENV, "bin", "python");
const VENV_STAMP = join(VENV, ".openresponses-mock-pyproject.sha256");

const argv = process.argv.slice(2);
const checkOnly = argv[0] === "--check";
const forwarded = checkOnly ? [] : argv;

const say = (line) => console.log(`npm test: ${line}`);

/** The executable `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs a command with the terminal; exits with its status when it fails. */
function run(command, args, options = {}) {
  console.log(`> ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit", cwd: ROOT, ...options });
  if (result.error) {
    console.error(`npm test: cannot run ${command}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const hasPython = existsSync(PYPROJECT);

/** Debian packages the tests need and this machine lacks. */
function missingPackages() {
  const missing = [];
  if (!onPath("chromium")) missing.push("chromium");
  if (!onPath("redis-server")) missing.push("redis-server");
  if (hasPython && !existsSync(VENV_PYTHON)) {
    const venvWorks = spawnSync("python3", ["-c", "import venv, ensurepip"], { stdio: "ignore" });
    if (venvWorks.error || venvWorks.status !== 0) missing.push("python3", "python3-venv");
  }
  return missing;
}

/** How packages can be installed here: the command prefix, or why not. */
function installer() {
  const envUid = process.env.OPENRESPONSES_MOCK_SETUP_UID;
  const uid = envUid !== undefined && envUid !== "" ? Number(envUid) : (process.getuid?.() ?? -1);
  if (!onPath("apt-get")) return { why: "there is no apt-get on this machine", noAptGet: true };
  if (uid === 0) return { prefix: [] };
  if (!onPath("sudo")) return { why: "it does not run as root and sudo is not installed", noSudo: true };
  const sudo = spawnSync("sudo", ["-n", "true"], { stdio: "ignore" });
  if (sudo.error || sudo.status !== 0) return { why: "it does not run as root and sudo asks for a password" };
  return { prefix: ["sudo", "-n"] };
}

function setUp() {
  const missing = missingPackages();
  if (missing.length === 0) {
    say(`chromium and redis-server are installed${hasPython ? "" : "; no python/, so no virtual environment"}`);
  } else {
    const how = installer();
    const names = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing.at(-1)}`;
    if (how.why) {
      const sudo = how.noSudo ? "" : "sudo ";
      const command = `${sudo}apt-get update && ${sudo}apt-get install -y ${missing.join(" ")}`;
      console.error(
        [
          `npm test: the tests need ${names}, which ${missing.length === 1 ? "is" : "are"} not installed, and npm test cannot install them: ${how.why}.`,
          how.noAptGet
            ? "Install them with your system's package manager (Chromium as /usr/bin/chromium), then run npm test again. On Debian or Ubuntu:"
            : `${how.noSudo ? "As root, run" : "Run"} this, then npm test again:`,
          "",
          `    ${command}`,
          "",
        ].join("\n"),
      );
      process.exit(1);
    }
    const [first, ...rest] = [...how.prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"];
    if (checkOnly) {
      say(`would install ${names}: ${[first, ...rest].join(" ")} update, then install -y ${missing.join(" ")}`);
      return;
    }
    say(`installing ${names} with apt-get`);
    run(first, [...rest, "update", "-q"]);
    run(first, [...rest, "install", "-y", "-q", "-o", "DPkg::Lock::Timeout=300", ...missing]);
    const still = missingPackages();
    if (still.length > 0) {
      console.error(`npm test: apt-get installed ${missing.join(", ")}, yet ${still.join(", ")} is still missing.`);
      process.exit(1);
    }
  }
  if (!hasPython || checkOnly) return;
  if (!existsSync(VENV_PYTHON)) {
    say("making the Python virtual environment .venv");
    run("python3", ["-m", "venv", VENV]);
  }
  const hash = createHash("sha256").update(readFileSync(PYPROJECT)).digest("hex");
  const installed = existsSync(VENV_STAMP) ? readFileSync(VENV_STAMP, "utf8").trim() : "";
  if (installed !== hash) {
    say("installing the Python package (python/) and its test dependencies into .venv");
    // One retry, not pip's five with backoff: where an index in pip's configuration cannot be
    // reached at all (a machine that has only a local index), five cost minutes for nothing.
    run(VENV_PYTHON, ["-m", "pip", "install", "-q", "-e", "./python[test]"], {
      env: { ...process.env, PIP_RETRIES: process.env.PIP_RETRIES ?? "1" },
    });
    writeFileSync(VENV_STAMP, `${hash}\n`);
  }
}

if (process.env.OPENRESPONSES_MOCK_SKIP_SETUP === "1" && !checkOnly) {
  say("OPENRESPONSES_MOCK_SKIP_SETUP=1: no set-up checks or installs");
} else {
  setUp();
}
if (checkOnly) process.exit(0);

// npm itself: the one running this script, else the one on PATH.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
const npmRun = (...args) => run(npm[0], [...npm.slice(1), "run", ...args]);

const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts ?? {};
npmRun(scripts.lint ? "lint" : "format:check");
npmRun("test:only", ...(forwarded.length > 0 ? ["--", ...forwarded] : []));
if (hasPython) run(VENV_PYTHON, ["-m", "pytest"], { cwd: join(ROOT, "python") });
