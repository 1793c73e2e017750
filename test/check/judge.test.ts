/**
 * A better judge on its own (issue 29 §3), run as a user runs `check` (the
 * built dist/), against small fake servers written here that stand in front
 * of our own mock and break it in one way each:
 * - a server that only streams (501, or 405, to a request without `stream`):
 *   every check is still judged, over streams, and the report says so;
 * - a server whose only fault is one missing field on every event: one line
 *   in the report, with its count;
 * - `usage: null`, which the spec allows: a note, not a violation;
 * - a server served under another path than the spec's `/v1/responses`, and
 *   a base URL given without `/v1`: the report says where the spec's path is.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATTERY_NAMES } from "../../src/check/index.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runCli } from "../support/run.js";

const run = (args: string[]) => runCli(args, { env: { ...process.env, NO_COLOR: "1" } });

interface Fault {
  /** Answer requests without `stream: true` with this status (501, 405). */
  refuseJson?: number;
  /** The path the fake serves `responses` under (default `/v1`). */
  prefix?: string;
  /** Changes each streamed event, in place; `false` drops it (the rest are numbered again). */
  event?: (e: Record<string, unknown>) => void | false;
  /** Changes each JSON response body, in place. */
  body?: (b: Record<string, unknown>) => void;
}

interface JsonReport {
  ok: boolean;
  results: {
    name: string;
    outcome: string;
    note?: string;
    streamedInstead?: boolean;
    requests: {
      stream: boolean;
      transport?: string;
      status?: number;
      refusedNonStreamed?: number;
      messages?: number;
    }[];
    violations: { rule: string; path: string; count?: number }[];
    specNotes: { rule: string; path: string; message: string }[];
  }[];
  streamedInstead: string[];
  groups: { rule: string; path: string; message: string; count: number; checks: { name: string; count: number }[] }[];
  baseUrl?: string[];
  summary: { passed: number; failed: number; skipped: number; violations: number };
}

/** A fake server in front of the mock at `upstream` (its base URL), broken as `fault` says. */
function fake(upstream: string, fault: Fault): Server {
  const prefix = fault.prefix ?? "/v1";
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      void (async () => {
        if (req.method !== "POST" || req.url !== `${prefix}/responses`) {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { type: "not_found", code: null, param: null, message: "Not found." } }));
          return;
        }
        let streamed: boolean | undefined;
        try {
          streamed = (JSON.parse(raw) as { stream?: unknown }).stream === true;
        } catch {
          // not JSON: whether it asked for a stream is unknown; the mock answers it
        }
        if (fault.refuseJson !== undefined && streamed === false) {
          res.writeHead(fault.refuseJson, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              error: { type: "invalid_request", code: "stream_only", param: "stream", message: "Only streaming." },
            }),
          );
          return;
        }
        const answer = await fetch(`${upstream}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: raw,
        });
        const type = answer.headers.get("content-type") ?? "";
        let text = await answer.text();
        if (type.startsWith("text/event-stream") && fault.event) {
          let seq = 0;
          const kept: string[] = [];
          for (const message of text.split("\n\n")) {
            const data = /^data: (\{.*\})$/m.exec(message);
            if (!data) {
              kept.push(message);
              continue;
            }
            const e = JSON.parse(data[1]) as Record<string, unknown>;
            const renumber = "sequence_number" in e;
            if (fault.event(e) === false) continue;
            if (renumber && "sequence_number" in e) e.sequence_number = seq++;
            kept.push(message.replace(data[0], () => `data: ${JSON.stringify(e)}`));
          }
          text = kept.join("\n\n");
        } else if (type.startsWith("application/json") && answer.status === 200 && fault.body) {
          const b = JSON.parse(text) as Record<string, unknown>;
          fault.body(b);
          text = JSON.stringify(b);
        }
        res.writeHead(answer.status, { "content-type": type });
        res.end(text);
      })();
    });
  });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
});
afterAll(() => mock.close());

/** Runs `check` in text and in --json against a fake, and closes it. */
async function checkFake(fault: Fault, path = "/v1", extra: string[] = []) {
  const server = fake(mock.baseURL, fault);
  const origin = await listen(server);
  try {
    const [text, json] = await Promise.all([
      run(["check", `${origin}${path}`, ...extra]),
      run(["check", `${origin}${path}`, "--json", ...extra]),
    ]);
    return { origin, text, json, report: JSON.parse(json.stdout) as JsonReport };
  } finally {
    await close(server);
  }
}

/** The checks whose first request goes without `stream`. */
const NON_STREAMED = [
  "text",
  "instructions",
  "function-call-output",
  "previous-response-id",
  "json-schema",
  "bad-missing-model",
  "bad-input-type",
  "bad-tool-choice",
  "bad-max-output-tokens",
];

describe("a server that only streams", () => {
  for (const status of [501, 405]) {
    it(`refusing requests without stream with ${status}: every check is judged over a stream, and the report says so`, async () => {
      const { text, report } = await checkFake({ refuseJson: status });
      expect(text.code, text.stdout).toBe(0);
      expect(report.ok).toBe(true);
      expect(report.streamedInstead).toEqual(NON_STREAMED);
      const by = (name: string) => report.results.find((r) => r.name === name)!;
      for (const name of ["instructions", "function-call-output", "previous-response-id", "json-schema"]) {
        const r = by(name);
        expect(r.outcome, name).toBe("pass");
        expect(r.streamedInstead, name).toBe(true);
        // Each request went without stream, was refused, and was judged as the stream it got.
        for (const q of r.requests) {
          expect(q).toMatchObject({ stream: true, status: 200, refusedNonStreamed: status });
          expect(q.messages).toBeGreaterThan(4);
        }
        expect(r.note, name).toContain(`the server refused the request without \`stream\` (${status})`);
      }
      // previous_response_id was exercised: both turns, over streams.
      expect(by("previous-response-id").requests).toHaveLength(2);
      // The checks that stream anyway are as before.
      expect(by("text-stream").streamedInstead).toBeUndefined();
      expect(text.stdout).toMatch(
        new RegExp(
          `^PASS {2}instructions +instructions, echoed — ${status} → sent streamed: 200 text/event-stream, \\d+ events, completed$`,
          "m",
        ),
      );
      expect(text.stdout).toContain(
        `The server refused requests without \`stream\` (501 or 405): ${NON_STREAMED.length} check(s) were judged over streams instead (${NON_STREAMED.join(", ")}).`,
      );
    });
  }

  it("a streaming-only server that breaks a rule is caught by it, judged on the fold of the stream", async () => {
    // Its json_schema answer is not JSON ({ and } become < and > in every text the stream carries, consistently):
    // behaviour.json-schema, and nothing else.
    const unbrace = (v: unknown): unknown =>
      typeof v === "string" ? v.replace(/\{/g, "<").replace(/\}/g, ">") : Array.isArray(v) ? v.map(unbrace) : v;
    const walk = (o: Record<string, unknown>) => {
      for (const [k, v] of Object.entries(o)) {
        if ((k === "delta" || k === "text") && typeof v === "string") o[k] = unbrace(v);
        else if (v && typeof v === "object")
          for (const x of Array.isArray(v) ? v : [v])
            if (x && typeof x === "object") walk(x as Record<string, unknown>);
      }
    };
    const { report } = await checkFake({ refuseJson: 501, event: walk }, "/v1", ["--only", "json-schema"]);
    const r = report.results[0];
    expect(r.streamedInstead).toBe(true);
    expect(r.outcome).toBe("fail");
    expect(r.violations).toEqual([
      expect.objectContaining({
        rule: "behaviour.json-schema",
        message: expect.stringMatching(/^the output text is not JSON: "</),
      }),
    ]);
  });
});

describe("root causes, not repetitions", () => {
  it("a server whose only fault is no sequence_number on any event gets one line, with a count", async () => {
    const { text, report } = await checkFake({
      event(e) {
        delete e.sequence_number;
      },
    });
    expect(text.code).toBe(1);
    const faults = text.stdout.match(/^ +✗ .*$/gm) ?? [];
    expect(faults, text.stdout).toEqual(["      ✗ sequence-number  event 0 (response.created) $.sequence_number"]);
    // SSE streams (not WebSocket mode, whose upgrade this fake refuses).
    const streamed = report.results.filter((r) => r.requests.some((q) => q.stream && q.transport === undefined));
    const events = streamed.reduce((n, r) => n + r.requests.reduce((m, q) => m + (q.messages ?? 0) - 1, 0), 0); // [DONE] has none
    expect(report.groups).toEqual([
      {
        rule: "sequence-number",
        path: "$.sequence_number",
        message: expect.stringContaining("`sequence_number` is missing on `response.created` (missing on"),
        count: events,
        checks: streamed.map((r) => ({ name: r.name, count: expect.any(Number) })),
      },
    ]);
    expect(text.stdout).toContain(`×${events} in ${streamed.length} checks: text-stream (`);
    // --json keeps every occurrence under its check.
    for (const r of streamed)
      expect(r.violations).toEqual([expect.objectContaining({ rule: "sequence-number", count: expect.any(Number) })]);
    // The checks without a stream pass.
    expect(report.results.find((r) => r.name === "text")!.outcome).toBe("pass");
  });

  it("a bridge that sends no output_item or content_part events: one item.order fault per stream, the item's other rules stopped", async () => {
    const { text, report } = await checkFake(
      {
        event(e) {
          if (/^response\.(output_item|content_part)\.(added|done)$/.test(e.type as string)) return false;
        },
      },
      "/v1",
      ["--only", "text-stream,function-tool"],
    );
    expect(text.code).toBe(1);
    expect(report.groups.map((g) => g.rule)).toEqual(["item.order"]);
    expect(report.groups[0].message).toContain("the item's later events are not judged");
    expect(text.stdout.match(/✗ /g)).toHaveLength(1);
  });
});

describe("what the spec allows", () => {
  it("usage: null in a completed response is a note, not a violation", async () => {
    const { text, report } = await checkFake(
      {
        event(e) {
          if (e.type === "response.completed") (e.response as Record<string, unknown>).usage = null;
        },
        body(b) {
          b.usage = null;
        },
      },
      "/v1",
      ["--only", "text,text-stream"],
    );
    expect(text.code, text.stdout).toBe(0);
    for (const r of report.results) {
      expect(r.outcome).toBe("pass");
      expect(r.specNotes).toEqual([
        expect.objectContaining({ rule: "response.terminal", message: expect.stringContaining("the spec allows it") }),
      ]);
    }
    expect(text.stdout).toContain("note: response.terminal $.usage: `usage` is null in a completed response");
  });
});

describe("the base URL", () => {
  it("a server that answers under its own path but not at /v1/responses: the report says so", async () => {
    const { origin, text, report } = await checkFake({ prefix: "/api" }, "/api", ["--only", "text"]);
    expect(text.code).toBe(0);
    const hint = `the server answers at ${origin}/api/responses, but not at the spec's own path ${origin}/v1/responses (status 404)`;
    expect(report.baseUrl).toEqual([expect.stringContaining(hint)]);
    expect(text.stdout).toContain(`base URL: ${hint}`);
  });

  it("a base URL given without /v1: the report points at the spec's path", async () => {
    const { origin, text, report } = await checkFake({}, "", ["--only", "text"]);
    expect(text.code).toBe(1);
    const hint = `${origin}/responses answered 404 to every request, but the spec's own path ${origin}/v1/responses answers (status 400): did you mean ${origin}/v1?`;
    expect(report.baseUrl).toEqual([hint]);
    expect(text.stdout).toContain(`base URL: ${hint}`);
  });

  it("says nothing when the base URL is the spec's", async () => {
    const { report } = await checkFake({}, "/v1", ["--only", "text"]);
    expect(report.ok).toBe(true);
    expect(report.baseUrl).toBeUndefined();
  });
});

it("every check is named in the battery", () => {
  for (const name of NON_STREAMED) expect(BATTERY_NAMES).toContain(name);
});
