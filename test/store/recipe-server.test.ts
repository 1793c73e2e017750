/**
 * A stored response once its turn has let go of the plan (the store and the
 * journal keep its recipe: src/emit/recipe.ts), read through a real server:
 * for every shipped scenario, in both dialects, `GET /v1/responses/{id}` is
 * the response the stream ended with, `GET ?stream=true` replays the very
 * frames that were sent, a `previous_response_id` continuation reads its
 * output, and the inspector's view of the answer shows the frames sent.
 */
import { describe, expect, it } from "vitest";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { rawPost, useServer } from "../support/server.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

const LIBRARY = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario.name);
const NAMES = ["auto", ...LIBRARY].filter((n) => !/^error-\d{3}$/.test(n)).sort();
const DIALECTS = ["open-responses", "openai"] as const;

const server = useServer({ seed: 11 });

const frames = (text: string) => text.split("\n\n").filter((f) => f.startsWith("event: "));

describe("a stored answer read back after its plan was let go", () => {
  for (const name of NAMES)
    for (const dialect of DIALECTS)
      it(`${name} (${dialect}): GET, the replay and the inspector give what was sent`, async () => {
        const mock = server();
        const headers = { "x-mock-scenario": name, "x-mock-dialect": dialect };
        const body = {
          model: "mock-model-1",
          input: `What is the weather in Paris? (${name})`,
          stream: true,
          tools: LIBRARY_TOOLS_NOT_STRICT,
          reasoning: { effort: "medium", summary: "auto" },
        };
        const sent = await rawPost(mock, body, headers);
        if (sent.status !== 200) return; // a scenario that refuses this request has nothing stored
        const events = parseSseStrict(sent.text, { requireDone: dialect !== "openai" }).events as {
          type: string;
          response?: { id: string };
        }[];
        const terminal = events.findLast((e) => e.response !== undefined)!.response!;

        // The terminal event's response as it was sent, byte for byte (its key order, the dialect's floats).
        const last = frames(sent.text).findLast((f) => f.includes('"response":{'))!;
        const data = last.slice(last.indexOf("\ndata: ") + 7);
        const sentResponse = data.slice(data.indexOf('"response":') + '"response":'.length, -1);
        const got = await fetch(`${mock.baseURL}/responses/${terminal.id}`, { headers });
        expect(got.status).toBe(200);
        expect(await got.text()).toBe(sentResponse);

        const replay = await fetch(`${mock.baseURL}/responses/${terminal.id}?stream=true`, { headers });
        expect(replay.status).toBe(200);
        expect(frames(await replay.text())).toEqual(frames(sent.text));

        const entry = mock.requests.findLast((e) => e.responseId === terminal.id)!;
        const view = (await (await fetch(`${mock.url}/__mock/requests/${entry.seq}/answer`)).json()) as {
          response: unknown;
        };
        expect(JSON.stringify(view)).toContain(terminal.id);
        expect(view.response).toEqual(JSON.parse(JSON.stringify(terminal)));
      });

  it("a continuation reads the output of a response planned again", async () => {
    const mock = server();
    const first = await rawPost(mock, {
      model: "mock-model-1",
      input: "What is the weather in Paris?",
      tools: LIBRARY_TOOLS_NOT_STRICT,
    });
    const response = JSON.parse(first.text) as { id: string; output: { type: string; call_id?: string }[] };
    const call = response.output.find((o) => o.type === "function_call");
    expect(call, "auto calls the weather tool").toBeDefined();
    const next = await rawPost(mock, {
      model: "mock-model-1",
      previous_response_id: response.id,
      input: [{ type: "function_call_output", call_id: call!.call_id, output: '{"temp_c": 21}' }],
      tools: LIBRARY_TOOLS_NOT_STRICT,
    });
    expect(next.status).toBe(200);
    const items = (await (await fetch(`${mock.baseURL}/responses/${response.id}/input_items`)).json()) as {
      data: unknown[];
    };
    expect(items.data.length).toBeGreaterThan(0);
    // The continuation answers the tool's output with text, as it does when the call is its own conversation.
    expect((JSON.parse(next.text) as { output: { type: string }[] }).output.at(-1)!.type).toBe("message");
  });
});
