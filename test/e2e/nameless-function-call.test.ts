/**
 * A scripted `function_call` step without `name` calls the request's first
 * function tool, with arguments synthesized from its schema; a request that
 * offers none is a 400 `no_function_tool`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { useServer } from "../support/server.js";
import { expectConformantStream, expectErrorBody } from "../support/conformance.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { runCli } from "../support/run.js";

const server = useServer();
const client = () => new OpenAI({ baseURL: server().baseURL, apiKey: "test", maxRetries: 0 });

// A hosted tool first: the first *function* tool is get_time, the second in the list.
const [getWeather, getTime] = LIBRARY_TOOLS_NOT_STRICT;
const tools = [{ type: "web_search" as const }, getTime, getWeather];

describe("function_call without a name", () => {
  it("calls the request's first function tool, arguments from its schema", async () => {
    server().enqueue({ steps: [{ type: "function_call" }] });
    const res = await client().responses.create({ model: "m", input: "What time is it in Lisbon?", tools });
    expect(res.output).toHaveLength(1);
    const call = res.output[0];
    expect(call.type).toBe("function_call");
    if (call.type !== "function_call") return;
    expect(call.name).toBe("get_time");
    const args = JSON.parse(call.arguments) as Record<string, unknown>;
    expect(Object.keys(args)).toEqual(["city"]);
    expect(typeof args.city).toBe("string");
  });

  it("scripted arguments are kept as they are", async () => {
    server().enqueue({ steps: [{ type: "function_call", arguments: { city: "Oslo" }, call_id: "call_x" }] });
    const stream = await client().responses.create({ model: "m", input: "time?", tools, stream: true });
    let done: OpenAI.Responses.ResponseOutputItem | undefined;
    for await (const event of stream) if (event.type === "response.output_item.done") done = event.item;
    expect(done).toMatchObject({
      type: "function_call",
      name: "get_time",
      arguments: '{"city":"Oslo"}',
      call_id: "call_x",
    });
  });

  it("several nameless steps are parallel calls to that tool", async () => {
    server().enqueue({ steps: [{ type: "function_call" }, { type: "function_call" }, { type: "function_call" }] });
    const res = await client().responses.create({ model: "m", input: "time in three cities", tools });
    const calls = res.output.filter((o) => o.type === "function_call");
    expect(calls.map((c) => c.name)).toEqual(["get_time", "get_time", "get_time"]);
    expect(new Set(calls.map((c) => c.call_id)).size).toBe(3);
    for (const c of calls) expect(Object.keys(JSON.parse(c.arguments) as object)).toEqual(["city"]);
  });

  it("a named step next to a nameless one keeps its name", async () => {
    server().enqueue({ steps: [{ type: "function_call", name: "get_weather" }, { type: "function_call" }] });
    const res = await client().responses.create({ model: "m", input: "weather and time", tools });
    expect(res.output.map((o) => (o.type === "function_call" ? o.name : o.type))).toEqual(["get_weather", "get_time"]);
  });

  it("a request that offers no function tool is a 400 no_function_tool, streamed or not", async () => {
    for (const [stream, offered] of [
      [false, undefined],
      [true, [{ type: "web_search" }]],
    ] as const) {
      server().enqueue({ steps: [{ type: "message", text: "first" }, { type: "function_call" }] });
      const res = await fetch(`${server().baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", input: "hi", stream, ...(offered ? { tools: offered } : {}) }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = (await res.json()) as { error: { type: string; code: string; param: string; message: string } };
      expectErrorBody(body);
      expect(body.error).toMatchObject({ type: "invalid_request", code: "no_function_tool", param: "tools" });
      expect(body.error.message).toMatch(
        /^Step 1 of turn 0 of scenario 'queued-\d+' is a function_call that names no tool/,
      );
      expect(body.error.message).toContain("offers none");
    }
    const last = server().requests.at(-1)!;
    expect([last.status, last.errorCode]).toEqual([400, "no_function_tool"]);
  });

  it("the openai SDK sees the 400", async () => {
    server().enqueue({ steps: [{ type: "function_call" }] });
    await expect(client().responses.create({ model: "m", input: "hi" })).rejects.toMatchObject({
      status: 400,
      code: "no_function_tool",
      param: "tools",
    });
  });

  it("streams a conformant call", async () => {
    server().enqueue({ steps: [{ type: "function_call" }] });
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "time?", tools, stream: true }),
    });
    const { events } = parseSseStrict(await res.text(), { requireDone: false });
    const done = expectConformantStream(events);
    expect(done.output.map((o) => (o.type === "function_call" ? o.name : o.type))).toEqual(["get_time"]);
  });
});

describe("validate", () => {
  const dir = mkdtempSync(join(tmpdir(), "nameless-call-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("accepts a function_call step without a name", async () => {
    const file = join(dir, "call-first-tool.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "call-first-tool",
        turns: [{ steps: [{ type: "function_call" }] }, { steps: [{ type: "message", text: "done" }] }],
      }),
    );
    const run = await runCli(["validate", file]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("ok ");
    expect(run.stdout).toContain("(call-first-tool)");
    expect(run.code).toBe(0);
  });
});
