// `npm run build:python`: bundles the built server into the Python package, so that
// `pip install` of it is all a Python user needs (besides Node.js on PATH).
//
// It copies into python/src/openresponses_mock/_node/ (git-ignored; replaced whole each
// time): package.json, LICENSE, dist/ (built by `npm run build` first), scenarios/, the
// two schemas, and the production dependencies from node_modules/ — exactly the packages
// `npm ls --omit=dev --all` lists, each at the path npm installed it at, without its own
// nested node_modules/ (the nested production ones are listed, and copied, themselves).
// The same checkout and the same `npm ci` give the same files.
//
// `--out DIR` writes the bundle to DIR instead (the Python tests build one in a temporary
// folder to run the server from it alone).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DEFAULT_OUT = join(ROOT, "python", "src", "openresponses_mock", "_node");

const argv = process.argv.slice(2);
let out = DEFAULT_OUT;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--out" && argv[i + 1]) out = resolve(argv[++i]);
  else {
    console.error(`build:python: unknown argument '${argv[i]}' (it takes --out DIR)`);
    process.exit(1);
  }
}

if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
  console.error("build:python: dist/ is not built: run `npm run build` first (npm run build:python does).");
  process.exit(1);
}

const ls = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: ROOT, encoding: "utf8" });
if (ls.error || ls.status !== 0) {
  console.error(`build:python: npm ls --omit=dev failed (run npm ci first):\n${ls.stderr ?? ls.error}`);
  process.exit(1);
}
const packages = ls.stdout
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && resolve(line) !== resolve(ROOT))
  .map((line) => relative(ROOT, line))
  .sort();
for (const pkg of packages) {
  if (isAbsolute(pkg) || pkg.startsWith("..") || !pkg.startsWith(`node_modules${sep}`)) {
    console.error(`build:python: npm ls listed a package outside node_modules/: ${pkg}`);
    process.exit(1);
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const file of ["package.json", "LICENSE", "scenario.schema.json", "service.schema.json"])
  cpSync(join(ROOT, file), join(out, file));
for (const dir of ["dist", "scenarios"]) cpSync(join(ROOT, dir), join(out, dir), { recursive: true });
for (const pkg of packages) {
  const from = join(ROOT, pkg);
  mkdirSync(dirname(join(out, pkg)), { recursive: true });
  cpSync(from, join(out, pkg), {
    recursive: true,
    dereference: true,
    // Nested node_modules/ hold other packages: those in production are listed themselves.
    filter: (src) => !relative(from, src).split(sep).includes("node_modules"),
  });
}
console.log(
  `build:python: the server, with ${packages.length} production packages, is in ${out.startsWith(ROOT) ? relative(ROOT, out) : out}`,
);
