/**
 * Runs in parallel with the other file in test/shared/ against ONE shared
 * server (test/global-setup.ts). Each file scripts its own answers over HTTP
 * in its own session; without the x-mock-session header the two files would
 * take each other's queued answers and see each other's requests.
 */
import OpenAI from "openai";
import { describe, expect, inject, it } from "vitest";

const baseURL = inject("sharedBaseURL");
const session = "shared-alpha";
const headers = { "x-mock-session": session, "content-type": "application/json" };
const admin = new URL("/__mock/", baseURL);

describe("a shared server, session alpha", () => {
  it("gets exactly its own queued answers and journal", async () => {
    const turns = Array.from({ length: 20 }, (_, i) => ({ steps: [{ type: "message", text: "alpha answer " + i }] }));
    const queued = await fetch(new URL("queue", admin), { method: "POST", headers, body: JSON.stringify({ turns }) });
    expect(queued.status).toBe(201);
    const client = new OpenAI({ baseURL, apiKey: "x", maxRetries: 0, defaultHeaders: { "x-mock-session": session } });
    for (let i = 0; i < 20; i++) {
      const res = await client.responses.create({ model: "m", input: "alpha question " + i });
      expect(res.output_text).toBe("alpha answer " + i);
      await new Promise((r) => setTimeout(r, 2)); // interleave with the other file
    }
    const journal = (await (await fetch(new URL("requests", admin), { headers })).json()) as {
      data: { session: string; body: { input: string } }[];
    };
    expect(journal.data).toHaveLength(20);
    expect(
      journal.data.every(
        (e: { session: string; body: { input: string } }) =>
          e.session === session && e.body.input.startsWith("alpha question"),
      ),
    ).toBe(true);
  });
});
