/**
 * The openai-dialect schemas and validators against small hand-written
 * streams and bodies shaped like api.openai.com's (key sets, id shapes, the
 * service_tier switch, `1.0`), and against wrong ones, so each check is
 * shown to be able to fail.
 */
import { describe, expect, it } from "vitest";
import {
  EVENT_SCHEMAS,
  formatViolation,
  Response,
  validateOpenAIErrorBody,
  validateOpenAIHeaders,
  validateOpenAIResponse,
  validateOpenAIStream,
  type Violation,
} from "./openai-schemas.js";

type Obj = Record<string, any>;
const clone = <T>(v: T): T => structuredClone(v);

// Ids as OpenAI shapes them: 50 hex, items share the response's first 16.
const HEAD = "0a1b2c3d4e5f6071";
const hex = (tail: string) => HEAD + tail.padEnd(34, "0");
const RESP = `resp_${hex("8899aabbccddeeff0011")}`;
const MSG = `msg_${hex("1122334455667788")}`;
const FC = `fc_${hex("2233445566778899")}`;
const RS = `rs_${hex("33445566778899aa")}`;
const CALL = "call_Q7mZt2Lk9PxV4bN8cR1sYw3e";

function snapshot(over: Obj = {}): Obj {
  return {
    id: RESP,
    object: "response",
    created_at: 1767225600,
    status: "in_progress",
    background: false,
    completed_at: null,
    error: null,
    frequency_penalty: 0,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    max_tool_calls: null,
    metadata: {},
    model: "gpt-5.5-2026-04-23",
    output: [],
    parallel_tool_calls: true,
    presence_penalty: 0,
    previous_response_id: null,
    prompt_cache_key: null,
    prompt_cache_retention: null,
    reasoning: { effort: null, summary: null },
    safety_identifier: null,
    service_tier: "auto",
    store: true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: "disabled",
    usage: null,
    user: null,
    ...over,
  };
}

const USAGE = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 17,
};
const part = (text: string) => ({ type: "output_text", annotations: [], logprobs: [], text });
const message = (status: string, text?: string) => ({
  id: MSG,
  type: "message",
  status,
  content: text === undefined ? [] : [part(text)],
  role: "assistant",
});

/** A text answer of two deltas, numbered in order. */
function textStream(): Obj[] {
  const c = { item_id: MSG, output_index: 0, content_index: 0 };
  const done = message("completed", "Hello there");
  return number([
    { type: "response.created", response: snapshot() },
    { type: "response.in_progress", response: snapshot() },
    { type: "response.output_item.added", output_index: 0, item: message("in_progress") },
    { type: "response.content_part.added", ...c, part: part("") },
    { type: "response.output_text.delta", ...c, delta: "Hello", logprobs: [], obfuscation: "x1Yz" },
    { type: "response.output_text.delta", ...c, delta: " there", logprobs: [], obfuscation: "" },
    { type: "response.output_text.done", ...c, text: "Hello there", logprobs: [] },
    { type: "response.content_part.done", ...c, part: part("Hello there") },
    { type: "response.output_item.done", output_index: 0, item: done },
    {
      type: "response.completed",
      response: snapshot({
        status: "completed",
        completed_at: 1767225601,
        output: [clone(done)],
        usage: USAGE,
        service_tier: "default",
      }),
    },
  ]);
}

/** A reasoning item (summary asked, encrypted content on both events), then a function call. */
function toolStream(): Obj[] {
  const reasoning = { effort: "low", summary: "detailed" };
  const enc = "gAAAAABhandwrittenOpaqueToken==";
  const rsDone = {
    id: RS,
    type: "reasoning",
    encrypted_content: enc,
    summary: [{ type: "summary_text", text: "**Checking**" }],
  };
  const fcDone = {
    id: FC,
    type: "function_call",
    status: "completed",
    arguments: '{"city":"Paris"}',
    call_id: CALL,
    name: "get_weather",
  };
  const s = { item_id: RS, output_index: 0, summary_index: 0 };
  const tools = [
    {
      type: "function",
      description: null,
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      strict: true,
    },
  ];
  return number([
    { type: "response.created", response: snapshot({ reasoning, tools }) },
    { type: "response.in_progress", response: snapshot({ reasoning, tools }) },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { id: RS, type: "reasoning", encrypted_content: enc, summary: [] },
    },
    { type: "response.reasoning_summary_part.added", ...s, part: { type: "summary_text", text: "" } },
    { type: "response.reasoning_summary_text.delta", ...s, delta: "**Checking**", obfuscation: "ab" },
    { type: "response.reasoning_summary_text.done", ...s, text: "**Checking**" },
    { type: "response.reasoning_summary_part.done", ...s, part: { type: "summary_text", text: "**Checking**" } },
    { type: "response.output_item.done", output_index: 0, item: rsDone },
    { type: "response.output_item.added", output_index: 1, item: { ...fcDone, status: "in_progress", arguments: "" } },
    {
      type: "response.function_call_arguments.delta",
      item_id: FC,
      output_index: 1,
      delta: '{"city":',
      obfuscation: "q",
    },
    {
      type: "response.function_call_arguments.delta",
      item_id: FC,
      output_index: 1,
      delta: '"Paris"}',
      obfuscation: "r",
    },
    { type: "response.function_call_arguments.done", item_id: FC, output_index: 1, arguments: '{"city":"Paris"}' },
    { type: "response.output_item.done", output_index: 1, item: fcDone },
    {
      type: "response.completed",
      response: snapshot({
        reasoning,
        tools,
        status: "completed",
        completed_at: 1767225601,
        output: clone([rsDone, fcDone]),
        usage: USAGE,
        service_tier: "default",
      }),
    },
  ]);
}

/** A one-message stream of three deltas whose citation arrives right after the second, and the same annotation on the part, the item and the snapshot. */
function citedStream(deltas: [string, string, string], annotation: Obj): Obj[] {
  const c = { item_id: MSG, output_index: 0, content_index: 0 };
  const text = deltas.join("");
  const done = { ...message("completed"), content: [{ ...part(text), annotations: [annotation] }] };
  return number([
    { type: "response.created", response: snapshot() },
    { type: "response.in_progress", response: snapshot() },
    { type: "response.output_item.added", output_index: 0, item: message("in_progress") },
    { type: "response.content_part.added", ...c, part: part("") },
    { type: "response.output_text.delta", ...c, delta: deltas[0], logprobs: [], obfuscation: "a" },
    { type: "response.output_text.delta", ...c, delta: deltas[1], logprobs: [], obfuscation: "b" },
    { type: "response.output_text.annotation.added", ...c, annotation_index: 0, annotation },
    { type: "response.output_text.delta", ...c, delta: deltas[2], logprobs: [], obfuscation: "c" },
    { type: "response.output_text.done", ...c, text, logprobs: [] },
    { type: "response.content_part.done", ...c, part: done.content[0] },
    { type: "response.output_item.done", output_index: 0, item: done },
    {
      type: "response.completed",
      response: snapshot({
        status: "completed",
        completed_at: 1767225601,
        output: [clone(done)],
        usage: USAGE,
        service_tier: "default",
      }),
    },
  ]);
}

/** A file search's answer: its file_citation right after the delta that ends the cited sentence, at `index`. */
const fileCitedStream = (): Obj[] =>
  citedStream(["Refunds take ", "30 days.", " Ask support."], {
    type: "file_citation",
    file_id: "file-R4bFX",
    filename: "policy.pdf",
    index: 21,
  });

/** A text whose citation arrives right after the delta that completes the cited span ("RFC 8259"). */
const annotatedStream = (): Obj[] =>
  citedStream(["See ", "RFC 8259", " for details."], {
    type: "url_citation",
    start_index: 4,
    end_index: 12,
    title: "RFC 8259",
    url: "https://www.rfc-editor.org/rfc/rfc8259",
  });

const WS = `ws_${hex("44556677889900aa")}`;
const CI = `ci_${hex("5566778899aabbcc")}`;

/** A web search (sources included) then a code interpreter call, shaped as recorded. */
function hostedStream(): Obj[] {
  const w = { output_index: 0, item_id: WS };
  const c = { output_index: 1, item_id: CI };
  const wsDone = {
    id: WS,
    type: "web_search_call",
    status: "completed",
    action: { type: "search", query: "weather", sources: [{ type: "url", url: "https://example.com/w" }] },
  };
  const ciDone = {
    id: CI,
    type: "code_interpreter_call",
    status: "completed",
    code: "print(1)",
    container_id: "cntr_abc",
    outputs: null,
  };
  return number([
    { type: "response.created", response: snapshot() },
    { type: "response.in_progress", response: snapshot() },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { id: WS, type: "web_search_call", status: "in_progress" },
    },
    { type: "response.web_search_call.in_progress", ...w },
    { type: "response.web_search_call.searching", ...w },
    { type: "response.web_search_call.completed", ...w },
    { type: "response.output_item.done", output_index: 0, item: wsDone },
    { type: "response.output_item.added", output_index: 1, item: { ...ciDone, status: "in_progress", code: "" } },
    { type: "response.code_interpreter_call.in_progress", ...c },
    { type: "response.code_interpreter_call_code.delta", ...c, delta: "print(", obfuscation: "x" },
    { type: "response.code_interpreter_call_code.delta", ...c, delta: "1)", obfuscation: "y" },
    { type: "response.code_interpreter_call_code.done", ...c, code: "print(1)" },
    { type: "response.code_interpreter_call.interpreting", ...c },
    { type: "response.code_interpreter_call.completed", ...c },
    { type: "response.output_item.done", output_index: 1, item: ciDone },
    {
      type: "response.completed",
      response: snapshot({
        status: "completed",
        completed_at: 1767225601,
        output: clone([wsDone, ciDone]),
        usage: USAGE,
        service_tier: "default",
      }),
    },
  ]);
}

/** A stream that fails at once, as in the recorded insufficient_quota case. */
function failedStream(): Obj[] {
  const error = { code: "insufficient_quota", message: "You exceeded your current quota." };
  return number([
    { type: "response.created", response: snapshot() },
    { type: "response.in_progress", response: snapshot() },
    { type: "error", error: { type: "insufficient_quota", ...error, param: null } },
    { type: "response.failed", response: snapshot({ status: "failed", error }) },
  ]);
}

function number(events: Obj[]): Obj[] {
  return events.map((e, i) => {
    const { type, ...rest } = e;
    return { type, sequence_number: i, ...rest };
  });
}

/** SSE as OpenAI writes it: `event:` + `data:`, numbers like 1.0, no [DONE]. */
function sse(events: Obj[]): string {
  return events
    .map(
      (e) =>
        `event: ${e.type}\ndata: ${JSON.stringify(e).replace(/"(temperature|top_p|presence_penalty|frequency_penalty)":(-?\d+)(?=[,}])/g, '"$1":$2.0')}\n\n`,
    )
    .join("");
}

const show = (vs: Violation[]) => vs.map(formatViolation).join("\n");
/** Asserts one violation at this event whose path and message match. */
function expectViolation(vs: Violation[], event: number | null, path: string | RegExp, message?: RegExp) {
  const hit = vs.find(
    (v) =>
      v.event === event &&
      (typeof path === "string" ? v.path === path : path.test(v.path)) &&
      (!message || message.test(v.message)),
  );
  expect(hit, `no violation at #${event} ${path} ${message ?? ""} in:\n${show(vs)}`).toBeDefined();
}

describe("openai-dialect schemas accept what api.openai.com sends", () => {
  it.each([
    ["a text answer", textStream],
    ["reasoning then a function call", toolStream],
    ["a failed stream", failedStream],
    ["a cited text", annotatedStream],
    ["a file search's cited answer", fileCitedStream],
  ])("%s, as events and as SSE text", (_name, make) => {
    expect(show(validateOpenAIStream(make()))).toBe("");
    expect(show(validateOpenAIStream(sse(make())))).toBe("");
  });

  it("a JSON body, with the keys the 2026 models add", () => {
    const body = snapshot({
      status: "completed",
      completed_at: 1783719043,
      service_tier: "default",
      usage: { ...USAGE, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
      output: [{ ...message("completed", "Paris"), phase: "final_answer" }],
      reasoning: { context: "current_turn", effort: "medium", mode: "standard", summary: null },
      prompt_cache_retention: "24h",
      billing: { payer: "developer" },
      moderation: null,
      tool_usage: { web_search: { num_requests: 0 } },
      tools: [
        {
          type: "function",
          description: null,
          name: "f",
          output_schema: null,
          parameters: { type: "object" },
          strict: true,
        },
      ],
    });
    expect(show(validateOpenAIResponse(body))).toBe("");
    expect(
      show(
        validateOpenAIResponse(
          JSON.stringify(body)
            .replace('"temperature":1', '"temperature":1.0')
            .replace('"top_p":1', '"top_p":1.0')
            .replace(/"(presence|frequency)_penalty":0/g, '"$1_penalty":0.0'),
        ),
      ),
    ).toBe("");
  });

  it("a queued background body says service_tier auto, and so may a failed one", () => {
    expect(show(validateOpenAIResponse(snapshot({ status: "queued", background: true })))).toBe("");
    expect(show(validateOpenAIResponse(failedStream().at(-1)!.response))).toBe("");
  });

  it("an HTTP error body and the headers", () => {
    const body = {
      error: {
        message: "Invalid 'temperature': decimal below minimum value.",
        type: "invalid_request_error",
        param: "temperature",
        code: "decimal_below_min_value",
      },
    };
    expect(validateOpenAIErrorBody(body)).toEqual([]);
    const headers = new Headers({
      "content-type": "text/event-stream; charset=utf-8",
      "x-request-id": "req_4c1a9e0b7d2f48a6b3e5c7d9f1a2b3c4",
    });
    expect(validateOpenAIHeaders(headers, "sse")).toEqual([]);
  });

  it("has a schema for each event the mock can send, under OpenAI's names", () => {
    expect(Object.keys(EVENT_SCHEMAS)).toContain("response.reasoning_text.delta");
    expect(Object.keys(EVENT_SCHEMAS)).not.toContain("response.reasoning.delta");
    // 24 of text, reasoning and function calls; 23 of hosted tools (18 status events, 4 code/argument deltas and dones, partial_image).
    expect(Object.keys(EVENT_SCHEMAS)).toHaveLength(47);
  });
});

describe("openai-dialect schemas of hosted tools", () => {
  it("accept a web search and a code interpreter call shaped as recorded", () => {
    expect(show(validateOpenAIStream(hostedStream()))).toBe("");
    expect(show(validateOpenAIStream(sse(hostedStream())))).toBe("");
  });

  it("reject a misspelt source, code that differs from its deltas, a status event in another tool's item, and a stray key", () => {
    const evs = hostedStream();
    evs[6].item.action.sources[0] = { type: "url", uri: "https://example.com/w" };
    expectViolation(validateOpenAIStream(evs), 6, /sources/);
    const code = hostedStream();
    code[11].code = "print(2)";
    expectViolation(validateOpenAIStream(code), 11, "$", /differs from the deltas/);
    const misplaced = hostedStream();
    misplaced[12] = { ...misplaced[12], type: "response.web_search_call.searching" };
    expectViolation(validateOpenAIStream(misplaced), 12, "$.type", /inside a code_interpreter_call/);
    const extra = hostedStream();
    extra[4].query = "weather";
    expectViolation(validateOpenAIStream(extra), 4, "$", /query/);
  });
});

describe("openai-dialect schemas reject what api.openai.com does not send", () => {
  it("an extra key, naming it", () => {
    const evs = textStream();
    evs[4].annotations = [];
    expectViolation(validateOpenAIStream(evs), 4, "$", /does not send: annotations/);
  });

  it("a missing key: logprobs on an output_text part, text.verbosity, user", () => {
    const evs = textStream();
    delete evs[3].part.logprobs;
    delete evs[0].response.text.verbosity;
    delete evs[1].response.user;
    const vs = validateOpenAIStream(evs);
    expectViolation(vs, 3, "$.part.logprobs");
    expectViolation(vs, 0, "$.response.text.verbosity");
    expectViolation(vs, 1, "$.response.user");
  });

  it("reasoning: null, and summary 'auto' echoed unresolved", () => {
    const a = snapshot({
      status: "completed",
      completed_at: 1,
      usage: USAGE,
      service_tier: "default",
      reasoning: null,
    });
    expectViolation(validateOpenAIResponse(a), null, "$.reasoning");
    const b = { ...a, reasoning: { effort: "low", summary: "auto" } };
    expectViolation(validateOpenAIResponse(b), null, "$.reasoning.summary");
  });

  it("the spec's raw reasoning event names", () => {
    const evs = textStream();
    evs.splice(5, 0, {
      type: "response.reasoning.delta",
      sequence_number: 5,
      item_id: MSG,
      output_index: 0,
      content_index: 0,
      delta: "x",
    });
    const vs = validateOpenAIStream(number(evs.map(({ sequence_number: _, ...e }) => e)));
    expectViolation(vs, 5, "$.type", /response\.reasoning_text\.delta/);
  });

  it("data: [DONE], and integral numbers written without .0", () => {
    const text = sse(textStream()) + "data: [DONE]\n\n";
    const vs = validateOpenAIStream(text.replace('"temperature":1.0', '"temperature":1'));
    expectViolation(vs, null, "(framing)", /\[DONE\]/);
    expectViolation(vs, 0, "$..temperature", /1\.0/);
  });

  it("ids that are not OpenAI's shape, or do not share the response's first 16 hex", () => {
    const evs = textStream();
    for (const e of evs) if (e.response) e.response.id = "resp_8AknAizub83n14pZ4tiOQBae9tF1HrZS";
    expectViolation(validateOpenAIStream(evs), 0, "$.response.id", /50 lowercase hex/);

    const other = textStream();
    const stranger = `msg_${"f".repeat(50)}`;
    other[2].item.id = stranger;
    expectViolation(validateOpenAIStream(other), 2, "$.item.id", /first 16 hex/);

    const calls = toolStream();
    for (const e of calls) {
      if (e.item?.call_id) e.item.call_id = "call_abc";
      for (const o of e.response?.output ?? []) if (o.call_id) o.call_id = "call_abc";
    }
    expectViolation(validateOpenAIStream(calls), 8, "$.item.call_id", /24 base62/);
  });

  it("service_tier auto in the terminal event or a finished body", () => {
    const evs = textStream();
    evs.at(-1)!.response.service_tier = "auto";
    expectViolation(validateOpenAIStream(evs), evs.length - 1, "$.response.service_tier", /"default"/);
    const body = clone(evs.at(-1)!.response);
    expectViolation(validateOpenAIResponse(body), null, "$.service_tier");
    // A tier asked for explicitly stays as it is.
    const flex = textStream();
    for (const e of flex) if (e.response) e.response.service_tier = "flex";
    expect(show(validateOpenAIStream(flex))).toBe("");
  });

  it("encrypted_content only on output_item.done", () => {
    const evs = toolStream();
    delete evs[2].item.encrypted_content;
    expectViolation(validateOpenAIStream(evs), 7, "$.item.encrypted_content", /added/);
  });

  it("summary events when reasoning.summary was not asked", () => {
    const evs = toolStream();
    for (const e of evs) if (e.response) e.response.reasoning = { effort: "low", summary: null };
    const vs = validateOpenAIStream(evs);
    expectViolation(vs, 3, "$.type", /reasoning\.summary is null/);
    expectViolation(vs, evs.length - 1, "$.response.output[0].summary");
  });

  it("a sequence gap, a second terminal, and an output that differs from the finished items", () => {
    const evs = textStream();
    evs[5].sequence_number = 9;
    expectViolation(validateOpenAIStream(evs), 5, "$.sequence_number");

    const twice = textStream();
    twice.splice(8, 0, { ...clone(twice.at(-1)!), sequence_number: 8 });
    expectViolation(
      validateOpenAIStream(number(twice.map(({ sequence_number: _, ...e }) => e))),
      8,
      "$.type",
      /exactly one terminal/,
    );

    const changed = textStream();
    changed.at(-1)!.response.output[0].content[0].text = "Hello world";
    expectViolation(validateOpenAIStream(changed), changed.length - 1, "$.response.output");
  });

  it("deltas that do not add up to the done text", () => {
    const evs = textStream();
    evs[6].text = "Hello their";
    expectViolation(validateOpenAIStream(evs), 6, "$", /differs from the deltas/);
  });

  it("an error event whose message differs from response.failed's", () => {
    const evs = failedStream();
    evs[2].error.message = "something else";
    expectViolation(validateOpenAIStream(evs), 3, "$.response.error");
  });

  it("an annotation sent after all deltas rather than right after the one that completes its span", () => {
    const evs = annotatedStream();
    const [annotation] = evs.splice(6, 1);
    evs.splice(7, 0, annotation);
    const vs = validateOpenAIStream(number(evs.map(({ sequence_number: _, ...e }) => e)));
    expectViolation(vs, 7, "$", /right after that delta/);
  });

  it("a file_citation sent after all deltas rather than right after the one that ends its sentence", () => {
    const evs = fileCitedStream();
    const [annotation] = evs.splice(6, 1);
    evs.splice(7, 0, annotation);
    expectViolation(
      validateOpenAIStream(number(evs.map(({ sequence_number: _, ...e }) => e))),
      7,
      "$",
      /right after that delta/,
    );
  });

  it("a file_citation before its sentence is streamed, or with url_citation's keys", () => {
    const early = fileCitedStream();
    const [annotation] = early.splice(6, 1);
    early.splice(5, 0, annotation);
    expectViolation(
      validateOpenAIStream(number(early.map(({ sequence_number: _, ...e }) => e))),
      5,
      "$.annotation.index",
      /not streamed yet/,
    );
    const wrong = fileCitedStream();
    wrong[6].annotation = {
      type: "file_citation",
      file_id: "file-R4bFX",
      filename: "policy.pdf",
      start_index: 0,
      end_index: 21,
    };
    expectViolation(validateOpenAIStream(wrong), 6, /annotation/);
  });

  it("a vendor event", () => {
    const evs = textStream();
    evs.splice(2, 0, { type: "acme:progress", percent: 10 });
    const vs = validateOpenAIStream(number(evs.map(({ sequence_number: _, ...e }) => e)));
    expectViolation(vs, 2, "$.type", /not an event api\.openai\.com sends/);
  });

  it("HTTP errors with the spec's spellings, and missing headers", () => {
    expect(
      validateOpenAIErrorBody({
        error: { message: "Bad request", type: "invalid_request", param: null, code: "invalid_value" },
      }).map((v) => v.path),
    ).toEqual(["$.error.type"]);
    const vs = validateOpenAIHeaders(new Headers({ "content-type": "text/event-stream" }), "sse");
    expect(vs.map((v) => v.path).sort()).toEqual(["headers.content-type", "headers.x-request-id"]);
  });

  it("the response schema is strict at every level", () => {
    const r = Response.safeParse(
      snapshot({ usage: { ...USAGE, output_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } } }),
    );
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(["usage", "output_tokens_details"]);
  });
});
