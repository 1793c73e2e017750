/**
 * The README's fenced code blocks, for the tests that check them
 * (test/readme.test.ts, test/readme-vitest.test.ts): each with its language,
 * its text, the line it starts on and the `##` section it is in, and, for a
 * ```ts block, how it is checked.
 */
import { readFileSync } from "node:fs";

export const ROOT = new URL("../../", import.meta.url);
export const README_PATH = new URL("README.md", ROOT);

export interface CodeBlock {
  /** The fence's info string: `ts`, `sh`, `json`, … ("" when none). */
  lang: string;
  /** The block's text, without the fences, ending with a newline. */
  code: string;
  /** README line (1-based) of the block's first line of code. */
  line: number;
  /** The `## ` heading the block is under. */
  section: string;
}

/**
 * How a ```ts block is checked (every one is type-checked first):
 * - `vitest`: a vitest test file (it imports "vitest"), run as vitest tests;
 * - `jest`: a jest test file (it imports "@jest/globals"), run by jest (ESM);
 * - `node-test`: a node:test file, run with `node --test`;
 * - `program`: a complete program (it starts its own server, or needs none), run with node;
 * - `fragment`: code that uses a running server named `mock`, run inside a
 *   harness that starts one on port 0 and closes it after.
 */
export type SnippetKind = "vitest" | "jest" | "node-test" | "program" | "fragment";

export function readmeText(): string {
  return readFileSync(README_PATH, "utf8");
}

/** Every fenced block of a markdown text (fences at the start of a line). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]);
    if (heading) section = heading[1].trim();
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
    if (end === lines.length) throw new Error(`README.md:${i + 1}: a code fence is never closed`);
    blocks.push({ lang: open[1], code: lines.slice(start, end).join("\n") + "\n", line: start + 1, section });
    i = end;
  }
  return blocks;
}

const imports = (code: string, module: string) => new RegExp(`^import [^\\n]*from "${module}";?$`, "m").test(code);

export function snippetKind(code: string): SnippetKind {
  if (imports(code, "vitest")) return "vitest";
  if (imports(code, "@jest/globals")) return "jest";
  if (imports(code, "node:test")) return "node-test";
  const definesMock = /\b(?:const|let|var|using)\s+mock\b/.test(code);
  return !definesMock && /\bmock\b/.test(code) ? "fragment" : "program";
}

/** A fragment split into its import lines (hoisted by the harness) and its body. */
export function splitImports(code: string): { imports: string[]; body: string[]; importLines: number } {
  const lines = code.replace(/\n$/, "").split("\n");
  let i = 0;
  const head: string[] = [];
  while (i < lines.length && (lines[i].startsWith("import ") || (lines[i].trim() === "" && head.length > 0))) {
    if (lines[i].trim() !== "") {
      if (!/ from "[^"]+";$|^import "[^"]+";$/.test(lines[i]))
        throw new Error(`an import must fit on one line and end with ';': ${lines[i]}`);
      head.push(lines[i]);
    }
    i++;
  }
  const body = lines.slice(i);
  const late = body.find((l) => l.startsWith("import "));
  if (late) throw new Error(`imports must come first in a snippet: ${late}`);
  return { imports: head, body, importLines: i };
}

/** The ```ts blocks, with their kinds. */
export function tsSnippets(markdown = readmeText()): Array<CodeBlock & { kind: SnippetKind }> {
  return codeBlocks(markdown)
    .filter((b) => b.lang === "ts")
    .map((b) => ({ ...b, kind: snippetKind(b.code) }));
}
