/**
 * The battery with a fake transport: a "server" that answers every request
 * with the same text (streamed or not, echoing the request as the spec
 * says). What it cannot do is failed (a forced tool call, JSON output, a bad
 * request answered 200); what a model may choose not to do is skipped, not
 * passed; and a server that cannot be reached stops the battery.
 */
import { describe, expect, it } from "vitest";
import {
  BATTERY_NAMES,
  baseUrlHints,
  formatReport,
  groupViolations,
  jsonReport,
  runBattery,
  type BatteryReport,
  type BatteryRequest,
  type RawAnswer,
} from "../../src/check/index.js";
import { number, snapshot, sse, USAGE } from "./streams.js";

/** The response fields a request's body echoes (spec ResponseResource table). */
function echo(body: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = { model: body.model ?? "default-model" };
  for (const k of ["instructions", "previous_response_id", "max_output_tokens", "parallel_tool_calls", "store"])
    if (body[k] !== undefined) out[k] = body[k];
  if (body.tools)
    out.tools = body.tools.map((t: Record<string, unknown>) => ({
      description: null,
      parameters: null,
      strict: null,
      ...t,
    }));
  if (body.tool_choice) out.tool_choice = body.tool_choice;
  if (body.reasoning)
    out.reasoning = { effort: body.reasoning.effort ?? null, summary: body.reasoning.summary ?? null };
  if (body.text?.format?.type === "json_schema")
    out.text = {
      format: {
        type: "json_schema",
        name: body.text.format.name,
        description: null,
        schema: null,
        strict: body.text.format.strict ?? false,
      },
    };
  return out;
}

let ids = 0;
/** Answers every request with "Hello there!", as a stream or a JSON body; a body that is not JSON gets a spec 400; no /responses/compact (404). */
async function textOnly(request: BatteryRequest): Promise<RawAnswer> {
  if (request.endpoint === "compact")
    return {
      status: 404,
      contentType: "application/json",
      body: JSON.stringify({ error: { type: "not_found", code: null, param: null, message: "Not found." } }),
    };
  if (request.raw !== undefined) {
    return {
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({
        error: { type: "invalid_request", code: "invalid_json", param: null, message: "The body is not JSON." },
      }),
    };
  }
  const body = request.body!;
  const id = `resp_${++ids}`;
  const item = {
    type: "message",
    id: `msg_${ids}`,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "Hello there!", annotations: [] }],
  };
  const final = snapshot({ ...echo(body), id, status: "completed", completed_at: 1, output: [item], usage: USAGE });
  if (!request.stream) return { status: 200, contentType: "application/json", body: JSON.stringify(final) };
  const base = snapshot({ ...echo(body), id });
  const events = number([
    { type: "response.created", response: base },
    { type: "response.in_progress", response: base },
    { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } },
    {
      type: "response.content_part.added",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: "Hello there!" },
    { type: "response.output_text.done", item_id: item.id, output_index: 0, content_index: 0, text: "Hello there!" },
    { type: "response.content_part.done", item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: final },
  ]);
  return { status: 200, contentType: "text/event-stream", body: sse(events) };
}

describe("runBattery", () => {
  it("fails what a text-only server cannot do, skips what a model may choose not to do, passes the rest", async () => {
    const report = await runBattery({ model: "m", dialect: "open-responses", send: textOnly });
    const outcomes = Object.fromEntries(report.results.map((r) => [r.name, r.outcome]));
    expect(outcomes).toEqual({
      text: "pass",
      "text-stream": "pass",
      instructions: "pass",
      "function-tool": "fail",
      "parallel-tools": "fail",
      "function-call-output": "pass",
      "previous-response-id": "pass",
      "json-schema": "fail",
      "max-output-tokens": "skipped",
      reasoning: "skipped",
      "bad-missing-model": "pass",
      "bad-input-type": "fail",
      "bad-tool-choice": "fail",
      "bad-max-output-tokens": "fail",
      "bad-json": "pass",
      compact: "skipped",
    });
    const by = (name: string) => report.results.find((r) => r.name === name)!;
    expect(by("function-tool").violations).toEqual([
      {
        rule: "behaviour.tool-choice",
        message: "`tool_choice` named get_weather, but the response has no function_call",
        path: "$.output",
        request: 0,
      },
    ]);
    expect(by("parallel-tools").violations).toMatchObject([
      { rule: "behaviour.tool-choice", message: '`tool_choice` is "required", but the response has no function_call' },
    ]);
    expect(by("json-schema").violations).toMatchObject([
      { rule: "behaviour.json-schema", message: 'the output text is not JSON: "Hello there!"' },
    ]);
    expect(by("bad-input-type").violations).toMatchObject([
      { rule: "http.status", message: "a bad `input` got status 200; it must be refused with a 4xx error object" },
    ]);
    expect(by("max-output-tokens").note).toBe("the answer fit in the budget (3 output tokens), so nothing was cut");
    expect(by("reasoning").note).toBe("the server sent no reasoning item (reasoning is the model's to give)");
    expect(by("bad-missing-model").note).toContain("the server applied a default model, which the spec allows");
    expect(by("previous-response-id").requests).toHaveLength(2);
    // Echoing the bad tool_choice back is a schema fault of its own.
    expect(by("bad-tool-choice").violations.map((v) => [v.rule, v.path])).toEqual([
      ["http.status", "$"],
      ["schema", "$.tool_choice"],
    ]);
    expect(by("compact").note).toBe(
      "the server does not serve POST /responses/compact (404); the spec makes it optional",
    );
    expect(report.summary).toEqual({ passed: 7, failed: 6, skipped: 3, violations: 7 });
    expect(report.ok).toBe(false);

    const text = formatReport(report, { target: "http://fake/v1" });
    expect(text).toContain(
      "SKIP  reasoning              reasoning, streamed — 200 text/event-stream, 10 events, completed\n      not exercised: the server sent no reasoning item",
    );
    // A fault that shows in several checks is listed once, after the checks, with its count and checks.
    expect(text).toContain(
      "FAIL  function-tool          a forced function call, streamed — 200 text/event-stream, 10 events, completed\n      and 1 fault(s) seen in several checks, listed once below: behaviour.tool-choice $.output\n",
    );
    expect(text).toContain(
      "In several checks (each fault once; --json lists every occurrence):\n" +
        "      ✗ behaviour.tool-choice  $.output\n" +
        "          `tool_choice` named get_weather, but the response has no function_call\n" +
        '          `tool_choice` is "required", but the response has no function_call\n' +
        "          ×2 in 2 checks: function-tool (1), parallel-tools (1)\n",
    );
    // A fault of one check stays under it.
    expect(text).toContain(
      "FAIL  json-schema            json_schema output — 200 application/json, completed\n      ✗ behaviour.json-schema  $.output\n          the output text is not JSON",
    );
    expect(text.match(/✗ behaviour\.tool-choice/g)).toHaveLength(1);
    expect(text).toContain(
      "16 checks: 7 passed, 6 failed, 3 skipped (not exercised); 7 violation(s) from 4 distinct fault(s)",
    );
    expect(JSON.parse(jsonReport(report, "http://fake/v1"))).toMatchObject({
      target: "http://fake/v1",
      ok: false,
      summary: report.summary,
    });
  });

  it("does not pass a check whose valid request got a well-formed failed response: nothing was exercised", async () => {
    /** Fails every valid request the spec's way: `error` then `response.failed` (streamed), or a failed response (JSON). */
    const failing = async (request: BatteryRequest): Promise<RawAnswer> => {
      if (request.bad) return textOnly(request);
      const body = request.body!;
      const error = { code: "server_error", message: "The model crashed." };
      const final = snapshot({ ...echo(body), id: `resp_f${++ids}`, status: "failed", error, output: [] });
      if (!request.stream) return { status: 200, contentType: "application/json", body: JSON.stringify(final) };
      const base = snapshot({ ...echo(body), id: final.id });
      const events = number([
        { type: "response.created", response: base },
        { type: "response.in_progress", response: base },
        { type: "error", error: { type: "server_error", ...error, param: null } },
        { type: "response.failed", response: final },
      ]);
      return { status: 200, contentType: "text/event-stream", body: sse(events) };
    };
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      only: ["text", "text-stream", "function-tool", "previous-response-id", "json-schema"],
      send: failing,
    });
    expect(report.results.map((r) => [r.name, r.outcome, r.violations])).toEqual([
      ["text", "skipped", []],
      ["text-stream", "skipped", []],
      ["function-tool", "skipped", []],
      ["previous-response-id", "skipped", []],
      ["json-schema", "skipped", []],
    ]);
    expect(report.results[2].note).toBe(
      'the response failed ("server_error": "The model crashed."), so nothing was exercised',
    );
    expect(report.results[3].note).toBe(
      'request 1: the response failed ("server_error": "The model crashed."), so nothing was exercised',
    );
    expect(report.summary).toMatchObject({ passed: 0, skipped: 5, failed: 0 });
  });

  it("runs only the checks named, in the battery's order", async () => {
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      only: ["reasoning", "text"],
      send: textOnly,
    });
    expect(report.results.map((r) => r.name)).toEqual(["text", "reasoning"]);
    expect(BATTERY_NAMES).toContain("reasoning");
  });

  it("stops at once when the first request gets no answer at all", async () => {
    let calls = 0;
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      send: async () => {
        calls++;
        return { body: "", failure: "ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)" };
      },
    });
    expect(calls).toBe(1);
    expect(report).toMatchObject({
      ok: false,
      unreachable: "ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)",
      results: [],
    });
  });

  it("a request that gets no answer later in the battery fails its check", async () => {
    let n = 0;
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      only: ["text", "text-stream"],
      send: async (request) => (++n === 2 ? { body: "", failure: "ECONNRESET" } : textOnly(request)),
    });
    expect(report.results.map((r) => r.outcome)).toEqual(["pass", "fail"]);
    expect(report.results[1].violations).toEqual([
      { rule: "http.unreachable", message: "no answer: ECONNRESET", path: "$", request: 0 },
    ]);
  });

  it("a request refused without stream (501 or 405) is sent again streamed, and the check judged on the stream", async () => {
    const sent: BatteryRequest[] = [];
    const refusing = (status: number) => async (request: BatteryRequest) => {
      sent.push(request);
      if (!request.stream && request.raw === undefined)
        return { status, contentType: "application/json", body: '{"error":{"message":"stream only"}}' };
      return textOnly(request);
    };
    for (const status of [501, 405]) {
      sent.length = 0;
      const report = await runBattery({
        model: "m",
        dialect: "open-responses",
        only: ["instructions", "previous-response-id", "json-schema", "bad-json"],
        send: refusing(status),
      });
      const by = (name: string) => report.results.find((r) => r.name === name)!;
      expect(report.streamedInstead).toEqual(["instructions", "previous-response-id", "json-schema"]);
      expect(by("instructions")).toMatchObject({
        outcome: "pass",
        streamedInstead: true,
        requests: [{ stream: true, status: 200, refusedNonStreamed: status, messages: 10 }],
      });
      // Both turns of previous-response-id went over streams, the second naming the first's id.
      expect(by("previous-response-id").requests).toMatchObject([
        { stream: true, refusedNonStreamed: status },
        { stream: true, refusedNonStreamed: status },
      ]);
      expect(sent.filter((r) => r.body?.previous_response_id !== undefined)).toHaveLength(2);
      // json-schema is judged on the fold of the stream: "Hello there!" is not JSON.
      expect(by("json-schema").violations).toMatchObject([
        { rule: "behaviour.json-schema", message: 'the output text is not JSON: "Hello there!"' },
      ]);
      // A body that is not JSON is not sent again (whether it asked for a stream is unknown).
      expect(by("bad-json").streamedInstead).toBeUndefined();
    }
    // Another refusal (400, 500) is judged as it is, not sent again.
    const report = await runBattery({ model: "m", dialect: "open-responses", only: ["text"], send: refusing(500) });
    expect(report.results[0].requests).toEqual([{ stream: false, status: 500, contentType: "application/json" }]);
    expect(report.streamedInstead).toEqual([]);
  });

  it("groups: one fault per rule and path pattern, counting folded events and violations over the limits", () => {
    const base = { outcome: "fail" as const, title: "t", requests: [], specNotes: [] };
    const report = {
      dialect: "open-responses" as const,
      model: "m",
      ok: false,
      streamedInstead: [],
      summary: { passed: 0, failed: 2, skipped: 0, violations: 4 },
      results: [
        {
          ...base,
          name: "a",
          suppressed: 5,
          suppressedByRule: { "sse.event-name": 5 },
          violations: [
            {
              rule: "sequence-number" as const,
              message: "missing (10 events)",
              path: "$.sequence_number",
              count: 10,
              request: 0,
            },
            { rule: "sse.event-name" as const, message: "no event: x", path: "$.type", event: 1, request: 0 },
            { rule: "item.done" as const, message: "status", path: "$.item.content[0].text", event: 8, request: 0 },
          ],
        },
        {
          ...base,
          name: "b",
          suppressed: 0,
          suppressedByRule: {},
          violations: [
            { rule: "item.done" as const, message: "status", path: "$.item.content[3].text", event: 9, request: 0 },
          ],
        },
      ],
    };
    expect(groupViolations(report)).toEqual([
      {
        rule: "sequence-number",
        path: "$.sequence_number",
        message: "missing (10 events)",
        count: 10,
        checks: [{ name: "a", count: 10 }],
      },
      { rule: "sse.event-name", path: "$.type", message: "no event: x", count: 6, checks: [{ name: "a", count: 6 }] },
      {
        rule: "item.done",
        path: "$.item.content[*].text",
        message: "status",
        count: 2,
        checks: [
          { name: "a", count: 1 },
          { name: "b", count: 1 },
        ],
      },
    ]);
  });

  it("baseUrlHints: the spec's path not served, a root without /v1, and nothing when all is well", () => {
    const answered = (status: number): BatteryReport => ({
      dialect: "open-responses",
      model: "m",
      ok: true,
      streamedInstead: [],
      summary: { passed: 1, failed: 0, skipped: 0, violations: 0 },
      results: [
        {
          name: "text",
          title: "t",
          outcome: "pass",
          requests: [{ stream: false, status }],
          violations: [],
          suppressed: 0,
          suppressedByRule: {},
          specNotes: [],
        },
      ],
    });
    expect(baseUrlHints("http://h:1/api", answered(200), { status: 404 })).toEqual([
      "the server answers at http://h:1/api/responses, but not at the spec's own path http://h:1/v1/responses (status 404): clients that take the spec's path (an SDK given http://h:1/v1) will not find it",
    ]);
    expect(baseUrlHints("http://h:1", answered(404), { status: 400 })).toEqual([
      "http://h:1/responses answered 404 to every request, but the spec's own path http://h:1/v1/responses answers (status 400): did you mean http://h:1/v1?",
    ]);
    expect(baseUrlHints("http://h:1/api", answered(200), { status: 400 })).toEqual([]);
    expect(baseUrlHints("http://h:1/v1", answered(200))).toEqual([]);
    expect(baseUrlHints("http://h:1/v1", answered(404))).toEqual([
      "http://h:1/v1/responses, the spec's own path, answered 404 to every request: it is not served here",
    ]);
  });

  it("baseUrlHints: a 404 from /responses/compact or the WebSocket upgrade says nothing about BASE/responses", () => {
    const report = (requests: BatteryReport["results"][number]["requests"]): BatteryReport => ({
      dialect: "open-responses",
      model: "m",
      ok: true,
      streamedInstead: [],
      summary: { passed: 0, failed: 0, skipped: 1, violations: 0 },
      results: [
        {
          name: "x",
          title: "t",
          outcome: "skipped",
          requests,
          violations: [],
          suppressed: 0,
          suppressedByRule: {},
          specNotes: [],
        },
      ],
    });
    // `check --only compact websocket` on a server that serves neither: no request reached BASE/responses.
    const optional = report([
      { stream: false, endpoint: "compact", status: 404 },
      { stream: true, transport: "websocket", status: 404 },
    ]);
    expect(baseUrlHints("http://h:1/v1", optional)).toEqual([]);
    expect(baseUrlHints("http://h:1/api", optional, { status: 404 })).toEqual([]);
    // With a request that did, they are left out of the count: /responses answered, so it is served.
    const served = report([
      { stream: false, endpoint: "compact", status: 404 },
      { stream: false, status: 200 },
    ]);
    expect(baseUrlHints("http://h:1/v1", served)).toEqual([]);
    const notServed = report([
      { stream: true, transport: "websocket", status: 101 },
      { stream: false, status: 404 },
    ]);
    expect(baseUrlHints("http://h:1/v1", notServed)).toEqual([
      "http://h:1/v1/responses, the spec's own path, answered 404 to every request: it is not served here",
    ]);
  });
});
