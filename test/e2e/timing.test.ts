/**
 * Timing and faults end to end, with small real delays: heartbeats while
 * waiting and between slow events, drop after N events, client aborts that
 * leave nothing behind, and real clients reading paced streams.
 */
import { request as httpRequest } from "node:http";
import { createOpenResponses } from "@ai-sdk/open-responses";
import { streamText } from "ai";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { expectConformantStream, expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { startMockServer } from "../../src/server.js";
import { postResponses, rawPost, useServer } from "../support/server.js";

const server = useServer({ seed: 3 });
const body = { model: "mock-model-1", input: "Tell me something.", stream: true };

const rawStream = (headers: Record<string, string>, payload: object = body) => rawPost(server(), payload, headers);

describe("heartbeats", () => {
  it("arrive while waiting for the first event and between slow events, as SSE comments", async () => {
    const res = await postResponses(server(), body, {
      "x-mock-latency-ms": "300",
      "x-mock-chunk-ms": "5",
      "x-mock-heartbeat-ms": "60",
    });
    expect(res.status).toBe(200);
    const before = res.text.slice(0, res.text.indexOf("event: "));
    expect(before.match(/^: keep-alive\n\n/gm)?.length).toBeGreaterThanOrEqual(3);
    const parsed = parseSseStrict(res.text);
    expect(parsed.comments.length).toBeGreaterThanOrEqual(3);
    expect(res.text.endsWith("data: [DONE]\n\n")).toBe(true); // none after [DONE]
    expectConformantStream(parsed.events);
  });

  it("do not disturb the openai SDK's stream accumulator", async () => {
    const client = new OpenAI({
      baseURL: server().baseURL,
      apiKey: "x",
      maxRetries: 0,
      defaultHeaders: { "x-mock-chunk-ms": "30", "x-mock-heartbeat-ms": "10", "x-mock-latency-ms": "40" },
    });
    const final = await client.responses.stream({ model: "mock-model-1", input: "slow please" }).finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toContain("slow please");
  });

  it("do not disturb @ai-sdk/open-responses", async () => {
    const provider = createOpenResponses({
      name: "mock",
      url: `${server().baseURL}/responses`,
      headers: { "x-mock-chunk-ms": "20", "x-mock-heartbeat-ms": "7", "x-mock-latency-ms": "30" },
    });
    const result = streamText({ model: provider("mock-model-1"), prompt: "slow please" });
    let text = "";
    for await (const chunk of result.textStream) text += chunk;
    expect(text).toContain("slow please");
    expect(await result.finishReason).toBe("stop");
  });
});

describe("faults", () => {
  it("drop-after-events: the client sees exactly N events and no [DONE]", async () => {
    const res = await rawStream({ "x-mock-fault": "drop-after-events=5", "x-mock-chunk-ms": "2" });
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    const parsed = parseSseStrict(res.text, { requireDone: false });
    expect(parsed.events.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4]);
    expect(parsed.done).toBe(false);
  });

  it("drop-after-ms cuts the stream after the events due before it", async () => {
    const res = await rawStream({ "x-mock-fault": "drop-after-ms=100", "x-mock-chunk-ms": "40" });
    const parsed = parseSseStrict(res.text, { requireDone: false });
    expect(parsed.done).toBe(false);
    expect(parsed.events.length).toBe(3); // at 0, 40 and 80 ms
  });

  it("a stall holds the stream, then it completes", async () => {
    const res = await postResponses(server(), body, {
      "x-mock-fault": "stall-after-events=2; stall-ms=150",
      "x-mock-heartbeat-ms": "40",
    });
    const parsed = parseSseStrict(res.text);
    expectConformantStream(parsed.events);
  });

  it("drop after N applies to non-streamed requests too: no body at all", async () => {
    await expect(
      postResponses(server(), { ...body, stream: false }, { "x-mock-fault": "drop-after-events=3" }),
    ).rejects.toThrow();
  });

  it("rejects bad timing and fault headers with a 400 naming the header", async () => {
    for (const [header, value] of [
      ["x-mock-latency-ms", "soon"],
      ["x-mock-chunk-ms", "-5"],
      ["x-mock-heartbeat-ms", "1e3"],
      ["x-mock-tokens-per-second", "0"],
      ["x-mock-fault", "explode=1"],
      ["x-mock-fault", "stall-ms=100"],
    ]) {
      const res = await postResponses(server(), body, { [header]: value });
      expect(res.status, `${header}: ${value}`).toBe(400);
      const err = JSON.parse(res.text);
      expectErrorBody(err);
      expect(err.error).toMatchObject({ code: "invalid_header", param: header });
    }
  });
});

describe("scenario timing", () => {
  const scripted = useServer({
    library: false,
    heartbeatMs: 0,
    scenarios: [
      {
        name: "slow-tool",
        description: "Thinks, pauses before the tool call, with its own heartbeat.",
        timing: { heartbeatMs: 30, chunkMs: 1 },
        turns: [
          {
            steps: [
              { type: "message", text: "Let me check." },
              { type: "function_call", name: "lookup", arguments: { q: "x" }, delayMs: 150 },
            ],
          },
        ],
      },
      {
        name: "dropping",
        description: "Drops the connection after 4 events.",
        fault: { dropAfterEvents: 4 },
        turns: [{ steps: [{ type: "message", text: "never finished" }] }],
      },
    ],
  });

  it("a scenario's timing and a step's delay apply: heartbeats fill the pause before the tool call", async () => {
    const res = await postResponses(scripted(), body, { "x-mock-scenario": "slow-tool" });
    const text = res.text;
    const pause = text.slice(
      text.indexOf("event: response.output_item.done"),
      text.lastIndexOf("event: response.output_item.added"),
    );
    expect(pause.split(": keep-alive").length - 1).toBeGreaterThanOrEqual(3);
    expectConformantStream(parseSseStrict(text).events);
  });

  it("a request header overrides the scenario's timing", async () => {
    const res = await postResponses(scripted(), body, { "x-mock-scenario": "slow-tool", "x-mock-heartbeat-ms": "0" });
    expect(res.text).not.toContain(": keep-alive");
  });

  it("a scenario's fault applies", async () => {
    const res = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        new URL(`${scripted().baseURL}/responses`),
        { method: "POST", headers: { "content-type": "application/json", "x-mock-scenario": "dropping" } },
        (r) => {
          let t = "";
          r.on("data", (d) => (t += d));
          r.on("end", () => resolve(t));
          r.on("aborted", () => resolve(t));
          r.on("error", () => resolve(t));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });
    const parsed = parseSseStrict(res, { requireDone: false });
    expect(parsed.events).toHaveLength(4);
    expect(parsed.done).toBe(false);
  });
});

describe("backpressure and shutdown", () => {
  // 16 MB of text in 1 kB deltas: far more than the socket buffers hold.
  const local = useServer({
    seed: 9,
    library: false,
    scenarios: [
      {
        name: "huge",
        description: "A 16 MB answer.",
        turns: [
          {
            steps: [{ type: "message", text: "lorem ipsum ".repeat((16 * 1024 * 1024) / 12), chunk: { chars: 1024 } }],
          },
        ],
      },
    ],
  });

  it("a slow reader does not make the server buffer the whole stream", async () => {
    const responses: import("node:http").ServerResponse[] = [];
    local().server.on("request", (_req, res) => responses.push(res));
    const huge = { model: "m", input: "x", stream: true };
    const socketDone = new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        new URL(`${local().baseURL}/responses`),
        { method: "POST", headers: { "content-type": "application/json", "x-mock-scenario": "huge" } },
        (res) => {
          res.pause(); // read nothing for a while
          setTimeout(() => {
            const served = responses.at(-1)!;
            // The pacer waits for drain: what sits in Node's buffer stays near one high-water mark.
            expect(served.writableLength).toBeLessThan(256 * 1024);
            expect(served.writableEnded).toBe(false);
            let n = 0;
            res.on("data", (d) => (n += d.length));
            res.on("end", () => resolve(n));
            res.resume();
          }, 300);
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(huge));
    });
    expect(await socketDone).toBeGreaterThan(5 * 16 * 1024 * 1024); // deltas, done, part, item and final snapshot
  });

  it("close() ends open streams promptly", async () => {
    const mock = await startMockServer({ port: 0 });
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-mock-fault": "hang-after-events=3",
        "x-mock-heartbeat-ms": "20",
      },
      body: JSON.stringify(body),
    });
    const reader = res.body!.getReader();
    await reader.read();
    await mock.close(); // would hang (and time the test out) if an open stream held it
    // The client sees its stream end (cleanly or with an error) instead of hanging on its heartbeats.
    const readToEnd = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return "ended";
      } catch {
        return "cut";
      }
    })();
    const hung = new Promise<string>((r) => setTimeout(() => r("still open after 5 s"), 5_000).unref());
    expect(await Promise.race([readToEnd, hung])).not.toBe("still open after 5 s");
  });
});

describe("a client that goes away", () => {
  const own = useServer({ seed: 3 });
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const connections = () => new Promise<number>((resolve) => own().server.getConnections((_e, n) => resolve(n)));

  it("stops its stream at once and leaves no timer or socket behind", async () => {
    const before = timers();
    const got = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        new URL(`${own().baseURL}/responses`),
        {
          method: "POST",
          agent: false,
          headers: {
            "content-type": "application/json",
            "x-mock-chunk-ms": "50",
            "x-mock-heartbeat-ms": "20",
            "x-mock-fault": "hang-after-events=4",
          },
        },
        (res) => {
          res.once("data", (d) => {
            req.destroy();
            resolve(String(d));
          });
        },
      );
      req.on("error", () => {});
      req.end(JSON.stringify(body));
      setTimeout(() => reject(new Error("no data")), 5_000).unref();
    });
    expect(got).toContain("response.created");
    for (let i = 0; i < 50 && ((await connections()) > 0 || timers() > before); i++)
      await new Promise((r) => setImmediate(r));
    expect(await connections()).toBe(0);
    expect(timers()).toBeLessThanOrEqual(before);
    // The server saw the client leave mid-stream (a count of timers at the first byte raced with other timers ending).
    for (let i = 0; i < 50 && own().requests.at(-1)?.outcome == null; i++) await new Promise((r) => setImmediate(r));
    const entry = own().requests.at(-1);
    expect(entry).toMatchObject({ outcome: "aborted", streamed: true });
    expect(entry!.events).toBeGreaterThan(0); // "aborted", not "hung": it left before the fault's 4 events
  });
});
