/**
 * A Codex-like conversation against a real server: OpenAI's tools are
 * accepted and echoed, and hosted-tool and custom-tool items sent as input
 * round-trip through previous_response_id and GET …/input_items as sent.
 */
import { describe, expect, it } from "vitest";
import { expectValidResponse } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { postResponses, useServer } from "../support/server.js";
import { CODEX_BODY } from "../support/client-bodies.js";

const server = useServer();

const json = async (res: Response) => (await res.json()) as Record<string, any>;

describe("a Codex-like conversation with OpenAI's tools and items", () => {
  it("is answered, echoes the tools, and keeps hosted-tool items through previous_response_id and input_items", async () => {
    // Turn 1: Codex's tools (namespace, custom, web_search, tool_search, …), streamed as Codex asks, stored.
    const first = await postResponses(server(), { ...CODEX_BODY, store: true });
    expect(first.status, first.text).toBe(200);
    const firstResponse = parseSseStrict(first.text).events.at(-1)!.response;
    expectValidResponse(firstResponse);
    expect(firstResponse.tools.map((t: { type: string }) => t.type)).toEqual([
      "function",
      "custom",
      "web_search",
      "tool_search",
      "namespace",
      "image_generation",
    ]);
    expect(firstResponse.tools[4]).toEqual(CODEX_BODY.tools[4]);

    // Turn 2: what the client did meanwhile, with OpenAI's item types, continuing turn 1.
    const sent = [
      {
        type: "web_search_call",
        id: "ws_1",
        status: "completed",
        action: {
          type: "search",
          query: "lark grammar",
          sources: [{ type: "url", url: "https://lark-parser.readthedocs.io" }],
        },
      },
      {
        type: "function_call",
        call_id: "call_ns",
        name: "get_issue",
        namespace: "mcp__github__",
        arguments: '{"number":12}',
      },
      { type: "function_call_output", call_id: "call_ns", output: "Issue 12: trailing commas." },
      {
        type: "mcp_call",
        id: "mcp_1",
        server_label: "deepwiki",
        name: "ask_question",
        arguments: "{}",
        output: "42",
        status: "completed",
      },
      { type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
      { type: "custom_tool_call_output", call_id: "call_patch", output: "Patch applied to parser.py" },
    ];
    const second = await postResponses(server(), {
      ...CODEX_BODY,
      stream: false,
      store: true,
      previous_response_id: firstResponse.id,
      input: sent,
    });
    expect(second.status, second.text).toBe(200);
    const secondResponse: Record<string, any> = JSON.parse(second.text);
    expectValidResponse(JSON.parse(second.text));
    // The custom tool's output ends the input: auto answers with text about it, calling nothing.
    const message = secondResponse.output.find((i: { type: string }) => i.type === "message");
    expect(message.content[0].text).toContain("apply_patch returned");
    expect(secondResponse.output.some((i: { type: string }) => i.type === "function_call")).toBe(false);

    // The stored input items list them whole, in order, each with an id.
    const listed = await json(await fetch(`${server().baseURL}/responses/${secondResponse.id}/input_items?order=asc`));
    expect(listed.data).toHaveLength(sent.length);
    listed.data.forEach((item: Record<string, unknown>, i: number) => {
      expect(item).toMatchObject(sent[i]);
      expect(typeof item.id).toBe("string");
    });
    expect(listed.data[4].status).toBe("completed");

    // Turn 3 continues the chain: turn 2's items are part of the conversation it answers.
    const third = await postResponses(server(), {
      model: "mock-model-1",
      previous_response_id: secondResponse.id,
      input: "Thanks, what next?",
    });
    expect(third.status, third.text).toBe(200);
    const retrieved = await json(await fetch(`${server().baseURL}/responses/${JSON.parse(third.text).id}`));
    expect(retrieved.previous_response_id).toBe(secondResponse.id);
  });

  it("continues with strict requests too: strict mode reads the new body, not the stored chain", async () => {
    const first = await postResponses(server(), {
      model: "mock-model-1",
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "web_search_call", id: "ws_9", status: "completed" },
      ],
    });
    expect(first.status, first.text).toBe(200);
    const next = await postResponses(
      server(),
      { model: "mock-model-1", previous_response_id: JSON.parse(first.text).id, input: "and then?" },
      { "x-mock-strict": "1" },
    );
    expect(next.status, next.text).toBe(200);
  });
});
