/**
 * The inspector's page: asks for the API key when the server wants one, then
 * follows the journal live (newest first, rows updated in place as requests
 * end), filters it, and opens one request in the detail pane.
 */
import { Api, ApiFailure, KeyError } from "./api.js";
import { showDetail } from "./detail.js";
import { byId, h } from "./dom.js";
import {
  EMPTY_FILTER,
  EntryList,
  NO_SESSION,
  isEntry,
  matches,
  outcomeTone,
  rowCells,
  type Entry,
  type Filter,
} from "./model.js";

/** The columns of the list, in order: a cell's key and its header. */
const COLUMNS = [
  ["time", "Time"],
  ["request", "Request"],
  ["model", "Model"],
  ["scenario", "Scenario (why)"],
  ["status", "Status"],
  ["outcome", "Outcome"],
  ["streamed", "Stream"],
  ["duration", "Duration"],
  ["session", "Session"],
] as const;

const api = new Api();
const entries = new EntryList();
const rows = new Map<number, HTMLTableRowElement>();
let filter: Filter = { ...EMPTY_FILTER };
let openSeq: number | null = null;
let stopDetail: (() => void) | null = null;
let following: AbortController | null = null;

const el = {
  status: byId("conn"),
  keyForm: byId<HTMLFormElement>("key-form"),
  keyInput: byId<HTMLInputElement>("key-input"),
  keyError: byId("key-error"),
  main: byId("main"),
  clear: byId<HTMLButtonElement>("clear"),
  filters: byId<HTMLFormElement>("filters"),
  session: byId<HTMLSelectElement>("f-session"),
  scenario: byId<HTMLSelectElement>("f-scenario"),
  statusFilter: byId<HTMLSelectElement>("f-status"),
  text: byId<HTMLInputElement>("f-text"),
  tbody: byId<HTMLTableSectionElement>("rows"),
  count: byId("count"),
  empty: byId("empty"),
  detail: byId("detail"),
};

function setConnection(state: "live" | "down" | "key" | "connecting", text: string): void {
  el.status.className = `conn c-${state}`;
  el.status.textContent = text;
}

// ---- The key --------------------------------------------------------------

function askForKey(message: string): void {
  following?.abort();
  following = null;
  el.main.hidden = true;
  el.clear.hidden = true;
  el.keyForm.hidden = false;
  el.keyError.textContent = message;
  setConnection("key", "API key needed");
  el.keyInput.focus();
}

el.keyForm.addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const key = el.keyInput.value.trim();
  if (key === "") {
    el.keyError.textContent = "Enter the key the server was started with (--api-key).";
    return;
  }
  api.setKey(key);
  el.keyError.textContent = "Checking…";
  try {
    await api.probe();
  } catch (err) {
    api.setKey(null);
    el.keyError.textContent =
      err instanceof KeyError
        ? `That key was refused (401): ${err.message}`
        : `The server did not answer: ${err instanceof Error ? err.message : String(err)}`;
    el.keyInput.select();
    return;
  }
  el.keyInput.value = "";
  el.keyForm.hidden = true;
  start();
});

const onKey = (err: KeyError) => {
  api.setKey(null);
  askForKey(err.missing ? "" : `The key was refused (401): ${err.message}`);
};

// ---- The list ---------------------------------------------------------------

/** The row of an entry, its cells filled (created once, updated in place after). */
function renderRow(e: Entry): HTMLTableRowElement {
  let tr = rows.get(e.seq);
  if (!tr) {
    tr = h("tr", { "data-seq": e.seq });
    for (const [key] of COLUMNS) {
      if (key === "time")
        tr.append(
          h(
            "td",
            { class: "c-time" },
            h("button", { type: "button", class: "open", "aria-label": `Open request #${e.seq}` }),
          ),
        );
      else tr.append(h("td", { class: `c-${key}` }));
    }
    tr.addEventListener("click", (ev) => {
      if ((ev.target as HTMLElement).closest("button") === null) open(e.seq);
    });
    tr.querySelector("button")!.addEventListener("click", () => open(e.seq));
    rows.set(e.seq, tr);
    insertRow(tr, e.seq);
  }
  const cells = rowCells(e);
  const tds = tr.children;
  COLUMNS.forEach(([key], i) => {
    const target = key === "time" ? (tds[i].firstElementChild as HTMLElement) : (tds[i] as HTMLElement);
    if (target.textContent !== cells[key]) target.textContent = cells[key];
    target.title = key === "request" || key === "scenario" || key === "session" || key === "model" ? cells[key] : "";
  });
  tr.dataset.outcome = e.outcome ?? "running";
  tr.dataset.tone = outcomeTone(e.outcome);
  tr.dataset.status = String(e.status);
  tr.hidden = !matches(e, filter);
  tr.classList.toggle("open-row", e.seq === openSeq);
  return tr;
}

/** Keeps the rows newest first: a row goes before the first row with a smaller seq. */
function insertRow(tr: HTMLTableRowElement, seq: number): void {
  const first = el.tbody.firstElementChild as HTMLTableRowElement | null;
  if (!first || Number(first.dataset.seq) < seq) return void el.tbody.prepend(tr);
  for (const row of el.tbody.children as HTMLCollectionOf<HTMLTableRowElement>) {
    if (Number(row.dataset.seq) < seq) return void el.tbody.insertBefore(tr, row);
  }
  el.tbody.append(tr);
}

/** Removes rows; the request opened is closed with its row unless `keepOpen` (a reconnection sends it again). */
function removeRows(seqs: number[], keepOpen = false): void {
  for (const seq of seqs) {
    rows.get(seq)?.remove();
    rows.delete(seq);
    if (seq === openSeq && !keepOpen) closeDetail();
  }
}

function updateCount(): void {
  let shown = 0;
  for (const tr of rows.values()) if (!tr.hidden) shown++;
  const total = entries.size;
  el.count.textContent =
    total === 0
      ? ""
      : shown === total
        ? `${total} request${total === 1 ? "" : "s"}`
        : `${shown} of ${total} requests shown`;
  el.empty.hidden = total !== 0;
  if (total === 0) el.empty.textContent = emptyText();
  else el.empty.hidden = shown !== 0 ? true : ((el.empty.textContent = "No request matches the filters."), false);
}

const emptyText = () => `No requests yet. Point a client at ${location.origin}/v1 and they appear here as they arrive.`;

/** Rebuilds a select's options from the values seen, keeping its choice. */
function fillSelect(select: HTMLSelectElement, first: [string, string][], values: [string, string][]): void {
  const want = [...first, ...values];
  const have = [...select.options].map((o) => `${o.value}\u0001${o.textContent}`);
  if (have.join("\u0002") === want.map(([v, t]) => `${v}\u0001${t}`).join("\u0002")) return;
  const chosen = select.value;
  select.replaceChildren(...want.map(([value, text]) => h("option", { value }, text)));
  select.value = want.some(([v]) => v === chosen) ? chosen : "";
}

function updateFilterChoices(): void {
  const sessions = entries.values((e) => e.session);
  const none = entries.list().some((e) => e.session === null);
  fillSelect(
    el.session,
    [["", "any session"], ...(none ? [[NO_SESSION, "(no session)"] as [string, string]] : [])],
    sessions.map((s) => [s, s]),
  );
  fillSelect(
    el.scenario,
    [["", "any scenario"]],
    entries.values((e) => e.scenario).map((s) => [s, s]),
  );
  const outcomes = entries.values((e) => e.outcome);
  fillSelect(
    el.statusFilter,
    [
      ["", "any status"],
      ["2xx", "2xx"],
      ["4xx", "4xx"],
      ["5xx", "5xx"],
      ["pending", "running"],
    ],
    outcomes.map((o) => [o, o]),
  );
}

function applyFilter(): void {
  filter = {
    session: el.session.value,
    scenario: el.scenario.value,
    status: el.statusFilter.value,
    text: el.text.value,
  };
  for (const [seq, tr] of rows) tr.hidden = !matches(entries.get(seq)!, filter);
  updateCount();
}

el.filters.addEventListener("input", applyFilter);
el.filters.addEventListener("change", applyFilter);
el.filters.addEventListener("submit", (ev) => ev.preventDefault());

/** Arrow keys move between the visible rows' open buttons. */
el.tbody.addEventListener("keydown", (ev) => {
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  const visible = [...rows.values()]
    .filter((tr) => !tr.hidden)
    .sort((a, b) => Number(b.dataset.seq) - Number(a.dataset.seq));
  const here = visible.findIndex((tr) => tr.contains(document.activeElement));
  const next = visible[here + (ev.key === "ArrowDown" ? 1 : -1)];
  if (!next) return;
  ev.preventDefault();
  next.querySelector("button")!.focus();
});

el.clear.addEventListener("click", async () => {
  try {
    await api.clear();
    // The stream's `clear` event empties the list; do it now too, in case the stream is down.
    removeRows(entries.clear());
    updateFilterChoices();
    updateCount();
  } catch (err) {
    if (err instanceof KeyError) onKey(err);
    else setConnection("down", `Clear failed: ${err instanceof Error ? err.message : String(err)}`);
  }
});

// ---- The detail pane ----------------------------------------------------------

function open(seq: number): void {
  const e = entries.get(seq);
  if (!e) return;
  rows.get(openSeq ?? -1)?.classList.remove("open-row");
  openSeq = seq;
  rows.get(seq)?.classList.add("open-row");
  stopDetail?.();
  stopDetail = showDetail(el.detail, e, { api, onKey });
  el.detail.hidden = false;
}

function closeDetail(): void {
  stopDetail?.();
  stopDetail = null;
  openSeq = null;
  el.detail.replaceChildren(
    h("p", { class: "placeholder" }, "Select a request to see its body, its answer on a timeline and its conformance."),
  );
}

// ---- The live journal ---------------------------------------------------------

function onEntry(e: Entry): void {
  const before = entries.get(e.seq);
  entries.upsert(e);
  renderRow(e);
  // The open request ended: show its answer.
  if (e.seq === openSeq && before?.outcome === null && e.outcome !== null) open(e.seq);
}

let pendingChoices = false;
function refreshSoon(): void {
  if (pendingChoices) return;
  pendingChoices = true;
  requestAnimationFrame(() => {
    pendingChoices = false;
    updateFilterChoices();
    updateCount();
  });
}

function start(): void {
  el.main.hidden = false;
  el.clear.hidden = false;
  el.keyForm.hidden = true;
  following?.abort();
  following = new AbortController();
  setConnection("connecting", "connecting…");
  void api.follow(
    {
      onOpen() {
        // A (re)connection sends its backlog again: start from it (what was cleared meanwhile goes).
        removeRows(entries.clear(), true);
        setConnection("live", "live");
        refreshSoon();
      },
      onEvent(ev) {
        let data: unknown;
        try {
          data = JSON.parse(ev.data);
        } catch {
          return;
        }
        if (ev.event === "entry" && isEntry(data)) onEntry(data);
        else if (ev.event === "clear")
          removeRows(entries.clear((data as { session?: string | null })?.session ?? undefined));
        refreshSoon();
      },
      onDown(reason, retryMs) {
        setConnection("down", `disconnected (${reason}); retrying in ${(retryMs / 1000).toFixed(1)} s`);
      },
      onKey,
    },
    following.signal,
  );
}

async function boot(): Promise<void> {
  closeDetail();
  updateCount();
  try {
    await api.probe();
  } catch (err) {
    if (err instanceof KeyError) return onKey(err);
    setConnection(
      "down",
      err instanceof ApiFailure
        ? `${err.status}: ${err.message}`
        : `The server did not answer: ${err instanceof Error ? err.message : String(err)}`,
    );
    return;
  }
  start();
}

void boot();
