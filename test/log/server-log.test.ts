/** The request log of `startMockServer`: nothing unless asked; with `log`, lines to `logTo` from both request paths. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { resolveOptions } from "../../src/options.js";
import { startMockServer } from "../../src/server.js";

/** A log target that keeps what is written, line by line. */
function collector() {
  let text = "";
  return {
    write: (chunk: string) => void (text += chunk),
    lines: () => text.split("\n").filter((l) => l !== ""),
  };
}

const post = (baseURL: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const dir = mkdtempSync(join(tmpdir(), "orm-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("startMockServer's log", () => {
  it("writes nothing to stdout without a `log` option", async () => {
    const write = vi.spyOn(process.stdout, "write");
    try {
      const mock = await startMockServer();
      await (await post(mock.baseURL, { model: "m", input: "quiet" })).text();
      await (await fetch(`${mock.url}/nope`)).text();
      await mock.close();
      expect(write).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
    }
  });

  it("log: json to logTo — the start summary (sources counted), a line per request from the direct path and from Koa, the stop line", async () => {
    writeFileSync(
      join(dir, "mine.json"),
      JSON.stringify({ name: "mine", description: "Mine.", turns: [{ steps: [{ type: "message", text: "hi" }] }] }),
    );
    const out = collector();
    const mock = await startMockServer({
      log: "json",
      logTo: out,
      scenarios: [dir, { name: "inline-one", description: "Inline.", turns: [{ steps: [] }] }],
      apiKey: "sk-programmatic-SECRET-9876",
    });
    const auth = { authorization: "Bearer sk-programmatic-SECRET-9876" };
    const created = (await (
      await post(
        mock.baseURL,
        { model: "m", input: "hello" },
        { ...auth, "x-mock-scenario": "mine", "x-mock-session": "s-7" },
      )
    ).json()) as { id: string };
    await (
      await fetch(`${mock.baseURL}/responses/${created.id}`, { headers: { ...auth, "x-mock-session": "s-7" } })
    ).text();
    await (await fetch(`${mock.url}/nope`)).text();
    await mock.close();
    await mock.close(); // twice: one stop line

    const records = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.event)).toEqual(["start", "request", "request", "request", "stop"]);
    expect(records[0]).toMatchObject({
      baseURL: mock.baseURL,
      scenarios: { paths: [{ path: dir, count: 1 }], inline: 1, builtIn: 1 },
      defaultScenario: "auto",
      dialect: "open-responses",
      apiKey: true,
      admin: true,
    });
    const scenarios = records[0].scenarios as { total: number; library: number };
    expect(scenarios.total).toBe(scenarios.library + 3);
    // The direct path (POST /v1/responses) and the Koa app (GET …/:id, the 404) both log.
    expect(records[1]).toMatchObject({
      method: "POST",
      path: "/v1/responses",
      status: 200,
      outcome: "completed",
      scenario: "mine",
      reason: "header",
      session: "s-7",
      responseId: created.id,
      events: null,
      streamed: false,
    });
    expect(records[2]).toMatchObject({
      method: "GET",
      path: `/v1/responses/${created.id}`,
      status: 200,
      outcome: "ok",
      session: "s-7",
    });
    expect(records[3]).toMatchObject({
      method: "GET",
      path: "/nope",
      status: 404,
      outcome: "error",
      errorCode: "not_found",
      scenario: null,
    });
    expect(records[4]).toMatchObject({ event: "stop", requests: 3 });
    for (const r of records.slice(1, 4)) expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(out.lines().join("\n")).not.toContain("SECRET");
  });

  it("the journal's entries say how their requests ended, log or not", async () => {
    const mock = await startMockServer();
    await (await post(mock.baseURL, { model: "m", input: "x", stream: true })).text();
    await (await post(mock.baseURL, { model: "m", input: "x" }, { "x-mock-scenario": "error-429" })).text();
    await mock.close();
    const [streamed, refused] = mock.requests;
    expect(streamed).toMatchObject({ outcome: "completed", streamed: true, errorCode: null });
    expect(streamed.events).toBeGreaterThan(3);
    expect(streamed.endedAt).toBe(streamed.at + streamed.durationMs!);
    // An http_error turn names its scenario and why, like any answer.
    expect(refused).toMatchObject({
      status: 429,
      outcome: "error",
      errorCode: "rate_limit_exceeded",
      scenario: "error-429",
      reason: "header",
      events: null,
    });
  });
});

describe("the log options", () => {
  it("refuses a format it does not know, and a logTo that cannot be written to, naming the option", () => {
    expect(() => resolveOptions({ log: "loud" as never })).toThrow("log: must be one of pretty, json, off; got 'loud'");
    expect(() => resolveOptions({ log: "json", logTo: {} as never })).toThrow(
      /logTo: must have a write\(text\) method/,
    );
    expect(() => resolveOptions({ log: "loud" as never }, { log: "--log" })).toThrow(
      "--log: must be one of pretty, json, off; got 'loud'",
    );
    expect(resolveOptions({}).log).toBe("off");
  });
});
