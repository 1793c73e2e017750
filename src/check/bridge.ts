/**
 * The bridge bench (`check URL --bridge --upstream-port N`): a bridge speaks
 * the Responses API to its clients, and Chat Completions or the Responses API
 * upstream (`--upstream-api`). One list of checks serves both upstream APIs;
 * what went upstream is judged by that API's judge (UPSTREAM_JUDGES). Each check
 * scripts the upstream's answer (a scenario turn), sends a request to the
 * bridge, and judges both sides:
 *
 * - downstream: the battery's conformance rules, unchanged;
 * - upstream: what the bridge sent upstream against the downstream request
 *   (`upstream.*`), following OpenAI's own mapping between the two APIs;
 * - faults passed on (`fault.*`) and fidelity of the answer (`fidelity.*`).
 *
 * Pure: the transport (`send`) and the upstream (`script`, `upstreamRequests`)
 * are passed in, so the shell (src/cli/bridge.ts) owns the servers and ports.
 */
import {
  asResponse,
  judgeAnswer,
  REFUSED_NON_STREAMED,
  type BatteryReport,
  type BatteryRequest,
  type CheckResult,
  type RawAnswer,
} from "./battery.js";
import type { CheckDialect } from "./dialects.js";
import { ANSWER_SCHEMA, REQUESTS, WEATHER_TOOL } from "./fixtures.js";
import { jsonEqual } from "./echo.js";
import { checkAnswer, type Verdict } from "./http.js";
import { show, type RuleId, type Violation } from "./rules.js";
import { isObject } from "./shape.js";
import { decodeSse } from "./sse.js";

type Json = Record<string, unknown>;

/** Which side of the bridge a violation is about. */
export type BridgeSide = "downstream" | "upstream";

/** A request the upstream received, from its journal. */
export interface UpstreamRequest {
  method: string;
  path: string;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
}

/** A scripted upstream answer: one scenario turn (steps, end, fault), answering every upstream request of the check. */
export type UpstreamTurn = Json;

/** What the bench needs from its shell, per check. */
export interface BridgeIo {
  /** Scripts the upstream's answer for the check about to run (and forgets the last check's requests). */
  script(turn: UpstreamTurn): Promise<void> | void;
  /** Sends the downstream request to the bridge. `key` is unique to the check (sent as the API key). */
  send(request: BatteryRequest, key: string): Promise<RawAnswer>;
  /** What reached the upstream since `script`, once those requests ended. */
  upstreamRequests(): Promise<UpstreamRequest[]>;
}

/** What the upstream was scripted to answer, for the fidelity rules. */
interface Expected {
  text?: string;
  calls?: { name: string; arguments: string; call_id: string }[];
}

interface BridgeCheck {
  name: string;
  title: string;
  request(model: string): BatteryRequest;
  upstream: UpstreamTurn;
  expected?: Expected;
  /** The fault this check injects upstream; its answer is judged by the fault rules instead of "a valid request gets 200". */
  fault?: StatusFault | { kind: "cut" };
  /** Informational: the upstream waits `slowUpstreamMs` before its first byte; what the bridge did is said, never judged. */
  slow?: true;
}

/** An upstream error status: its status, the error type it carries, its retry-after. */
interface StatusFault {
  kind: "status";
  status: number;
  type?: string;
  retryAfter?: string;
}

// ---------------------------------------------------------------- fixtures

const HELLO = "Hello there, friend!";
const message = (text: string) => ({ steps: [{ type: "message", text }] });
const call = (name: string, args: string, callId: string) => ({
  type: "function_call",
  name,
  arguments: args,
  call_id: callId,
});

// ---------------------------------------------------------------- the checks

export const BRIDGE_CHECKS: readonly BridgeCheck[] = [
  {
    name: "text",
    title: "string input, JSON",
    request: REQUESTS.text,
    upstream: message(HELLO),
    expected: { text: HELLO },
  },
  {
    name: "text-stream",
    title: "string input, streamed",
    request: REQUESTS.textStream,
    upstream: message(HELLO),
    expected: { text: HELLO },
  },
  {
    name: "instructions",
    title: "instructions",
    request: REQUESTS.instructions,
    upstream: message("Paris."),
    expected: { text: "Paris." },
  },
  {
    name: "function-tool",
    title: "a named tool_choice, streamed",
    request: REQUESTS.functionTool,
    upstream: { steps: [call("get_weather", '{"city":"Paris"}', "call_bridge_1")] },
    expected: { calls: [{ name: "get_weather", arguments: '{"city":"Paris"}', call_id: "call_bridge_1" }] },
  },
  {
    name: "parallel-tools",
    title: 'tool_choice "required", parallel_tool_calls, streamed',
    request: REQUESTS.parallelTools,
    upstream: {
      steps: [
        call("get_weather", '{"city":"Paris"}', "call_bridge_2"),
        call("get_time", '{"city":"Tokyo"}', "call_bridge_3"),
      ],
    },
    expected: {
      calls: [
        { name: "get_weather", arguments: '{"city":"Paris"}', call_id: "call_bridge_2" },
        { name: "get_time", arguments: '{"city":"Tokyo"}', call_id: "call_bridge_3" },
      ],
    },
  },
  {
    name: "tool-choice-none",
    title: 'tool_choice "none"',
    request: (model) => ({
      stream: false,
      body: { model, input: "Just say hi.", tools: [WEATHER_TOOL], tool_choice: "none" },
    }),
    upstream: message("Hi!"),
    expected: { text: "Hi!" },
  },
  {
    name: "function-call-output",
    title: "function_call and function_call_output items",
    request: (model) => ({
      stream: false,
      body: {
        model,
        tools: [WEATHER_TOOL],
        input: [
          { type: "message", role: "user", content: "What is the weather in Paris?" },
          { type: "function_call", call_id: "call_check_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: "call_check_1", output: '{"temp_c":18,"sky":"clear"}' },
        ],
      },
    }),
    upstream: message("It is 18 °C and clear in Paris."),
    expected: { text: "It is 18 °C and clear in Paris." },
  },
  {
    name: "json-schema",
    title: "text.format json_schema",
    request: (model) => ({
      stream: false,
      body: {
        model,
        input: "Give the weather in Paris as JSON.",
        text: { format: { type: "json_schema", name: "weather_answer", schema: ANSWER_SCHEMA, strict: true } },
      },
    }),
    upstream: message('{"city":"Paris","temp_c":18}'),
    expected: { text: '{"city":"Paris","temp_c":18}' },
  },
  {
    name: "params",
    title: "max_output_tokens, temperature, top_p, streamed",
    request: (model) => ({
      stream: true,
      body: { model, input: "Say hello.", max_output_tokens: 64, temperature: 0.3, top_p: 0.8, stream: true },
    }),
    upstream: message(HELLO),
    expected: { text: HELLO },
  },
  {
    name: "fault-500",
    title: "an upstream 500, streamed",
    request: (model) => ({ stream: true, body: { model, input: "Say hello.", stream: true } }),
    upstream: { steps: [], end: { type: "http_error", status: 500 } },
    fault: { kind: "status", status: 500 },
  },
  {
    name: "fault-500-json",
    title: "an upstream 500, JSON",
    request: (model) => ({ stream: false, body: { model, input: "Say hello." } }),
    upstream: { steps: [], end: { type: "http_error", status: 500 } },
    fault: { kind: "status", status: 500 },
  },
  {
    name: "fault-400",
    title: "an upstream 400 invalid_request, streamed",
    request: (model) => ({ stream: true, body: { model, input: "Say hello.", stream: true } }),
    upstream: {
      steps: [],
      end: {
        type: "http_error",
        status: 400,
        error: { type: "invalid_request", code: "invalid_value", param: "input", message: "The input was refused." },
      },
    },
    fault: { kind: "status", status: 400, type: "invalid_request" },
  },
  {
    name: "fault-404",
    title: "an upstream 404 model_not_found, JSON",
    request: (model) => ({ stream: false, body: { model, input: "Say hello." } }),
    upstream: {
      steps: [],
      end: {
        type: "http_error",
        status: 404,
        error: { type: "not_found", code: "model_not_found", param: "model", message: "The model does not exist." },
      },
    },
    fault: { kind: "status", status: 404, type: "not_found" },
  },
  {
    name: "fault-429",
    title: "an upstream 429 with retry-after",
    request: (model) => ({ stream: false, body: { model, input: "Say hello." } }),
    upstream: { steps: [], end: { type: "http_error", status: 429, headers: { "retry-after": "7" } } },
    fault: { kind: "status", status: 429, retryAfter: "7" },
  },
  {
    name: "fault-cut",
    title: "an upstream stream cut mid-answer",
    request: (model) => ({ stream: true, body: { model, input: "Tell me a story.", stream: true } }),
    upstream: {
      steps: [{ type: "message", text: "Once upon a time there was a lighthouse keeper who kept a light." }],
      fault: { dropAfterEvents: 4 },
    },
    fault: { kind: "cut" },
  },
  {
    name: "slow-upstream",
    title: "a slow upstream (informational), streamed",
    request: REQUESTS.textStream,
    upstream: message(HELLO),
    expected: { text: HELLO },
    slow: true,
  },
];

/** How long the upstream waits before its first byte in the `slow-upstream` check, unless told (`--slow-upstream-ms`). */
export const DEFAULT_SLOW_UPSTREAM_MS = 5_000;

export const BRIDGE_CHECK_NAMES: readonly string[] = BRIDGE_CHECKS.map((c) => c.name);

// ---------------------------------------------------------------- upstream translation (Responses → Chat Completions)

const v = (rule: RuleId, message: string, path: string): Violation => ({ rule, message, path });

/** A chat message's content as text: a string, or its text parts joined. */
function chatText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  let out = "";
  for (const part of content) {
    if (!isObject(part) || typeof part.text !== "string") return undefined;
    out += part.text;
  }
  return out;
}

/** A Responses input item's text (string content, or its text parts joined). */
const itemText = (content: unknown): string | undefined => chatText(content);

/**
 * What the bridge sent upstream (a Chat Completions body), held against the
 * downstream request (a Responses body). Each rule applies only when the
 * downstream request used the field it is about. Paths are into the upstream body.
 */
export function translationViolations(down: Json, up: unknown): Violation[] {
  if (!isObject(up)) return [v("upstream.input", `the upstream request's body is not a JSON object: ${show(up)}`, "$")];
  const out: Violation[] = [];
  const messages = Array.isArray(up.messages) ? up.messages : undefined;
  if (!messages) return [v("upstream.input", "the upstream request has no `messages` array", "$.messages")];
  const msgs = messages.map((m) => (isObject(m) ? m : {}));
  const isSystem = (m: Json) => m.role === "system" || m.role === "developer";

  // instructions → a system (or developer) message, first.
  if (typeof down.instructions === "string" && down.instructions !== "") {
    const first = msgs[0];
    if (!first || !isSystem(first) || chatText(first.content) !== down.instructions)
      out.push(
        v(
          "upstream.instructions",
          `\`instructions\` ${show(down.instructions)} must go upstream as the first message, role system or developer, with that text; the first message is ${show(first)}`,
          "$.messages[0]",
        ),
      );
  }

  // A string input → one user message with the whole string.
  if (typeof down.input === "string") {
    const rest = msgs.filter((m) => !isSystem(m));
    const users = rest.filter((m) => m.role === "user");
    if (rest.length !== 1 || users.length !== 1 || chatText(users[0].content) !== down.input)
      out.push(
        v(
          "upstream.input",
          `the string \`input\` ${show(down.input)} must go upstream as one user message holding it; got ${rest.length} message(s): ${show(
            rest.map((m) => chatText(m.content)),
            120,
          )}`,
          "$.messages",
        ),
      );
  }

  // function_call + function_call_output → assistant tool_calls + tool message with the same tool_call_id.
  if (Array.isArray(down.input)) {
    const items = down.input.filter(isObject);
    for (const output of items.filter((i) => i.type === "function_call_output")) {
      const id = output.call_id;
      const fc = items.find((i) => i.type === "function_call" && i.call_id === id);
      const a = msgs.findIndex(
        (m) =>
          m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.some((c) => isObject(c) && c.id === id),
      );
      const t = msgs.findIndex((m) => m.role === "tool" && m.tool_call_id === id);
      if (fc && a < 0) {
        out.push(
          v(
            "upstream.tool-output",
            `the function_call ${show(id)} must go upstream as an assistant message with a tool_calls entry of that id`,
            "$.messages",
          ),
        );
      } else if (fc) {
        const tc = (msgs[a].tool_calls as unknown[]).find((c) => isObject(c) && c.id === id) as Json;
        const fn = isObject(tc.function) ? tc.function : {};
        if (tc.type !== "function" || fn.name !== fc.name || fn.arguments !== fc.arguments)
          out.push(
            v(
              "upstream.tool-output",
              `the tool call ${show(id)} must be {type: "function", function: {name: ${show(fc.name)}, arguments: ${show(fc.arguments)}}}; got ${show(tc, 160)}`,
              `$.messages[${a}].tool_calls`,
            ),
          );
      }
      const want = typeof output.output === "string" ? output.output : itemText(output.output);
      if (t < 0)
        out.push(
          v(
            "upstream.tool-output",
            `the function_call_output of ${show(id)} must go upstream as a tool message with tool_call_id ${show(id)}; none was sent`,
            "$.messages",
          ),
        );
      else if (chatText(msgs[t].content) !== want)
        out.push(
          v(
            "upstream.tool-output",
            `the tool message of ${show(id)} must hold the output ${show(want)}; got ${show(msgs[t].content)}`,
            `$.messages[${t}].content`,
          ),
        );
      else if (a >= 0 && t < a)
        out.push(
          v(
            "upstream.tool-output",
            `the tool message of ${show(id)} must come after the assistant message that made the call`,
            `$.messages[${t}]`,
          ),
        );
    }
  }

  // tools → Chat Completions tools.
  if (Array.isArray(down.tools)) {
    const want = down.tools.filter((t) => isObject(t) && t.type === "function") as Json[];
    const got = Array.isArray(up.tools) ? up.tools : [];
    if (got.length !== want.length)
      out.push(
        v(
          "upstream.tools",
          `${want.length} function tool(s) must go upstream; ${got.length} did`,
          Array.isArray(up.tools) ? "$.tools" : "$",
        ),
      );
    for (const tool of want) {
      const j = got.findIndex((g) => isObject(g) && isObject(g.function) && g.function.name === tool.name);
      if (j < 0) {
        if (got.length === want.length)
          out.push(v("upstream.tools", `the tool ${show(tool.name)} is not among the upstream tools`, "$.tools"));
        continue;
      }
      const g = got[j] as Json;
      const fn = g.function as Json;
      const faults: string[] = [];
      if (g.type !== "function") faults.push(`type ${show(g.type)}, not "function"`);
      if (tool.description !== undefined && fn.description !== tool.description) faults.push("a different description");
      if (tool.parameters !== undefined && !jsonEqual(fn.parameters, tool.parameters))
        faults.push("different parameters");
      if (tool.strict !== undefined && tool.strict !== null && fn.strict !== tool.strict)
        faults.push(`strict ${show(fn.strict)}, not ${show(tool.strict)}`);
      if (faults.length > 0)
        out.push(
          v("upstream.tools", `the tool ${show(tool.name)} went upstream with ${faults.join(", ")}`, `$.tools[${j}]`),
        );
    }
  }

  // tool_choice → Chat Completions tool_choice.
  const choice = down.tool_choice;
  if (choice !== undefined && choice !== null) {
    let want: unknown;
    if (typeof choice === "string") want = choice;
    else if (isObject(choice) && choice.type === "function")
      want = { type: "function", function: { name: choice.name } };
    // "auto" may be left out: it is Chat Completions' default when tools are present.
    const defaulted = want === "auto" && up.tool_choice === undefined && Array.isArray(up.tools) && up.tools.length > 0;
    if (want !== undefined && !defaulted && !jsonEqual(up.tool_choice, want))
      out.push(
        v(
          "upstream.tool-choice",
          `\`tool_choice\` ${show(choice)} must go upstream as ${show(want)}; got ${show(up.tool_choice)}`,
          "$.tool_choice",
        ),
      );
  }

  // text.format json_schema → response_format json_schema.
  const format = isObject(down.text) && isObject(down.text.format) ? down.text.format : undefined;
  if (format?.type === "json_schema") {
    const rf = isObject(up.response_format) ? up.response_format : undefined;
    const js = rf && isObject(rf.json_schema) ? rf.json_schema : undefined;
    const ok =
      rf?.type === "json_schema" &&
      js !== undefined &&
      js.name === format.name &&
      jsonEqual(js.schema, format.schema) &&
      (format.strict === undefined || js.strict === format.strict);
    if (!ok)
      out.push(
        v(
          "upstream.response-format",
          `\`text.format\` json_schema ${show(format.name)} must go upstream as response_format {type: "json_schema", json_schema: {name, schema, strict}}; got ${show(up.response_format, 120)}`,
          "$.response_format",
        ),
      );
  } else if (
    format?.type === "json_object" &&
    !(isObject(up.response_format) && up.response_format.type === "json_object")
  )
    out.push(
      v(
        "upstream.response-format",
        `\`text.format\` json_object must go upstream as response_format {type: "json_object"}; got ${show(up.response_format)}`,
        "$.response_format",
      ),
    );

  // The parameters.
  if (typeof down.max_output_tokens === "number") {
    const got = up.max_completion_tokens ?? up.max_tokens;
    if (got !== down.max_output_tokens)
      out.push(
        v(
          "upstream.params",
          `\`max_output_tokens\` ${down.max_output_tokens} must go upstream as max_completion_tokens (or max_tokens); got ${show(got)}`,
          up.max_completion_tokens !== undefined ? "$.max_completion_tokens" : "$.max_tokens",
        ),
      );
  }
  for (const key of ["temperature", "top_p", "parallel_tool_calls"] as const)
    if (down[key] !== undefined && down[key] !== null && up[key] !== down[key])
      out.push(
        v("upstream.params", `\`${key}\` ${show(down[key])} must go upstream; got ${show(up[key])}`, `$.${key}`),
      );
  if (down.stream === true && up.stream !== true)
    out.push(
      v(
        "upstream.params",
        `the client asked for a stream, but the upstream request has \`stream\` ${show(up.stream)}: the answer cannot reach the client as it is made`,
        "$.stream",
      ),
    );
  return out;
}

// ---------------------------------------------------------------- upstream translation (Responses → Responses)

/** A Responses input item is a message: `type: "message"`, or no type and a role (an EasyInputMessage). */
const isMessageItem = (i: Json) => i.type === "message" || (i.type === undefined && typeof i.role === "string");
const isSystemItem = (i: Json) => isMessageItem(i) && (i.role === "system" || i.role === "developer");
const argsSame = (a: unknown, b: unknown) =>
  a === b || (typeof a === "string" && typeof b === "string" && jsonSame(a, b));

/**
 * What the bridge sent upstream (a Responses body), held against the
 * downstream request (a Responses body): the same request, or one with the
 * same meaning (a string input as one user message, `instructions` as a
 * leading system or developer message). Each rule applies only when the
 * downstream request used the field it is about. Paths are into the upstream body.
 */
export function responsesTranslationViolations(down: Json, up: unknown): Violation[] {
  if (!isObject(up)) return [v("upstream.input", `the upstream request's body is not a JSON object: ${show(up)}`, "$")];
  const out: Violation[] = [];
  if (typeof up.input !== "string" && !Array.isArray(up.input))
    return [
      v(
        "upstream.input",
        `the upstream request has no \`input\` (a string or an array of items); got ${show(up.input)}`,
        "$.input",
      ),
    ];
  const items: Json[] =
    typeof up.input === "string"
      ? [{ type: "message", role: "user", content: up.input }]
      : up.input.map((i) => (isObject(i) ? i : {}));
  const rest = items.filter((i) => !isSystemItem(i));
  const at = (item: Json) => (typeof up.input === "string" ? "$.input" : `$.input[${items.indexOf(item)}]`);

  // instructions: kept as `instructions`, or moved into a leading system (or developer) message.
  if (typeof down.instructions === "string" && down.instructions !== "" && up.instructions !== down.instructions) {
    const first = items[0];
    if (!first || !isSystemItem(first) || itemText(first.content) !== down.instructions)
      out.push(
        v(
          "upstream.instructions",
          `\`instructions\` ${show(down.instructions)} must go upstream as \`instructions\` (or a first system or developer message with that text); got \`instructions\` ${show(up.instructions)}`,
          "$.instructions",
        ),
      );
  }

  // A string input → that string, or one user message holding it.
  if (typeof down.input === "string") {
    const ok =
      up.input === down.input ||
      (rest.length === 1 &&
        isMessageItem(rest[0]) &&
        rest[0].role === "user" &&
        itemText(rest[0].content) === down.input);
    if (!ok)
      out.push(
        v(
          "upstream.input",
          `the string \`input\` ${show(down.input)} must go upstream as that string, or one user message holding it; got ${rest.length} item(s): ${show(
            rest.map((i) => (isMessageItem(i) ? itemText(i.content) : i.type)),
            120,
          )}`,
          "$.input",
        ),
      );
  }

  if (Array.isArray(down.input)) {
    const wanted = down.input.filter(isObject);
    // The messages, in order, with the same role and text.
    const want = wanted.filter((i) => isMessageItem(i) && !isSystemItem(i));
    const got = rest.filter(isMessageItem);
    const same =
      want.length === got.length &&
      want.every((w, k) => got[k].role === w.role && itemText(got[k].content) === itemText(w.content));
    if (!same)
      out.push(
        v(
          "upstream.input",
          `the input's ${want.length} message(s) must go upstream with the same roles and text; got ${show(
            got.map((g) => `${String(g.role)}: ${itemText(g.content) ?? "?"}`),
            120,
          )}`,
          "$.input",
        ),
      );
    // function_call + function_call_output → the same items, with the same call_id, the output after the call.
    for (const output of wanted.filter((i) => i.type === "function_call_output")) {
      const id = output.call_id;
      const fc = wanted.find((i) => i.type === "function_call" && i.call_id === id);
      const upCall = items.find((i) => i.type === "function_call" && i.call_id === id);
      const upOutput = items.find((i) => i.type === "function_call_output" && i.call_id === id);
      if (fc && !upCall)
        out.push(
          v(
            "upstream.tool-output",
            `the function_call ${show(id)} must go upstream as a function_call item with that call_id; none was sent`,
            "$.input",
          ),
        );
      else if (fc && upCall && (upCall.name !== fc.name || !argsSame(upCall.arguments, fc.arguments)))
        out.push(
          v(
            "upstream.tool-output",
            `the function_call ${show(id)} must keep its name ${show(fc.name)} and arguments ${show(fc.arguments)}; got ${show(upCall.name)}, ${show(upCall.arguments)}`,
            at(upCall),
          ),
        );
      const want = typeof output.output === "string" ? output.output : itemText(output.output);
      const gotOut = upOutput && (typeof upOutput.output === "string" ? upOutput.output : itemText(upOutput.output));
      if (!upOutput)
        out.push(
          v(
            "upstream.tool-output",
            `the function_call_output of ${show(id)} must go upstream as a function_call_output item with call_id ${show(id)}; none was sent`,
            "$.input",
          ),
        );
      else if (gotOut !== want)
        out.push(
          v(
            "upstream.tool-output",
            `the function_call_output of ${show(id)} must hold the output ${show(want)}; got ${show(upOutput.output)}`,
            `${at(upOutput)}.output`,
          ),
        );
      else if (upCall && items.indexOf(upOutput) < items.indexOf(upCall))
        out.push(
          v(
            "upstream.tool-output",
            `the function_call_output of ${show(id)} must come after its function_call`,
            at(upOutput),
          ),
        );
    }
  }

  // tools: the function tools, as they were.
  if (Array.isArray(down.tools)) {
    const want = down.tools.filter((t) => isObject(t) && t.type === "function") as Json[];
    const got = (Array.isArray(up.tools) ? up.tools : []).map((t) => (isObject(t) ? t : {}));
    const fns = got.filter((t) => t.type === "function");
    if (fns.length !== want.length)
      out.push(
        v(
          "upstream.tools",
          `${want.length} function tool(s) must go upstream; ${fns.length} did`,
          Array.isArray(up.tools) ? "$.tools" : "$",
        ),
      );
    for (const tool of want) {
      const g = fns.find((t) => t.name === tool.name);
      if (!g) {
        if (fns.length === want.length)
          out.push(v("upstream.tools", `the tool ${show(tool.name)} is not among the upstream tools`, "$.tools"));
        continue;
      }
      const faults: string[] = [];
      if (tool.description !== undefined && g.description !== tool.description) faults.push("a different description");
      if (tool.parameters !== undefined && !jsonEqual(g.parameters, tool.parameters))
        faults.push("different parameters");
      if (tool.strict !== undefined && tool.strict !== null && g.strict !== tool.strict)
        faults.push(`strict ${show(g.strict)}, not ${show(tool.strict)}`);
      if (faults.length > 0)
        out.push(
          v(
            "upstream.tools",
            `the tool ${show(tool.name)} went upstream with ${faults.join(", ")}`,
            `$.tools[${got.indexOf(g)}]`,
          ),
        );
    }
  }

  // tool_choice, as it was ("auto" may be left out when tools go upstream: it is the default).
  const choice = down.tool_choice;
  if (choice !== undefined && choice !== null) {
    const defaulted =
      choice === "auto" && up.tool_choice === undefined && Array.isArray(up.tools) && up.tools.length > 0;
    if (!defaulted && !jsonEqual(up.tool_choice, choice))
      out.push(
        v(
          "upstream.tool-choice",
          `\`tool_choice\` ${show(choice)} must go upstream as it is; got ${show(up.tool_choice)}`,
          "$.tool_choice",
        ),
      );
  }

  // text.format, kept.
  const format = isObject(down.text) && isObject(down.text.format) ? down.text.format : undefined;
  const upFormat = isObject(up.text) && isObject(up.text.format) ? up.text.format : undefined;
  if (format?.type === "json_schema") {
    const ok =
      upFormat?.type === "json_schema" &&
      upFormat.name === format.name &&
      jsonEqual(upFormat.schema, format.schema) &&
      (format.strict === undefined || upFormat.strict === format.strict);
    if (!ok)
      out.push(
        v(
          "upstream.response-format",
          `\`text.format\` json_schema ${show(format.name)} must go upstream as it is (name, schema, strict); got ${show(up.text, 120)}`,
          "$.text.format",
        ),
      );
  } else if (format?.type === "json_object" && upFormat?.type !== "json_object")
    out.push(
      v(
        "upstream.response-format",
        `\`text.format\` json_object must go upstream as it is; got ${show(up.text)}`,
        "$.text.format",
      ),
    );

  // The parameters, as they were.
  for (const key of ["max_output_tokens", "temperature", "top_p", "parallel_tool_calls"] as const)
    if (down[key] !== undefined && down[key] !== null && up[key] !== down[key])
      out.push(
        v("upstream.params", `\`${key}\` ${show(down[key])} must go upstream; got ${show(up[key])}`, `$.${key}`),
      );
  if (down.stream === true && up.stream !== true)
    out.push(
      v(
        "upstream.params",
        `the client asked for a stream, but the upstream request has \`stream\` ${show(up.stream)}: the answer cannot reach the client as it is made`,
        "$.stream",
      ),
    );
  return out;
}

/** The API a bridge speaks upstream (`--upstream-api`). */
export type UpstreamApi = "chat" | "responses";
export const UPSTREAM_APIS: readonly UpstreamApi[] = ["chat", "responses"];

/** How one upstream API is judged: the path the bridge posts to, and what it sent held against the client's request. */
export interface UpstreamJudge {
  /** The path's end: `/chat/completions`, `/responses`. */
  endpoint: string;
  translation(down: Json, up: unknown): Violation[];
}

export const UPSTREAM_JUDGES: Record<UpstreamApi, UpstreamJudge> = {
  chat: { endpoint: "/chat/completions", translation: translationViolations },
  responses: { endpoint: "/responses", translation: responsesTranslationViolations },
};

// ---------------------------------------------------------------- faults and fidelity

/** The event types of an SSE body, in order. */
function eventTypes(body: string): string[] {
  const out: string[] = [];
  for (const frame of decodeSse(body).frames) {
    if (frame.data === undefined || frame.data === "[DONE]") continue;
    try {
      const e = JSON.parse(frame.data) as unknown;
      if (isObject(e) && typeof e.type === "string") out.push(e.type);
    } catch {
      // The downstream rules say what is wrong with it.
    }
  }
  return out;
}

const isSse = (answer: RawAnswer) => (answer.contentType ?? "").toLowerCase().startsWith("text/event-stream");

/** An upstream error status passed on: the same class, or a failed response; a 429's retry-after kept. */
export function faultStatusViolations(
  fault: { status: number; type?: string; retryAfter?: string },
  answer: RawAnswer,
  verdict: Verdict | undefined,
): Violation[] {
  const status = answer.status;
  if (status === undefined) return [];
  const out: Violation[] = [];
  const cls = Math.floor(fault.status / 100);
  if (status >= 400) {
    if (Math.floor(status / 100) !== cls)
      out.push(
        v(
          "fault.status",
          `the upstream answered ${fault.status}; the bridge answered ${status}: an error of class ${cls}xx (the ${cls === 4 ? "caller's" : "server's"} fault) is passed on as one`,
          "$",
        ),
      );
    else if (fault.type !== undefined) {
      const type = errorType(answer);
      if (type !== undefined && !sameErrorType(type, fault.type))
        out.push(
          v(
            "fault.status",
            `the upstream answered ${fault.status} with an error of type ${show(fault.type)}; the bridge's ${status} says ${show(type)}: the caller's error keeps its type`,
            "$.error.type",
          ),
        );
    }
  } else {
    const types = isSse(answer) ? eventTypes(answer.body) : [];
    const failed = verdict?.response?.status === "failed" || types.includes("response.failed");
    if (!failed) {
      const lone = types.includes("error") ? " holding an `error` event but no response.failed" : "";
      out.push(
        v(
          "fault.status",
          `the upstream answered ${fault.status}; the bridge answered ${status}${isSse(answer) ? " with a stream" : ""}${lone}: it must answer an error status with a JSON error, or end the response failed`,
          "$",
        ),
      );
    }
  }
  if (fault.retryAfter !== undefined && status === fault.status) {
    const got = answer.headers?.["retry-after"];
    if (got !== fault.retryAfter)
      out.push(
        v(
          "fault.retry-after",
          `the upstream's ${fault.status} said retry-after ${show(fault.retryAfter)}; the bridge's ${status} says ${show(got)}`,
          "$.headers.retry-after",
        ),
      );
  }
  return out;
}

/** The `error.type` of a JSON error body, when it has one (the downstream rules judge its shape). */
function errorType(answer: RawAnswer): unknown {
  try {
    const body = JSON.parse(answer.body) as unknown;
    return isObject(body) && isObject(body.error) ? body.error.type : undefined;
  } catch {
    return undefined;
  }
}

/** The same error type, in the spec's spelling (`invalid_request`) or OpenAI's (`invalid_request_error`). */
const sameErrorType = (got: unknown, want: string) =>
  typeof got === "string" && got.replace(/_error$/, "") === want.replace(/_error$/, "");

/** An upstream cut mid-stream: error then response.failed, never response.completed. */
export function faultCutViolations(answer: RawAnswer): Violation[] {
  if (answer.status === undefined) return [];
  if (!isSse(answer)) {
    if (answer.status >= 500) return [];
    return [
      v(
        "fault.cut",
        `the upstream stream was cut, and the bridge answered ${answer.status} ${show(answer.contentType)}: a cut stream ends failed (or a 5xx before the stream starts)`,
        "$",
      ),
    ];
  }
  const types = eventTypes(answer.body);
  const completed = types.indexOf("response.completed");
  if (completed >= 0)
    return [
      v(
        "fault.cut",
        "the upstream stream was cut mid-answer, but the bridge sent response.completed: it must send `error` then `response.failed`",
        `$.events[${completed}]`,
      ),
    ];
  const failed = types.indexOf("response.failed");
  if (failed < 0)
    return [
      v(
        "fault.cut",
        `the upstream stream was cut mid-answer, and the bridge's stream ends without response.failed (${show(types.slice(-3))})`,
        "$",
      ),
    ];
  if (!types.slice(0, failed).includes("error"))
    return [
      v(
        "fault.cut",
        "the upstream stream was cut mid-answer: an `error` event comes before response.failed, saying why",
        `$.events[${failed}]`,
      ),
    ];
  return [];
}

/** The downstream answer's text and calls against what the upstream was scripted to say. */
export function fidelityViolations(expected: Expected, verdict: Verdict | undefined): Violation[] {
  const response = verdict?.response;
  if (!response || response.status === "failed") return [];
  const output = (verdict?.stream?.output?.length ? verdict.stream.output : response.output) as unknown;
  const items = Array.isArray(output) ? output.filter(isObject) : [];
  const out: Violation[] = [];
  if (expected.text !== undefined) {
    let text = "";
    for (const item of items)
      if (item.type === "message" && Array.isArray(item.content))
        for (const part of item.content)
          if (isObject(part) && part.type === "output_text" && typeof part.text === "string") text += part.text;
    if (text !== expected.text)
      out.push(
        v("fidelity.text", `the upstream said ${show(expected.text)}; the client got ${show(text)}`, "$.output"),
      );
  }
  if (expected.calls) {
    const calls = items.filter((i) => i.type === "function_call");
    if (calls.length !== expected.calls.length)
      out.push(
        v(
          "fidelity.tool-call",
          `the upstream made ${expected.calls.length} tool call(s); the client got ${calls.length} function_call item(s)`,
          "$.output",
        ),
      );
    expected.calls.forEach((want, i) => {
      const got = calls[i];
      if (!got) return;
      const at = `$.output[${items.indexOf(got)}]`;
      const sameArgs =
        got.arguments === want.arguments ||
        (typeof got.arguments === "string" && jsonSame(got.arguments, want.arguments));
      const faults: string[] = [];
      if (got.name !== want.name) faults.push(`name ${show(got.name)}, not ${show(want.name)}`);
      if (!sameArgs) faults.push(`arguments ${show(got.arguments)}, not ${show(want.arguments)}`);
      if (got.call_id !== want.call_id)
        faults.push(`call_id ${show(got.call_id)}, not the upstream's ${show(want.call_id)}`);
      if (faults.length > 0) out.push(v("fidelity.tool-call", `function call ${i + 1}: ${faults.join("; ")}`, at));
    });
  }
  return out;
}

function jsonSame(a: string, b: string): boolean {
  try {
    return jsonEqual(JSON.parse(a), JSON.parse(b));
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- running

export interface BridgeRunOptions {
  model: string;
  dialect: CheckDialect;
  only?: readonly string[];
  /** Sent as the API key, with the check's name: `KEYPREFIX-text`. */
  keyPrefix: string;
  /** The API the bridge speaks upstream (default chat). */
  upstreamApi?: UpstreamApi;
  /** The `slow-upstream` check's wait before the upstream's first byte (default DEFAULT_SLOW_UPSTREAM_MS). */
  slowUpstreamMs?: number;
  io: BridgeIo;
  onResult?: (result: CheckResult) => void;
}

/** What the upstream received in one check, for the report. */
export interface UpstreamSide {
  requests: { method: string; path: string; body: unknown }[];
}

const sided = (side: BridgeSide, list: Violation[]) => list.map((x) => ({ ...x, request: 0, side }));

/** Runs the bridge checks one at a time (the upstream is scripted per check). */
export async function runBridgeBench(options: BridgeRunOptions): Promise<BatteryReport> {
  const checks =
    options.only && options.only.length > 0
      ? BRIDGE_CHECKS.filter((c) => options.only!.includes(c.name))
      : BRIDGE_CHECKS;
  const api = options.upstreamApi ?? "chat";
  const judge = UPSTREAM_JUDGES[api];
  const slowMs = options.slowUpstreamMs ?? DEFAULT_SLOW_UPSTREAM_MS;
  const results: CheckResult[] = [];
  let unreachable: string | undefined;
  for (const check of checks) {
    if (check.slow) {
      const result = await runSlowCheck(check, slowMs, judge, options);
      if (result.requests[0].status === undefined && results.length === 0) {
        unreachable = result.requests[0].failure ?? "the connection failed";
        break;
      }
      results.push(result);
      options.onResult?.(result);
      continue;
    }
    await options.io.script(check.upstream);
    let request = check.request(options.model);
    let answer = await options.io.send(request, `${options.keyPrefix}-${check.name}`);
    if (answer.status === undefined && results.length === 0) {
      unreachable = answer.failure ?? "the connection failed";
      break;
    }
    // A bridge that only streams: ask again with stream: true (the upstream scripted afresh), as the battery does.
    let refused: number | undefined;
    if (!request.stream && request.body && REFUSED_NON_STREAMED.has(answer.status ?? 0)) {
      refused = answer.status;
      await options.io.script(check.upstream);
      request = { ...request, stream: true, body: { ...request.body, stream: true } };
      answer = await options.io.send(request, `${options.keyPrefix}-${check.name}`);
    }
    const upstream = await options.io.upstreamRequests();
    const sent = upstream.filter((r) => r.method === "POST" && r.path.endsWith(judge.endpoint));
    const body = request.body ?? {};
    let verdict: Verdict | undefined;
    const downstream: Violation[] = [];
    const faults: Violation[] = [];
    if (check.fault && answer.status !== undefined) {
      // The error is the upstream's: judged by the fault rules, its body by the downstream ones.
      verdict = checkAnswer({
        request: body,
        status: answer.status,
        contentType: answer.contentType,
        body: answer.body,
        dialect: options.dialect,
        stream: request.stream,
      });
      downstream.push(...verdict.violations);
      faults.push(
        ...(check.fault.kind === "cut"
          ? faultCutViolations(answer)
          : faultStatusViolations(check.fault, answer, verdict)),
      );
    } else {
      const judged = judgeAnswer(request, answer, options.dialect);
      verdict = refused !== undefined && judged.verdict ? asResponse(judged.verdict) : judged.verdict;
      downstream.push(...judged.violations);
      if (check.expected) faults.push(...fidelityViolations(check.expected, verdict));
    }
    const translation: Violation[] = [];
    if (sent.length === 0) translation.push(nothingSent(judge, upstream));
    else translation.push(...judge.translation(body, sent[0].body));
    const violations = [
      ...sided("downstream", downstream),
      ...sided("upstream", translation),
      ...sided("downstream", faults),
    ];
    const result: CheckResult = {
      name: check.name,
      title: check.title,
      outcome: violations.length > 0 || Object.keys(verdict?.suppressed ?? {}).length > 0 ? "fail" : "pass",
      requests: [
        { ...summary(request, answer, verdict), ...(refused !== undefined ? { refusedNonStreamed: refused } : {}) },
      ],
      ...(refused !== undefined
        ? {
            streamedInstead: true,
            note: `the bridge refused the request without \`stream\` (${refused}), so it was sent again with \`stream: true\` and judged over the stream`,
          }
        : {}),
      violations,
      suppressed: Object.values(verdict?.suppressed ?? {}).reduce((a, b) => a + (b ?? 0), 0),
      suppressedByRule: verdict?.suppressed ?? {},
      specNotes: (verdict?.notes ?? []).map((n) => ({ ...n, request: 0 })),
      upstream: { requests: upstream.map((r) => ({ method: r.method, path: r.path, body: r.body })) },
    };
    results.push(result);
    options.onResult?.(result);
  }
  const count = (o: CheckResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  const summaryCounts = {
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skipped"),
    ...(count("info") > 0 ? { info: count("info") } : {}),
    violations: results.reduce((n, r) => n + r.violations.length + r.suppressed, 0),
  };
  return {
    dialect: options.dialect,
    model: options.model,
    ok: !unreachable && summaryCounts.failed === 0,
    ...(unreachable ? { unreachable } : {}),
    results,
    summary: summaryCounts,
    streamedInstead: results.filter((r) => r.streamedInstead).map((r) => r.name),
    bridge: { upstreamApi: api },
  };
}

/** The upstream.input violation of a check whose request never reached the upstream's endpoint. */
function nothingSent(judge: UpstreamJudge, upstream: UpstreamRequest[]): Violation {
  const got =
    upstream.length > 0 ? `it got ${upstream.map((r) => `${r.method} ${r.path}`).join(", ")}` : "it got nothing";
  return v(
    "upstream.input",
    `no request reached the upstream's ${judge.endpoint} (${got}): is the bridge's upstream http://127.0.0.1:PORT/v1?`,
    "$",
  );
}

/**
 * The informational `slow-upstream` check: the upstream waits `slowMs`
 * before its first byte, and the result says whether the bridge waited and
 * passed the answer through, or gave up. Never a violation: how long a
 * bridge waits is its own choice.
 */
async function runSlowCheck(
  check: BridgeCheck,
  slowMs: number,
  judge: UpstreamJudge,
  options: BridgeRunOptions,
): Promise<CheckResult> {
  await options.io.script({ ...check.upstream, timing: { latencyMs: slowMs } });
  const request = check.request(options.model);
  const answer = await options.io.send(request, `${options.keyPrefix}-${check.name}`);
  const upstream = await options.io.upstreamRequests();
  const judged = answer.status !== undefined ? judgeAnswer(request, answer, options.dialect) : undefined;
  const reached = upstream.some((r) => r.method === "POST" && r.path.endsWith(judge.endpoint));
  return {
    name: check.name,
    title: check.title,
    outcome: "info",
    note: slowNote(slowMs, answer, judged?.verdict, check.expected ?? {}, reached),
    requests: [summary(request, answer, judged?.verdict)],
    violations: [],
    suppressed: 0,
    suppressedByRule: {},
    specNotes: [],
    upstream: { requests: upstream.map((r) => ({ method: r.method, path: r.path, body: r.body })) },
  };
}

/** What the bridge did with an upstream that waited `slowMs` before its first byte, in words. */
export function slowNote(
  slowMs: number,
  answer: RawAnswer,
  verdict: Verdict | undefined,
  expected: Expected,
  reachedUpstream: boolean,
): string {
  const wait = `the upstream waited ${slowMs} ms before its first byte`;
  if (!reachedUpstream) return `${wait}, but the bridge's request never reached it`;
  if (answer.status === undefined)
    return `${wait}; the client got no answer from the bridge (${answer.failure ?? "the connection failed"})`;
  const passed =
    answer.status === 200 &&
    verdict?.response?.status === "completed" &&
    fidelityViolations(expected, verdict).length === 0 &&
    !answer.failure;
  if (passed) return `${wait}; the bridge waited, and passed the answer through (200, completed)`;
  const why = errorMessage(answer, verdict);
  const got = `${answer.status}${verdict?.response?.status ? `, ${String(verdict.response.status)}` : ""}${answer.failure ? `, cut short: ${answer.failure}` : ""}`;
  return `${wait}; the bridge gave up or lost the answer: it answered ${got}${why ? ` (${show(why, 160)})` : ""}`;
}

/** The error message of an answer: a JSON error's, or a failed response's. */
function errorMessage(answer: RawAnswer, verdict: Verdict | undefined): string | undefined {
  const error = verdict?.response?.error;
  if (isObject(error) && typeof error.message === "string") return error.message;
  try {
    const body = JSON.parse(answer.body) as unknown;
    if (isObject(body) && isObject(body.error) && typeof body.error.message === "string") return body.error.message;
  } catch {
    // a stream, or not JSON
  }
  return undefined;
}

function summary(request: BatteryRequest, answer: RawAnswer, verdict: Verdict | undefined) {
  const out: CheckResult["requests"][number] = { stream: request.stream };
  if (answer.status !== undefined) out.status = answer.status;
  if (answer.contentType !== undefined) out.contentType = answer.contentType;
  if (verdict?.stream) out.messages = verdict.stream.messages;
  if (typeof verdict?.response?.status === "string") out.responseStatus = verdict.response.status;
  if (answer.failure) out.failure = answer.failure;
  return out;
}
