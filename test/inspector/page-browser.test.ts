/**
 * The inspector in a real browser (Debian's Chromium via playwright-core),
 * against a real server on port 0: the list filling as the `openai` SDK sends
 * requests, the filters, a paced stream's timeline compared with its answer
 * route and its schedule, a dropped stream's cut, "save as scenario" replayed
 * by a second server, copy-as-curl run with bash. One browser for the file.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { buildSchedule } from "../../src/timing/schedule.js";
import { ZERO_PROFILE } from "../../src/timing/profile.js";
import { AXIS_MARGIN } from "../../src/inspector/page/timeline.js";
import type { Answer } from "../../src/inspector/page/model.js";
import { runCli, runProcess } from "../support/run.js";
import { drawnMarks, launchBrowser, screenshot, visibleSeqs, type Browser } from "./browser-harness.js";

/** The page's document, as the functions that run in the browser see it (the tests compile without the DOM lib). */
declare const document: {
  querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
};

let browser: Browser;
let mock: MockServer;
let page: Page;
let work: string;
/** The server's origin (no /v1). */
let origin: string;

const client = (headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: mock.baseURL, apiKey: "test", maxRetries: 0, defaultHeaders: headers });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "openresponses-mock-inspector-"));
  mock = await startMockServer({ port: 0, seed: 7 });
  origin = new URL(mock.baseURL).origin;
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(`${origin}/__mock/`);
  await page.locator("#conn.c-live").waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Waits until the page shows `n` rows, and every one has ended. */
async function rowsSettled(n: number): Promise<void> {
  await page.waitForFunction((count) => {
    const rows = Array.from(document.querySelectorAll("#rows tr"));
    return rows.length === count && rows.every((tr) => tr.getAttribute("data-outcome") !== "running");
  }, n);
}

/** Clears the journal from the page and waits for the list to empty. */
async function clearAll(): Promise<void> {
  await page.click("#clear");
  await page.waitForFunction(() => document.querySelectorAll("#rows tr").length === 0);
}

/** Opens the row of journal entry `seq` and waits for its answer to be drawn. */
async function openRow(seq: number, streamed: boolean): Promise<void> {
  await page.click(`#rows tr[data-seq="${seq}"] button.open`);
  await page
    .locator("#detail-title")
    .filter({ hasText: `#${seq}` })
    .waitFor();
  if (streamed) await page.locator("svg.timeline g.mark").first().waitFor();
  await page.locator("#check-result").waitFor();
}

const answerOf = async (seq: number): Promise<Answer> =>
  (await fetch(`${origin}/__mock/requests/${seq}/answer`)).json() as Promise<Answer>;

describe("the live list", () => {
  it("fills as requests arrive, newest first, each row with its model, scenario and why, status and outcome", async () => {
    await clearAll();
    await client({ "x-mock-session": "alpha" }).responses.create({ model: "mock-model-1", input: "Hello there." });
    await page.locator("#rows tr").first().waitFor();
    const [first] = await visibleSeqs(page);
    await client({ "x-mock-session": "beta", "x-mock-scenario": "tool-call" })
      .responses.create({ model: "mock-model-2", input: "Weather?", stream: true })
      .then(async (s) => {
        for await (const _ of s);
      });
    await client({ "x-mock-session": "beta" }).responses.create({ model: "refusal", input: "Do something bad." });
    await rowsSettled(3);
    expect(await visibleSeqs(page)).toEqual([first + 2, first + 1, first]);
    const cells = await page.$$eval("#rows tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    // time, request, model, scenario (why), status, outcome, stream, duration, session
    expect(cells[0].slice(1, 7)).toEqual([
      "POST /v1/responses",
      "refusal",
      "refusal (model)",
      "200",
      "completed",
      "JSON",
    ]);
    expect(cells[1].slice(1, 6)).toEqual([
      "POST /v1/responses",
      "mock-model-2",
      "tool-call (header)",
      "200",
      "completed",
    ]);
    expect(cells[1][6]).toMatch(/^stream · \d+$/);
    expect(cells[2].slice(1, 5)).toEqual(["POST /v1/responses", "mock-model-1", "auto (default)", "200"]);
    expect(cells.map((c) => c[8])).toEqual(["beta", "beta", "alpha"]);
    for (const c of cells) expect(c[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);
    expect(await page.textContent("#count")).toBe("3 requests");
    await screenshot(page, "list");
  });

  it("filters by session, scenario, status and text", async () => {
    await clearAll();
    await client({ "x-mock-session": "s1" }).responses.create({ model: "mock-model-1", input: "apples and pears" });
    await client({ "x-mock-session": "s2", "x-mock-scenario": "error-429" })
      .responses.create({ model: "mock-model-1", input: "plums" })
      .catch(() => undefined);
    await client({ "x-mock-session": "s2" }).responses.create({ model: "text", input: "cherries" });
    await fetch(`${origin}/nope`);
    await rowsSettled(4);
    const base = (await visibleSeqs(page)).at(-1)!;
    expect(await visibleSeqs(page)).toEqual([base + 3, base + 2, base + 1, base]);

    await page.selectOption("#f-session", "s2");
    expect(await visibleSeqs(page)).toEqual([base + 2, base + 1]);
    await page.selectOption("#f-status", "4xx");
    expect(await visibleSeqs(page)).toEqual([base + 1]);
    await page.selectOption("#f-session", "");
    expect(await visibleSeqs(page)).toEqual([base + 3, base + 1]); // the 404 and the 429
    await page.selectOption("#f-status", "");
    await page.selectOption("#f-scenario", "text");
    expect(await visibleSeqs(page)).toEqual([base + 2]);
    await page.selectOption("#f-scenario", "");
    await page.fill("#f-text", "apples");
    expect(await visibleSeqs(page)).toEqual([base]);
    await page.fill("#f-text", "nope");
    expect(await visibleSeqs(page)).toEqual([base + 3]);
    await page.fill("#f-text", "no such words anywhere");
    expect(await visibleSeqs(page)).toEqual([]);
    expect(await page.isVisible("#empty")).toBe(true);
    expect(await page.textContent("#count")).toBe("0 of 4 requests shown");
    await page.fill("#f-text", "");
    expect(await visibleSeqs(page)).toHaveLength(4);
  });
});

describe("one request on its timeline", () => {
  it("shows a paced stream's events and heartbeats in order, with the gaps of its answer and its schedule", async () => {
    await clearAll();
    const timing = { latencyMs: 120, chunkMs: 30, heartbeatMs: 50 };
    const stream = await client({
      "x-mock-latency-ms": String(timing.latencyMs),
      "x-mock-chunk-ms": String(timing.chunkMs),
      "x-mock-heartbeat-ms": String(timing.heartbeatMs),
      "x-mock-scenario": "text",
    }).responses.create({
      model: "mock-model-1",
      input: "Pace me.",
      stream: true,
    });
    for await (const _ of stream);
    await rowsSettled(1);
    const [seq] = await visibleSeqs(page);
    await openRow(seq, true);

    const answer = await answerOf(seq);
    const drawn = await drawnMarks(page);
    // The page draws every mark of the answer, in its order, at its time.
    expect(drawn.map((m) => [m.kind, m.t, m.index])).toEqual(
      answer.timeline.map((m) => [m.kind, m.t, m.index ?? null]),
    );
    // To scale: x grows linearly with t from the request's arrival.
    const scale = Number(await page.getAttribute("svg.timeline", "data-scale"));
    for (const m of drawn) expect(m.x).toBeCloseTo(AXIS_MARGIN + m.t * scale, 6);

    // Events and [DONE] in the schedule's order, none before its scheduled time (times are kept as
    // scheduled from the start of the stream, which is at or after the arrival).
    const events = answer.timeline.filter((m) => m.kind === "event").map((m) => ({ type: m.type! }) as never);
    const schedule = buildSchedule(events, { ...ZERO_PROFILE, ...timing }, { next: () => 0 });
    const framesDrawn = drawn.filter((m) => m.kind === "event" || m.kind === "done");
    const framesScheduled = schedule.slots.filter((s) => s.kind !== "heartbeat");
    expect(framesDrawn.map((m) => [m.kind, m.index])).toEqual(
      framesScheduled.map((s) => [s.kind, s.kind === "event" ? s.index : null]),
    );
    framesScheduled.forEach((slot, i) => expect(framesDrawn[i].t).toBeGreaterThanOrEqual(slot.at - 1));
    // Heartbeats where the schedule has them: each after the stream sat idle a whole interval, and
    // between two frames no more than the schedule puts there (a late server skips one rather than
    // send it just before an event). The latency holds two intervals, so at least one comes first.
    const kinds = drawn.map((m) => m.kind);
    expect(kinds.indexOf("heartbeat")).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf("heartbeat")).toBeLessThan(kinds.indexOf("event"));
    drawn.forEach(
      (m, i) =>
        m.kind === "heartbeat" &&
        expect(m.t - (i > 0 ? drawn[i - 1].t : 0)).toBeGreaterThanOrEqual(timing.heartbeatMs - 1),
    );
    const beatsBetween = (marks: { kind: string }[]) => {
      const counts: number[] = [0];
      for (const m of marks)
        if (m.kind === "heartbeat") counts[counts.length - 1]++;
        else counts.push(0);
      return counts;
    };
    const drawnBeats = beatsBetween(drawn.filter((m) => m.kind !== "end"));
    const scheduledBeats = beatsBetween(schedule.slots);
    expect(drawnBeats).toHaveLength(scheduledBeats.length);
    drawnBeats.forEach((n, i) => expect(n).toBeLessThanOrEqual(scheduledBeats[i]));
    // The latency bracket spans the arrival to the first event.
    const firstEvent = drawn.find((m) => m.kind === "event")!;
    expect(await page.getAttribute("svg.timeline g.gap.latency", "data-to")).toBe(String(firstEvent.t));

    // A click on an event shows its JSON.
    await page.click(`svg.timeline g.mark[data-index="0"]`);
    await page.locator("#picked h4").filter({ hasText: "Event #0 response.created" }).waitFor();
    expect(await page.textContent("#picked .json")).toContain('"response.created"');
    // The stream is conformant.
    expect(await page.textContent("#check-result")).toContain("Conformant");
    await screenshot(page, "timeline", { fullPage: true });
  });

  it("shows where a drop fault cut the stream", async () => {
    await clearAll();
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-fault": "drop-after-events=5", "x-mock-chunk-ms": "15" },
      body: JSON.stringify({ model: "mock-model-1", input: "Cut me.", stream: true }),
    });
    await res.text().catch(() => undefined);
    await rowsSettled(1);
    const [seq] = await visibleSeqs(page);
    expect(await page.getAttribute(`#rows tr[data-seq="${seq}"]`, "data-outcome")).toBe("dropped");
    await openRow(seq, true);
    const drawn = await drawnMarks(page);
    const kinds = drawn.map((m) => m.kind);
    expect(kinds.filter((k) => k === "event")).toHaveLength(5);
    expect(kinds).not.toContain("done");
    const cut = drawn.findIndex((m) => m.kind === "drop");
    expect(cut).toBeGreaterThan(kinds.lastIndexOf("event"));
    expect(await page.textContent("svg.timeline g.mark.k-cut")).toContain("dropped");
    await screenshot(page, "dropped");
  });
});

describe("expectations", () => {
  it("a request judged against a turn's expect shows met/total in its facts, and each rule with its message", async () => {
    await clearAll();
    mock.use(
      {
        name: "two-calls",
        turns: [
          {
            steps: [
              { type: "function_call", name: "f", call_id: "call_1", arguments: {} },
              { type: "function_call", name: "f", call_id: "call_2", arguments: {} },
            ],
            expect: { tool_outputs: true, continues: true },
          },
          { steps: [{ type: "message", text: "done" }] },
        ],
      },
      { times: 2 },
    );
    const first = await client().responses.create({ model: "mock-model-1", input: "go" });
    await client().responses.create({
      model: "mock-model-1",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_1", output: "1" }],
    });
    await rowsSettled(2);
    const [seq] = await visibleSeqs(page);
    await openRow(seq, false);
    await page.locator("#expect-result li").first().waitFor();
    expect(await page.textContent(".detail-head")).toContain("1/2 met");
    const items = await page.locator("#expect-result li").allTextContents();
    expect(items).toEqual([
      "tool_outputs unmet (two-calls, turn 0) expected function_call_output for call_2; got outputs for call_1 only",
      `continues met (two-calls, turn 0) previous_response_id ${first.id}`,
    ]);
    mock.reset();
  });
});

describe("actions", () => {
  it("'save as scenario' downloads a file that validate accepts and that replays the same text on a second server", async () => {
    await clearAll();
    const original = await client().responses.create({ model: "mock-model-1", input: "Tell me about lighthouses." });
    await rowsSettled(1);
    const [seq] = await visibleSeqs(page);
    await openRow(seq, false);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#save-scenario")]);
    const file = join(work, download.suggestedFilename());
    await download.saveAs(file);
    expect(file).toMatch(/\.json$/);

    const validate = await runCli(["validate", file]);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);

    const name = (JSON.parse(readFileSync(file, "utf8")) as { name: string }).name;
    const second = await startMockServer({ port: 0, scenarios: [file], library: false });
    try {
      const replay = await new OpenAI({
        baseURL: second.baseURL,
        apiKey: "x",
        maxRetries: 0,
        defaultHeaders: { "x-mock-scenario": name },
      }).responses.create({ model: "mock-model-1", input: "Tell me about lighthouses." });
      expect(replay.output_text).toBe(original.output_text);
      expect(replay.output_text.length).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });

  it("copy as curl gives a command that, run with bash, gets the same answer", async () => {
    await clearAll();
    const original = await client({ "x-mock-scenario": "text" }).responses.create({
      model: "mock-model-1",
      input: "Curl me.",
    });
    await rowsSettled(1);
    const [seq] = await visibleSeqs(page);
    await openRow(seq, false);
    await page.click("#copy-curl");
    const curl = await page.inputValue("#curl-text");
    expect(curl).toMatch(/^curl /);
    const ran = await runProcess("bash", ["-c", curl]);
    expect(ran.code, ran.stderr).toBe(0);
    const again = JSON.parse(ran.stdout) as { output: { type: string; content?: { type: string; text: string }[] }[] };
    const text = again.output
      .flatMap((o) => o.content ?? [])
      .map((c) => c.text)
      .join("");
    expect(text).toBe(original.output_text);
    await screenshot(page, "curl");
  });

  it("replay sends the request again from the page", async () => {
    await clearAll();
    await client().responses.create({ model: "mock-model-1", input: "Again, please." });
    await rowsSettled(1);
    const [seq] = await visibleSeqs(page);
    await openRow(seq, false);
    await page.click("#replay");
    await page.locator("#replay-status").filter({ hasText: "Replayed: 200" }).waitFor();
    await rowsSettled(2);
    const [newest] = await visibleSeqs(page);
    expect(newest).toBe(seq + 1);
    const bodyOf = (n: number) => mock.requests.find((r) => r.seq === n)?.rawBody;
    expect(bodyOf(seq + 1)).toBe(bodyOf(seq));
    expect(bodyOf(seq)).toContain("Again, please.");
  });
});

describe("the live stream", () => {
  it("reconnects when it drops (the server restarted), and shows what arrived meanwhile", async () => {
    let other = await startMockServer({ port: 0 });
    const { port } = other;
    const tab = await browser.context.newPage();
    try {
      await tab.goto(`${other.url}/__mock/`);
      await tab.locator("#conn.c-live").waitFor();
      await other.close();
      await tab.locator("#conn.c-down").waitFor();
      expect(await tab.textContent("#conn")).toMatch(/^disconnected \(.+\); retrying in \d+\.\d s$/);
      other = await startMockServer({ port });
      const res = await fetch(`${other.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-session": "after-restart" },
        body: JSON.stringify({ model: "mock-model-1", input: "Sent while the page was away." }),
      });
      expect(res.status).toBe(200);
      await res.text();
      await tab.locator("#conn.c-live").waitFor();
      await tab.locator("#rows tr").filter({ hasText: "after-restart" }).waitFor();
    } finally {
      await tab.close();
      await other.close();
    }
  });
});
