/**
 * The round trip: `proxy --upstream-api chat` in front of our own
 * `/v1/chat/completions`. For every shipped scenario, the Responses stream
 * the proxy sends is conformant (src/check's stream checker), and says the
 * same text and makes the same calls as `/v1/responses` answers directly
 * for the same conversation (the one the chat request maps back to, so a
 * seeded-random scenario draws the same answer); not streamed, the same
 * output; an HTTP error scenario is an error of the same status.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkStream } from "../../src/check/stream.js";
import { readChatRequest } from "../../src/dialect/chat-request.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { TEST_NOW_MS } from "../support/server.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

type Json = Record<string, unknown>;

const DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));
const SCENARIOS = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.replace(/\.json$/, ""))
  .sort();

const REQUEST = {
  model: "gpt-4o",
  instructions: "Answer briefly.",
  input: "What is the weather in Paris right now?",
  tools: LIBRARY_TOOLS_NOT_STRICT,
};

/** The text, refusal and calls (name, arguments) of an output. */
function said(output: Json[]) {
  let text = "";
  let refusal = "";
  const calls: [string, string][] = [];
  for (const item of output) {
    if (item.type === "message")
      for (const part of item.content as Json[]) {
        if (part.type === "output_text") text += part.text as string;
        if (part.type === "refusal") refusal += part.refusal as string;
      }
    if (item.type === "function_call") calls.push([item.name as string, item.arguments as string]);
  }
  return { text, refusal, calls };
}

const post = (base: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${base}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("proxy --upstream-api chat in front of our own /v1/chat/completions", () => {
  let upstream: MockServer;
  let proxy: MockServer;
  beforeAll(async () => {
    // The proxy passes the client's key upstream, not x-mock-* headers: each scenario is played by a key's session.
    upstream = await startMockServer({ port: 0, clock: fixedClock(TEST_NOW_MS), sessionFromKey: true });
    for (const name of SCENARIOS)
      upstream.session(`sk-${name}`).use(JSON.parse(readFileSync(`${DIR}${name}.json`, "utf8")) as never);
    proxy = await startMockServer({ port: 0, upstream: upstream.baseURL, upstreamApi: "chat" });
  });
  afterAll(async () => {
    await Promise.all([proxy.close(), upstream.close()]);
  });

  /** What /v1/responses answers directly to the conversation the proxy's chat request maps back to (in its own session: fresh ids, the same draw). */
  async function direct(scenario: string): Promise<{ status: number; body: Json }> {
    const entry = upstream.requests.at(-1)!;
    expect(entry.path).toBe("/v1/chat/completions");
    expect(entry.scenario).toBe(scenario);
    const chatBody = entry.body as Json;
    const { body, maxTokens } = readChatRequest(chatBody);
    if (maxTokens !== null) body.max_output_tokens = maxTokens;
    const res = await post(upstream.baseURL, { ...body, stream: false }, { "x-mock-scenario": scenario });
    return { status: res.status, body: (await res.json()) as Json };
  }

  it.each(SCENARIOS)("%s: a conformant stream with the same text and calls as /v1/responses", async (scenario) => {
    const headers = { authorization: `Bearer sk-${scenario}` };
    const request = { ...REQUEST, stream: true };
    const res = await post(proxy.baseURL, request, headers);
    const text = await res.text();
    const { status, body } = await direct(scenario);
    if (status !== 200) {
      // An upstream HTTP error is the proxy's HTTP error, of the same status, before any stream.
      expect(res.status).toBe(status);
      expect(JSON.parse(text)).toEqual({ error: expect.objectContaining({ message: expect.any(String) }) });
      return;
    }
    expect(res.status).toBe(200);
    const verdict = checkStream(text, { request, status: res.status, contentType: res.headers.get("content-type") });
    expect(verdict.violations).toEqual([]);
    expect(verdict.ok).toBe(true);
    expect(verdict.done).toBe(true);
    const response = verdict.response!;
    // The same ending: completed, incomplete (for the same reason), or failed.
    expect(response.status).toBe(body.status);
    expect((response.incomplete_details as Json | null)?.reason).toBe((body.incomplete_details as Json | null)?.reason);
    const through = said(response.output as Json[]);
    const straight = said(body.output as Json[]);
    expect(through.text).toBe(straight.text);
    expect(through.refusal).toBe(straight.refusal);
    expect(through.calls).toEqual(straight.calls);
  });

  it.each(SCENARIOS.filter((s) => !s.startsWith("error-")))(
    "%s, not streamed: the same output as /v1/responses",
    async (scenario) => {
      const headers = { authorization: `Bearer sk-${scenario}` };
      const res = await post(proxy.baseURL, REQUEST, headers);
      const { body } = await direct(scenario);
      const json = (await res.json()) as Json;
      if (body.status === "failed") {
        // A failed chat completion is an upstream 500: the proxy answers it as an error.
        expect(res.status).toBeGreaterThanOrEqual(500);
        // The upstream's error reaches the client: the proxy names the upstream, then its message.
        expect((json.error as Json).message).toContain((body.error as Json).message as string);
        return;
      }
      expect(res.status).toBe(200);
      expect(json.status).toBe(body.status);
      expect(said(json.output as Json[])).toEqual(said(body.output as Json[]));
    },
  );
});
