/** `list`: the scenarios of a registry (or the latency profiles of a service) as aligned lines. Pure. */
import type { ScenarioRegistry } from "../scenario/registry.js";
import type { Service } from "../service/service.js";

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

/**
 * `list --profiles`: one aligned line per latency profile (built-in first,
 * then the service file's), `NAME  ttft MEDIAN/P99 ms  itl MEDIAN/P99 ms
 * slowdown k=K capacity=C  DESCRIPTION`, the server's default marked
 * `NAME (default)` (`instant` when none is set).
 */
export function formatProfiles(service: Service): string {
  const fallback = service.profile ?? "instant";
  const rows = [...service.profiles.values()].map((p) => [
    p.name === fallback ? `${p.name} (default)` : p.name,
    `ttft ${p.ttft.medianMs}/${p.ttft.p99Ms} ms`,
    `itl ${p.itl.medianMs}/${p.itl.p99Ms} ms`,
    `slowdown k=${p.slowdown.k} capacity=${p.slowdown.capacity}`,
    oneLine(p.description),
  ]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map(
      (r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
          .join("  ")
          .trimEnd() + "\n",
    )
    .join("");
}
