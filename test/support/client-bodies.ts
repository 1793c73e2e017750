/** Request bodies as real clients send them (Codex CLI's tools), shared by the input-policy tests. */

export const shellCommand = {
  type: "function",
  name: "shell_command",
  description: "Runs a shell command and returns its output.",
  strict: false,
  parameters: {
    type: "object",
    properties: { command: { type: "string" }, workdir: { type: "string" } },
    required: ["command"],
    additionalProperties: false,
  },
};
export const applyPatch = {
  type: "custom",
  name: "apply_patch",
  description: "Use the `apply_patch` tool to edit files.",
  format: {
    type: "grammar",
    syntax: "lark",
    definition: 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\n',
  },
};
export const githubNamespace = {
  type: "namespace",
  name: "mcp__github__",
  description: "Tools in the mcp__github__ namespace.",
  tools: [
    {
      type: "function",
      name: "get_issue",
      description: "Get an issue",
      strict: false,
      parameters: { type: "object", properties: { number: { type: "number" } } },
    },
  ],
};
export const toolSearch = {
  type: "tool_search",
  execution: "client",
  description: "Search app tools",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "Tool search query" } },
    required: ["query"],
    additionalProperties: false,
  },
};

/** A first turn as Codex CLI sends it (its tools[4] is the namespace its users got a 400 for). */
export const CODEX_BODY = {
  model: "gpt-5-codex",
  instructions: "You are Codex, a coding agent.",
  input: [
    {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions instructions>workspace-write</permissions instructions>" }],
    },
    {
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "<environment_context><cwd>/repo</cwd></environment_context>" }],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "Why does the parser test fail?" }] },
  ],
  tools: [
    shellCommand,
    applyPatch,
    { type: "web_search", external_web_access: true },
    toolSearch,
    githubNamespace,
    { type: "image_generation", output_format: "png" },
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "0199a5f6-4b1e-7c32-9d0e-5f6a7b8c9d0e",
  text: { verbosity: "low" },
};
