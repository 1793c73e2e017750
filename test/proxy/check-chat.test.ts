/**
 * "A Chat Completions upstream, proxied, gives streams that pass `check`."
 *
 * A small model-like Chat Completions server, written here (node:http on
 * 127.0.0.1), answers `/v1/chat/completions` the way an OpenAI-compatible
 * server does — streamed (`chat.completion.chunk`s, the usage chunk when
 * `stream_options.include_usage` asks for it, `[DONE]`) and not — and
 * refuses with a 400 what such a server refuses (unknown fields, a `tool`
 * message that answers no call, a forced tool that is not offered, …). Its
 * answers follow the conversation: text; tool calls when `tool_choice`
 * forces a function or is `required` (two parallel calls when more than one
 * tool is offered and `parallel_tool_calls` is not false); JSON that fits a
 * `json_schema` response format; a cut with `finish_reason: "length"` when
 * `max_tokens` is too small; its reasoning when a reasoning effort is
 * asked; usage on every answer.
 *
 * It streams in three styles (see `Style`): OpenAI's own, the compact one
 * of Ollama and llama.cpp, and the quirks of Gemini, NVIDIA NIM and
 * Fireworks (tool call deltas without `index`, the name sent again in every
 * delta).
 *
 * `proxy --upstream-api chat` stands in front of it, and the `check`
 * battery runs against the proxy in both dialects and every style, through
 * the CLI (as a user runs it) and through `runBattery`: every check passes
 * (but WebSocket mode's two, skipped: the proxy refuses the upgrade with 501),
 * reasoning included, and every answer is the one asked for (completed, or
 * incomplete where the budget cuts; never failed). The proxy's own live
 * check finds nothing in any answer either.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATTERY_NAMES, runBattery, type BatteryRequest, type RawAnswer } from "../../src/check/index.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runCli } from "../support/run.js";

type Json = Record<string, any>;

// ---------------------------------------------------------------- the model-like Chat Completions server

/** The fields an OpenAI-compatible server takes on `/chat/completions`; any other is refused, as OpenAI does. */
const KNOWN_FIELDS = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "presence_penalty",
  "frequency_penalty",
  "logprobs",
  "top_logprobs",
  "response_format",
  "reasoning_effort",
  "user",
  "seed",
  "stop",
  "n",
  "logit_bias",
  "metadata",
  "store",
  "service_tier",
]);

/** A 400 as OpenAI words it. */
class Refusal extends Error {
  constructor(
    readonly param: string | null,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** Tokens as this model counts them: each word with the spaces before it. */
const tokens = (text: string): string[] => text.match(/\s*\S+/g) ?? [];
const countTokens = (text: string) => tokens(text).length;

/** The text of a message's content (a string, or text parts). */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p: Json) => (p?.type === "text" ? String(p.text) : "")).join("")
      : "";

/** What a real server refuses in a request, as a 400 naming the field. */
function validate(body: Json): void {
  for (const key of Object.keys(body))
    if (!KNOWN_FIELDS.has(key)) throw new Refusal(key, `Unrecognized request argument supplied: ${key}`);
  if (typeof body.model !== "string" || body.model === "")
    throw new Refusal("model", "you must provide a model parameter");
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new Refusal("messages", "'messages' must be a non-empty array");
  if (body.stream_options != null && body.stream !== true)
    throw new Refusal("stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  const tools: Json[] = body.tools ?? [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0)
      throw new Refusal("tools", "'tools' must be a non-empty array");
    tools.forEach((t, i) => {
      if (t?.type !== "function" || typeof t.function?.name !== "string")
        throw new Refusal(`tools[${i}]`, "each tool must be {type: 'function', function: {name, …}}");
    });
  }
  if (body.tool_choice !== undefined) {
    if (tools.length === 0)
      throw new Refusal(
        "tool_choice",
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      );
    const c = body.tool_choice;
    if (
      typeof c === "string"
        ? !["none", "auto", "required"].includes(c)
        : c?.type !== "function" || !tools.some((t) => t.function.name === c.function?.name)
    ) {
      throw new Refusal("tool_choice", `Invalid value for 'tool_choice': ${JSON.stringify(c)}`);
    }
  }
  if (body.parallel_tool_calls !== undefined && tools.length === 0)
    throw new Refusal(
      "parallel_tool_calls",
      "Invalid value for 'parallel_tool_calls': only allowed when 'tools' are specified.",
    );
  for (const key of ["max_tokens", "max_completion_tokens"]) {
    if (body[key] !== undefined && (!Number.isInteger(body[key]) || body[key] < 1))
      throw new Refusal(key, `Invalid '${key}': expected an integer of at least 1, got ${JSON.stringify(body[key])}`);
  }
  const format = body.response_format;
  if (
    format !== undefined &&
    !(
      format?.type === "text" ||
      format?.type === "json_object" ||
      (format?.type === "json_schema" &&
        typeof format.json_schema?.name === "string" &&
        typeof format.json_schema?.schema === "object")
    )
  ) {
    throw new Refusal("response_format", `Invalid 'response_format': ${JSON.stringify(format)}`);
  }
  // Every tool message answers a call of the assistant message before it, and every call is answered.
  let waiting = new Set<string>();
  body.messages.forEach((m: Json, i: number) => {
    if (!["system", "developer", "user", "assistant", "tool"].includes(m?.role))
      throw new Refusal(`messages[${i}].role`, `Invalid value for 'role': ${JSON.stringify(m?.role)}`);
    if (m.role === "tool") {
      if (!waiting.has(m.tool_call_id))
        throw new Refusal(
          `messages[${i}]`,
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        );
      waiting.delete(m.tool_call_id);
      return;
    }
    if (waiting.size > 0)
      throw new Refusal(
        `messages[${i}]`,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${[...waiting].join(", ")}`,
      );
    if (m.role === "assistant") {
      waiting = new Set((m.tool_calls ?? []).map((c: Json) => String(c.id)));
      if (m.content == null && waiting.size === 0)
        throw new Refusal(`messages[${i}].content`, "An assistant message needs content or tool_calls.");
    }
  });
  if (waiting.size > 0)
    throw new Refusal(
      "messages",
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. Missing: ${[...waiting].join(", ")}`,
    );
}

/** A value that fits a JSON schema (objects, strings, numbers, booleans, arrays, enums): what a constrained decoder would give. */
function sampleFor(schema: Json, key = ""): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "object":
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([k, s]) => [k, sampleFor(s, k)]),
      );
    case "array":
      return [sampleFor(schema.items ?? { type: "string" }, key)];
    case "number":
      return 18.5;
    case "integer":
      return 18;
    case "boolean":
      return true;
    default:
      return key === "city" ? "Paris" : "clear";
  }
}

/** The cities a message names ("… in Paris, … in Tokyo"). */
const citiesIn = (text: string) => [...text.matchAll(/\bin ([A-Z][a-z]+)/g)].map((m) => m[1]);

const STORY =
  "Old Tomas kept the lighthouse on the northern rock for forty years. Every evening he climbed the hundred and twelve steps, trimmed the wick, " +
  "polished the great lens and watched the beam sweep over the black water. One winter night a fishing boat lost its way in the storm.";

/** What the model says to the conversation: text, tool calls, and its reasoning. */
interface Answer {
  reasoning: string;
  text: string;
  calls: { id: string; name: string; arguments: string }[];
}

let callIds = 0;

function answer(body: Json): Answer {
  const messages: Json[] = body.messages;
  const last = messages.at(-1)!;
  const user = textOf([...messages].reverse().find((m) => m.role === "user")?.content);
  const tools: Json[] = body.tools ?? [];
  const reasoning = body.reasoning_effort
    ? `The user asks: ${user} Let me work it out step by step before answering.`
    : "";
  const forced = body.tool_choice === "required" || (typeof body.tool_choice === "object" && body.tool_choice !== null);
  if (forced && last.role !== "tool") {
    const named =
      typeof body.tool_choice === "object"
        ? tools.filter((t) => t.function.name === body.tool_choice.function.name)
        : tools;
    const chosen = body.parallel_tool_calls === false ? named.slice(0, 1) : named;
    const cities = citiesIn(user);
    const calls = chosen.map((t, i) => {
      const args = sampleFor(t.function.parameters ?? { type: "object", properties: {} }) as Json;
      if ("city" in args) args.city = cities[Math.min(i, cities.length - 1)] ?? "Paris";
      return {
        id: `call_${String(++callIds).padStart(24, "0")}`,
        name: t.function.name as string,
        arguments: JSON.stringify(args),
      };
    });
    return { reasoning, text: "", calls };
  }
  const format = body.response_format;
  if (format?.type === "json_schema")
    return { reasoning, text: JSON.stringify(sampleFor(format.json_schema.schema)), calls: [] };
  if (format?.type === "json_object") return { reasoning, text: JSON.stringify({ answer: "Hello" }), calls: [] };
  let text: string;
  if (last.role === "tool") text = `Here is what I found: ${textOf(last.content)}.`;
  else if (/code word\?/i.test(user)) {
    const word = messages.map((m) => /code word: (\w+)/.exec(textOf(m.content))?.[1]).find(Boolean);
    text = word ? `The code word was ${word}.` : "You did not tell me a code word.";
  } else if (/remember/i.test(user)) text = "OK.";
  else if (/hello/i.test(user)) text = "Hello there, friend!";
  else if (/capital of France/i.test(user)) text = "Paris is the capital of France.";
  else if (/17 times 23/.test(user)) text = "17 times 23 is 391.";
  else if (/story/i.test(user)) text = STORY;
  else text = "I am a small test model.";
  return { reasoning, text, calls: [] };
}

/** The answer cut to `max_tokens`, as a model that ran out of budget: the reasoning first, then the text; calls only if all fit. */
function budgeted(a: Answer, limit: number | undefined): { answer: Answer; cut: boolean } {
  const used =
    countTokens(a.reasoning) + countTokens(a.text) + a.calls.reduce((n, c) => n + countTokens(c.arguments) + 1, 0);
  if (limit === undefined || used <= limit) return { answer: a, cut: false };
  const reasoning = tokens(a.reasoning).slice(0, limit);
  const text = tokens(a.text).slice(0, limit - reasoning.length);
  return { answer: { reasoning: reasoning.join(""), text: text.join(""), calls: [] }, cut: true };
}

function usageOf(body: Json, a: Answer) {
  const prompt =
    body.messages.reduce((n: number, m: Json) => n + 3 + countTokens(textOf(m.content)), 0) +
    (body.tools?.length ?? 0) * 20;
  const reasoning = countTokens(a.reasoning);
  const completion = reasoning + countTokens(a.text) + a.calls.reduce((n, c) => n + countTokens(c.arguments) + 1, 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/** Pieces of a string, as a model streams them. */
const pieces = (text: string, size: number) => text.match(new RegExp(`[^]{1,${size}}`, "g")) ?? [];

let completions = 0;

/**
 * How the server streams, as the servers found in the wild do:
 * - `openai`: OpenAI's own way: a role chunk first, a chunk per token,
 *   each tool call opened by a chunk with its id and name then its
 *   arguments in pieces, the finish reason in a chunk of its own, the usage
 *   in a last chunk with no choices, reasoning as `reasoning_content`
 *   (DeepSeek, vLLM);
 * - `compact`: what Ollama and llama.cpp do differently: no role chunk,
 *   several words a chunk, every tool call whole in one chunk together with
 *   the finish reason, the usage on that finishing chunk, reasoning as
 *   `reasoning` (Ollama, OpenRouter);
 * - `quirky`: the shapes that trip translators: tool call deltas with no
 *   `index` and a tool call's response finished with `finish_reason: "stop"`
 *   (Gemini's OpenAI-compatible endpoint), the id, type and whole name sent
 *   again in every delta of a call (NVIDIA NIM, Fireworks), no `usage: null`
 *   on the chunks.
 */
type Style = "openai" | "compact" | "quirky";

/** The answer as the server sends it: a `chat.completion`, or the SSE text of its chunks. */
function render(body: Json, style: Style): { json?: Json; sse?: string } {
  const { answer: a, cut } = budgeted(answer(body), body.max_completion_tokens ?? body.max_tokens);
  const finish = cut ? "length" : a.calls.length > 0 && style !== "quirky" ? "tool_calls" : "stop";
  const usage = usageOf(body, a);
  const reasoningField = style === "compact" ? "reasoning" : "reasoning_content";
  const head = {
    id: `chatcmpl-${++completions}`,
    created: 1_767_225_600,
    model: `${body.model}-2026-01-01`,
    system_fingerprint: "fp_fake",
  };
  const toolCalls = () =>
    a.calls.map((c, index) => ({
      ...(style === "compact" ? { index } : {}),
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  if (body.stream !== true) {
    const message: Json = {
      role: "assistant",
      content: a.calls.length > 0 && a.text === "" ? null : a.text,
      refusal: null,
    };
    if (a.reasoning !== "") message[reasoningField] = a.reasoning;
    if (a.calls.length > 0) message.tool_calls = toolCalls();
    return {
      json: {
        ...head,
        object: "chat.completion",
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
      },
    };
  }
  const withUsage = body.stream_options?.include_usage === true;
  const frames: Json[] = [];
  const chunk = (
    delta: Json,
    finishReason: string | null = null,
    extra: Json = withUsage && style !== "quirky" ? { usage: null } : {},
  ) =>
    frames.push({
      ...head,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });
  const words = (text: string) => (style === "openai" ? tokens(text) : (text.match(/(?:\s*\S+){1,3}/g) ?? []));
  if (style === "openai") chunk({ role: "assistant", content: "", refusal: null });
  for (const t of words(a.reasoning)) chunk({ [reasoningField]: t });
  for (const t of words(a.text)) chunk({ content: t });
  if (style === "openai") {
    a.calls.forEach((c, index) => {
      chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
      for (const piece of pieces(c.arguments, 5)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    chunk({}, finish);
    if (withUsage) frames.push({ ...head, object: "chat.completion.chunk", choices: [], usage });
  } else if (style === "quirky") {
    for (const c of a.calls) {
      chunk({ tool_calls: [{ id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
      for (const piece of pieces(c.arguments, 5))
        chunk({ tool_calls: [{ id: c.id, type: "function", function: { name: c.name, arguments: piece } }] });
    }
    chunk({}, finish);
    if (withUsage) frames.push({ ...head, object: "chat.completion.chunk", choices: [], usage });
  } else chunk(a.calls.length > 0 ? { tool_calls: toolCalls() } : {}, finish, withUsage ? { usage } : {});
  return { sse: frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join("") + "data: [DONE]\n\n" };
}

interface ChatModel {
  url: string;
  /** Every request body received, in order. */
  requests: Json[];
  /** The 400s it answered: a request the proxy should not have sent. */
  refusals: { param: string | null; message: string }[];
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function startChatModel(style: Style): Promise<ChatModel> {
  const requests: Json[] = [];
  const refusals: ChatModel["refusals"] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        return sendJson(res, 404, {
          error: {
            message: `Unknown route ${req.method} ${req.url}`,
            type: "invalid_request_error",
            param: null,
            code: "unknown_url",
          },
        });
      }
      let body: Json;
      try {
        body = JSON.parse(raw) as Json;
        requests.push(body);
        validate(body);
      } catch (err) {
        const refusal =
          err instanceof Refusal ? err : new Refusal(null, "We could not parse the JSON body of your request.");
        refusals.push({ param: refusal.param, message: refusal.message });
        return sendJson(res, 400, {
          error: { message: refusal.message, type: "invalid_request_error", param: refusal.param, code: refusal.code },
        });
      }
      const out = render(body, style);
      if (out.json) return sendJson(res, 200, out.json);
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
      // A few frames per write, as a server flushes them.
      const frames = out.sse!.split(/(?<=\n\n)/);
      const write = (i: number) => {
        if (i >= frames.length) return void res.end();
        res.write(frames.slice(i, i + 3).join(""), () => setImmediate(() => write(i + 3)));
      };
      write(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    refusals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------- running check

interface JsonReport {
  dialect: string;
  ok: boolean;
  results: {
    name: string;
    outcome: string;
    note?: string;
    requests: { status?: number; responseStatus?: string }[];
    violations: { rule: string; message: string; path: string; event?: number; request: number }[];
  }[];
  summary: { passed: number; failed: number; skipped: number; violations: number };
}

/** Runs the built CLI to its end, without colour. */
const run = (args: string[]) => runCli(args, { env: { ...process.env, NO_COLOR: "1" } });

/** The battery's transport, as `check` sends: raw fetch, the whole body as text. */
const fetchSend =
  (base: string) =>
  async (request: BatteryRequest): Promise<RawAnswer> => {
    const res = await fetch(`${base}/responses${request.endpoint === "compact" ? "/compact" : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: request.raw ?? JSON.stringify(request.body),
    });
    return { status: res.status, contentType: res.headers.get("content-type"), body: await res.text() };
  };

/**
 * How each request of each check ended: a response that failed breaks no
 * rule (so no violation), but it is not the answer asked for.
 */
const endings = (report: JsonReport | Awaited<ReturnType<typeof runBattery>>) =>
  Object.fromEntries(report.results.map((r) => [r.name, r.requests.map((q) => q.responseStatus ?? q.status)]));
/** WebSocket mode is not proxied: the proxy refuses the upgrade with 501, and the checks are skipped. */
const WS_NAMES = ["websocket", "websocket-error"];
const HTTP_NAMES = BATTERY_NAMES.filter((name) => !WS_NAMES.includes(name));
const EXPECTED_ENDINGS = Object.fromEntries(
  HTTP_NAMES.map((name) => [
    name,
    name === "previous-response-id"
      ? ["completed", "completed"]
      : name === "max-output-tokens"
        ? ["incomplete"]
        : name.startsWith("bad-")
          ? [400]
          : name === "compact"
            ? [200, "completed", 400]
            : ["completed"],
  ]),
);

/** Every check failed, with its violations, so a failure says what went wrong. */
const failures = (report: JsonReport | Awaited<ReturnType<typeof runBattery>>) =>
  report.results
    .filter((r) => r.outcome !== "pass")
    .map((r) => ({
      name: r.name,
      outcome: r.outcome,
      note: r.note,
      violations: r.violations.map((v) => `${v.rule} ${v.path}: ${v.message}`),
    }));

const CASES = (["open-responses", "openai"] as const).flatMap((dialect) =>
  (["openai", "compact", "quirky"] as const).map((style) => ({ dialect, style })),
);

describe.each(CASES)(
  "check against proxy --upstream-api chat, $dialect dialect, upstream streaming the $style way",
  ({ dialect, style }) => {
    let model: ChatModel;
    let proxy: MockServer;
    beforeAll(async () => {
      model = await startChatModel(style);
      proxy = await startMockServer({ port: 0, dialect, upstream: model.url, upstreamApi: "chat" });
    });
    afterAll(async () => {
      await proxy.close();
      await model.close();
    });

    it("the CLI passes every check, reasoning included (the model reasons when a reasoning effort is asked)", async () => {
      const { code, stdout, stderr } = await run(["check", proxy.baseURL, "--dialect", dialect, "--json"]);
      expect(stderr).toBe("");
      const report = JSON.parse(stdout) as JsonReport;
      expect(failures(report)).toEqual(
        WS_NAMES.map((name) => ({
          name,
          outcome: "skipped",
          note: "the server does not serve WebSocket mode: the upgrade at /responses was answered 501",
          violations: [],
        })),
      );
      expect(endings(report)).toEqual({ ...EXPECTED_ENDINGS, websocket: [501], "websocket-error": [501] });
      expect(code).toBe(0);
      expect(report).toMatchObject({
        dialect,
        ok: true,
        summary: { passed: HTTP_NAMES.length, failed: 0, skipped: WS_NAMES.length, violations: 0 },
      });
      expect(report.results.map((r) => r.name)).toEqual(BATTERY_NAMES);
      const notes = Object.fromEntries(report.results.map((r) => [r.name, r.note]));
      // The features were exercised, not skipped: two calls, a cut, a reasoning item.
      expect(notes["parallel-tools"]).toBe("2 calls: get_weather, get_time");
      expect(notes["max-output-tokens"]).toBe('incomplete, reason "max_output_tokens"');
      expect(notes.reasoning).toBe("1 reasoning item(s)");
      // The model found nothing to refuse in what the proxy sent it.
      expect(model.refusals).toEqual([]);
    });

    it("runBattery, called directly, passes every check too", async () => {
      const report = await runBattery({ model: "gpt-fake", dialect, send: fetchSend(proxy.baseURL) });
      expect(failures(report)).toEqual([]);
      expect(endings(report)).toEqual(EXPECTED_ENDINGS);
      expect(report.ok).toBe(true);
      // No WebSocket transport given: the WebSocket checks are not run.
      expect(report.summary).toEqual({ passed: HTTP_NAMES.length, failed: 0, skipped: 0, violations: 0 });
      expect(model.refusals).toEqual([]);
    });

    it("sent the model what a Chat Completions server takes: the conversation rebuilt for previous_response_id, the budget, the format, the effort", async () => {
      const continued = model.requests.find((b) => textOf(b.messages.at(-1).content) === "What was the code word?")!;
      expect(continued.messages.map((m: Json) => [m.role, textOf(m.content)])).toEqual([
        ["user", "Remember the code word: cobalt. Reply with OK."],
        ["assistant", "OK."],
        ["user", "What was the code word?"],
      ]);
      const cut = model.requests.find((b) => /lighthouse/.test(textOf(b.messages.at(-1).content)))!;
      expect(cut).toMatchObject({ max_tokens: 16, stream: true, stream_options: { include_usage: true } });
      const json = model.requests.find((b) => b.response_format)!;
      expect(json.response_format).toMatchObject({
        type: "json_schema",
        json_schema: { name: "weather_answer", strict: true },
      });
      expect(model.requests.find((b) => b.reasoning_effort)).toMatchObject({ reasoning_effort: "low" });
      const parallel = model.requests.find((b) => b.tool_choice === "required")!;
      expect(parallel).toMatchObject({
        parallel_tool_calls: true,
        tools: [{ function: { name: "get_weather" } }, { function: { name: "get_time" } }],
      });
      const output = model.requests.find((b) => b.messages.at(-1).role === "tool")!;
      expect(output.messages.slice(-2)).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_check_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_check_1", content: '{"temp_c":18,"sky":"clear"}' },
      ]);
    });

    it("the proxy's live check found nothing in any answer it passed on; the bad requests never reached the model", () => {
      const posts = proxy.requests.filter((e) => e.method === "POST" && e.path === "/v1/responses");
      const forwarded = posts.filter((e) => e.upstream !== null);
      // Two battery runs (CLI and runBattery), each with one upstream request per check but two for
      // previous-response-id (compact's is its output sent back to POST /v1/responses; WebSocket mode is not proxied).
      const good = HTTP_NAMES.filter((n) => !n.startsWith("bad-")).length + 1;
      expect(forwarded).toHaveLength(2 * good);
      for (const entry of forwarded) {
        expect(entry.upstream).toMatchObject({ api: "chat", status: 200, error: null });
        expect({ body: entry.body, violations: entry.violations }).toEqual({ body: entry.body, violations: [] });
        // Said as of a played answer: the response's final status, and the events sent for a stream.
        expect(["completed", "incomplete"]).toContain(entry.outcome);
        if (entry.streamed) expect(entry.events).toBeGreaterThan(3);
        else expect(entry.events).toBeNull();
      }
      // The bad requests were refused by the proxy itself (never forwarded, so never checked live): each a 400.
      const refused = posts.filter((e) => e.upstream === null);
      expect(refused.map((e) => e.status)).toEqual(Array(refused.length).fill(400));
      expect(refused.length).toBe(2 * BATTERY_NAMES.filter((n) => n.startsWith("bad-")).length);
      expect(model.requests).toHaveLength(2 * good);
    });
  },
);
