/**
 * Loading scenario files from disk — the only file-system code of the
 * scenario layer. Paths may be files or folders (every *.json inside, sorted,
 * recursively, but not `node_modules` nor dot-folders and dot-files, nor
 * service files found in a folder). All problems of all files are reported together.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ScenarioError, parseScenarioText, validateScenario, type ScenarioIssue } from "./parse.js";
import type { Scenario, ScenarioInput } from "./schema.js";
import { isServiceDocument } from "../service/parse.js";

/** Whether a file's text is a service file's (its JSON is, by isServiceDocument); not JSON: no. */
function isServiceText(text: string): boolean {
  try {
    return isServiceDocument(JSON.parse(text));
  } catch {
    return false;
  }
}

/** The shipped library: `scenarios/` at the package root. */
export const LIBRARY_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));

/** A scenario and where it came from. */
export interface LoadedScenario {
  scenario: Scenario;
  source: string;
}

/**
 * Entries a folder walk never enters or reads: `node_modules` and dot-entries
 * (`.git`, `.vscode`, `.eslintrc.json`, …), which hold no scenarios of the
 * user's. A path given by name is read even so.
 */
export const skippedInWalk = (name: string): boolean => name === "node_modules" || name.startsWith(".");

/** The `*.json` files a path stands for: itself, or (a folder) every one under it, sorted, but not `*.schema.json`. */
export async function jsonFiles(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (skippedInWalk(e.name)) continue;
    const full = join(path, e.name);
    if (e.isDirectory()) out.push(...(await jsonFiles(full)));
    else if (e.isFile() && e.name.endsWith(".json") && !e.name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

/** A path as messages show it: relative to the working folder when under it. */
export const displayPath = (file: string) => {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
};

/**
 * Loads scenarios from paths (files or folders) and inline objects. Throws a
 * ScenarioError listing every problem (file, JSON path, message) — unreadable
 * files, invalid JSON, schema errors and duplicate names.
 */
export async function loadScenarios(
  sources: readonly (string | ScenarioInput | Record<string, unknown>)[],
): Promise<LoadedScenario[]> {
  const issues: ScenarioIssue[] = [];
  const loaded: LoadedScenario[] = [];
  for (const [i, source] of sources.entries()) {
    if (typeof source !== "string") {
      const label = `scenarios[${i}]`;
      try {
        loaded.push({ scenario: validateScenario(source, label), source: label });
      } catch (err) {
        if (err instanceof ScenarioError) issues.push(...err.issues);
        else throw err;
      }
      continue;
    }
    let files: string[];
    try {
      files = await jsonFiles(resolve(source));
    } catch (err) {
      issues.push({
        file: source,
        path: "$",
        message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      });
      continue;
    }
    const walked = files.length !== 1 || files[0] !== resolve(source);
    for (const file of files) {
      const name = displayPath(file);
      try {
        const text = await readFile(file, "utf8");
        // A service file in a folder of scenarios is the service's (serve --service FILE), not a broken scenario.
        if (walked && isServiceText(text)) continue;
        loaded.push({ scenario: parseScenarioText(text, name), source: name });
      } catch (err) {
        if (err instanceof ScenarioError) issues.push(...err.issues);
        else
          issues.push({
            file: name,
            path: "$",
            message: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
          });
      }
    }
  }
  const seen = new Map<string, string>();
  for (const { scenario, source } of loaded) {
    const first = seen.get(scenario.name);
    if (first !== undefined)
      issues.push({
        file: source,
        path: "$.name",
        message: `duplicate scenario name '${scenario.name}' (also in ${first})`,
      });
    else seen.set(scenario.name, source);
  }
  if (issues.length > 0) throw new ScenarioError(issues);
  return loaded;
}
