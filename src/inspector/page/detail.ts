/**
 * One request, opened: what it was and how it ended, the actions (copy as
 * curl, replay, save as scenario), its answer on a timeline, the conformance
 * result, the request's headers and body, and the answer's events and final
 * response. Data comes from the admin routes each time a request is opened.
 */
import { Api, ApiFailure, KeyError } from "./api.js";
import { copyText, download, h, jsonView } from "./dom.js";
import {
  bytes,
  clockTime,
  costText,
  duration,
  limitsText,
  modelOf,
  outcomeTone,
  type Answer,
  type Check,
  type Entry,
  type TimelineItem,
} from "./model.js";
import { msLabel } from "./timeline.js";
import { timelineView, type TimelineView } from "./timeline-view.js";

/** At most this much of a replayed answer is shown. */
const REPLAY_SHOWN_CHARS = 20_000;

const section = (title: string, ...children: (Node | string | null)[]) =>
  h("section", { class: "panel", "aria-label": title }, h("h3", {}, title), ...children);

const failureText = (err: unknown) =>
  err instanceof ApiFailure ? `${err.status}: ${err.message}` : err instanceof Error ? err.message : String(err);

/** A fact of the header: label and value. */
const fact = (label: string, value: Node | string, cls = "") =>
  h("div", { class: `fact ${cls}` }, h("dt", {}, label), h("dd", {}, value));

export interface DetailContext {
  api: Api;
  /** Asks for the key again (a 401 while the page is open). */
  onKey(err: KeyError): void;
}

/** Renders entry `e` into `host`, then fills in what the routes answer. Returns a function that stops pending work. */
export function showDetail(host: HTMLElement, e: Entry, ctx: DetailContext): () => void {
  let live = true;
  const guard = <T>(p: Promise<T>, onError: (err: unknown) => void): Promise<T | undefined> =>
    p.catch((err) => {
      if (err instanceof KeyError) ctx.onKey(err);
      else if (live) onError(err);
      return undefined;
    });

  const tone = outcomeTone(e.outcome);
  const title = h(
    "h2",
    { id: "detail-title", tabindex: -1 },
    h("span", { class: "seq" }, `#${e.seq}`),
    " ",
    `${e.method} ${e.path}`,
  );
  const facts = h(
    "dl",
    { class: "facts" },
    fact(
      "status",
      h(
        "span",
        { class: `pill t-${tone}` },
        e.outcome === null ? "running" : `${e.status} ${e.outcome}${e.errorCode ? ` · ${e.errorCode}` : ""}`,
      ),
    ),
    fact("scenario", e.scenario === null ? "—" : `${e.scenario}${e.reason ? ` (${e.reason})` : ""}`),
    fact("model", modelOf(e) ?? "—"),
    fact("answer", e.streamed ? `stream${e.events !== null ? `, ${e.events} events` : ""}` : "JSON"),
    fact("arrived", clockTime(e.at)),
    fact("duration", duration(e.durationMs)),
    // The wait for a slot (capacity: maxConcurrent and its queue), part of the duration; none when nothing caps it.
    e.waitMs !== undefined && e.waitMs !== null && fact("waited", e.waitMs === 0 ? "no wait" : duration(e.waitMs)),
    fact("session", e.session ?? "—"),
    fact("response", e.responseId ?? "—", "mono"),
    ...(costText(e.costUsd) !== null ? [fact("cost", costText(e.costUsd)!)] : []),
    // The expectations it was judged against (GET /__mock/verify?session= lists each rule and its message).
    ...(e.expect
      ? [
          fact(
            "expect",
            h(
              "span",
              { class: `pill t-${e.expect.met === e.expect.total ? "good" : "warn"}` },
              `${e.expect.met}/${e.expect.total} met`,
            ),
          ),
        ]
      : []),
    ...(e.limits
      ? [
          fact(
            "limits",
            h("span", { class: `pill t-${e.limits.verdict === "passed" ? "good" : "warn"}` }, limitsText(e.limits)!),
          ),
        ]
      : []),
  );

  // Actions.
  const out = h("div", { class: "action-out", "aria-live": "polite" });
  const say = (text: string, cls = "") => out.replaceChildren(h("p", { class: `note ${cls}` }, text));
  const curlButton = h("button", { type: "button", id: "copy-curl" }, "Copy as curl");
  const replayButton = h("button", { type: "button", id: "replay" }, "Replay");
  const saveButton = h("button", { type: "button", id: "save-scenario" }, "Save as scenario");
  curlButton.addEventListener("click", async () => {
    const curl = await guard(ctx.api.curl(e.seq), (err) => say(`No curl for this request: ${failureText(err)}`, "bad"));
    if (!curl) return;
    const copied = await copyText(curl.curl);
    const box = h("textarea", {
      id: "curl-text",
      class: "code",
      readonly: true,
      rows: Math.min(14, curl.curl.split("\n").length + 1),
      spellcheck: "false",
      "aria-label": "The curl command",
    });
    box.value = curl.curl;
    out.replaceChildren(
      h(
        "p",
        { class: "note" },
        copied
          ? "Copied to the clipboard. The command:"
          : "The browser did not allow copying: select the command below and copy it.",
      ),
      box,
    );
    if (!copied) {
      box.focus();
      box.select();
    }
  });
  replayButton.addEventListener("click", async () => {
    const curl = await guard(ctx.api.curl(e.seq), (err) => say(`Cannot replay: ${failureText(err)}`, "bad"));
    if (!curl) return;
    const { method, url, headers, body } = curl.request;
    const target = new URL(url);
    say(`Replaying ${method} ${target.pathname}…`);
    try {
      const sent = { ...headers };
      for (const k of Object.keys(sent)) if (k.toLowerCase() === "authorization") delete sent[k];
      if (ctx.api.key !== null) sent.authorization = `Bearer ${ctx.api.key}`;
      // Same origin as the page: the server the page came from answers it.
      const res = await fetch(new URL(target.pathname + target.search, location.origin), {
        method,
        headers: sent,
        body: body ?? undefined,
      });
      const text = await res.text();
      const pre = h(
        "pre",
        { class: "code replay-body", id: "replay-body" },
        text.length > REPLAY_SHOWN_CHARS
          ? `${text.slice(0, REPLAY_SHOWN_CHARS)}\n… (${bytes(text.length)} in all)`
          : text,
      );
      out.replaceChildren(
        h(
          "p",
          { class: "note", id: "replay-status" },
          `Replayed: ${res.status} ${res.statusText}. It is at the top of the list.`,
        ),
        pre,
      );
    } catch (err) {
      say(`The replay failed: ${failureText(err)}`, "bad");
    }
  });
  saveButton.addEventListener("click", async () => {
    const file = await guard(ctx.api.scenario(e.seq), (err) =>
      say(`No scenario for this request: ${failureText(err)}`, "bad"),
    );
    if (!file) return;
    download(file.blob, file.filename);
    say(`Saved ${file.filename}: serve it with --scenarios and name it in x-mock-scenario (or as the model).`);
  });
  const canAnswer = e.method === "POST" || e.method === "WS";
  if (!canAnswer) for (const b of [replayButton, saveButton]) b.disabled = true;
  const actions = h(
    "div",
    { class: "actions", role: "group", "aria-label": "Actions" },
    curlButton,
    replayButton,
    saveButton,
  );

  // Sections, filled in as the routes answer.
  const timelineHost = h("div", { class: "timeline-host" }, h("p", { class: "note" }, "Loading the answer…"));
  const picked = h("div", { class: "picked", id: "picked", "aria-live": "polite" });
  const checkHost = h("div", {}, h("p", { class: "note" }, "Checking…"));
  const answerHost = h("div", {}, h("p", { class: "note" }, "Loading…"));
  const upstreamHost = e.upstream ? section("Upstream", upstreamView(e.upstream)) : null;
  const limitsHost =
    e.limits && Object.keys(e.limits.headers).length > 0 ? section("Rate limits", limitsView(e.limits)) : null;

  const headerRows = Object.entries(e.headers ?? {}).map(([k, v]) =>
    h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, Array.isArray(v) ? v.join(", ") : v)),
  );
  const bodyView =
    e.body !== null && e.body !== undefined
      ? jsonView(e.body)
      : e.rawBody !== null
        ? h("pre", { class: "code" }, e.rawBody)
        : h("p", { class: "note" }, "No body.");
  const request = section(
    "Request",
    h(
      "details",
      { class: "headers" },
      h("summary", {}, `Headers (${headerRows.length})`),
      h("table", { class: "kv" }, h("tbody", {}, ...headerRows)),
    ),
    h(
      "h4",
      {},
      "Body",
      e.bodyBytes !== null
        ? h(
            "span",
            { class: "muted" },
            ` ${bytes(e.bodyBytes)}${e.truncated ? ", truncated: only its start is kept" : ""}`,
          )
        : null,
    ),
    h("div", { class: "json" }, bodyView),
  );

  const hasTimeline = e.streamed;
  // Asked at once, shown once the answer is there (its violations point at the answer's events).
  const pendingCheck = guard(ctx.api.check(e.seq), (err) =>
    checkHost.replaceChildren(h("p", { class: "note bad" }, `Not checked: ${failureText(err)}`)),
  );
  // The expectations this request was judged against (a request none judged has no section).
  const expectHost = h("div", {}, h("p", { class: "note" }, "Loading…"));
  if (e.expect)
    void guard(ctx.api.verify(e.session), (err) =>
      expectHost.replaceChildren(h("p", { class: "note bad" }, `Not available: ${failureText(err)}`)),
    ).then((verify) => {
      if (!verify || !live) return;
      const mine = verify.expectations.filter((x) => x.seq === e.seq);
      expectHost.replaceChildren(
        h(
          "ul",
          { id: "expect-result" },
          ...mine.map((x) =>
            h(
              "li",
              {},
              h("span", { class: `pill t-${x.status === "met" ? "good" : "bad"}` }, `${x.rule} ${x.status}`),
              ` ${x.scenario !== null ? `(${x.scenario}, turn ${x.turn}) ` : "(expect()) "}${x.message}`,
            ),
          ),
        ),
      );
    });
  host.replaceChildren(
    h(
      "article",
      { class: "detail", "aria-labelledby": "detail-title" },
      h("header", { class: "detail-head" }, title, facts, actions, out),
      hasTimeline ? section("Timeline", timelineHost, picked) : null,
      section("Conformance", checkHost),
      upstreamHost,
      limitsHost,
      e.expect ? section("Expectations", expectHost) : null,
      request,
      section("Answer", answerHost),
    ),
  );

  void guard(ctx.api.answer(e.seq), (err) => {
    const text = `The answer is not available: ${failureText(err)}`;
    timelineHost.replaceChildren(h("p", { class: "note bad" }, text));
    answerHost.replaceChildren(h("p", { class: "note bad" }, text));
  }).then((answer) => {
    if (!live) return;
    const timeline = answer?.timeline ?? [];
    let view: TimelineView | null = null;
    const pick = (position: number) => {
      const item = timeline[position];
      if (!item) return;
      view?.select(position);
      picked.replaceChildren(
        h(
          "h4",
          {},
          `${item.kind === "event" ? `Event #${item.index ?? "?"} ${item.type ?? ""}` : item.kind} at ${msLabel(item.t)}`,
        ),
        item.event !== undefined
          ? h("div", { class: "json" }, jsonView(item.event))
          : h("p", { class: "note" }, pickedNote(item.kind)),
      );
    };
    void pendingCheck.then((check) => check && live && checkHost.replaceChildren(checkResult(check, timeline, pick)));
    if (!answer) return;
    if (hasTimeline) {
      if (answer.timeline.length === 0) timelineHost.replaceChildren(h("p", { class: "note" }, "Nothing was sent."));
      else {
        view = timelineView(answer.timeline, pick, e.waitMs ?? 0);
        timelineHost.replaceChildren(view.element, answerNotes(answer));
      }
    }
    answerHost.replaceChildren(answerView(answer, pick));
  });

  return () => {
    live = false;
  };
}

function pickedNote(kind: string): string {
  switch (kind) {
    case "heartbeat":
      return "An SSE comment (: keep-alive) sent while the stream was idle.";
    case "done":
      return "data: [DONE], the end of the stream.";
    case "drop":
      return "A drop fault closed the connection here, without [DONE].";
    case "hang":
      return "A hang fault: no more events after this (heartbeats go on) until the client leaves.";
    case "abort":
      return "The client went away (or the server stopped) here.";
    default:
      return "The answer ended here.";
  }
}

function answerNotes(answer: Answer): HTMLElement {
  const notes: string[] = [];
  if (answer.truncated)
    notes.push(
      `The journal kept the start of this stream only (${answer.dropped} marks dropped to stay within its byte budget).`,
    );
  return h("p", { class: "note" }, notes.join(" "));
}

function upstreamView(u: NonNullable<Entry["upstream"]>): HTMLElement {
  return h(
    "dl",
    { class: "facts" },
    fact("url", u.url),
    fact("api", u.api),
    fact("status", u.status === null ? "no answer" : String(u.status)),
    ...(u.error ? [fact("error", u.error)] : []),
  );
}

/** The limiter's headers, as the answer sent them (`x-ratelimit-*`, `retry-after`). */
function limitsView(limits: NonNullable<Entry["limits"]>): HTMLElement {
  return h(
    "table",
    { class: "kv" },
    h(
      "tbody",
      {},
      ...Object.entries(limits.headers).map(([k, v]) => h("tr", {}, h("th", { scope: "row" }, k), h("td", {}, v))),
    ),
  );
}

/** The answer: the events in order (a stream), and the final response or error. */
function answerView(answer: Answer, pick: (position: number) => void): HTMLElement {
  const parts: Node[] = [];
  const events = answer.timeline
    .map((item, position) => ({ item, position }))
    .filter(({ item }) => item.kind === "event");
  if (answer.kind === "stream") {
    const list = h("ol", { class: "events", id: "event-list" });
    for (const { item, position } of events) {
      list.append(
        h(
          "li",
          {},
          h(
            "button",
            { type: "button", class: "event-button", "data-position": position, onclick: () => pick(position) },
            h("span", { class: "muted" }, `+${msLabel(item.t)}`),
            ` #${item.index ?? "?"} `,
            item.type ?? "event",
          ),
        ),
      );
    }
    parts.push(
      h(
        "details",
        { class: "events-box", open: events.length <= 60 },
        h("summary", {}, `Events (${events.length})`),
        list,
      ),
    );
  }
  if (answer.response !== null && answer.response !== undefined)
    parts.push(
      h("h4", {}, answer.kind === "stream" ? "Final response (the terminal event's)" : "Response"),
      h("div", { class: "json" }, jsonView(answer.response)),
    );
  if (answer.error !== null && answer.error !== undefined)
    parts.push(h("h4", {}, `Error (${answer.status})`), h("div", { class: "json" }, jsonView(answer.error)));
  if (parts.length === 0)
    parts.push(
      h(
        "p",
        { class: "note" },
        answer.kind === "none" ? "No answer was recorded for this request." : "Nothing to show.",
      ),
    );
  return h("div", {}, ...parts);
}

/** Pass, or each violation with a link to its event. */
function checkResult(check: Check, timeline: readonly TimelineItem[], pick: (position: number) => void): HTMLElement {
  if (!check.checked) return h("p", { class: "note", id: "check-result" }, check.note ?? "Not checked.");
  if (check.ok)
    return h("p", { class: "pill t-good", id: "check-result" }, `Conformant${check.note ? `: ${check.note}` : ""}`);
  const positionOf = (index: number | null) =>
    index === null ? -1 : timeline.findIndex((i) => i.kind === "event" && i.index === index);
  return h(
    "div",
    { id: "check-result" },
    h("p", { class: "pill t-bad" }, `${check.violations.length} violation${check.violations.length === 1 ? "" : "s"}`),
    h(
      "ul",
      { class: "violations" },
      ...check.violations.map((v) => {
        const position = positionOf(v.index);
        return h(
          "li",
          {},
          position >= 0
            ? h(
                "button",
                { type: "button", class: "link", onclick: () => pick(position) },
                `event #${v.index}${v.type ? ` ${v.type}` : ""}`,
              )
            : h("span", { class: "muted" }, v.index === null ? "the answer" : `event #${v.index}`),
          v.path ? h("code", {}, ` ${v.path}`) : null,
          `: ${v.message}`,
        );
      }),
    ),
    check.note ? h("p", { class: "note" }, check.note) : null,
  );
}
