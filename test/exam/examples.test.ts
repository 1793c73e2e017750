/**
 * The example clients of examples/exam/, run as a user runs them (`node FILE`, with
 * OPENAI_BASE_URL and OPENAI_API_KEY set) against a real server, without the exam: the
 * cases that tell the good client from each broken one, in both dialects.
 */
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import type { TurnInput } from "../../src/server.js";
import { runProcess } from "../support/run.js";
import { useServer } from "../support/server.js";

const example = (name: string) => fileURLToPath(new URL(`../../examples/exam/${name}`, import.meta.url));
const GOOD = example("good-client.mjs");
const NO_RETRY = example("no-retry-client.mjs");
const DROPS_CALL_ID = example("drops-call-id-client.mjs");
const STRICT_EVENTS = example("strict-events-client.mjs");
const TRUSTS_CUT_STREAM = example("trusts-cut-stream-client.mjs");

const text = (t: string): TurnInput => ({ steps: [{ type: "message", text: t }] });

describe.each(["open-responses", "openai"] as const)("the example clients, %s dialect", (dialect) => {
  const server = useServer({ dialect });
  beforeEach(() => server().reset());

  /** Runs one example client to its end with the prompt in OPENRESPONSES_MOCK_PROMPT. */
  const run = (file: string) =>
    runProcess(process.execPath, [file], {
      env: {
        ...process.env,
        OPENAI_BASE_URL: server().baseURL,
        OPENAI_API_KEY: "sk-test",
        OPENRESPONSES_MOCK_PROMPT: "What is the weather in Paris?",
      },
    });

  it("a tool loop: the good client sends the call's call_id back, with the reasoning; drops-call-id does not", async () => {
    const loop: TurnInput[] = [
      {
        steps: [
          { type: "reasoning", encrypted_content: "ENC-1" },
          { type: "function_call", name: "get_weather", arguments: { city: "Paris" }, call_id: "call_1" },
          { type: "function_call", name: "get_weather", arguments: { city: "Lyon" }, call_id: "call_2" },
        ],
      },
      text("Sunny in both."),
    ];
    server().enqueue(...loop);
    const good = await run(GOOD);
    expect(good).toMatchObject({ code: 0, stdout: "Sunny in both.\n" });
    const [first, second] = server().requests.map((r) => r.body as Record<string, any>);
    expect(first).toMatchObject({ store: false, stream: true, include: ["reasoning.encrypted_content"] });
    expect(first!.tools.map((t: { name: string }) => t.name)).toEqual(["get_weather"]);
    const types = second!.input.map((i: { type?: string; role?: string }) => i.type ?? i.role);
    expect(types).toEqual([
      "user",
      "reasoning",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
    ]);
    expect(second!.input[1]).toMatchObject({ type: "reasoning", encrypted_content: "ENC-1" });
    const outputs = second!.input.filter((i: { type?: string }) => i.type === "function_call_output");
    expect(outputs.map((o: { call_id: string }) => o.call_id)).toEqual(["call_1", "call_2"]);
    expect(JSON.parse(outputs[1].output)).toMatchObject({ city: "Lyon" });

    server().reset();
    server().enqueue(...loop);
    const drops = await run(DROPS_CALL_ID);
    expect(drops.code).toBe(0);
    const replayed = (server().requests[1]!.body as { input: { type?: string; call_id?: string }[] }).input;
    const sent = replayed.filter((i) => i.type === "function_call_output").map((o) => o.call_id);
    expect(sent).toHaveLength(2);
    for (const id of sent) expect(id).toMatch(/^fc_/); // the items' ids, not their call_ids
  });

  it("a dropped stream: the good client retries and prints the retry's text; trusts-cut-stream prints the cut text; no-retry exits 1", async () => {
    const dropped: TurnInput = {
      steps: [{ type: "message", text: "One two three four five six seven eight.", chunk: { tokens: 1 } }],
      fault: { dropAfterEvents: 7 },
    };
    server().enqueue(dropped, text("The whole answer."));
    const good = await run(GOOD);
    expect(good).toMatchObject({ code: 0, stdout: "The whole answer.\n" });
    expect(good.stderr).toContain("retrying");
    expect(server().requests.map((r) => r.outcome)).toEqual(["dropped", "completed"]);

    server().reset();
    server().enqueue(dropped, text("The whole answer."));
    const trusts = await run(TRUSTS_CUT_STREAM);
    // created, in_progress, output_item.added, content_part.added, then three deltas: cut.
    expect(trusts).toMatchObject({ code: 0, stdout: "One two three\n", stderr: "" });
    expect(server().requests).toHaveLength(1);

    server().reset();
    server().enqueue(dropped, text("The whole answer."));
    const noRetry = await run(NO_RETRY);
    expect(noRetry).toMatchObject({ code: 1, stdout: "" });
    expect(noRetry.stderr).toMatch(/^error: the stream ended before its last event/);
    expect(server().requests).toHaveLength(1);
  });

  it("a vendor event: the good client reads past it; strict-events exits 1 naming it", async () => {
    const vendor: TurnInput = {
      steps: [
        { type: "vendor_event", event: { type: "acme:progress", percent: 50 } },
        { type: "message", text: "Done." },
      ],
    };
    server().enqueue(vendor);
    expect(await run(GOOD)).toMatchObject({ code: 0, stdout: "Done.\n", stderr: "" });
    server().enqueue(vendor);
    const strict = await run(STRICT_EVENTS);
    expect(strict).toMatchObject({ code: 1, stdout: "", stderr: 'error: unknown stream event "acme:progress"\n' });
  });

  it("a 500: the good client retries (the SDK's retry); no-retry exits 1 with the server's message", async () => {
    const error500: TurnInput = {
      steps: [],
      end: {
        type: "http_error",
        status: 500,
        headers: { "retry-after-ms": "10" },
        error: { message: "Kaput-500 here" },
      },
    };
    server().enqueue(error500, text("After the 500."));
    expect(await run(GOOD)).toMatchObject({ code: 0, stdout: "After the 500.\n" });
    expect(server().requests.map((r) => r.status)).toEqual([500, 200]);
    server().reset();
    server().enqueue(error500, text("After the 500."));
    expect(await run(NO_RETRY)).toMatchObject({ code: 1, stdout: "", stderr: "error: 500 Kaput-500 here\n" });
  });

  it("the good client: a 400's message on stderr and no retry; a failed stream's message; a refusal's text; an incomplete answer", async () => {
    server().use(
      {
        name: "bad-request",
        turns: [
          {
            steps: [],
            end: { type: "http_error", status: 400, error: { message: "Zebra-7 is not a model", param: null } },
          },
        ],
      },
      { times: 3 },
    );
    const bad = await run(GOOD);
    expect(bad).toMatchObject({ code: 1, stdout: "", stderr: "error: 400 Zebra-7 is not a model\n" });
    expect(server().requests).toHaveLength(1);

    server().reset();
    server().enqueue({
      steps: [{ type: "message", text: "One two three four five.", chunk: { tokens: 1 } }],
      end: {
        type: "failed",
        afterEvents: 6,
        error: { type: "server_error", code: "server_error", message: "Backend fell over" },
      },
    });
    expect(await run(GOOD)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "error: the stream failed: Backend fell over\n",
    });

    server().enqueue({ steps: [{ type: "message", refusal: "I can't help with that." }] });
    expect(await run(GOOD)).toMatchObject({
      code: 0,
      stdout: "I can't help with that.\n",
      stderr: "note: the model refused\n",
    });

    server().enqueue({
      steps: [{ type: "message", text: "Half an ans" }],
      end: { type: "incomplete", reason: "max_output_tokens" },
    });
    expect(await run(GOOD)).toMatchObject({
      code: 0,
      stdout: "Half an ans\n",
      stderr: "note: the answer was cut short (max_output_tokens)\n",
    });
  });
});
