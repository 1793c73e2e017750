/**
 * The battery's report as people read it and as programs read it. Pure:
 * strings out. The readable form lists each check with PASS, FAIL or SKIP,
 * and under a failed one its faults. A fault is a rule broken at one path
 * pattern (indexes generalized): the same fault on many events, or in many
 * checks, is one entry with its count ("×22"); those seen in several checks
 * are listed once, after the checks. `--json` keeps every occurrence under
 * each check and adds the faults as `groups`.
 */
import type { BatteryReport, CheckResult, CheckViolation } from "./battery.js";
import { pathPattern, RULES, type RuleId } from "./rules.js";

const LABEL: Record<CheckResult["outcome"], string> = { pass: "PASS", fail: "FAIL", skipped: "SKIP", info: "INFO" };

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
      if (r.transport === "websocket") {
        if (r.status !== undefined)
          return `WebSocket upgrade answered ${r.status} ${r.contentType ?? "(no content-type)"}`;
        const parts = [`WS ${r.messages ?? 0} messages`];
        if (r.errorEvent) parts.push(`error event ${r.errorEvent.status ?? "?"} ${r.errorEvent.code ?? ""}`.trim());
        if (r.responseStatus) parts.push(r.responseStatus);
        if (r.failure) parts.push(r.messages === undefined ? `no connection: ${r.failure}` : `then ${r.failure}`);
        return parts.join(", ");
      }
      const refused =
        (r.endpoint === "compact" ? "/responses/compact " : "") +
        (r.refusedNonStreamed !== undefined ? `${r.refusedNonStreamed} → sent streamed: ` : "");
      if (r.status === undefined) return `${refused}no answer (${r.failure ?? "connection failed"})`;
      const parts = [`${r.status} ${r.contentType ?? "(no content-type)"}`];
      if (r.messages !== undefined) parts.push(`${r.messages} events`);
      if (r.responseStatus) parts.push(r.responseStatus);
      if (r.failure) parts.push(`cut short: ${r.failure}`);
      return refused + parts.join(", ");
    })
    .join(" → ");
}

/** `check --bridge`: what the upstream received in a check, in one line. */
function upstreamLine(requests: { method: string; path: string; body: unknown }[]): string {
  if (requests.length === 0) return "nothing reached it";
  return requests
    .map((r) => {
      const b = r.body as { messages?: unknown[]; input?: unknown; stream?: unknown; tools?: unknown[] } | undefined;
      const parts: string[] = [];
      if (b && Array.isArray(b.messages)) parts.push(`${b.messages.length} message(s)`);
      if (b && Array.isArray(b.input)) parts.push(`${b.input.length} input item(s)`);
      else if (b && typeof b.input === "string") parts.push("input text");
      if (b && Array.isArray(b.tools)) parts.push(`${b.tools.length} tool(s)`);
      if (b && typeof b === "object") parts.push(`stream ${String(b.stream ?? false)}`);
      return `${r.method} ${r.path}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
    })
    .join("; ");
}

/** One occurrence of a fault, where it was found. */
interface Occurrence {
  check: string;
  v: CheckViolation;
}

/**
 * One fault: the same rule broken at the same path pattern (indexes
 * generalized), however many events, requests and checks it showed on.
 */
export interface ViolationGroup {
  rule: RuleId;
  /** The path with indexes generalized: `$.response.output[*].status`. */
  path: string;
  /** The first occurrence's message. */
  message: string;
  /** Occurrences in all: violations, the events a folded one stands for, and those over the checker's limits. */
  count: number;
  /** The checks it showed in, in the battery's order, with the occurrences in each. */
  checks: { name: string; count: number }[];
}

interface Group extends ViolationGroup {
  occurrences: Occurrence[];
}

const groupKey = (v: CheckViolation) => `${v.rule}\u0000${pathPattern(v.path)}`;

/** The faults of the report, each once, in the order first found. */
function groups(report: BatteryReport): Group[] {
  const out: Group[] = [];
  const byKey = new Map<string, Group>();
  const bump = (g: Group, check: string, n: number) => {
    g.count += n;
    const c = g.checks.find((x) => x.name === check);
    if (c) c.count += n;
    else g.checks.push({ name: check, count: n });
  };
  for (const r of report.results) {
    for (const v of r.violations) {
      const key = groupKey(v);
      let g = byKey.get(key);
      if (!g) {
        g = { rule: v.rule, path: pathPattern(v.path), message: v.message, count: 0, checks: [], occurrences: [] };
        byKey.set(key, g);
        out.push(g);
      }
      g.occurrences.push({ check: r.name, v });
      bump(g, r.name, v.count ?? 1);
    }
    // Violations over the checker's limits are counted per rule: each goes to that rule's largest fault in the check.
    for (const [rule, n] of Object.entries(r.suppressedByRule ?? {}) as [RuleId, number][]) {
      let best: Group | undefined;
      let bestHere = 0;
      for (const g of out) {
        const here = g.rule === rule ? (g.checks.find((c) => c.name === r.name)?.count ?? 0) : 0;
        if (here > bestHere) [best, bestHere] = [g, here];
      }
      if (best) bump(best, r.name, n);
    }
  }
  return out;
}

/** The faults of a report, each once with its count and the checks it showed in (the `--json` report's `groups`). */
export function groupViolations(report: BatteryReport): ViolationGroup[] {
  return groups(report).map((g) => ({
    rule: g.rule,
    path: g.path,
    message: g.message,
    count: g.count,
    checks: g.checks,
  }));
}

/** Where a fault showed, from its occurrences in its first check and request: `request 2 events 0, 1, 8 (…) $.path`. */
function where(g: Group, multiRequest: boolean): string {
  const first = g.occurrences[0];
  const events = g.occurrences
    .filter((o) => o.check === first.check && o.v.request === first.v.request && o.v.event !== undefined)
    .map((o) => ({ index: o.v.event!, type: o.v.eventType }));
  const parts: string[] = [];
  if (multiRequest) parts.push(`request ${first.v.request + 1}`);
  if (events.length === 1) {
    const e = events[0];
    parts.push(`event ${e.index}${e.type ? ` (${e.type})` : ""}`);
  } else if (events.length > 1) {
    const types = [...new Set(events.map((e) => e.type).filter(Boolean))];
    const shown = events
      .slice(0, 8)
      .map((e) => e.index)
      .join(", ");
    const more = events.length > 8 ? `, … (${events.length} listed)` : "";
    const typeList = types.length > 4 ? `${types.slice(0, 4).join(", ")}, …` : types.join(", ");
    parts.push(`events ${shown}${more}${types.length > 0 ? ` (${typeList})` : ""}`);
  }
  const paths = new Set(g.occurrences.map((o) => o.v.path));
  parts.push(paths.size === 1 ? first.v.path : g.path);
  return parts.join(" ");
}

/** A fault's lines: the rule and where, the first message, and (when more than one) the count and the checks. */
function faultLines(g: Group, multiRequest: boolean, across: boolean): string[] {
  const side = g.occurrences[0].v.side;
  const lines = [`      ✗ ${side ? `[${side}] ` : ""}${g.rule}  ${where(g, multiRequest)}`];
  // The distinct messages (numbers aside: "missing on 10 events" and "on 22 events" are one): all when
  // three or fewer, else the first and how many more (the same fault on many events of many types).
  const messages = new Map<string, string>();
  for (const o of g.occurrences) {
    const key = o.v.message.replace(/\d+/g, "#");
    if (!messages.has(key)) messages.set(key, o.v.message);
  }
  const distinct = [...messages.values()];
  for (const m of distinct.length <= 3 ? distinct : distinct.slice(0, 1)) lines.push(`          ${m}`);
  if (distinct.length > 3)
    lines.push(`          … and ${distinct.length - 1} other message(s) like it (--json has them all)`);
  if (across) {
    const shown = g.checks.slice(0, 6).map((c) => `${c.name} (${c.count})`);
    const more = g.checks.length > 6 ? `, … (${g.checks.length} checks)` : "";
    lines.push(`          ×${g.count} in ${g.checks.length} checks: ${shown.join(", ")}${more}`);
  } else if (g.count > 1) lines.push(`          ×${g.count}`);
  return lines;
}

/** The readable report. */
export function formatReport(report: BatteryReport, options: TextReportOptions): string {
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const colour = { pass: "32", fail: "31", skipped: "33", info: "36" } as const;
  const lines: string[] = [];
  lines.push(
    `openresponses-mock check ${options.target}${report.bridge ? ` --bridge (upstream API ${report.bridge.upstreamApi})` : ""} (dialect ${report.dialect}, model ${report.model})`,
  );
  lines.push("");
  for (const hint of report.baseUrl ?? []) lines.push(`base URL: ${hint}`);
  if (report.baseUrl && report.baseUrl.length > 0) lines.push("");
  if (report.unreachable) {
    lines.push(`cannot reach ${options.target}: ${report.unreachable}`);
    return lines.join("\n") + "\n";
  }
  const all = groups(report);
  const shared = all.filter((g) => g.checks.length > 1);
  const width = Math.max(...report.results.map((r) => r.name.length), 4);
  for (const r of report.results) {
    lines.push(`${paint(colour[r.outcome], LABEL[r.outcome])}  ${r.name.padEnd(width)}  ${r.title} — ${answers(r)}`);
    if (r.note) lines.push(`      ${r.outcome === "skipped" ? "not exercised: " : ""}${r.note}`);
    if (r.upstream) lines.push(`      upstream: ${upstreamLine(r.upstream.requests)}`);
    const multi = r.requests.length > 1;
    for (const g of all)
      if (g.checks.length === 1 && g.checks[0].name === r.name) lines.push(...faultLines(g, multi, false));
    const alsoHere = shared.filter((g) => g.checks.some((c) => c.name === r.name));
    if (alsoHere.length > 0)
      lines.push(
        `      and ${alsoHere.length} fault(s) seen in several checks, listed once below: ${alsoHere.map((g) => `${g.rule} ${g.path}`).join(", ")}`,
      );
    for (const n of r.specNotes ?? []) lines.push(`      note: ${n.rule} ${n.path}: ${n.message}`);
  }
  if (shared.length > 0) {
    lines.push("");
    lines.push("In several checks (each fault once; --json lists every occurrence):");
    for (const g of shared) lines.push(...faultLines(g, false, true));
  }
  const s = report.summary;
  lines.push("");
  if (report.streamedInstead.length > 0)
    lines.push(
      `The server refused requests without \`stream\` (501 or 405): ${report.streamedInstead.length} check(s) were judged over streams instead (${report.streamedInstead.join(", ")}).`,
    );
  lines.push(
    `${report.results.length} checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (not exercised)${s.info ? `, ${s.info} informational` : ""}; ${s.violations} violation(s)${all.length > 0 ? ` from ${all.length} distinct fault(s)` : ""}`,
  );
  const rules = [...new Set(all.map((g) => g.rule))];
  if (rules.length > 0) {
    lines.push("");
    lines.push("Rules broken:");
    for (const rule of rules) lines.push(`  ${rule}: ${RULES[rule]}`);
  }
  return lines.join("\n") + "\n";
}

/** The machine-readable report (`--json`): every occurrence under its check, and the faults once each as `groups`. */
export function jsonReport(report: BatteryReport, target: string): string {
  return JSON.stringify({ target, ...report, groups: groupViolations(report) }, null, 2) + "\n";
}
