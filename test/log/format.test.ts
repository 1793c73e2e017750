/** The request log's lines, formatted with no server: pretty (plain and coloured) and JSON. */
import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/journal/journal.js";
import {
  clockTime,
  duration,
  jsonRequest,
  jsonStart,
  jsonStop,
  prettyRequest,
  prettyStart,
  prettyStop,
  safeText,
  scenarioSources,
  wantsColour,
  type StartSummary,
} from "../../src/log/format.js";

/** 2026-01-01T00:00:00.000Z */
const T0 = 1_767_225_600_000;
const PLAIN = { colour: false, utcOffsetMinutes: 0 };
const COLOUR = { colour: true, utcOffsetMinutes: 0 };
const ANSI = /\u001b\[\d+m/g;

const entry = (fields: Partial<JournalEntry> = {}): JournalEntry => ({
  seq: 4,
  at: T0 + 3_000,
  session: null,
  method: "POST",
  path: "/v1/responses",
  query: {},
  headers: { authorization: "Bearer ***1234", "content-type": "application/json" },
  rawBody: '{"model":"m","input":"a secret prompt"}',
  body: { model: "m", input: "a secret prompt" },
  bodyBytes: 39,
  truncated: false,
  bodySha256: null,
  model: "m",
  scenario: "auto",
  reason: "default",
  responseId: "resp_abc",
  status: 200,
  streamed: false,
  upstream: null,
  violations: null,
  costUsd: null,
  limits: null,
  waitMs: null,
  expect: null,
  outcome: "completed",
  errorCode: null,
  events: null,
  endedAt: T0 + 3_038.25,
  durationMs: 38.25,
  ...fields,
});

const summary: StartSummary = {
  baseURL: "http://127.0.0.1:4010/v1",
  scenarios: { total: 28, library: 25, paths: [{ path: "feat", count: 2 }], inline: 0, builtIn: 1 },
  defaultScenario: "auto",
  dialect: "open-responses",
  seed: 7,
  apiKey: true,
  admin: false,
  upstream: null,
};

describe("pretty lines", () => {
  it("start: the listening line exactly, then one line per setting; the key is only on or off", () => {
    expect(prettyStart(summary, PLAIN)).toEqual([
      "openresponses-mock listening on http://127.0.0.1:4010/v1",
      "  scenarios  28: 25 from the library, 2 from feat, 1 built in",
      "  default    auto",
      "  dialect    open-responses",
      "  seed       7",
      "  api key    on (requests need Authorization: Bearer KEY)",
      "  admin      off",
    ]);
    const off = prettyStart({ ...summary, apiKey: false, admin: true }, PLAIN);
    expect(off).toContain("  api key    off");
    expect(off).toContain("  admin      on (/__mock/)");
  });

  it("a request: time it ended, method, path, status, outcome, scenario and why, events, duration, session", () => {
    expect(prettyRequest(entry(), PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  auto (default)  38 ms",
    );
    expect(
      prettyRequest(entry({ streamed: true, events: 14, session: "t-1", scenario: "text", reason: "header" }), PLAIN),
    ).toBe("00:00:03.038  POST   /v1/responses  200 completed  text (header)  14 events  38 ms  session t-1");
    expect(prettyRequest(entry({ events: 1, outcome: "dropped", durationMs: 2.25 }), PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 dropped  auto (default)  1 event  2.3 ms",
    );
  });

  it("the limiter's verdict when a limit applied, and the answer's cost (pretty and json)", () => {
    const passed = { verdict: "passed" as const, limit: null, headers: { "x-ratelimit-limit-requests": "3" } };
    expect(prettyRequest(entry({ costUsd: 0.000125, limits: passed }), PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  auto (default)  passed  $0.000125  38 ms",
    );
    const refused = { verdict: "rate_limited" as const, limit: "requests", headers: { "retry-after": "20" } };
    expect(
      prettyRequest(entry({ status: 429, outcome: "error", errorCode: "rate_limit_exceeded", limits: refused }), PLAIN),
    ).toBe(
      "00:00:03.038  POST   /v1/responses  429 error rate_limit_exceeded  auto (default)  rate_limited (requests)  38 ms",
    );
    expect(prettyRequest(entry({ costUsd: 0 }), PLAIN)).toContain("  $0  ");
    expect(prettyRequest(entry({ costUsd: 1.5 }), PLAIN)).toContain("  $1.5  ");
    expect(prettyRequest(entry({ costUsd: 1e-9 }), PLAIN)).toContain("  <$0.000001  ");
    expect(JSON.parse(jsonRequest(entry({ costUsd: 0.000125, limits: refused })))).toMatchObject({
      costUsd: 0.000125,
      limits: { verdict: "rate_limited", limit: "requests" },
    });
  });

  it("an error answer shows its code; a request that chose no scenario leaves it out", () => {
    expect(
      prettyRequest(
        entry({
          method: "GET",
          path: "/nope",
          status: 404,
          outcome: "error",
          errorCode: "not_found",
          scenario: null,
          reason: null,
          responseId: null,
        }),
        PLAIN,
      ),
    ).toBe("00:00:03.038  GET    /nope  404 error not_found  38 ms");
    expect(
      prettyRequest(
        entry({
          status: 429,
          outcome: "error",
          errorCode: "rate_limit_exceeded",
          scenario: "error-429",
          reason: "header",
        }),
        PLAIN,
      ),
    ).toBe("00:00:03.038  POST   /v1/responses  429 error rate_limit_exceeded  error-429 (header)  38 ms");
  });

  it("a proxied request: the upstream's status (and what went wrong) and the live check's verdict", () => {
    const proxied = { scenario: null, reason: null, streamed: true, events: 9 };
    const upstream = { api: "responses", url: "http://127.0.0.1:9/v1", status: 200, error: null };
    expect(prettyRequest(entry({ ...proxied, upstream, violations: [] }), PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  9 events  upstream 200  conformant  38 ms",
    );
    const faults = [
      { index: 0, path: "$.sequence_number", message: "missing" },
      { index: null, path: "$", message: "no [DONE]" },
    ];
    expect(prettyRequest(entry({ ...proxied, upstream, violations: faults }), PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  9 events  upstream 200  2 violations  38 ms",
    );
    const down = { ...upstream, status: null, error: "connect ECONNREFUSED" };
    expect(
      prettyRequest(
        entry({
          ...proxied,
          status: 502,
          outcome: "error",
          errorCode: "upstream_unreachable",
          upstream: down,
          violations: [],
        }),
        PLAIN,
      ),
    ).toBe(
      "00:00:03.038  POST   /v1/responses  502 error upstream_unreachable  9 events  upstream - connect ECONNREFUSED  conformant  38 ms",
    );
    const json = JSON.parse(jsonRequest(entry({ ...proxied, upstream, violations: faults }))) as Record<
      string,
      unknown
    >;
    expect(json.upstream).toEqual(upstream);
    expect(json.violations).toEqual(faults);
    expect(
      prettyStart({ ...summary, upstream: { api: "chat", url: "http://127.0.0.1:11434/v1", record: "rec" } }, PLAIN).at(
        -1,
      ),
    ).toBe("  upstream   chat http://127.0.0.1:11434/v1, recording into rec");
  });

  it("an answer that waited for a slot says how long, before its duration (pretty), and as waitMs (json)", () => {
    const waited = entry({ streamed: true, events: 9, waitMs: 120.5, durationMs: 158.75 });
    expect(prettyRequest(waited, PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  auto (default)  9 events  waited 121 ms  159 ms",
    );
    expect(prettyRequest(entry({ waitMs: 0 }), PLAIN)).not.toContain("waited");
    expect(JSON.parse(jsonRequest(waited)).waitMs).toBe(120.5);
    expect(JSON.parse(jsonRequest(entry())).waitMs).toBeNull();
    const refused = entry({ status: 503, outcome: "error", errorCode: "server_is_overloaded", waitMs: 30 });
    expect(prettyRequest(refused, PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  503 error server_is_overloaded  auto (default)  waited 30 ms  38 ms",
    );
  });

  it("a request judged against expectations says how many it met (pretty), and as expect (json)", () => {
    const judged = entry({ expect: { met: 2, total: 3 } });
    expect(prettyRequest(judged, PLAIN)).toBe(
      "00:00:03.038  POST   /v1/responses  200 completed  auto (default)  expect 2/3  38 ms",
    );
    expect(prettyRequest(entry(), PLAIN)).not.toContain("expect");
    expect(JSON.parse(jsonRequest(judged)).expect).toEqual({ met: 2, total: 3 });
    expect(JSON.parse(jsonRequest(entry())).expect).toBeNull();
  });

  it("never holds a header, a body or a credential", () => {
    const line = prettyRequest(entry(), PLAIN) + jsonRequest(entry());
    for (const secret of ["Bearer", "1234", "authorization", "secret prompt", "content-type"])
      expect(line).not.toContain(secret);
  });

  it("an entry still in progress says so", () => {
    expect(prettyRequest(entry({ outcome: null, endedAt: null, durationMs: null, status: 0 }), PLAIN)).toBe(
      "00:00:03.000  POST   /v1/responses  - in progress  auto (default)  -",
    );
  });

  it("colour: ANSI codes only, the same text under them; the listening line stays plain", () => {
    const coloured = prettyRequest(entry({ status: 500, outcome: "error", errorCode: "internal_error" }), COLOUR);
    expect(coloured).toMatch(ANSI);
    expect(coloured).toContain("\u001b[31m500\u001b[39m");
    expect(coloured.replace(ANSI, "")).toBe(
      prettyRequest(entry({ status: 500, outcome: "error", errorCode: "internal_error" }), PLAIN),
    );
    expect(prettyStart(summary, COLOUR)[0]).toBe("openresponses-mock listening on http://127.0.0.1:4010/v1");
    expect(prettyStart(summary, COLOUR)[1].replace(ANSI, "")).toBe(prettyStart(summary, PLAIN)[1]);
    expect(prettyStop({ at: T0, requests: 2, uptimeMs: 1500 }, COLOUR).replace(ANSI, "")).toBe(
      prettyStop({ at: T0, requests: 2, uptimeMs: 1500 }, PLAIN),
    );
  });

  it("client-given text cannot reach the terminal raw, and is cut when long", () => {
    const line = prettyRequest(entry({ path: "/a\u001b[31mb\nc", session: "s\u0007" }), PLAIN);
    expect(line).not.toMatch(/[\u0000-\u001f]/);
    expect(line).toContain("/a\\x1b[31mb\\x0ac");
    expect(line).toContain("session s\\x07");
    expect(safeText("x".repeat(500))).toHaveLength(200);
    expect(safeText("x".repeat(500)).endsWith("…")).toBe(true);
  });

  it("stop: when, how many requests, how long it ran", () => {
    expect(prettyStop({ at: T0 + 61_000, requests: 42, uptimeMs: 61_000 }, PLAIN)).toBe(
      "00:01:01.000  openresponses-mock stopped: 42 requests, up 61.0 s",
    );
    expect(prettyStop({ at: T0, requests: 1, uptimeMs: 5 }, PLAIN)).toBe(
      "00:00:00.000  openresponses-mock stopped: 1 request, up 5.0 ms",
    );
  });
});

describe("json lines", () => {
  it("start, request and stop are each one JSON object with an `event` field and no line break", () => {
    const lines = [
      jsonStart(summary, T0),
      jsonRequest(entry({ path: "/x\ny" })),
      jsonStop({ at: T0 + 2_000, requests: 3, uptimeMs: 2_000.123456 }),
    ];
    for (const line of lines) expect(line).not.toContain("\n");
    const [start, request, stop] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(start).toEqual({
      event: "start",
      time: "2026-01-01T00:00:00.000Z",
      baseURL: "http://127.0.0.1:4010/v1",
      scenarios: { total: 28, library: 25, paths: [{ path: "feat", count: 2 }], inline: 0, builtIn: 1 },
      defaultScenario: "auto",
      dialect: "open-responses",
      seed: 7,
      apiKey: true,
      admin: false,
      upstream: null,
    });
    expect(request).toEqual({
      event: "request",
      time: "2026-01-01T00:00:03.038Z",
      seq: 4,
      method: "POST",
      path: "/x\ny",
      status: 200,
      outcome: "completed",
      errorCode: null,
      scenario: "auto",
      reason: "default",
      streamed: false,
      events: null,
      durationMs: 38.25,
      waitMs: null,
      session: null,
      responseId: "resp_abc",
      upstream: null,
      violations: null,
      costUsd: null,
      limits: null,
      expect: null,
    });
    expect(stop).toEqual({ event: "stop", time: "2026-01-01T00:00:02.000Z", requests: 3, uptimeMs: 2000.123 });
  });

  it("a time that is not one is null, not an exception", () => {
    expect(JSON.parse(jsonRequest(entry({ endedAt: Number.NaN })))).toMatchObject({ time: null });
  });
});

describe("pieces", () => {
  it("times: HH:MM:SS.mmm at an offset from UTC", () => {
    expect(clockTime(T0 + 45_296_789, 0)).toBe("12:34:56.789");
    expect(clockTime(T0, 120)).toBe("02:00:00.000");
    expect(clockTime(T0, -60)).toBe("23:00:00.000");
    expect(clockTime(Number.NaN, 0)).toBe("--:--:--.---");
    expect(clockTime(T0)).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);
  });

  it("durations", () => {
    expect([0, 0.44, 9.96, 10, 38.4, 9_999, 10_000, 123_456, 600_000, 3_725_000].map(duration)).toEqual([
      "0.0 ms",
      "0.4 ms",
      "10 ms",
      "10 ms",
      "38 ms",
      "9999 ms",
      "10.0 s",
      "123.5 s",
      "10m00s",
      "62m05s",
    ]);
    expect(duration(-1)).toBe("-");
  });

  it("where the scenarios came from", () => {
    expect(
      scenarioSources({
        total: 4,
        library: null,
        paths: [
          { path: "a.json", count: 1 },
          { path: "dir", count: 2 },
        ],
        inline: 1,
        builtIn: 0,
      }),
    ).toBe("4: library off, 1 from a.json, 2 from dir, 1 inline");
  });

  it("colour: a terminal unless NO_COLOR or TERM=dumb; FORCE_COLOR wins", () => {
    expect(wantsColour(true, {})).toBe(true);
    expect(wantsColour(false, {})).toBe(false);
    expect(wantsColour(undefined, {})).toBe(false);
    expect(wantsColour(true, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColour(true, { NO_COLOR: "" })).toBe(true);
    expect(wantsColour(true, { TERM: "dumb" })).toBe(false);
    expect(wantsColour(false, { FORCE_COLOR: "1" })).toBe(true);
    expect(wantsColour(false, { FORCE_COLOR: "" })).toBe(true);
    expect(wantsColour(true, { FORCE_COLOR: "0" })).toBe(false);
    expect(wantsColour(true, { FORCE_COLOR: "false" })).toBe(false);
    expect(wantsColour(false, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(true);
  });
});
