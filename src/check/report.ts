/**
 * The battery's report as people read it and as programs read it. Pure:
 * strings out. The readable form lists each check with PASS, FAIL or SKIP,
 * and under a failed one its violations, one line each, the same fault on
 * several events folded into one line ("events 0, 1, 8").
 */
import type { BatteryReport, CheckResult, CheckViolation } from "./battery.js";
import { RULES } from "./rules.js";

const LABEL: Record<CheckResult["outcome"], string> = { pass: "PASS", fail: "FAIL", skipped: "SKIP" };

export interface TextReportOptions {
  /** The base URL checked, for the heading. */
  target: string;
  /** ANSI colours (for a terminal). */
  color?: boolean;
}

/** One line about what a check's requests got back: `200 text/event-stream, 22 events, completed`. */
function answers(result: CheckResult): string {
  return result.requests
    .map((r) => {
      if (r.status === undefined) return `no answer (${r.failure ?? "connection failed"})`;
      const parts = [`${r.status} ${r.contentType ?? "(no content-type)"}`];
      if (r.messages !== undefined) parts.push(`${r.messages} events`);
      if (r.responseStatus) parts.push(r.responseStatus);
      if (r.failure) parts.push(`cut short: ${r.failure}`);
      return parts.join(", ");
    })
    .join(" → ");
}

/** Folds the same fault on several events into one entry. */
function grouped(
  violations: readonly CheckViolation[],
): { v: CheckViolation; events: { index: number; type?: string }[] }[] {
  const out: { v: CheckViolation; events: { index: number; type?: string }[] }[] = [];
  const byKey = new Map<string, (typeof out)[number]>();
  for (const v of violations) {
    const key = `${v.request}\u0000${v.rule}\u0000${v.path}\u0000${v.message}`;
    const seen = byKey.get(key);
    if (seen) {
      if (v.event !== undefined) seen.events.push({ index: v.event, type: v.eventType });
      continue;
    }
    const entry = { v, events: v.event !== undefined ? [{ index: v.event, type: v.eventType }] : [] };
    byKey.set(key, entry);
    out.push(entry);
  }
  return out;
}

function where(
  entry: { v: CheckViolation; events: { index: number; type?: string }[] },
  multiRequest: boolean,
): string {
  const parts: string[] = [];
  if (multiRequest) parts.push(`request ${entry.v.request + 1}`);
  if (entry.events.length === 1) {
    const e = entry.events[0];
    parts.push(`event ${e.index}${e.type ? ` (${e.type})` : ""}`);
  } else if (entry.events.length > 1) {
    const types = [...new Set(entry.events.map((e) => e.type).filter(Boolean))];
    const shown = entry.events
      .slice(0, 8)
      .map((e) => e.index)
      .join(", ");
    const more = entry.events.length > 8 ? `, … (${entry.events.length} events)` : "";
    const typeList = types.length > 4 ? `${types.slice(0, 4).join(", ")}, …` : types.join(", ");
    parts.push(`events ${shown}${more}${types.length > 0 ? ` (${typeList})` : ""}`);
  }
  parts.push(entry.v.path);
  return parts.join(" ");
}

/** The readable report. */
export function formatReport(report: BatteryReport, options: TextReportOptions): string {
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const colour = { pass: "32", fail: "31", skipped: "33" } as const;
  const lines: string[] = [];
  lines.push(`openresponses-mock check ${options.target} (dialect ${report.dialect}, model ${report.model})`);
  lines.push("");
  if (report.unreachable) {
    lines.push(`cannot reach ${options.target}: ${report.unreachable}`);
    return lines.join("\n") + "\n";
  }
  const width = Math.max(...report.results.map((r) => r.name.length), 4);
  for (const r of report.results) {
    lines.push(`${paint(colour[r.outcome], LABEL[r.outcome])}  ${r.name.padEnd(width)}  ${r.title} — ${answers(r)}`);
    if (r.note) lines.push(`      ${r.outcome === "skipped" ? "not exercised: " : ""}${r.note}`);
    const multi = r.requests.length > 1;
    for (const entry of grouped(r.violations)) {
      lines.push(`      ✗ ${entry.v.rule}  ${where(entry, multi)}`);
      lines.push(`          ${entry.v.message}`);
    }
    if (r.suppressed > 0) lines.push(`      … and ${r.suppressed} more violation(s) not listed`);
  }
  const s = report.summary;
  lines.push("");
  lines.push(
    `${report.results.length} checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (not exercised); ${s.violations} violation(s)`,
  );
  const rules = [...new Set(report.results.flatMap((r) => r.violations.map((v) => v.rule)))];
  if (rules.length > 0) {
    lines.push("");
    lines.push("Rules broken:");
    for (const rule of rules) lines.push(`  ${rule}: ${RULES[rule]}`);
  }
  return lines.join("\n") + "\n";
}

/** The machine-readable report (`--json`). */
export function jsonReport(report: BatteryReport, target: string): string {
  return JSON.stringify({ target, ...report }, null, 2) + "\n";
}
