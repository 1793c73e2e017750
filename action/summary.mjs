// The job summary: the server's journal, read through the admin routes, as markdown.

/** Outcomes that mean the client did not get a full answer. */
const FAILED_OUTCOMES = new Set(["failed", "error", "dropped", "hung", "aborted"]);
/** How many failed requests the summary lists. */
export const LAST_FAILED = 10;

/** Whether a journal entry is a failed request: an HTTP error, or an answer that failed or was cut. */
export const isFailed = (entry) => (entry.status ?? 0) >= 400 || FAILED_OUTCOMES.has(entry.outcome);

/** Every entry of the journal, oldest first, page by page; throws with the status when the routes answer no. */
export async function readJournal(url, apiKey) {
  const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const entries = [];
  let after;
  for (;;) {
    const page = new URL("/__mock/requests", url);
    page.searchParams.set("limit", "1000");
    if (after !== undefined) page.searchParams.set("after", String(after));
    const res = await fetch(page, { headers });
    if (!res.ok) {
      const why = res.status === 404 ? " (are the admin routes off? --no-admin)" : "";
      throw new Error(`GET ${page.pathname} answered ${res.status}${why}`);
    }
    const body = await res.json();
    entries.push(...body.data);
    if (!body.has_more || body.last_seq === null) return entries;
    after = body.last_seq;
  }
}

/** The expectations' report (GET /__mock/verify), or null when it cannot be read. */
export async function readExpectations(url, apiKey) {
  try {
    const res = await fetch(new URL("/__mock/verify", url), {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/** A table cell: one line, pipes escaped. */
const cell = (value) =>
  String(value ?? "")
    .replace(/\r?\n/g, " ")
    .replace(/\|/g, "\\|");
const row = (cells) => `| ${cells.map(cell).join(" | ")} |`;
const count = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** The time of day of an epoch-ms timestamp, UTC (HH:MM:SS.mmm). */
const timeOf = (ms) => (typeof ms === "number" ? new Date(ms).toISOString().slice(11, 23) : "");

/**
 * The summary's markdown: requests counted by scenario and outcome (one row per
 * scenario, one column per outcome, and a total row), the expectations when
 * any were set, and the last failed requests, newest first.
 */
export function summaryMarkdown({ url, entries, expectations, logFile, stopped }) {
  const lines = ["### openresponses-mock", ""];
  lines.push(
    `${count(entries.length, "request")} to ${url}${entries.length > 0 ? ` (journal entries #${entries[0].seq}–#${entries.at(-1).seq})` : ""}; the server ${stopped}.`,
    "",
  );
  if (entries.length > 0) {
    const outcomeOf = (e) => e.outcome ?? "in progress";
    const scenarioOf = (e) => e.scenario ?? "(none)";
    const outcomes = [...new Set(entries.map(outcomeOf))].sort();
    const scenarios = [...new Set(entries.map(scenarioOf))].sort();
    const tally = new Map(scenarios.map((s) => [s, new Map()]));
    for (const e of entries) {
      const byOutcome = tally.get(scenarioOf(e));
      byOutcome.set(outcomeOf(e), (byOutcome.get(outcomeOf(e)) ?? 0) + 1);
    }
    lines.push(row(["Scenario", "Requests", ...outcomes]));
    lines.push(`|---|---:|${outcomes.map(() => "---:|").join("")}`);
    for (const s of scenarios) {
      const byOutcome = tally.get(s);
      const total = [...byOutcome.values()].reduce((a, b) => a + b, 0);
      lines.push(row([s, total, ...outcomes.map((o) => byOutcome.get(o) ?? 0)]));
    }
    const totals = outcomes.map((o) => entries.filter((e) => outcomeOf(e) === o).length);
    lines.push(row(["**all**", `**${entries.length}**`, ...totals.map((n) => `**${n}**`)]));
    lines.push("");
  }
  const reports = expectations?.expectations ?? [];
  if (reports.length > 0) {
    const by = (status) => reports.filter((r) => r.status === status);
    lines.push(
      `Expectations: ${by("met").length} met, ${by("unmet").length} unmet, ${by("pending").length} pending.`,
      "",
    );
    for (const r of by("unmet")) {
      const where = [r.scenario !== null && r.scenario !== undefined ? `scenario ${r.scenario}` : null];
      if (r.turn !== null && r.turn !== undefined) where.push(`turn ${r.turn}`);
      if (r.seq !== null && r.seq !== undefined) where.push(`request #${r.seq}`);
      const context = where.filter(Boolean).join(", ");
      lines.push(`- unmet: \`${r.rule}\`${context ? ` (${context})` : ""}: ${cell(r.message)}`);
    }
    if (by("unmet").length > 0) lines.push("");
  }
  const failed = entries.filter(isFailed);
  if (failed.length > 0) {
    const shown = failed.slice(-LAST_FAILED).reverse();
    lines.push(
      failed.length > shown.length
        ? `The last ${shown.length} of ${failed.length} failed requests, newest first:`
        : `${count(failed.length, "failed request")}, newest first:`,
      "",
    );
    lines.push(row(["#", "Time (UTC)", "Request", "Session", "Status", "Scenario", "Outcome", "Error"]));
    lines.push("|---:|---|---|---|---:|---|---|---|");
    for (const e of shown)
      lines.push(
        row([
          e.seq,
          timeOf(e.at),
          `${e.method} ${e.path}`,
          e.session ?? "",
          e.status ?? "",
          e.scenario ?? "",
          e.outcome ?? "in progress",
          e.errorCode ?? "",
        ]),
      );
    lines.push("");
  } else if (entries.length > 0) lines.push("No request failed.", "");
  if (logFile) lines.push(`The server's log: \`${logFile}\`.`, "");
  return lines.join("\n");
}
