// A well-behaved command-line client of the Responses API, on the official `openai` SDK.
//
//   node examples/exam/good-client.mjs "What is the weather in Paris?"
//
// It sends the prompt (argv[2], or OPENRESPONSES_MOCK_PROMPT), runs the tool loop until the
// model answers, prints the answer on stdout and exits 0; on an error it cannot recover
// from, it prints one line on stderr and exits 1. `new OpenAI()` reads OPENAI_BASE_URL and
// OPENAI_API_KEY, so `openresponses-mock exam -- node examples/exam/good-client.mjs` can
// point it at the mock. OPENAI_MODEL names the model (gpt-5-mini unless set).
//
// What it does right (each `main()` option turns one of them off, for the broken examples):
// - streams, and ignores event types and output items it does not know (vendor `acme:x`
//   events and items, events added to the API later);
// - offers one function tool and answers every call with its `call_id`, all the outputs of
//   one response in one request;
// - sends `store: false` and replays the conversation itself, reasoning items included
//   (with their `encrypted_content`), so the server keeps nothing;
// - retries: the SDK retries 429, 5xx and connection errors before a stream starts (it
//   waits as long as `retry-after` says); a stream that ends without its terminal event
//   (`response.completed`, `.incomplete` or `.failed`) is sent again, twice at most;
// - `response.failed` or an `error` event: the error's message on stderr, exit 1;
// - an API error: the server's message on stderr, exit 1, no stack trace;
// - a refusal: its text on stdout (and a note on stderr), exit 0;
// - `response.incomplete`: the text it has on stdout, a note on stderr, exit 0;
// - no response headers, or no stream event, for `idleTimeoutMs` (10 s): gives up, exit 1.

import OpenAI from "openai";

/** Event types of the Responses API this client knows (both the spec's and OpenAI's names). */
const KNOWN_EVENTS = new Set([
  "response.queued",
  "response.created",
  "response.in_progress",
  "response.completed",
  "response.incomplete",
  "response.failed",
  "response.output_item.added",
  "response.output_item.done",
  "response.content_part.added",
  "response.content_part.done",
  "response.output_text.delta",
  "response.output_text.done",
  "response.output_text.annotation.added",
  "response.refusal.delta",
  "response.refusal.done",
  "response.function_call_arguments.delta",
  "response.function_call_arguments.done",
  "response.reasoning.delta",
  "response.reasoning.done",
  "response.reasoning_text.delta",
  "response.reasoning_text.done",
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.delta",
  "response.reasoning_summary_text.done",
  "error",
]);

/** The one tool offered to the model. */
const TOOLS = [
  {
    type: "function",
    name: "get_weather",
    description: "Get the current weather in a city.",
    parameters: {
      type: "object",
      properties: { city: { type: "string", description: "The city, e.g. Paris" } },
      required: ["city"],
      additionalProperties: false,
    },
    strict: true,
  },
];

/** Runs a function call locally; the result goes back to the model as text. */
function runTool(call) {
  if (call.name !== "get_weather") return JSON.stringify({ error: `unknown tool ${call.name}` });
  let args;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    return JSON.stringify({ error: "arguments are not valid JSON" });
  }
  return JSON.stringify({ city: args.city, temperature_c: 18, conditions: "sunny" });
}

/** An error whose message is all the user needs (no stack trace). */
class Fatal extends Error {}

/**
 * Runs the client: resolves with the exit code (0 answered, 1 gave up) after printing.
 * Options, each one behaviour broken (for the exam's examples):
 * - `retry: false`: no retry at all, neither the SDK's nor of a cut stream;
 * - `dropCallId: true`: sends each function output back under the call's item `id`
 *   (`fc_…`) instead of its `call_id` (`call_…`), a classic mix-up;
 * - `strictEvents: true`: aborts on a stream event type it does not know;
 * - `trustCutStream: true`: prints what a cut stream sent, as if it were complete.
 */
export async function main(options = {}) {
  const {
    retry = true,
    dropCallId = false,
    strictEvents = false,
    trustCutStream = false,
    idleTimeoutMs = 10_000,
    maxTurns = 10,
    model = process.env.OPENAI_MODEL ?? "gpt-5-mini",
    prompt = process.argv[2] ?? process.env.OPENRESPONSES_MOCK_PROMPT,
  } = options;
  if (!prompt) {
    process.stderr.write("usage: node good-client.mjs PROMPT (or set OPENRESPONSES_MOCK_PROMPT)\n");
    return 2;
  }
  // The SDK retries errors that come before a stream: 429 (after `retry-after`), 408, 409,
  // 5xx, connection errors and timeouts, with backoff. Two retries is its default. Its
  // `timeout` bounds the wait for the response's headers; the stream is watched below.
  const client = new OpenAI({ maxRetries: retry ? 2 : 0, timeout: idleTimeoutMs });
  const streamRetries = retry ? 2 : 0;

  try {
    // store: false, so the conversation lives here: each request sends all of it.
    let input = [{ role: "user", content: prompt }];
    for (let turn = 0; turn < maxTurns; turn++) {
      const request = {
        model,
        input,
        tools: TOOLS,
        store: false,
        include: ["reasoning.encrypted_content"], // so reasoning items can be sent back
        stream: true,
      };
      const result = await streamWithRetries(client, request, {
        streamRetries,
        strictEvents,
        trustCutStream,
        idleTimeoutMs,
      });
      if (!result.response) {
        // Only with trustCutStream: the stream was cut, and we take what came as the answer.
        process.stdout.write(result.text + "\n");
        return 0;
      }
      const response = result.response;
      if (response.status === "failed") {
        throw new Fatal(`the response failed: ${response.error?.message ?? "no message"}`);
      }
      const calls = response.output.filter((item) => item.type === "function_call");
      if (calls.length === 0 || response.status === "incomplete") return printAnswer(response);

      // Replay: what we sent, every output item (reasoning included), then one output per call.
      const outputs = calls.map((call) => ({
        type: "function_call_output",
        call_id: dropCallId ? call.id : call.call_id,
        output: runTool(call),
      }));
      input = [...input, ...response.output, ...outputs];
    }
    throw new Fatal(`no answer after ${maxTurns} turns`);
  } catch (err) {
    if (err instanceof Fatal || err instanceof OpenAI.APIError) {
      // An APIError's message holds the HTTP status and the server's own error message.
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    throw err; // a bug in this client: let it show its stack
  }
}

/** Prints the text of a finished response (and notes a refusal or an incomplete answer). */
function printAnswer(response) {
  let text = "";
  let refusal = "";
  for (const item of response.output) {
    if (item.type !== "message") continue; // reasoning, vendor items, …
    for (const part of item.content) {
      if (part.type === "output_text") text += part.text;
      else if (part.type === "refusal") refusal += part.refusal;
    }
  }
  if (refusal) process.stderr.write("note: the model refused\n");
  if (response.status === "incomplete") {
    // Our choice: the partial answer is still an answer (exit 0), with a note on stderr.
    const reason = response.incomplete_details?.reason ?? "unknown reason";
    process.stderr.write(`note: the answer was cut short (${reason})\n`);
  }
  process.stdout.write((text || refusal) + "\n");
  return 0;
}

/** Streams one request; sends it again (at most `streamRetries` times) when the stream is cut. */
async function streamWithRetries(client, request, options) {
  for (let attempt = 0; ; attempt++) {
    const result = await streamOnce(client, request, options);
    if (result.response || options.trustCutStream) return result;
    if (attempt >= options.streamRetries) {
      throw new Fatal(
        `the stream ended before its last event (${result.cut}), ${attempt + 1} ${attempt ? "tries" : "try"}: giving up`,
      );
    }
    process.stderr.write(`warning: the stream ended before its last event (${result.cut}); retrying\n`);
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
  }
}

/**
 * Sends one streamed request and reads its events. Resolves with `{response}` (the
 * terminal event's response) or, for a stream that ended without one, `{cut, text}`.
 */
async function streamOnce(client, request, { strictEvents, idleTimeoutMs }) {
  // The idle timer, once the stream has begun: restarted by every event. (The SDK does not
  // surface SSE comments, so heartbeats do not restart it.)
  const abort = new AbortController();
  let idle = false;
  let timer;
  const restartTimer = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      abort.abort();
    }, idleTimeoutMs);
  };

  let text = "";
  let response = null;
  let cut = "the stream ended";
  try {
    const stream = await client.responses.create(request, { signal: abort.signal });
    restartTimer();
    for await (const event of stream) {
      restartTimer();
      switch (event.type) {
        case "response.output_text.delta":
          text += event.delta;
          break;
        case "response.completed":
        case "response.incomplete":
        case "response.failed":
          response = event.response;
          break;
        case "error": // the SDK throws most error events itself (below); this is the rest
          throw new Fatal(`the stream failed: ${event.message ?? JSON.stringify(event)}`);
        default:
          // Anything else (other known events, vendor `acme:x` events, future ones): ignored.
          if (strictEvents && !KNOWN_EVENTS.has(event.type)) {
            throw new Fatal(`unknown stream event ${JSON.stringify(event.type)}`);
          }
      }
    }
  } catch (err) {
    if (idle) throw new Fatal(`no data for ${idleTimeoutMs / 1000} s: giving up`);
    if (err instanceof Fatal || err instanceof OpenAI.APIConnectionError) throw err;
    // The SDK throws an `error` event as an APIError without a status: the stream failed.
    if (err instanceof OpenAI.APIError && err.status === undefined) {
      throw new Fatal(`the stream failed: ${err.message}`);
    }
    if (err instanceof OpenAI.APIError) throw err; // an HTTP error, after the SDK's retries
    cut = `connection lost: ${err.cause?.message ?? err.message}`; // the connection was cut
  } finally {
    clearTimeout(timer);
  }
  if (idle) throw new Fatal(`no data for ${idleTimeoutMs / 1000} s: giving up`);
  return response ? { response } : { cut, text };
}
