/**
 * Scripted hosted-tool calls (`web_search_call`, `code_interpreter_call`,
 * `image_generation_call`, `file_search_call`, `mcp_list_tools`, `mcp_call`,
 * `mcp_approval_request`) become plan items.
 *
 * In a dialect that speaks OpenAI's types they are played as api.openai.com
 * streams them (recorded traffic): the item added in progress with only what
 * is known so far, the tool's own events, then the final item. What the final
 * item holds follows the request's `include`: a search's `action.sources`,
 * the code's `outputs`, the file search's `results` only when asked for.
 *
 * In the spec's dialect they are not spec types: they go out as vendor items
 * named `openai:<type>` (the spec's own example of a custom item type), sent
 * whole in output_item.added/done, with none of OpenAI's tool events (custom
 * events would carry nothing a client needs: the item holds it all).
 */
import type { Chunking, HostedStep } from "../scenario/schema.js";
import type { GenerateContext } from "./context.js";
import type { PlanHostedCall, PlanHostedEvent, PlanItem } from "./plan.js";

/** An 8×8 PNG (valid: signature, IHDR, one zlib IDAT, IEND, all CRCs): an image call's default `result`. */
export const DEFAULT_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAgElEQVR42gXBIQEAIAxFwcWhBjUWYmYN0GgaYBbi66cxNCAHd9ac7riTznS2I+c61oIeeJDBDHag4AbWBn3ggxzMwR5ocAfWFn3hi1zMxV5ocRfWil54kcUsdqHiFtZEFy5STLGFxBXWDv3ghzzMwz7ocA/WHv3hj3zMx37ocR8fmgx54bv2kSQAAAAASUVORK5CYII=";

/** The id prefix OpenAI gives each hosted item. */
const PREFIX: Record<HostedStep["type"], string> = {
  web_search_call: "ws",
  code_interpreter_call: "ci",
  image_generation_call: "ig",
  file_search_call: "fs",
  mcp_list_tools: "mcpl",
  mcp_call: "mcp",
  mcp_approval_request: "mcpr",
};

/** What planning a hosted step needs from the scripted planner. */
export interface HostedHelpers {
  /** The step's text with the request's values filled in ({{input}}, …). */
  fill: (text: string) => string;
  /** Splits a text into deltas as a step's `chunk` asks. */
  chunk: (text: string, chunking: Chunking | undefined) => string[];
}

const argumentsText = (args: Record<string, unknown> | string | undefined) =>
  typeof args === "string" ? args : JSON.stringify(args ?? {});

/** Whether the request's `include` asks for this value. */
const includes = (ctx: GenerateContext, value: string) => (ctx.request.include ?? []).includes(value as never);

/** The tool's own status events, each `{type, sequence_number, output_index, item_id}`. */
const phases = (family: string, ...names: string[]): PlanHostedEvent[] =>
  names.map((name) => ({ type: `response.${family}.${name}` }));

/** The call as OpenAI streams it. */
function nativeCall(step: HostedStep, id: string, ctx: GenerateContext, h: HostedHelpers): PlanHostedCall {
  const base = { id, type: step.type };
  switch (step.type) {
    case "web_search_call": {
      const action: Record<string, unknown> = { type: "search", query: h.fill(step.query) };
      if (includes(ctx, "web_search_call.action.sources"))
        action.sources = (step.sources ?? []).map((url) => ({ type: "url", url }));
      return {
        kind: "hosted_call",
        added: { ...base, status: "in_progress" },
        events: phases("web_search_call", "in_progress", "searching", "completed"),
        done: { ...base, status: "completed", action },
      };
    }
    case "code_interpreter_call": {
      const container_id = step.container_id ?? ctx.ids.item("cntr");
      const outputs = includes(ctx, "code_interpreter_call.outputs")
        ? (step.outputs ?? []).map((o) => ({ ...o }))
        : null;
      const deltas = step.code === "" ? [] : h.chunk(step.code, step.chunk);
      return {
        kind: "hosted_call",
        added: { ...base, status: "in_progress", code: "", container_id, outputs: null },
        events: [
          ...phases("code_interpreter_call", "in_progress"),
          ...deltas.map((text): PlanHostedEvent => ({
            type: "response.code_interpreter_call_code.delta",
            delta: { text, into: "code" },
          })),
          { type: "response.code_interpreter_call_code.done", fields: { code: step.code } },
          ...phases("code_interpreter_call", "interpreting", "completed"),
        ],
        done: { ...base, status: "completed", code: step.code, container_id, outputs },
      };
    }
    case "image_generation_call": {
      const result = step.result ?? DEFAULT_PNG_BASE64;
      const partials = Array.from({ length: step.partial_images ?? 0 }, (_, i): PlanHostedEvent => ({
        type: "response.image_generation_call.partial_image",
        fields: { partial_image_index: i, partial_image_b64: result },
      }));
      const done: PlanHostedCall["done"] = { ...base, status: "completed", result };
      if (step.revised_prompt !== undefined) done.revised_prompt = step.revised_prompt;
      return {
        kind: "hosted_call",
        added: { ...base, status: "in_progress", result: null },
        events: [
          ...phases("image_generation_call", "in_progress", "generating"),
          ...partials,
          ...phases("image_generation_call", "completed"),
        ],
        done,
      };
    }
    case "file_search_call": {
      const results = includes(ctx, "file_search_call.results")
        ? (step.results ?? []).map((r) => ({ attributes: {}, ...r }))
        : null;
      return {
        kind: "hosted_call",
        added: { ...base, status: "in_progress", queries: [], results: null },
        events: phases("file_search_call", "in_progress", "searching", "completed"),
        done: { ...base, status: "completed", queries: step.queries.map(h.fill), results },
      };
    }
    case "mcp_list_tools": {
      const tools = step.tools.map((t) => ({
        name: t.name,
        description: t.description ?? null,
        input_schema: t.input_schema ?? { type: "object", properties: {} },
        annotations: t.annotations ?? null,
      }));
      return {
        kind: "hosted_call",
        added: { ...base, server_label: step.server_label, tools: [], error: null, status: "in_progress" },
        events: phases("mcp_list_tools", "in_progress", "completed"),
        done: { ...base, server_label: step.server_label, tools, error: null, status: "completed" },
      };
    }
    case "mcp_call": {
      const args = argumentsText(step.arguments);
      const failed = step.error !== undefined;
      const head = {
        ...base,
        server_label: step.server_label,
        name: step.name,
        approval_request_id: step.approval_request_id ?? null,
      };
      return {
        kind: "hosted_call",
        added: { ...head, arguments: "", output: null, error: null, status: "in_progress" },
        events: [
          ...phases("mcp_call", "in_progress"),
          ...(args === "" ? [] : h.chunk(args, step.chunk)).map((text): PlanHostedEvent => ({
            type: "response.mcp_call_arguments.delta",
            delta: { text, into: "arguments" },
          })),
          { type: "response.mcp_call_arguments.done", fields: { arguments: args } },
          ...phases("mcp_call", failed ? "failed" : "completed"),
        ],
        done: {
          ...head,
          arguments: args,
          output: failed ? null : (step.output ?? ""),
          error: step.error ?? null,
          status: failed ? "failed" : "completed",
        },
      };
    }
    case "mcp_approval_request": {
      // Sent whole, as OpenAI does: the request has nothing to stream and no status of its own.
      const item = {
        ...base,
        server_label: step.server_label,
        name: step.name,
        arguments: argumentsText(step.arguments),
      };
      return { kind: "hosted_call", added: item, events: [], done: item };
    }
  }
}

/** Plans a scripted hosted step, in the form the dialect takes (see the file's comment). */
export function planHosted(step: HostedStep, ctx: GenerateContext, h: HostedHelpers): PlanItem {
  const id = step.id ?? ctx.ids.item(PREFIX[step.type]);
  const call = nativeCall(step, id, ctx, h);
  call.delayMs = step.delayMs;
  if ((ctx.hostedItems ?? "vendor") === "native") return call;
  // The fields every item has (id, type, status); a vendor item's status is completed or incomplete, so a failed MCP call says so in `error`.
  return {
    kind: "vendor_item",
    item: { ...call.done, type: `openai:${step.type}`, id, status: "completed" },
    delayMs: step.delayMs,
  };
}
