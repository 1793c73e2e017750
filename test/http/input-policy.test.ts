/**
 * The input policy: by default the server accepts what OpenAI accepts (each
 * shape still checked, what OpenAI refuses refused); with `x-mock-strict: 1`
 * or `strict: true` only the spec, and anything else is a 400 naming the
 * field. Bodies are modelled on what Codex CLI, the OpenAI Agents SDK and the
 * AI SDK's OpenAI provider send.
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody, expectValidResponse } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { CODEX_BODY, applyPatch, githubNamespace, shellCommand, toolSearch } from "../support/client-bodies.js";
import { postResponses, useServer } from "../support/server.js";

const server = useServer();
const strictServer = useServer({ strict: true });
const STRICT = { "x-mock-strict": "1" };

const ok = { model: "mock-model-1", input: "Hello" };
interface Accepted {
  name: string;
  body: Record<string, unknown>;
}

const accepted: Accepted[] = [
  {
    name: "Codex CLI: function, custom (lark grammar), web_search, tool_search, namespace and image_generation tools",
    body: CODEX_BODY,
  },
  {
    name: "Codex CLI: a later turn replaying reasoning, namespaced and custom tool calls, a web search and a tool search",
    body: {
      ...CODEX_BODY,
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Fix the parser" }] },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "Looking at the parser." }],
          content: null,
          encrypted_content: "gAAAAB…",
        },
        {
          type: "function_call",
          call_id: "call_1",
          name: "get_issue",
          namespace: "mcp__github__",
          arguments: '{"number":12}',
        },
        { type: "function_call_output", call_id: "call_1", output: "Issue 12: the parser drops trailing commas." },
        {
          type: "web_search_call",
          id: "ws_1",
          status: "completed",
          action: {
            type: "search",
            query: "lark trailing comma",
            sources: [{ type: "url", url: "https://lark-parser.readthedocs.io" }],
          },
        },
        {
          type: "tool_search_call",
          call_id: "ts_1",
          execution: "client",
          arguments: { query: "github" },
          status: "completed",
        },
        {
          type: "tool_search_output",
          call_id: "ts_1",
          execution: "client",
          status: "completed",
          tools: [githubNamespace],
        },
        {
          type: "custom_tool_call",
          call_id: "call_2",
          name: "apply_patch",
          input: "*** Begin Patch\n*** Update File: parser.py\n*** End Patch",
        },
        { type: "custom_tool_call_output", call_id: "call_2", output: "Done!" },
      ],
    },
  },
  {
    name: "OpenAI Agents SDK: webSearchTool(), streamed, with its prompt-cache and text settings",
    body: {
      model: "gpt-4.1",
      instructions: "You are a helpful research agent.",
      input: [{ type: "message", role: "user", content: "What changed in Rust 1.80?" }],
      tools: [
        {
          type: "web_search",
          search_context_size: "medium",
          user_location: { type: "approximate", country: "US", city: null },
        },
      ],
      include: ["web_search_call.action.sources"],
      parallel_tool_calls: false,
      stream: true,
      store: true,
      truncation: "auto",
      text: { verbosity: "medium" },
      prompt_cache_retention: "24h",
      context_management: [{ type: "compaction", compact_threshold: 200000 }],
    },
  },
  {
    name: "OpenAI Agents SDK: a hosted MCP server, a shell and apply_patch, forced to the MCP tool",
    body: {
      model: "gpt-5",
      input: "List the open issues",
      tools: [
        {
          type: "mcp",
          server_label: "deepwiki",
          server_url: "https://mcp.deepwiki.com/mcp",
          require_approval: "never",
          allowed_tools: ["ask_question"],
        },
        { type: "shell", environment: { type: "local" } },
        { type: "apply_patch" },
      ],
      tool_choice: { type: "mcp", server_label: "deepwiki" },
    },
  },
  {
    name: "AI SDK: web search with sources, reasoning effort minimal",
    body: {
      model: "gpt-5-mini",
      input: [{ role: "user", content: [{ type: "input_text", text: "What happened in tech news today?" }] }],
      tools: [{ type: "web_search", search_context_size: "medium" }],
      tool_choice: "auto",
      include: ["web_search_call.action.sources"],
      reasoning: { effort: "minimal" },
    },
  },
  {
    name: "AI SDK: code interpreter, file search and image generation with their includes",
    body: {
      model: "gpt-5",
      input: "Plot the data",
      tools: [
        { type: "code_interpreter", container: { type: "auto", file_ids: ["file-123"] } },
        {
          type: "file_search",
          vector_store_ids: ["vs_123"],
          max_num_results: 5,
          ranking_options: { ranker: "auto", score_threshold: 0.5 },
        },
        { type: "image_generation", quality: "high", size: "1024x1024", partial_images: 2 },
      ],
      include: [
        "code_interpreter_call.outputs",
        "file_search_call.results",
        "message.input_image.image_url",
        "web_search_call.results",
      ],
    },
  },
  {
    name: "pydantic-ai: web_search_preview (dated) and computer use, forced to the preview search",
    body: {
      model: "computer-use-preview",
      input: "Open the docs",
      tools: [
        {
          type: "web_search_preview_2025_03_11",
          search_context_size: "low",
          user_location: { type: "approximate", city: "Paris" },
        },
        { type: "computer_use_preview", display_width: 1024, display_height: 768, environment: "browser" },
      ],
      tool_choice: { type: "web_search_preview" },
      include: ["computer_call_output.output.image_url"],
      truncation: "auto",
    },
  },
  {
    name: "hosted-tool and client-run calls replayed as input, with their outputs",
    body: {
      model: "mock-model-1",
      input: [
        { type: "message", role: "user", content: "Go" },
        { type: "file_search_call", id: "fs_1", queries: ["q"], status: "completed", results: null },
        {
          type: "code_interpreter_call",
          id: "ci_1",
          code: "print(1)",
          container_id: "cntr_1",
          outputs: null,
          status: "completed",
        },
        { type: "image_generation_call", id: "ig_1", result: null, status: "completed" },
        {
          type: "computer_call",
          id: "cu_1",
          call_id: "cc_1",
          action: { type: "screenshot" },
          pending_safety_checks: [],
          status: "completed",
        },
        {
          type: "computer_call_output",
          call_id: "cc_1",
          output: { type: "computer_screenshot", image_url: "data:image/png;base64,AAAA" },
        },
        {
          type: "local_shell_call",
          id: "lsh_1",
          call_id: "ls_1",
          action: { type: "exec", command: ["ls"], env: {} },
          status: "completed",
        },
        { type: "local_shell_call_output", id: "ls_1", output: '{"stdout":"a.txt"}' },
        { type: "shell_call", call_id: "sh_1", action: { commands: ["ls"] } },
        {
          type: "shell_call_output",
          call_id: "sh_1",
          output: [{ stdout: "a.txt\n", stderr: "", outcome: { type: "exit", exit_code: 0 } }],
        },
        {
          type: "apply_patch_call",
          call_id: "ap_1",
          status: "completed",
          operation: { type: "update_file", path: "a.txt", diff: "@@" },
        },
        { type: "apply_patch_call_output", call_id: "ap_1", status: "completed", output: "ok" },
        {
          type: "mcp_list_tools",
          id: "mcpl_1",
          server_label: "deepwiki",
          tools: [{ name: "ask_question", input_schema: {} }],
        },
        { type: "mcp_approval_request", id: "mcpr_1", server_label: "deepwiki", name: "ask_question", arguments: "{}" },
        { type: "mcp_approval_response", approval_request_id: "mcpr_1", approve: true },
        {
          type: "mcp_call",
          id: "mcp_1",
          server_label: "deepwiki",
          name: "ask_question",
          arguments: "{}",
          output: "42",
        },
        { type: "item_reference", id: "msg_0000" },
      ],
    },
  },
  {
    name: "OpenAI's top-level fields: user, safety_identifier, conversation, prompt, service_tier scale, stream_options, store",
    body: {
      ...ok,
      user: "user-1234",
      safety_identifier: "hashed-user-1234",
      conversation: { id: "conv_123" },
      prompt: {
        id: "pmpt_123",
        version: "2",
        variables: { city: "Paris", photo: { type: "input_image", image_url: "https://example.com/a.png" } },
      },
      service_tier: "scale",
      stream: true,
      stream_options: { include_obfuscation: false },
      store: true,
      top_logprobs: 3,
      moderation: { model: "omni-moderation-latest" },
    },
  },
  { name: "conversation as an id", body: { ...ok, conversation: "conv_123" } },
  {
    name: "json_object text format",
    body: { ...ok, input: "Answer in JSON", text: { format: { type: "json_object" } } },
  },
  {
    name: "reasoning: effort none/xhigh/max, the deprecated generate_summary",
    body: { ...ok, reasoning: { effort: "max", generate_summary: "concise" } },
  },
  {
    name: "null where OpenAI allows it: store, stream, include, truncation, service_tier",
    body: { ...ok, store: null, stream: null, include: null, truncation: null, service_tier: null },
  },
  { name: "temperature and top_p at their bounds", body: { ...ok, temperature: 2, top_p: 0 } },
  {
    name: "tool_choice custom, shell, apply_patch",
    body: { ...ok, tools: [applyPatch, { type: "shell" }], tool_choice: { type: "custom", name: "apply_patch" } },
  },
  {
    name: "tool_choice: required with only hosted tools (answered with text)",
    body: { ...ok, tools: [{ type: "web_search" }], tool_choice: "required" },
  },
  {
    name: "tool_choice: allowed_tools naming hosted tools beside a function",
    body: {
      ...ok,
      tools: [shellCommand, { type: "web_search" }],
      tool_choice: {
        type: "allowed_tools",
        mode: "required",
        tools: [{ type: "function", name: "shell_command" }, { type: "web_search" }],
      },
    },
  },
];

/** The response of a 200, JSON or streamed. */
function answerOf(res: { status: number; headers: Headers; text: string }) {
  expect(res.status, res.text).toBe(200);
  if (res.headers.get("content-type")?.startsWith("text/event-stream"))
    return parseSseStrict(res.text).events.at(-1)!.response;
  return JSON.parse(res.text);
}

describe("accepted by default: what OpenAI accepts", () => {
  for (const c of accepted) {
    it(c.name, async () => {
      const response = answerOf(await postResponses(server(), c.body));
      expectValidResponse(response);
      expect(response.status).toBe("completed");
    });
  }

  it("echoes OpenAI's tools as sent, and calls none of them", async () => {
    const response = answerOf(
      await postResponses(server(), {
        ...CODEX_BODY,
        stream: false,
        input: "Search the web for lark grammars",
        parallel_tool_calls: true,
      }),
    );
    expect(response.tools).toEqual([
      shellCommand,
      applyPatch,
      { type: "web_search", external_web_access: true },
      toolSearch,
      githubNamespace,
      { type: "image_generation", output_format: "png" },
    ]);
    const types = response.output.map((i: { type: string }) => i.type);
    expect(types.every((t: string) => ["reasoning", "function_call", "message"].includes(t))).toBe(true);
    for (const item of response.output) if (item.type === "function_call") expect(item.name).toBe("shell_command");
  });

  it("echoes hosted, mcp and custom tool_choice as sent, json_object, and OpenAI's efforts", async () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [
        { tools: [{ type: "web_search_preview" }], tool_choice: { type: "web_search_preview" } },
        { type: "web_search_preview" },
      ],
      [
        {
          tools: [{ type: "mcp", server_label: "docs", connector_id: "connector_gmail" }],
          tool_choice: { type: "mcp", server_label: "docs", name: "search" },
        },
        { type: "mcp", server_label: "docs", name: "search" },
      ],
      [
        { tools: [applyPatch], tool_choice: { type: "custom", name: "apply_patch" } },
        { type: "custom", name: "apply_patch" },
      ],
    ];
    for (const [extra, echoed] of cases) {
      const response = answerOf(await postResponses(server(), { ...ok, ...extra }));
      expect(response.tool_choice).toEqual(echoed);
      expect(response.output.map((i: { type: string }) => i.type)).not.toContain("function_call");
    }
    const json = answerOf(
      await postResponses(server(), {
        ...ok,
        text: { format: { type: "json_object" } },
        reasoning: { effort: "minimal", generate_summary: "detailed" },
      }),
    );
    expect(json.text.format).toEqual({ type: "json_object" });
    expect(json.reasoning).toEqual({ effort: "minimal", summary: "detailed" });
  });
});

interface Refused {
  name: string;
  body: Record<string, unknown>;
  code: string;
  param: string;
  message?: RegExp;
  /** What strict mode answers instead, where it refuses the form itself before its shape. */
  strict?: { code: string; param: string; message?: RegExp };
}

const tool0 = { code: "invalid_value", param: "tools[0].type" };
const input0 = { code: "invalid_value", param: "input[0].type" };
const choice = { code: "invalid_value", param: "tool_choice.type" };
const unknownKey = (param: string) => ({ code: "unknown_parameter", param });

/** Refused in both modes: bad shapes of OpenAI's forms (which strict mode refuses as forms), and what OpenAI refuses. */
const refusedAlways: Refused[] = [
  { name: "temperature above 2", body: { ...ok, temperature: 2.5 }, code: "value_above_maximum", param: "temperature" },
  {
    name: "temperature below 0",
    body: { ...ok, temperature: -0.1 },
    code: "value_below_minimum",
    param: "temperature",
  },
  { name: "top_p above 1", body: { ...ok, top_p: 1.5 }, code: "value_above_maximum", param: "top_p" },
  {
    name: "an include value nobody has",
    body: { ...ok, include: ["reasoning.encrypted_content", "web_search_call.everything"] },
    code: "invalid_value",
    param: "include[1]",
    message: /web_search_call\.action\.sources/,
    strict: { code: "invalid_value", param: "include[1]", message: /'message\.output_text\.logprobs'\.$/ },
  },
  {
    name: "a tool type nobody has",
    body: { ...ok, tools: [shellCommand, { type: "web_browser" }] },
    code: "invalid_value",
    param: "tools[1].type",
    message: /'namespace'/,
    strict: { code: "invalid_value", param: "tools[1].type", message: /'function', or a vendor type/ },
  },
  {
    name: "a namespace without its description",
    body: { ...ok, tools: [{ type: "namespace", name: "crm", tools: [] }] },
    code: "missing_required_parameter",
    param: "tools[0].description",
    strict: tool0,
  },
  {
    name: "a namespace name with spaces",
    body: { ...ok, tools: [{ ...githubNamespace, name: "git hub" }] },
    code: "invalid_value",
    param: "tools[0].name",
    strict: tool0,
  },
  {
    name: "a namespace holding a tool of another type",
    body: { ...ok, tools: [{ ...githubNamespace, tools: [{ type: "web_search" }] }] },
    code: "invalid_value",
    param: "tools[0].tools[0].type",
    strict: tool0,
  },
  {
    name: "a namespaced function without a name",
    body: { ...ok, tools: [{ ...githubNamespace, tools: [{ type: "function" }] }] },
    code: "missing_required_parameter",
    param: "tools[0].tools[0].name",
    strict: tool0,
  },
  {
    name: "a custom tool grammar of an unknown syntax",
    body: { ...ok, tools: [{ ...applyPatch, format: { type: "grammar", syntax: "peg", definition: "x" } }] },
    code: "invalid_value",
    param: "tools[0].format.syntax",
    strict: tool0,
  },
  {
    name: "a custom tool without a name",
    body: { ...ok, tools: [{ type: "custom" }] },
    code: "missing_required_parameter",
    param: "tools[0].name",
    strict: tool0,
  },
  {
    name: "an MCP tool without server_label",
    body: { ...ok, tools: [{ type: "mcp", server_url: "https://x" }] },
    code: "missing_required_parameter",
    param: "tools[0].server_label",
    strict: tool0,
  },
  {
    name: "an MCP tool without server_url or connector_id",
    body: { ...ok, tools: [{ type: "mcp", server_label: "x" }] },
    code: "missing_required_parameter",
    param: "tools[0].server_url",
    message: /connector_id/,
    strict: tool0,
  },
  {
    name: "file_search without vector_store_ids",
    body: { ...ok, tools: [{ type: "file_search" }] },
    code: "missing_required_parameter",
    param: "tools[0].vector_store_ids",
    strict: tool0,
  },
  {
    name: "code_interpreter without a container",
    body: { ...ok, tools: [{ type: "code_interpreter" }] },
    code: "missing_required_parameter",
    param: "tools[0].container",
    strict: tool0,
  },
  {
    name: "computer_use_preview in an unknown environment",
    body: {
      ...ok,
      tools: [{ type: "computer_use_preview", display_width: 1, display_height: 1, environment: "amiga" }],
    },
    code: "invalid_value",
    param: "tools[0].environment",
    strict: tool0,
  },
  {
    name: "web_search with an unknown context size",
    body: { ...ok, tools: [{ type: "web_search", search_context_size: "huge" }] },
    code: "invalid_value",
    param: "tools[0].search_context_size",
    strict: tool0,
  },
  {
    name: "tool_choice mcp without server_label",
    body: { ...ok, tool_choice: { type: "mcp" } },
    code: "missing_required_parameter",
    param: "tool_choice.server_label",
    strict: choice,
  },
  {
    name: "tool_choice custom without a name",
    body: { ...ok, tool_choice: { type: "custom" } },
    code: "missing_required_parameter",
    param: "tool_choice.name",
    strict: choice,
  },
  {
    name: "allowed_tools naming an unknown tool type",
    body: { ...ok, tool_choice: { type: "allowed_tools", tools: [{ type: "web_browser" }] } },
    code: "invalid_value",
    param: "tool_choice.tools[0].type",
  },
  {
    name: "a custom_tool_call without call_id",
    body: { ...ok, input: [{ type: "custom_tool_call", name: "apply_patch", input: "x" }] },
    code: "missing_required_parameter",
    param: "input[0].call_id",
    strict: input0,
  },
  {
    name: "a custom_tool_call_output with a number as output",
    body: { ...ok, input: [{ type: "custom_tool_call_output", call_id: "c", output: 42 }] },
    code: "invalid_type",
    param: "input[0].output",
    strict: input0,
  },
  {
    name: "a web_search_call without id",
    body: { ...ok, input: [{ type: "web_search_call", status: "completed" }] },
    code: "missing_required_parameter",
    param: "input[0].id",
    strict: input0,
  },
  {
    name: "an mcp_approval_response without approve",
    body: { ...ok, input: [{ type: "mcp_approval_response", approval_request_id: "mcpr_1" }] },
    code: "missing_required_parameter",
    param: "input[0].approve",
    strict: input0,
  },
  {
    name: "an input item type nobody has",
    body: { ...ok, input: [{ type: "web_browse_call", id: "x" }] },
    code: "invalid_value",
    param: "input[0].type",
    strict: input0,
  },
  {
    name: "a reasoning effort nobody has",
    body: { ...ok, reasoning: { effort: "extreme" } },
    code: "invalid_value",
    param: "reasoning.effort",
  },
  {
    name: "prompt_cache_retention of an unknown length",
    body: { ...ok, prompt_cache_retention: "1h" },
    code: "invalid_value",
    param: "prompt_cache_retention",
    strict: unknownKey("prompt_cache_retention"),
  },
  {
    name: "conversation as a number",
    body: { ...ok, conversation: 42 },
    code: "invalid_type",
    param: "conversation",
    strict: unknownKey("conversation"),
  },
  {
    name: "prompt without its id",
    body: { ...ok, prompt: { version: "1" } },
    code: "missing_required_parameter",
    param: "prompt.id",
    strict: unknownKey("prompt"),
  },
  {
    name: "user as a number",
    body: { ...ok, user: 42 },
    code: "invalid_type",
    param: "user",
    strict: unknownKey("user"),
  },
];

/** Refused only in strict mode: everything outside openapi.json, named. */
const refusedStrict: Refused[] = [
  {
    name: "user (unknown top-level key)",
    body: { ...ok, user: "user-1234" },
    code: "unknown_parameter",
    param: "user",
    message: /Unknown parameter: 'user'/,
  },
  { name: "conversation", body: { ...ok, conversation: "conv_123" }, code: "unknown_parameter", param: "conversation" },
  {
    name: "prompt_cache_retention",
    body: { ...ok, prompt_cache_retention: "24h" },
    code: "unknown_parameter",
    param: "prompt_cache_retention",
  },
  {
    name: "a key nobody has",
    body: { ...ok, some_vendor_field: { x: 1 } },
    code: "unknown_parameter",
    param: "some_vendor_field",
  },
  {
    name: "a web_search tool",
    body: { ...ok, tools: [shellCommand, { type: "web_search" }] },
    code: "invalid_value",
    param: "tools[1].type",
  },
  { name: "Codex CLI's namespace tool", body: CODEX_BODY, code: "invalid_value", param: "tools[1].type" },
  {
    name: "a namespace tool",
    body: { ...ok, tools: [githubNamespace] },
    code: "invalid_value",
    param: "tools[0].type",
  },
  {
    name: "a tool_choice naming a hosted tool",
    body: { ...ok, tool_choice: { type: "web_search_preview" } },
    code: "invalid_value",
    param: "tool_choice.type",
  },
  {
    name: "OpenAI's include values",
    body: { ...ok, include: ["web_search_call.action.sources"] },
    code: "invalid_value",
    param: "include[0]",
  },
  {
    name: "a hosted-tool call in input",
    body: { ...ok, input: [{ type: "web_search_call", id: "ws_1", status: "completed" }] },
    code: "invalid_value",
    param: "input[0].type",
  },
  {
    name: "a custom tool output in input",
    body: { ...ok, input: [{ type: "custom_tool_call_output", call_id: "c", output: "x" }] },
    code: "invalid_value",
    param: "input[0].type",
  },
  {
    name: "reasoning effort minimal",
    body: { ...ok, reasoning: { effort: "minimal" } },
    code: "invalid_value",
    param: "reasoning.effort",
  },
  {
    name: "text.format json_object",
    body: { ...ok, text: { format: { type: "json_object" } } },
    code: "invalid_value",
    param: "text.format.type",
  },
  { name: "service_tier scale", body: { ...ok, service_tier: "scale" }, code: "invalid_value", param: "service_tier" },
  { name: "store: null", body: { ...ok, store: null }, code: "invalid_type", param: "store" },
];

async function expectRefused(res: { status: number; text: string }, c: Refused) {
  expect(res.status, res.text).toBe(400);
  const body = JSON.parse(res.text);
  expectErrorBody(body);
  expect(body.error).toMatchObject({ type: "invalid_request", code: c.code, param: c.param });
  if (c.message) expect(body.error.message).toMatch(c.message);
}

describe("refused in both modes", () => {
  for (const c of refusedAlways) {
    it(c.name, async () => {
      await expectRefused(await postResponses(server(), c.body), c);
      await expectRefused(await postResponses(server(), c.body, STRICT), {
        ...c,
        ...(c.strict && { message: undefined, ...c.strict }),
      });
    });
  }
});

describe("refused with x-mock-strict: 1 and with strict: true, accepted otherwise", () => {
  for (const c of refusedStrict) {
    it(c.name, async () => {
      await expectRefused(await postResponses(server(), c.body, STRICT), c);
      await expectRefused(await postResponses(strictServer(), c.body), c);
      expect((await postResponses(server(), c.body)).status).toBe(200);
      expect((await postResponses(strictServer(), c.body, { "x-mock-strict": "0" })).status).toBe(200);
    });
  }

  it("still accepts the spec's vendor types (slug:name) for tools and items", async () => {
    const body = {
      ...ok,
      tools: [{ type: "acme:doc_search", index: "docs" }],
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "acme:note", text: "kept" },
      ],
    };
    const response = answerOf(await postResponses(server(), body, STRICT));
    expect(response.tools).toEqual([{ type: "acme:doc_search", index: "docs" }]);
  });

  it("accepts every spec field", async () => {
    const body = {
      ...ok,
      instructions: "Be brief.",
      include: ["reasoning.encrypted_content", "message.output_text.logprobs"],
      tools: [shellCommand],
      tool_choice: { type: "allowed_tools", tools: [{ type: "function", name: "shell_command" }], mode: "auto" },
      parallel_tool_calls: true,
      max_output_tokens: 256,
      max_tool_calls: 2,
      temperature: 0.7,
      top_p: 0.9,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 2,
      text: { format: { type: "text" }, verbosity: "high" },
      reasoning: { effort: "xhigh", summary: "concise" },
      truncation: "disabled",
      store: true,
      stream: false,
      background: false,
      service_tier: "flex",
      metadata: { run: "1" },
      safety_identifier: "s",
      prompt_cache_key: "k",
    };
    answerOf(await postResponses(server(), body, STRICT));
  });

  it("takes 1, true, 0 and false in x-mock-strict, and refuses anything else naming the header", async () => {
    const user = { ...ok, user: "u" };
    expect((await postResponses(server(), user, { "x-mock-strict": "true" })).status).toBe(400);
    expect((await postResponses(server(), user, { "x-mock-strict": "false" })).status).toBe(200);
    expect((await postResponses(strictServer(), user, { "x-mock-strict": "FALSE" })).status).toBe(200);
    const res = await postResponses(server(), ok, { "x-mock-strict": "yes" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ code: "invalid_header", param: "x-mock-strict" });
  });

  it("applies to the input token count and compaction routes too", async () => {
    for (const path of ["/responses/input_tokens", "/responses/compact"]) {
      const send = (headers: Record<string, string>) =>
        fetch(`${server().baseURL}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({
            ...ok,
            input: [
              { type: "message", role: "user", content: "hi" },
              { type: "custom_tool_call_output", call_id: "c", output: "x" },
            ],
          }),
        });
      expect((await send({})).status, path).toBe(200);
      const res = await send(STRICT);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        code: "invalid_value",
        param: "input[1].type",
      });
    }
  });
});
