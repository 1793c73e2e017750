/**
 * `npm run lint`'s import check: dependency-cruiser with .dependency-cruiser.cjs
 * over src/, its violations printed `err-long` (rule, from → to, the rule's
 * comment), then one check of its own.
 *
 * That check: dependency-cruiser looks for one cycle through each import and
 * only then asks whether the cycle's imports are all runtime ones (`viaOnly`).
 * When the cycle it finds first has an `import type` in it, a runtime cycle
 * through the same imports can go unreported. So the runtime cycles are also
 * found here exactly, as the strongly connected parts of the graph of runtime
 * imports (cruised once; type-only imports left out), and each one with no
 * `no-circular` violation among its modules is reported under that rule.
 *
 *   node scripts/lint-imports.mjs [--root DIR] [--json]
 *
 * --root cruises DIR/src with DIR/tsconfig.json (the project by default; a
 * test's fixture); --json prints {violations, text} instead of the text.
 * The exit code is the number of errors (at most 255).
 */
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cruise, format } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const PROJECT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = resolve(PROJECT, ".dependency-cruiser.cjs");

/**
 * Cruises `root`/src with the project's rules.
 * @returns {Promise<{violations: {rule: string, severity: string, from: string, to: string, cycle: string[]}[], text: string}>}
 */
export async function lintImports(root = PROJECT) {
  const options = await extractDepcruiseOptions(CONFIG);
  const tsConfigFile = resolve(root, options.tsConfig?.fileName ?? "tsconfig.json");
  const cruised = await cruise(
    ["src"],
    { ...options, baseDir: root, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  const result = /** @type {import("dependency-cruiser").ICruiseResult} */ (cruised.output);
  const violations = result.summary.violations.map((v) => ({
    rule: v.rule.name,
    severity: v.rule.severity,
    from: v.from,
    to: v.to,
    cycle: (v.cycle ?? []).map((c) => c.name),
  }));
  const comment = new Map(result.summary.ruleSetUsed.forbidden.map((r) => [r.name, r.comment]));
  const missed = missedCycles(result.modules, violations);
  violations.push(...missed);

  let text = (await format(result, { outputType: "err-long", ruleSet: result.summary.ruleSetUsed })).output;
  if (missed.length > 0) {
    const blocks = missed.map(
      (v) =>
        `  error no-circular: ${[v.from, ...v.cycle].join(" →\n      ")}\n${wrap(comment.get("no-circular") ?? "")}\n`,
    );
    text +=
      "\nRuntime cycles dependency-cruiser's own search passed over (found by scripts/lint-imports.mjs):\n\n" +
      `${blocks.join("\n")}\nx ${missed.length} more runtime cycle(s) (errors).\n`;
  }
  return { violations, text };
}

/** A rule's comment as err-long prints it: lines of at most 78 characters, indented by 4. */
function wrap(text) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && 4 + line.length + 1 + word.length > 78) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.map((l) => `    ${l}`).join("\n");
}

/**
 * The runtime cycles (type-only imports left out) that no reported
 * `no-circular` violation touches: one cycle for each strongly connected
 * part of the runtime graph that has none.
 */
function missedCycles(modules, violations) {
  /** @type {Map<string, string[]>} */
  const next = new Map();
  for (const m of modules) {
    const runtime = m.dependencies.filter((d) => !d.dependencyTypes.includes("type-only")).map((d) => d.resolved);
    next.set(m.source, [...new Set(runtime)]);
  }
  const reported = new Set(violations.filter((v) => v.rule === "no-circular").flatMap((v) => [v.from, ...v.cycle]));
  const missed = [];
  for (const part of stronglyConnected(next)) {
    if (part.some((m) => reported.has(m))) continue;
    const cycle = cycleThrough(part[0], new Set(part), next);
    missed.push({ rule: "no-circular", severity: "error", from: part[0], to: cycle[0], cycle });
  }
  return missed;
}

/** Tarjan's algorithm, iterative; the parts with a cycle (two modules or more, or a module importing itself). */
function stronglyConnected(next) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const parts = [];
  let counter = 0;
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const targets = next.get(v) ?? [];
      if (i < targets.length) {
        frame[1]++;
        const w = targets[i];
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const part = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          part.push(w);
        } while (w !== v);
        if (part.length > 1 || targets.includes(v)) parts.push(part.reverse());
      }
    }
  }
  return parts;
}

/** A shortest cycle from `start` back to it inside `part` (breadth first): the modules after `start`, ending with it. */
function cycleThrough(start, part, next) {
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of next.get(v) ?? []) {
      if (!part.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = cameFrom.get(u)) path.unshift(u);
        return path;
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--root");
  const root = at >= 0 ? resolve(args[at + 1]) : PROJECT;
  const { violations, text } = await lintImports(root);
  process.stdout.write(args.includes("--json") ? `${JSON.stringify({ violations, text })}\n` : text);
  process.exitCode = Math.min(violations.filter((v) => v.severity === "error").length, 255);
}
