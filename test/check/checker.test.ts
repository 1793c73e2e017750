/**
 * The pure checker on hand-made streams and bodies: quiet on good ones, and
 * each rule fires, alone, on a stream broken in one targeted way, naming the
 * event, the path and the field at fault.
 */
import { describe, expect, it } from "vitest";
import {
  checkAnswer,
  checkErrorBody,
  checkResponseBody,
  checkStream,
  StreamChecker,
  type StreamVerdict,
  type Verdict,
} from "../../src/check/index.js";
import { number, REQUEST, snapshot, sse, textStream, TOOL_REQUEST, toolStream, USAGE, type Ev } from "./streams.js";

const ruleIds = (v: StreamVerdict | Verdict) => [...new Set(v.violations.map((x) => x.rule))].sort();
const check = (
  events: Ev[],
  options: { done?: boolean; dialect?: "open-responses" | "openai"; request?: unknown } = {},
) =>
  checkStream(sse(events, { done: options.done }), { request: options.request ?? REQUEST, dialect: options.dialect });

describe("good streams", () => {
  it("the spec's text stream passes, and its fold is the terminal output", () => {
    const v = check(textStream());
    expect(v.violations).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.messages).toBe(11);
    expect(v.terminal).toBe("response.completed");
    expect(v.done).toBe(true);
    expect(v.output).toEqual(textStream().at(-1)!.response.output);
  });

  it("reasoning (summary and raw text) then a function call passes in both dialects", () => {
    expect(check(toolStream(), { request: TOOL_REQUEST }).violations).toEqual([]);
    const openai = check(toolStream("response.reasoning_text.delta", "response.reasoning_text.done"), {
      request: TOOL_REQUEST,
      dialect: "openai",
      done: false,
    });
    expect(openai.violations).toEqual([]);
  });

  it("gives the same verdict when the text arrives one character at a time, or as bytes split inside a character", () => {
    const events = textStream();
    events[5].delta = " thère!";
    events[6].text =
      events[7].part.text =
      events[8].item.content[0].text =
      events[9].response.output[0].content[0].text =
        "Hello thère!";
    const text = sse(events);
    const whole = checkStream(text, { request: REQUEST });
    expect(whole.violations).toEqual([]);
    const byChar = new StreamChecker({ request: REQUEST });
    for (const ch of text) byChar.write(ch);
    expect(byChar.end()).toEqual(whole);
    const bytes = new TextEncoder().encode(text.replace(/\n/g, "\r\n"));
    const byByte = new StreamChecker({ request: REQUEST });
    for (let i = 0; i < bytes.length; i += 7) byByte.write(bytes.subarray(i, i + 7));
    expect(byByte.end()).toEqual(whole);
  });

  it("reports violations as the events arrive (live use), and a final verdict at the end", () => {
    const events = textStream();
    delete events[0].sequence_number;
    const checker = new StreamChecker({ request: REQUEST });
    const first = checker.write(sse(events.slice(0, 1), { done: false }));
    expect(first).toMatchObject([
      { rule: "sequence-number", event: 0, eventType: "response.created", path: "$.sequence_number" },
    ]);
    expect(checker.write(sse(events.slice(1), { done: false }))).toEqual([]);
    const verdict = checker.end();
    expect(ruleIds(verdict)).toEqual(["sequence-number", "sse.done"]);
  });

  it("checks events that came without SSE framing (a WebSocket turn): no [DONE] rule", () => {
    const checker = new StreamChecker({ request: REQUEST });
    for (const e of textStream()) expect(checker.event(e)).toEqual([]);
    expect(checker.end({ framing: "none" }).violations).toEqual([]);
  });

  it("accepts vendor events and items (slug:name) and heartbeat comments", () => {
    const events = textStream();
    events.splice(2, 0, { type: "acme:progress", stage: "searching" });
    number(events);
    const text = sse(events).replace(
      "event: response.output_item.added",
      ": keep-alive\n\nevent: response.output_item.added",
    );
    expect(checkStream(text, { request: REQUEST }).violations).toEqual([]);
  });
});

describe("OpenAI's hosted tools", () => {
  it("are accepted in the openai dialect, and refused by the spec", () => {
    const events = textStream();
    const call = {
      type: "web_search_call",
      id: "ws_1",
      status: "in_progress",
      action: { type: "search", query: "weather" },
    };
    const callDone = { ...call, status: "completed" };
    events.splice(
      2,
      0,
      { type: "response.output_item.added", output_index: 0, item: call },
      { type: "response.web_search_call.in_progress", item_id: "ws_1", output_index: 0 },
      { type: "response.web_search_call.completed", item_id: "ws_1", output_index: 0 },
      { type: "response.output_item.done", output_index: 0, item: callDone },
    );
    for (const e of events.slice(6)) if ("output_index" in e) e.output_index = 1;
    events.at(-1)!.response.output.unshift(callDone);
    number(events);
    expect(check(events, { dialect: "openai", done: false }).violations).toEqual([]);
    const spec = check(events);
    expect(spec.violations.map((v) => [v.rule, v.event, v.path])).toEqual([
      ["schema", 2, "$.item.type"],
      ["event.type", 3, "$.type"],
      ["event.type", 4, "$.type"],
      ["schema", 5, "$.item.type"],
      ["schema", 13, "$.response.output[0].type"],
    ]);
  });
});

describe("each rule fires on its own fault", () => {
  it("sequence-number: missing on every event is one violation that counts them", () => {
    const events = textStream().map(({ sequence_number: _, ...e }) => e);
    const v = check(events);
    expect(v.violations).toEqual([
      {
        rule: "sequence-number",
        event: 0,
        eventType: "response.created",
        path: "$.sequence_number",
        message: "`sequence_number` is missing on `response.created` (missing on 10 events in all)",
        count: 10,
      },
    ]);
  });

  it("sequence-number: must start at 0 and rise by 1", () => {
    const starts = textStream().map((e) => ({ ...e, sequence_number: e.sequence_number + 1 }));
    expect(check(starts).violations).toMatchObject([
      { rule: "sequence-number", event: 0, message: expect.stringContaining("starts at 1") },
    ]);
    const gap = textStream();
    gap[4].sequence_number = 7;
    const v = check(gap);
    expect(ruleIds(v)).toEqual(["sequence-number"]);
    expect(v.violations[0]).toMatchObject({
      event: 4,
      message: "`sequence_number` is 7 after 3; it must rise by 1 (4)",
    });
  });

  it("item.done: a missing output_item.done is named, with its item", () => {
    const events = textStream();
    events.splice(8, 1);
    const v = check(number(events));
    expect(v.violations).toEqual([
      {
        rule: "item.done",
        event: 8,
        eventType: "response.completed",
        path: "$.response.output[0]",
        message: 'no `output_item.done` for item "msg_1" (output_index 0) before response.completed',
      },
    ]);
  });

  it("fold: the terminal snapshot differs from what was streamed", () => {
    const events = textStream();
    events[9].response.output[0].content[0].text = "Hello world!";
    const v = check(events);
    expect(v.violations).toEqual([
      {
        rule: "fold",
        event: 9,
        eventType: "response.completed",
        path: "$.response.output[0].content[0].text",
        message:
          '`output[0].content[0].text` in the terminal snapshot is "Hello world!", but the stream\'s output_item.done had "Hello there!"',
      },
    ]);
    const extra = textStream();
    extra[9].response.output.push({
      type: "message",
      id: "msg_2",
      status: "completed",
      role: "assistant",
      content: [],
    });
    expect(check(extra).violations).toMatchObject([
      { rule: "fold", message: "the terminal snapshot has 2 output item(s), but the stream added 1" },
    ]);
  });

  it("sse.event-name: an event: line that is not the JSON type, or none", () => {
    const text = sse(textStream()).replace("event: response.output_text.delta", "event: response.text.delta");
    const v = checkStream(text, { request: REQUEST });
    expect(v.violations).toEqual([
      {
        rule: "sse.event-name",
        event: 4,
        eventType: "response.output_text.delta",
        path: "$.type",
        message: '`event: response.text.delta` differs from the JSON type "response.output_text.delta"',
      },
    ]);
    const none = sse(textStream()).replace("event: response.created\n", "");
    expect(checkStream(none, { request: REQUEST }).violations).toMatchObject([
      {
        rule: "sse.event-name",
        event: 0,
        message: "no `event:` line: it must be `event: response.created`, the JSON type",
      },
    ]);
  });

  it("file_citation: OpenAI's annotation is accepted in the openai dialect, refused by the spec's schemas", () => {
    const a = { type: "file_citation", file_id: "file-1", filename: "a.pdf", index: 12 };
    const events = textStream();
    events.splice(6, 0, {
      type: "response.output_text.annotation.added",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      annotation_index: 0,
      annotation: a,
    });
    events[8].part.annotations = [a];
    events[9].item.content[0].annotations = [a];
    events[10].response.output[0].content[0].annotations = [a];
    number(events);
    expect(check(events, { dialect: "openai", done: false }).violations).toEqual([]);
    const spec = check(events).violations.filter((v) => v.rule === "schema");
    expect(spec.map((v) => [v.event, v.path])).toEqual(
      expect.arrayContaining([
        [6, expect.stringMatching(/^\$\.annotation/)],
        [8, expect.stringMatching(/^\$\.part\.annotations\[0\]/)],
      ]),
    );
    // A malformed one is refused in the openai dialect too: file_citation without its filename.
    const bad = structuredClone(events);
    delete bad[6].annotation.filename;
    expect(
      check(bad, { dialect: "openai", done: false }).violations.map((v) => [v.rule, v.event, v.path]),
    ).toContainEqual(["schema", 6, "$.annotation.filename"]);
  });

  it("usage: total_tokens that is not input + output, and details over their totals", () => {
    const events = textStream();
    events[9].response.usage = { ...USAGE, total_tokens: 13, output_tokens_details: { reasoning_tokens: 4 } };
    const v = check(events);
    expect(v.violations).toEqual([
      {
        rule: "usage",
        event: 9,
        eventType: "response.completed",
        path: "$.response.usage.total_tokens",
        message: "`total_tokens` is 13, but input_tokens + output_tokens = 9 + 3 = 12",
      },
      {
        rule: "usage",
        event: 9,
        eventType: "response.completed",
        path: "$.response.usage.output_tokens_details.reasoning_tokens",
        message: "`reasoning_tokens` (4) exceeds `output_tokens` (3)",
      },
    ]);
  });

  it("sse.done: required after the terminal event in the spec dialect, absent in the openai dialect", () => {
    expect(check(textStream(), { done: false }).violations).toEqual([
      {
        rule: "sse.done",
        event: 9,
        path: "$",
        message: "the stream ended without `data: [DONE]` after the terminal event",
      },
    ]);
    expect(check(textStream(), { dialect: "openai" }).violations).toMatchObject([
      {
        rule: "sse.done",
        event: 10,
        message: expect.stringContaining("the openai dialect ends the stream after the terminal event with no [DONE]"),
      },
    ]);
    expect(check(textStream(), { dialect: "openai", done: false }).violations).toEqual([]);
    const early = sse(textStream().slice(0, 3), { done: false }) + "data: [DONE]\n\n" + sse(textStream().slice(3));
    expect(checkStream(early, { request: REQUEST }).violations.map((x) => [x.rule, x.message])).toContainEqual([
      "sse.done",
      "`data: [DONE]` before the terminal event (response.completed, response.incomplete or response.failed)",
    ]);
  });

  it("text.done: a .done text that is not the deltas joined, and a content_part.done that differs", () => {
    const done = textStream();
    done[6].text = "Hello there.";
    const v = check(done);
    expect(v.violations[0]).toMatchObject({
      rule: "text.done",
      event: 6,
      path: "$.text",
      message: expect.stringContaining(
        "`response.output_text.done` text differs from its deltas joined, at character 11",
      ),
    });
    const part = textStream();
    part[7].part.text = "Hello";
    expect(check(part).violations).toMatchObject([
      {
        rule: "text.done",
        event: 7,
        path: "$.part.text",
        message: expect.stringContaining('at character 5: "Hello" vs "Hello there!"'),
      },
    ]);
    const item = textStream();
    item[8].item.content[0].text = "Hello";
    item[9].response.output[0].content[0].text = "Hello";
    expect(check(item).violations).toMatchObject([{ rule: "item.done", event: 8, path: "$.item.content[0].text" }]);
  });

  it("part.order: a delta with no content part opened", () => {
    const events = textStream();
    events.splice(3, 1);
    const v = check(number(events));
    // One violation: the part's later events (2 deltas, .done, content_part.done) are counted, not judged,
    // and the item's parts are not compared at output_item.done (they never streamed as parts).
    expect(v.violations).toEqual([
      {
        rule: "part.order",
        event: 3,
        eventType: "response.output_text.delta",
        path: "$.content_index",
        message:
          "`response.output_text.delta` for content_index 0, which no content_part.added opened; the part's later events are not judged, nor the item's parts at output_item.done (3 later event(s) of it counted, not judged)",
        count: 4,
      },
    ]);
  });

  it("item.order: events for an item no output_item.added opened are one violation, and stop that item's rules", () => {
    // A bridge that sends no output_item or content_part events: only deltas, .done, and the terminal event.
    const events = number(
      textStream().filter((e) => !/^response\.(output_item|content_part)\.(added|done)$/.test(e.type as string)),
    );
    const v = check(events);
    expect(v.violations).toEqual([
      {
        rule: "item.order",
        event: 2,
        eventType: "response.output_text.delta",
        path: "$.output_index",
        message: expect.stringMatching(
          /^`response\.output_text\.delta` names output_index 0, where no output_item\.added came; the item's later events are not judged \(part\.order, text\.done, item\.done, and the fold of the stream\) \(\d+ later event\(s\) of it counted, not judged\)$/,
        ),
        count: expect.any(Number),
      },
    ]);
    expect(v.violations[0].count).toBe(events.filter((e) => typeof e.output_index === "number").length);
  });

  it("part.order and part.added: parts open empty, close after their .done, and deltas match the part's kind", () => {
    const nonEmpty = textStream();
    nonEmpty[3].part.text = "Hel";
    expect(ruleIds(check(nonEmpty))).toContain("part.added");
    const noTextDone = textStream();
    noTextDone.splice(6, 1);
    expect(check(number(noTextDone)).violations).toMatchObject([
      {
        rule: "part.order",
        event: 6,
        message: "`response.content_part.done` before `output_text.done`: the part's text must be closed first",
      },
    ]);
    const refusalDelta = textStream();
    refusalDelta[4].type = "response.refusal.delta";
    expect(check(refusalDelta).violations.map((x) => x.message)).toContain(
      "`response.refusal.delta` into a `output_text` part (it belongs in a `refusal` part)",
    );
  });

  it("stream.terminal: none at the end, or an event after it", () => {
    expect(check(textStream().slice(0, 9), { done: false }).violations.map((x) => x.rule)).toEqual([
      "stream.terminal",
      "sse.done",
    ]);
    const after = textStream();
    after.push({ type: "response.completed", sequence_number: 10, response: after[9].response });
    expect(check(after).violations).toMatchObject([
      {
        rule: "stream.terminal",
        event: 10,
        message: "`response.completed` after the terminal event response.completed: nothing may follow it",
      },
    ]);
  });

  it("stream.order: response.created first, then response.in_progress", () => {
    const noCreated = number(textStream().slice(1));
    expect(check(noCreated).violations).toMatchObject([
      {
        rule: "stream.order",
        event: 0,
        message: "the first event is `response.in_progress`; a stream must start with response.created",
      },
    ]);
    const noInProgress = textStream();
    noInProgress.splice(1, 1);
    expect(ruleIds(check(number(noInProgress)))).toEqual(["stream.order"]);
  });

  it("stream.error: an error event must be followed by response.failed", () => {
    const events = textStream().slice(0, 2);
    events.push({ type: "error", error: { type: "model_error", code: "model_error", message: "boom", param: null } });
    const good = number([
      ...events,
      {
        type: "response.failed",
        response: snapshot({ status: "failed", error: { code: "model_error", message: "boom" } }),
      },
    ]);
    expect(check(good).violations).toEqual([]);
    const bad = number([
      ...events.map((e) => structuredClone(e)),
      { type: "response.completed", response: snapshot({ status: "completed", completed_at: 1, usage: USAGE }) },
    ]);
    expect(check(bad).violations).toMatchObject([
      {
        rule: "stream.error",
        event: 3,
        message: "`response.completed` after the `error` event (event 2): only response.failed may follow it",
      },
    ]);
  });

  it("event.type: unknown types, and the other dialect's reasoning events", () => {
    const unknown = textStream();
    unknown[4].type = "response.text.delta";
    const v = checkStream(sse(unknown).replace("event: response.text.delta", "event: response.text.delta"), {
      request: REQUEST,
    });
    expect(v.violations[0]).toMatchObject({
      rule: "event.type",
      event: 4,
      message: "`response.text.delta` is not an event the spec defines, and not a vendor type 'slug:name'",
    });
    const openaiNames = check(toolStream("response.reasoning_text.delta", "response.reasoning_text.done"), {
      request: TOOL_REQUEST,
    });
    expect(openaiNames.violations.filter((x) => x.rule === "event.type").map((x) => x.message)).toEqual([
      "`response.reasoning_text.delta` is not an event of the open-responses dialect: it names it `response.reasoning.delta`",
      "`response.reasoning_text.done` is not an event of the open-responses dialect: it names it `response.reasoning.done`",
    ]);
  });

  it("schema: missing keys and wrong types are named with their path", () => {
    const events = textStream();
    delete events[0].response.model;
    events[4].delta = 42;
    const v = check(events);
    expect(v.violations).toEqual(
      expect.arrayContaining([
        {
          rule: "schema",
          event: 0,
          eventType: "response.created",
          path: "$.response.model",
          message: "`model` is required but missing",
        },
        {
          rule: "schema",
          event: 4,
          eventType: "response.output_text.delta",
          path: "$.delta",
          message: "`delta` must be a string, got number 42",
        },
      ]),
    );
  });

  it("item.order: the next output_index, and the item_id of the open item", () => {
    const index = textStream();
    index[2].output_index = 1;
    expect(check(index).violations[0]).toMatchObject({
      rule: "item.order",
      event: 2,
      path: "$.output_index",
      message: "`output_index` is 1; the next item's is 0",
    });
    const id = textStream();
    id[4].item_id = "msg_9";
    expect(check(id).violations).toMatchObject([
      {
        rule: "item.order",
        event: 4,
        path: "$.item_id",
        message: '`item_id` "msg_9" is not the id of the item at output_index 0 ("msg_1")',
      },
    ]);
  });

  it("item.added: an item must open in_progress and empty", () => {
    const events = toolStream();
    events[13].item.status = "completed";
    events[13].item.arguments = "{}";
    const v = check(events, { request: TOOL_REQUEST });
    expect(v.violations.filter((x) => x.rule === "item.added").map((x) => x.path)).toEqual([
      "$.item.status",
      "$.item.arguments",
    ]);
  });

  it("text.done and item.done: function call arguments", () => {
    const args = toolStream();
    args[16].arguments = '{"city":"Rome"}';
    expect(check(args, { request: TOOL_REQUEST }).violations).toMatchObject([
      { rule: "text.done", event: 16, path: "$.arguments" },
      { rule: "item.done", event: 17, path: "$.item.arguments" },
    ]);
    const name = toolStream();
    name[17].item.name = "get_time";
    name[18].response.output[1].name = "get_time";
    expect(check(name, { request: TOOL_REQUEST }).violations).toMatchObject([
      {
        rule: "item.done",
        event: 17,
        path: "$.item.name",
        message: '`item.name` is "get_time" in output_item.done, but "get_weather" in output_item.added',
      },
    ]);
  });

  it("item.status: an incomplete item makes the response incomplete", () => {
    const events = textStream();
    events[8].item.status = "incomplete";
    events[9].response.output[0].status = "incomplete";
    expect(check(events).violations).toMatchObject([
      {
        rule: "item.status",
        event: 9,
        path: "$.response.status",
        message: '`output[0]` is incomplete, so the response must be incomplete, not "completed"',
      },
    ]);
  });

  it("echo: instructions, tools and defaults", () => {
    const events = textStream();
    const v = check(events, {
      request: {
        ...REQUEST,
        instructions: "Be brief.",
        tools: [{ type: "function", name: "f" }],
        max_output_tokens: 100,
      },
    });
    expect(v.violations).toEqual([
      {
        rule: "echo",
        event: 9,
        eventType: "response.completed",
        path: "$.response.instructions",
        message: '`instructions` is null; the request sent "Be brief."',
      },
      {
        rule: "echo",
        event: 9,
        eventType: "response.completed",
        path: "$.response.max_output_tokens",
        message: "`max_output_tokens` is null; the request sent 100",
      },
      {
        rule: "echo",
        event: 9,
        eventType: "response.completed",
        path: "$.response.tools",
        message: "`tools` has 0 tools; the request sent 1",
      },
    ]);
  });

  it("response.terminal and response.stable; usage: null is a note (openapi.json makes it nullable)", () => {
    const events = textStream();
    events[9].response.usage = null;
    events[9].response.id = "resp_2";
    const v = check(events);
    expect(v.notes).toEqual([
      {
        rule: "response.terminal",
        level: "note",
        event: 9,
        eventType: "response.completed",
        path: "$.response.usage",
        message:
          "`usage` is null in a completed response: the spec allows it (usage is nullable), but clients that count tokens get nothing",
      },
    ]);
    events[9].response.usage = USAGE;
    events[9].response.completed_at = null;
    expect(check(events).violations).toEqual([
      {
        rule: "response.terminal",
        event: 9,
        eventType: "response.completed",
        path: "$.response.completed_at",
        message: "`completed_at` is null in a completed response",
      },
      {
        rule: "response.stable",
        event: 9,
        eventType: "response.completed",
        path: "$.response.id",
        message: '`response.id` is "resp_2" in response.completed, but "resp_1" in response.created',
      },
    ]);
  });

  it("sse.framing and sse.id-line", () => {
    const text = sse(textStream()).replace("data: [DONE]\n\n", "id: 7\ndata: {not json\n\ndata: [DONE]");
    const v = checkStream(text, { request: REQUEST });
    expect(v.violations.map((x) => [x.rule, x.event])).toEqual([
      ["sse.id-line", 10],
      ["sse.framing", 10],
      ["sse.framing", 11],
    ]);
    expect(v.violations[2].message).toBe(
      "the stream ended in the middle of a message (no blank line after the last one)",
    );
  });

  it("http: a stream needs status 200 and text/event-stream", () => {
    const v = checkStream(sse(textStream()), { request: REQUEST, status: 201, contentType: "application/json" });
    expect(ruleIds(v)).toEqual(["http.content-type", "http.status"]);
    expect(
      checkStream(sse(textStream()), { request: REQUEST, status: 200, contentType: "text/event-stream; charset=utf-8" })
        .ok,
    ).toBe(true);
  });

  it("keeps at most 25 violations of one rule and counts the rest", () => {
    const events = textStream().slice(0, 4);
    for (let i = 0; i < 100; i++)
      events.push({
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: "x",
      });
    events.forEach((e, i) => (e.sequence_number = i * 2));
    const v = check(events, { done: false });
    expect(v.violations.filter((x) => x.rule === "sequence-number")).toHaveLength(25);
    expect(v.suppressed["sequence-number"]).toBe(103 - 25);
    expect(v.ok).toBe(false);
  });
});

describe("JSON and error bodies", () => {
  const body = snapshot({ status: "completed", completed_at: 1, usage: USAGE, output: textStream()[8].item });

  it("a good response body passes; a broken one names its faults", () => {
    const good = snapshot({ status: "completed", completed_at: 1, usage: USAGE, output: [textStream()[8].item] });
    expect(
      checkResponseBody({
        request: { model: "mock-model-1", input: "hi" },
        status: 200,
        contentType: "application/json",
        body: JSON.stringify(good),
      }).violations,
    ).toEqual([]);
    const v = checkResponseBody({
      request: { model: "mock-model-1", input: "hi" },
      status: 200,
      contentType: "text/plain",
      body: JSON.stringify(body),
    });
    expect(v.violations).toMatchObject([
      { rule: "http.content-type", message: 'a JSON answer must be application/json, got "text/plain"' },
      { rule: "schema", path: "$.output", message: "`output` must be an array, got an object" },
    ]);
    const missing = { ...good } as Record<string, unknown>;
    delete missing.metadata;
    delete missing.top_p;
    expect(
      checkResponseBody({ status: 200, contentType: "application/json", body: JSON.stringify(missing) }).violations,
    ).toEqual([{ rule: "schema", path: "$", message: "the response lacks required keys: top_p, metadata" }]);
    expect(checkResponseBody({ status: 200, contentType: "application/json", body: "{oops" }).violations).toMatchObject(
      [{ rule: "json.body" }],
    );
  });

  it("error bodies: the shape, the spec's types, the param", () => {
    const good = {
      error: { type: "invalid_request", code: "invalid_type", param: "input", message: "Invalid type for 'input'." },
    };
    expect(
      checkErrorBody({ status: 400, contentType: "application/json", body: JSON.stringify(good), param: "input" })
        .violations,
    ).toEqual([]);
    const openai = { error: { ...good.error, type: "invalid_request_error" } };
    expect(
      checkErrorBody({ status: 400, contentType: "application/json", body: JSON.stringify(openai), dialect: "openai" })
        .violations,
    ).toEqual([]);
    expect(
      checkErrorBody({ status: 400, contentType: "application/json", body: JSON.stringify(openai) }).violations,
    ).toMatchObject([{ rule: "error.type", path: "$.error.type" }]);
    const bad = { error: { message: "req.input is not iterable", type: "server_error" } };
    expect(
      checkErrorBody({ status: 500, contentType: "application/json", body: JSON.stringify(bad), param: "input" })
        .violations,
    ).toEqual([{ rule: "error.shape", path: "$.error", message: "`error` lacks required keys: code, param" }]);
    const wrongParam = { error: { ...good.error, param: "model" } };
    expect(
      checkErrorBody({ status: 400, contentType: "application/json", body: JSON.stringify(wrongParam), param: "input" })
        .violations,
    ).toMatchObject([{ rule: "error.param" }]);
  });

  it("checkAnswer dispatches on status and content-type", () => {
    expect(
      checkAnswer({ status: 200, contentType: "text/event-stream", body: sse(textStream()), request: REQUEST }).kind,
    ).toBe("stream");
    expect(
      checkAnswer({
        status: 400,
        contentType: "application/json",
        body: JSON.stringify({ error: { type: "invalid_request", code: null, param: null, message: "no" } }),
      }).kind,
    ).toBe("error");
    const final = textStream()[9].response;
    const jsonForStream = checkAnswer({
      status: 200,
      contentType: "application/json",
      body: JSON.stringify(final),
      stream: true,
      request: REQUEST,
    });
    expect(jsonForStream.kind).toBe("response");
    expect(jsonForStream.violations).toEqual([
      {
        rule: "http.content-type",
        path: "$",
        message:
          'the request asked for a stream (stream: true), but the answer is "application/json", not text/event-stream',
      },
    ]);
    const sseForJson = checkAnswer({
      status: 200,
      contentType: "text/event-stream",
      body: sse(textStream()),
      stream: false,
      request: { ...REQUEST, stream: false },
    });
    expect(sseForJson.kind).toBe("stream");
    expect(ruleIds(sseForJson)).toEqual(["http.content-type"]);
  });
});
