/**
 * Reading a conversation with OpenAI's item types in it: hosted-tool and
 * client-run calls are the model's side of a turn like function calls; a
 * custom tool's output is a tool output like a function's.
 */
import { describe, expect, it } from "vitest";
import { assistantTurns, callsById, isModelItem, trailingToolOutputs } from "../../src/scenario/conversation.js";
import { ItemParam } from "../../src/spec/index.js";

const items = (...values: unknown[]) => values.map((v) => ItemParam.parse(v));
const user = (text: string) => ({ type: "message", role: "user", content: text });
const assistant = (text: string) => ({ type: "message", role: "assistant", content: text });

describe("assistantTurns", () => {
  it("counts a run of hosted-tool calls, reasoning and an answer as one turn", () => {
    const conversation = items(
      user("Search the web"),
      { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "thinking" }] },
      { type: "web_search_call", id: "ws_1", status: "completed" },
      { type: "mcp_list_tools", id: "mcpl_1", server_label: "docs", tools: [] },
      { type: "mcp_call", id: "mcp_1", server_label: "docs", name: "search", arguments: "{}" },
      { type: "tool_search_call", call_id: "ts_1", execution: "server", arguments: {} },
      { type: "tool_search_output", call_id: "ts_1", execution: "server", tools: [] },
      assistant("Found it."),
    );
    expect(assistantTurns(conversation)).toBe(1);
  });

  it("splits turns at the client's tool outputs, of every kind", () => {
    const conversation = items(
      user("Fix it"),
      { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", call_id: "c1", output: "ok" },
      { type: "shell_call", call_id: "s1", action: { commands: ["ls"] } },
      { type: "shell_call_output", call_id: "s1", output: [] },
      { type: "computer_call", call_id: "cu1", action: { type: "screenshot" } },
      { type: "computer_call_output", call_id: "cu1", output: { type: "computer_screenshot" } },
      { type: "mcp_approval_request", id: "r1", server_label: "docs", name: "delete", arguments: "{}" },
      { type: "mcp_approval_response", approval_request_id: "r1", approve: false },
      { type: "tool_search_call", call_id: "ts1", execution: "client", arguments: {} },
      { type: "tool_search_output", call_id: "ts1", execution: "client", tools: [] },
      assistant("Done."),
    );
    expect(assistantTurns(conversation)).toBe(6);
  });

  it("tells the model's items from the client's", () => {
    const [call, output, vendor, reference] = items(
      { type: "apply_patch_call", call_id: "a", status: "completed", operation: { type: "delete_file", path: "x" } },
      { type: "apply_patch_call_output", call_id: "a", status: "completed" },
      { type: "acme:note", text: "x" },
      { type: "item_reference", id: "msg_1" },
    );
    expect([call, output, vendor, reference].map(isModelItem)).toEqual([true, false, false, false]);
  });
});

describe("tool outputs", () => {
  it("treats a trailing custom_tool_call_output like a function_call_output, naming its call", () => {
    const conversation = items(
      user("Patch and run"),
      { type: "custom_tool_call", call_id: "c1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "function_call", call_id: "f1", name: "run_tests", arguments: "{}", namespace: "ci" },
      { type: "custom_tool_call_output", call_id: "c1", output: "patched" },
      { type: "function_call_output", call_id: "f1", output: "12 passed" },
    );
    expect(trailingToolOutputs(conversation).map((o) => o.call_id)).toEqual(["c1", "f1"]);
    expect(callsById(conversation).get("c1")).toEqual({ name: "apply_patch", arguments: "*** Begin Patch" });
    expect(callsById(conversation).get("f1")?.name).toBe("run_tests");
  });

  it("keeps a function call's namespace and the items OpenAI sends whole", () => {
    const [call, search] = items(
      { type: "function_call", call_id: "f1", name: "get_issue", arguments: "{}", namespace: "mcp__github__" },
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: { type: "search", query: "q", sources: [{ type: "url", url: "https://x" }] },
      },
    );
    expect(call).toMatchObject({ namespace: "mcp__github__" });
    expect(search).toEqual({
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "q", sources: [{ type: "url", url: "https://x" }] },
    });
  });
});
