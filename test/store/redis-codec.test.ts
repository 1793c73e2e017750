/**
 * What a shared store keeps of a response survives the round trip through
 * its text exactly: every library scenario, in both dialects, streamed,
 * background and with reasoning and tools, replays byte for byte from the
 * decoded record (its events re-emitted from the decoded plan).
 */
import { describe, expect, it } from "vitest";
import { DIALECTS, renderResponse } from "../../src/dialect/index.js";
import { answerRequest } from "../../src/emit/index.js";
import { doneFrame, sseFrame } from "../../src/http/sse.js";
import { parseCreateRequest } from "../../src/http/validate.js";
import { loadRegistry } from "../../src/server.js";
import { PlannedRecord } from "../../src/store/planned-record.js";
import { decodeRecord, encodeRecord, previousOf } from "../../src/store/redis-codec.js";
import { replayEvents } from "../../src/store/response-store.js";
import type { Dialect } from "../../src/dialect/index.js";
import type { Plan } from "../../src/generate/plan.js";
import type { StreamEvent } from "../../src/spec/index.js";

const registry = await loadRegistry({ scenarios: [], scenario: "auto", library: true });
const sse = (events: readonly StreamEvent[], dialect: Dialect, plan: Plan) =>
  events.map((e) => sseFrame(e, dialect, plan)).join("") + doneFrame(dialect);

const BODIES = [
  { model: "m", input: "Hello there", stream: true },
  {
    model: "m",
    input: [{ role: "user", content: [{ type: "input_text", text: "weather in Paris?" }] }],
    background: true,
    reasoning: { effort: "high", summary: "auto" },
    tools: [
      {
        type: "function",
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
    metadata: { a: "b" },
  },
];

describe("the shared store's record codec", () => {
  const names = [...registry.byName.keys()];
  it.each(names)("replays scenario %s byte for byte after the round trip", (name) => {
    let checked = 0;
    for (const dialect of DIALECTS.values()) {
      for (const body of BODIES) {
        const request = parseCreateRequest(body, { strict: false });
        let answer;
        try {
          answer = answerRequest({ registry, request, seed: 7, scenario: name, createdAt: 1_767_225_600, dialect });
        } catch {
          continue; // a scenario whose turn is an HTTP error stores nothing
        }
        // The record the server keeps: the plan and the request's input, the rest built from them.
        const record = new PlannedRecord(answer.plan, request.input, "session-1");
        const text = encodeRecord(record);
        const decoded = decodeRecord(text);
        expect(encodeRecord(decoded)).toBe(text);
        expect(sse([...replayEvents(decoded)], dialect, decoded.plan)).toBe(sse(answer.events, dialect, answer.plan));
        expect(JSON.stringify(renderResponse(dialect, decoded.response, decoded.plan))).toBe(
          JSON.stringify(renderResponse(dialect, answer.response, answer.plan)),
        );
        expect(decoded.input).toEqual(record.input);
        expect(decoded.session).toBe("session-1");
        // A cancelled run keeps the events it delivered: they survive too.
        const run = new PlannedRecord(answer.plan, request.input, "session-1");
        run.events = answer.events.slice(0, 3);
        const cancelled = decodeRecord(encodeRecord(run));
        expect(sse([...replayEvents(cancelled)], dialect, cancelled.plan)).toBe(
          sse(answer.events.slice(0, 3), dialect, answer.plan),
        );
        checked++;
      }
    }
    if (!name.startsWith("error-")) expect(checked).toBeGreaterThan(0);
  });

  it("keeps the previous_response_id beside the record, for walking a chain", () => {
    const request = parseCreateRequest(
      { model: "m", input: "hi", previous_response_id: "resp_before" },
      { strict: false },
    );
    const answer = answerRequest({ registry, request, items: [], seed: 1, scenario: "text", createdAt: 1 });
    expect(previousOf(new PlannedRecord(answer.plan, request.input, null))).toBe("resp_before");
    const first = parseCreateRequest({ model: "m", input: "hi" }, { strict: false });
    expect(
      previousOf(
        new PlannedRecord(
          answerRequest({ registry, request: first, seed: 1, scenario: "text", createdAt: 1 }).plan,
          first.input,
          null,
        ),
      ),
    ).toBe("");
  });
});
