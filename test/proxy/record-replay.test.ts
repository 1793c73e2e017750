/**
 * Record, then replay offline: the mock proxies to a second mock (the
 * upstream, which wants its own key), an unchanged `openai` SDK client runs
 * a two-turn tool loop through `proxy --record`, and `serve --scenarios DIR`
 * then answers the same client with the same items, text, arguments, call
 * ids and chunk boundaries — in both dialects, with the conversation carried
 * in the input and by previous_response_id — at its recorded pace, or at once
 * with `latencyMs: 0, chunkMs: 0`. No key reaches the journal or a recorded
 * file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenarios } from "../../src/scenario/load.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ManualClock, fixedClock } from "../../src/timing/clock.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

const UPSTREAM_KEY = "sk-upstream-Zq8WnB3vXk5Lr2Tj";
const CLIENT_KEY = "sk-client-Hd7Pm4Yc9Qf1Gs6E";
const TEST_NOW = 1_767_225_600_000;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Output = OpenAI.Responses.ResponseOutputItem;
/** What a turn said, without the ids that differ between servers: item types, text, calls (their call ids kept), status. */
const said = (output: Output[]) =>
  output.map((item) => {
    if (item.type === "message")
      return {
        type: "message",
        text: item.content.map((p) => (p.type === "output_text" ? p.text : p.refusal)).join(""),
        status: item.status,
      };
    if (item.type === "function_call")
      return {
        type: "function_call",
        name: item.name,
        arguments: item.arguments,
        call_id: item.call_id,
        status: item.status,
      };
    return { type: item.type };
  });

interface Turn {
  output: ReturnType<typeof said>;
  status: string;
  /** Text and argument deltas, in order, as the client saw them. */
  deltas: string[];
}

/** One streamed turn through the SDK's stream(): what it said and its deltas. */
async function streamTurn(
  client: OpenAI,
  body: OpenAI.Responses.ResponseCreateParamsStreaming,
): Promise<{ turn: Turn; response: OpenAI.Responses.Response }> {
  const stream = client.responses.stream(body);
  const deltas: string[] = [];
  stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
  stream.on("response.function_call_arguments.delta", (e) => deltas.push(e.delta));
  const response = await stream.finalResponse();
  return { turn: { output: said(response.output), status: response.status!, deltas }, response };
}

const QUESTION = "What's the weather in Paris and in Rome?";

/** The tool loop the client runs, unchanged against the proxy and the replay: the conversation in the input. */
async function loopByInput(client: OpenAI): Promise<Turn[]> {
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: QUESTION }];
  const first = await streamTurn(client, { model: "gpt-test", input, tools: LIBRARY_TOOLS_NOT_STRICT, stream: true });
  const calls = first.response.output.filter(
    (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call",
  );
  expect(calls.length).toBeGreaterThan(0);
  input.push(...(first.response.output as OpenAI.Responses.ResponseInputItem[]));
  for (const call of calls)
    input.push({
      type: "function_call_output",
      call_id: call.call_id,
      output: `Sunny in ${JSON.parse(call.arguments).city}`,
    });
  const second = await client.responses.create({ model: "gpt-test", input, tools: LIBRARY_TOOLS_NOT_STRICT });
  return [first.turn, { output: said(second.output), status: second.status!, deltas: [] }];
}

/** The same loop, the conversation carried by previous_response_id. */
async function loopByPrevious(client: OpenAI): Promise<Turn[]> {
  const first = await streamTurn(client, {
    model: "gpt-test",
    input: "What time is it in Tokyo?",
    tools: LIBRARY_TOOLS_NOT_STRICT,
    stream: true,
  });
  const calls = first.response.output.filter(
    (o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === "function_call",
  );
  expect(calls.length).toBeGreaterThan(0);
  const second = await streamTurn(client, {
    model: "gpt-test",
    previous_response_id: first.response.id,
    input: calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: "09:00" })),
    tools: LIBRARY_TOOLS_NOT_STRICT,
    stream: true,
  });
  return [first.turn, second.turn];
}

describe.each(["open-responses", "openai"] as const)(
  "proxy --record, then serve --scenarios (%s dialect)",
  (dialect) => {
    it("replays a recorded tool loop offline to the unchanged client: same items, text and chunks", async () => {
      const dir = mkdtempSync(join(tmpdir(), "orm-record-"));
      dirs.push(dir);
      // The upstream takes its time to answer, so that every recorded turn has a latency to replay.
      const upstream = await startMockServer({
        port: 0,
        seed: 11,
        dialect,
        apiKey: UPSTREAM_KEY,
        clock: fixedClock(TEST_NOW),
        latencyMs: 20,
      });
      let proxy: MockServer | undefined = await startMockServer({
        port: 0,
        dialect,
        apiKey: CLIENT_KEY,
        upstream: upstream.baseURL,
        upstreamKey: UPSTREAM_KEY,
        record: dir,
        clock: fixedClock(TEST_NOW),
      });
      let recorded: Turn[][];
      let journal: string;
      try {
        const client = new OpenAI({ baseURL: proxy.baseURL, apiKey: CLIENT_KEY, maxRetries: 0 });
        recorded = [await loopByInput(client), await loopByPrevious(client)];
        // The upstream saw its own key, never the client's.
        expect(upstream.requests.map((r) => r.headers.authorization)).toEqual(
          upstream.requests.map(() => `Bearer ***${UPSTREAM_KEY.slice(-4)}`),
        );
        const res = await fetch(`${proxy.url}/__mock/requests`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
        journal = await res.text();
        const entries = (
          JSON.parse(journal) as {
            data: {
              path: string;
              upstream: { api: string; status: number } | null;
              violations: unknown;
              outcome: string;
              streamed: boolean;
              events: number | null;
            }[];
          }
        ).data;
        expect(entries.length).toBe(4);
        for (const e of entries) {
          expect(e.upstream).toMatchObject({ api: "responses", status: 200 });
          // Said of a proxied answer as of a played one: the response's final status, the events passed on.
          expect(e.outcome).toBe("completed");
          if (e.streamed) expect(e.events).toBeGreaterThan(3);
          else expect(e.events).toBeNull();
          expect(e.violations).toEqual([]); // the default checker (check's) finds the upstream mock conformant
        }
      } finally {
        await proxy.close(); // and waits for the recordings
        await upstream.close();
        proxy = undefined;
      }
      for (const secret of [UPSTREAM_KEY, CLIENT_KEY]) expect(journal).not.toContain(secret);

      // One file per conversation, each valid for `validate`, with one turn per request of the loop, and no secret.
      const files = readdirSync(dir).sort();
      expect(files).toHaveLength(2);
      expect(files.every((f) => /^[a-z0-9-]+-[0-9a-f]{8}\.json$/.test(f))).toBe(true);
      const loaded = await loadScenarios([dir]);
      expect(loaded.map((l) => l.scenario.turns!.length)).toEqual([2, 2]);
      for (const f of files) {
        const text = readFileSync(join(dir, f), "utf8");
        for (const secret of [UPSTREAM_KEY, CLIENT_KEY]) expect(text).not.toContain(secret);
      }
      // Each turn's timing is marked as a recorded pace, which the replaying server's timing options override.
      for (const l of loaded) {
        for (const turn of l.scenario.turns!) {
          expect(turn.timing?.recorded).toBe(true);
          expect(turn.timing?.latencyMs).toBeGreaterThan(0);
        }
      }

      // Offline: no upstream, the recorded files only.
      const replay = await startMockServer({
        port: 0,
        dialect,
        apiKey: CLIENT_KEY,
        scenarios: dir,
        clock: fixedClock(TEST_NOW),
      });
      try {
        const client = new OpenAI({ baseURL: replay.baseURL, apiKey: CLIENT_KEY, maxRetries: 0 });
        const replayed = [await loopByInput(client), await loopByPrevious(client)];
        expect(replayed).toEqual(recorded!);
        expect(replay.requests.map((r) => r.reason)).toEqual(["match", "match", "match", "match"]);
      } finally {
        await replay.close();
      }

      // At once with latencyMs: 0 and chunkMs: 0: on a clock that never moves, any wait would hang the loop.
      const clock = new ManualClock(0);
      const instant = await startMockServer({
        port: 0,
        dialect,
        apiKey: CLIENT_KEY,
        scenarios: dir,
        clock: fixedClock(TEST_NOW),
        timers: clock,
        latencyMs: 0,
        chunkMs: 0,
      });
      try {
        const client = new OpenAI({ baseURL: instant.baseURL, apiKey: CLIENT_KEY, maxRetries: 0 });
        expect([await loopByInput(client), await loopByPrevious(client)]).toEqual(recorded!);
        expect(instant.requests.map((r) => r.durationMs)).toEqual([0, 0, 0, 0]);
        expect(clock.pending).toBe(0);
      } finally {
        await instant.close();
      }

      // Recording the same conversation again updates its file rather than adding one.
      const upstream2 = await startMockServer({ port: 0, seed: 11, dialect, clock: fixedClock(TEST_NOW) });
      const proxy2 = await startMockServer({ port: 0, dialect, upstream: upstream2.baseURL, record: dir });
      try {
        await loopByInput(new OpenAI({ baseURL: proxy2.baseURL, apiKey: "other", maxRetries: 0 }));
      } finally {
        await proxy2.close();
        await upstream2.close();
      }
      expect(readdirSync(dir).sort()).toEqual(files);
    });
  },
);
