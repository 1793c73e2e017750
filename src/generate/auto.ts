/**
 * `auto`: behaves like a plausible model, from the seed. Tools offered and
 * allowed → the call a model would make: the tool the user's words point at,
 * once per thing they name (in parallel when allowed), with the required
 * arguments and a few optional ones (see tool-pick.ts, tool-args.ts); tool
 * outputs last → a text answer that uses them; `text.format` json_schema →
 * JSON text for that schema, json_object → a JSON object; `reasoning` asked →
 * a reasoning item first; otherwise text that depends on the input. In a
 * dialect that speaks OpenAI's types, hosted tools the user's words point at
 * are played first (hosted-pick.ts): searches with a cited answer, code, an
 * image, a file search, MCP calls and approvals.
 */
import { invalidRequest } from "../spec/index.js";
import type { CreateResponseBody, FunctionToolParam } from "../spec/index.js";
import { chunkText } from "./chunk.js";
import type { GenerateContext } from "./context.js";
import { callsById, contentText, lastUserText, trailingToolOutputs } from "../scenario/conversation.js";
import { hashString } from "./hash.js";
import { sampleWithin } from "./json-schema-sample.js";
import { ANSWER_BYTES, CALL_BYTES, MAX_DELTAS, MAX_QUOTED_OUTPUTS, schemaTooLarge, userTextWithin } from "./budgets.js";
import type { Plan, PlanItem, PlanTextPart } from "./plan.js";
import { assemblePlan } from "./assemble.js";
import type { Rng } from "./rng.js";
import { toolArgumentsWithin } from "./tool-args.js";
import { planToolCalls, pointedTools, requestPhrase, type PlannedCall } from "./tool-pick.js";
import { planHosted } from "./hosted.js";
import { planHostedAuto, type HostedAuto } from "./hosted-pick.js";
import { OPENERS, properNames, sentenceFrom } from "./words.js";

/** The function tools a request lets the model call, and whether it must call one. */
export function callableTools(request: CreateResponseBody): { tools: FunctionToolParam[]; required: boolean } {
  const functions = (request.tools ?? []).filter((t): t is FunctionToolParam => t.type === "function");
  const byName = new Map(functions.map((t) => [t.name, t]));
  const choice = request.tool_choice ?? "auto";
  const lookup = (name: string, param: string) => {
    const tool = byName.get(name);
    if (!tool)
      throw invalidRequest(
        param,
        `tool_choice names the function '${name}', which is not in tools. Add it to tools or choose another.`,
        "tool_not_found",
      );
    return tool;
  };
  if (choice === "none") return { tools: [], required: false };
  if (choice === "auto") return { tools: functions, required: false };
  if (choice === "required") {
    if (!request.tools?.length)
      throw invalidRequest("tool_choice", "tool_choice is 'required' but no tools were given.", "invalid_value");
    // With only OpenAI's tools there is no function to call (hosted-pick.ts plays one in the openai dialect).
    return { tools: functions, required: functions.length > 0 };
  }
  if (choice.type === "function") return { tools: [lookup(choice.name, "tool_choice.name")], required: true };
  // A hosted, mcp or custom tool is forced: no function is called (hosted-pick.ts plays the hosted one in the openai dialect).
  if (choice.type !== "allowed_tools") return { tools: [], required: false };
  const allowed = choice.tools.flatMap((t, i) =>
    t.type === "function" ? [lookup(t.name, `tool_choice.tools[${i}].name`)] : [],
  );
  const mode = choice.mode ?? "auto";
  if (mode === "none") return { tools: [], required: false };
  return { tools: allowed, required: mode === "required" && allowed.length > 0 };
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

const sentence = (rng: Rng) => sentenceFrom(rng.pick);

function quote(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? flat.slice(0, 77) + "…" : flat;
}

function sentencesFor(request: CreateResponseBody): [number, number] {
  switch (request.text?.verbosity) {
    case "low":
      return [1, 1];
    case "high":
      return [3, 5];
    default:
      return [1, 3];
  }
}

function replyText(ctx: GenerateContext): string {
  const { rng, request } = ctx;
  const user = lastUserText(ctx.items);
  const [min, max] = sentencesFor(request);
  const parts = [user ? `${rng.pick(OPENERS)} "${quote(user)}".` : "Hello! How can I help you today?"];
  const n = rng.int(min, max);
  for (let i = 0; i < n; i++) parts.push(sentence(rng));
  return parts.join(" ");
}

/** A tool's output without a header block that ends in an `Output:` line (Codex's exec results), when it has one. */
function outputBody(text: string): string {
  const m = /(?:^|\n)Output:[ \t]*\n([\s\S]*\S[\s\S]*)$/i.exec(text);
  return m ? m[1] : text;
}

function toolAnswerText(ctx: GenerateContext, outputs: ReturnType<typeof trailingToolOutputs>): string {
  const calls = callsById(ctx.items);
  const lines = outputs.slice(0, MAX_QUOTED_OUTPUTS).map((o) => {
    const name = calls.get(o.call_id)?.name ?? "the tool";
    return `${name} returned ${quote(outputBody(contentText(o.output).slice(0, 4096))) || "nothing"}.`;
  });
  const more = outputs.length - MAX_QUOTED_OUTPUTS;
  if (more > 0) lines.push(`${more === 1 ? "One more tool" : `${more} more tools`} returned results.`);
  return `Based on the tool results: ${lines.join(" ")} ${sentence(ctx.rng)}`;
}

/** `text.format: json_object`: the answer as a JSON object, with the request's key words. */
function jsonObjectText(ctx: GenerateContext, userText: string, answer: string): string {
  const keywords = [
    ...new Set(
      requestPhrase(userText, 8)
        .split(" ")
        .filter(Boolean)
        .map((w) => w.toLowerCase()),
    ),
  ];
  const object: Record<string, unknown> = { answer };
  if (keywords.length > 0) object.keywords = keywords;
  object.confidence = ctx.rng.pick(["high", "medium"]);
  return JSON.stringify(object);
}

/** `text.format: json_schema`: JSON text valid for the schema, within ANSWER_BYTES (else a 400 naming the schema). */
function structuredText(schema: unknown, ctx: GenerateContext, userText: string): string {
  const sample = sampleWithin(schema, ctx.rng, {
    words: words(userText),
    places: properNames(userText),
    phrase: requestPhrase(userText) || undefined,
    maxBytes: ANSWER_BYTES,
  });
  if (!sample.ok) throw schemaTooLarge("text.format.schema", "the text format", sample, ANSWER_BYTES);
  return sample.json;
}

/** The `auto` scenario: a plan for any request, from the seed. */
export function planAuto(ctx: GenerateContext, scenario?: { model?: string }): Plan {
  const { request, rng, items } = ctx;
  const id = ctx.ids.response();
  const plan: PlanItem[] = [];
  const userText = userTextWithin(lastUserText(items));

  // Tool outputs must answer calls that exist in the conversation (the previous_response_id chain included).
  const outputs = trailingToolOutputs(items);
  const calls = callsById(items);
  const ownStart = items.length - (typeof request.input === "string" ? 1 : request.input.length);
  items.forEach((item, i) => {
    if (item.type === "function_call_output" && !calls.has(item.call_id)) {
      const where = i >= ownStart ? `input[${i - ownStart}].call_id` : "previous_response_id";
      throw invalidRequest(
        where,
        `No function call with call_id '${item.call_id}' was found in the conversation. Send the function_call item before its output, or continue with previous_response_id.`,
        "call_not_found",
      );
    }
  });

  // OpenAI's hosted tools, in a dialect that speaks their types (the spec's dialect keeps its answers: see hosted-pick.ts).
  const hosted: HostedAuto =
    ctx.hostedItems === "native" && outputs.length === 0
      ? planHostedAuto(request, items, ownStart, userText, rng, sentence)
      : { steps: [], answer: null, awaiting: false, approvalAnswered: false, called: [] };
  const hostedCalled = hosted.called.length > 0 || hosted.approvalAnswered;

  const { tools, required } = callableTools(request);
  // Beside a hosted call, only the function tools the user's words name (or a required call), as a model would mix them.
  const offeredFunctions = hosted.awaiting ? [] : hostedCalled && !required ? pointedTools(tools, userText) : tools;
  const callTools = offeredFunctions.length > 0 && (required || outputs.length === 0);
  const chosen: PlannedCall[] = callTools
    ? planToolCalls(
        offeredFunctions,
        { text: userText, parallel: request.parallel_tool_calls ?? true, maxCalls: request.max_tool_calls },
        rng,
      )
    : [];

  const effort = request.reasoning?.effort;
  if (request.reasoning && effort !== "none") {
    const names = [...new Set([...hosted.called, ...chosen.map((c) => c.tool.name)])];
    const intent =
      names.length > 0
        ? `call ${names.join(" and ")}`
        : outputs.length > 0
          ? "summarise the tool results"
          : "answer directly";
    const summary = `${userText ? `The user asks: "${quote(userText)}".` : "No question was asked."} I will ${intent}. ${sentence(rng)}`;
    const reasoning: PlanItem = {
      kind: "reasoning",
      id: ctx.ids.item("rs"),
      summary: [chunkText(summary, rng, 1, 3, MAX_DELTAS)],
    };
    if (request.include?.includes("reasoning.encrypted_content"))
      reasoning.encrypted_content = `enc_${hashString(`${id}:${summary}`, 64)}`;
    plan.push(reasoning);
  }

  let searches = 0;
  for (const step of hosted.steps) {
    // Reasoning models think again before each further search, as recorded streams show.
    if (step.type === "web_search_call" && searches++ > 0 && plan.some((p) => p.kind === "reasoning")) {
      plan.push({
        kind: "reasoning",
        id: ctx.ids.item("rs"),
        summary: [chunkText(`Next I will search for "${quote(step.query)}". ${sentence(rng)}`, rng, 1, 3, MAX_DELTAS)],
      });
    }
    plan.push(planHosted(step, ctx, { fill: (text) => text, chunk: (text) => chunkText(text, rng, 2, 6, MAX_DELTAS) }));
  }

  if (hosted.awaiting) {
    // An approval request ends the response: the call runs after the client's mcp_approval_response.
  } else if (chosen.length > 0) {
    // Each call's arguments within CALL_BYTES, all of them within ANSWER_BYTES: past that, no more calls.
    let left = ANSWER_BYTES;
    for (const { tool, overrides } of chosen) {
      const budget = Math.min(CALL_BYTES, left);
      const args = toolArgumentsWithin(tool, userText, rng, overrides, budget);
      if (!args.ok) {
        if (budget < CALL_BYTES && plan.some((p) => p.kind === "function_call")) break;
        throw schemaTooLarge(
          `tools[${(request.tools ?? []).indexOf(tool)}].parameters`,
          `tool '${tool.name}'`,
          args,
          CALL_BYTES,
        );
      }
      left -= args.json.length;
      plan.push({
        kind: "function_call",
        id: ctx.ids.item("fc"),
        call_id: ctx.ids.call(),
        name: tool.name,
        chunks: chunkText(args.json, rng, 1, 4, MAX_DELTAS),
      });
    }
  } else {
    const format = request.text?.format;
    const jsonObject = format?.type === "json_object";
    const text =
      format?.type === "json_schema"
        ? structuredText(format.schema ?? { type: "object" }, ctx, userText)
        : jsonObject
          ? jsonObjectText(ctx, userText, outputs.length > 0 ? toolAnswerText(ctx, outputs) : replyText(ctx))
          : outputs.length > 0
            ? toolAnswerText(ctx, outputs)
            : hosted.answer
              ? hosted.answer.text
              : replyText(ctx);
    // Citations only over a plain-text answer (JSON text has no cited spans).
    const annotations = !format || format.type === "text" ? hosted.answer?.annotations : undefined;
    const part: PlanTextPart = { type: "output_text", chunks: chunkText(text, rng, 1, 3, MAX_DELTAS) };
    if (annotations && annotations.length > 0) part.annotations = annotations;
    plan.push({ kind: "message", id: ctx.ids.item("msg"), parts: [part] });
  }

  return assemblePlan(ctx, id, plan, { kind: "completed" }, scenario);
}
