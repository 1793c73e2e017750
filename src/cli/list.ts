/** `list`: the scenarios of a registry as aligned lines. Pure. */
import type { ScenarioRegistry } from "../scenario/registry.js";

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * One `NAME  DESCRIPTION` line per scenario, in load order (the order match
 * rules are tried in; the built-in `auto` first), names padded to one column,
 * the default marked `NAME (default)`. A scenario without a description (it
 * is optional) is its name alone, with no trailing blanks.
 */
export function formatList(registry: ScenarioRegistry): string {
  const rows = registry.scenarios.map((s) => ({
    name: s === registry.defaultScenario ? `${s.name} (default)` : s.name,
    description: oneLine(s.description ?? ""),
  }));
  const width = Math.max(...rows.map((r) => r.name.length));
  return rows
    .map((r) => (r.description === "" ? `${r.name}\n` : `${r.name.padEnd(width)}  ${r.description}\n`))
    .join("");
}
