/** The request journal, per-test controls (use, enqueue, reset), sessions, and their admin routes. */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ScenarioError, startMockServer } from "../../src/index.js";
import { expectConformantStream, expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { postResponses, useServer } from "../support/server.js";

const server = useServer({ apiKey: "sk-test-1234567890" });
const auth = { authorization: "Bearer sk-test-1234567890" };
const client = (headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: server().baseURL, apiKey: "sk-test-1234567890", maxRetries: 0, defaultHeaders: headers });

describe("the journal", () => {
  it("records each request: body raw and parsed, masked auth, scenario and why, response id, status, streaming", async () => {
    server().reset();
    const res = await client().responses.create({ model: "m", input: "Journal me." });
    await client({ "x-mock-scenario": "text" }).responses.stream({ model: "m", input: "And stream." }).finalResponse();
    await postResponses(server(), { model: "m" }, auth);
    const [a, b, c] = server().requests;
    expect(a).toMatchObject({
      method: "POST",
      path: "/v1/responses",
      body: { model: "m", input: "Journal me." },
      scenario: "auto",
      reason: "default",
      responseId: res.id,
      status: 200,
      streamed: false,
      session: null,
    });
    expect(JSON.parse(a.rawBody!)).toEqual(a.body);
    expect(a.headers.authorization).toBe("Bearer ***7890");
    expect(b).toMatchObject({ scenario: "text", reason: "header", streamed: true, status: 200 });
    expect(c).toMatchObject({ status: 400, scenario: null, responseId: null });
    expect(server().requests.map((e) => e.seq)).toEqual([a.seq, a.seq + 1, a.seq + 2]);
  });

  it("is readable and clearable over HTTP, which needs the API key when one is set", async () => {
    server().reset();
    await client().responses.create({ model: "m", input: "over http" });
    const denied = await fetch(`${server().url}/__mock/requests`);
    expect(denied.status).toBe(401);
    expectErrorBody(await denied.json());
    const list = (await (await fetch(`${server().url}/__mock/requests`, { headers: auth })).json()) as {
      data: { body: { input: string } }[];
    };
    expect(list.data.map((e: { body: { input: string } }) => e.body.input)).toEqual(["over http"]);
    expect((await fetch(`${server().url}/__mock/requests`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect(server().requests).toEqual([]);
  });
});

describe("use and enqueue", () => {
  it("enqueue answers the next requests in order, then the usual rules apply", async () => {
    server().reset();
    server().enqueue(
      { steps: [{ type: "function_call", name: "get_weather", arguments: { city: "Paris" }, call_id: "call_1" }] },
      { steps: [{ type: "message", text: "It is sunny in Paris." }] },
    );
    const first = await client().responses.create({ model: "m", input: "Weather in Paris?" });
    expect(first.output[0]).toMatchObject({
      type: "function_call",
      name: "get_weather",
      call_id: "call_1",
      arguments: '{"city":"Paris"}',
    });
    const second = await client().responses.create({
      model: "m",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_1", output: "sunny" }],
    });
    expect(second.output_text).toBe("It is sunny in Paris.");
    const third = await client().responses.create({ model: "m", input: "And now?" });
    expect(third.output_text).toContain("And now?"); // auto again
    expect(server().requests.map((r) => r.reason)).toEqual(["queue", "queue", "default"]);
  });

  it("use answers every request, or the next N, and validates the scenario like a file", async () => {
    server().reset();
    server().use(
      { name: "always", description: "x", turns: [{ steps: [{ type: "message", text: "Always this." }] }] },
      { times: 2 },
    );
    const texts = [];
    for (let i = 0; i < 3; i++)
      texts.push((await client().responses.create({ model: "m", input: `q${i}` })).output_text);
    expect(texts.slice(0, 2)).toEqual(["Always this.", "Always this."]);
    expect(texts[2]).toContain("q2");
    expect(() =>
      server().use({ name: "bad", description: "x", turns: [{ steps: [{ type: "mesage" }] }] } as never),
    ).toThrow(ScenarioError);
    expect(() => server().enqueue({ steps: [{ type: "message" }] } as never)).toThrow(
      /enqueue\(\): \$\[0\]\.steps\[0\]/,
    );
  });

  it("the same controls over HTTP: POST /__mock/scenarios and /__mock/queue, POST /__mock/reset", async () => {
    server().reset();
    const h = { ...auth, "content-type": "application/json" };
    const used = await fetch(`${server().url}/__mock/scenarios`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({
        scenario: { name: "http-use", description: "x", turns: [{ steps: [{ type: "message", text: "From HTTP." }] }] },
        times: 1,
      }),
    });
    expect(used.status).toBe(201);
    const queued = await fetch(`${server().url}/__mock/queue`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ turns: [{ steps: [{ type: "message", text: "Queued first." }] }] }),
    });
    expect(await queued.json()).toEqual({ pending: 1 });
    expect((await client().responses.create({ model: "m", input: "1" })).output_text).toBe("Queued first.");
    expect((await client().responses.create({ model: "m", input: "2" })).output_text).toBe("From HTTP.");
    const bad = await fetch(`${server().url}/__mock/queue`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ turns: [{ steps: [{ type: "nope" }] }] }),
    });
    expect(bad.status).toBe(400);
    const err = await bad.json();
    expectErrorBody(err);
    expect(err.error.code).toBe("invalid_scenario");
    await fetch(`${server().url}/__mock/queue`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ turns: [{ steps: [{ type: "message", text: "never" }] }] }),
    });
    expect((await fetch(`${server().url}/__mock/reset`, { method: "POST", headers: h })).status).toBe(204);
    expect((await client().responses.create({ model: "m", input: "after reset" })).output_text).not.toBe("never");
  });

  it("a queued turn streams conformantly too", async () => {
    server().reset();
    server().enqueue({
      steps: [
        { type: "reasoning", summary: ["Thinking."] },
        { type: "message", text: "Streamed from the queue." },
      ],
    });
    const res = await postResponses(server(), { model: "m", input: "x", stream: true }, auth);
    const folded = expectConformantStream(parseSseStrict(res.text).events);
    expect(folded.output.map((o) => o.type)).toEqual(["reasoning", "message"]);
  });
});

describe("sessions", () => {
  it("scope queued answers and the journal: interleaved sessions each get their own (without the header they would swap)", async () => {
    server().reset();
    const a = server().session("suite-a");
    const b = server().session("suite-b");
    a.enqueue({ steps: [{ type: "message", text: "A1" }] }, { steps: [{ type: "message", text: "A2" }] });
    b.enqueue({ steps: [{ type: "message", text: "B1" }] }, { steps: [{ type: "message", text: "B2" }] });
    const ca = client(a.headers);
    const cb = client(b.headers);
    const got = [];
    got.push((await ca.responses.create({ model: "m", input: "a" })).output_text);
    got.push((await cb.responses.create({ model: "m", input: "b" })).output_text);
    got.push((await ca.responses.create({ model: "m", input: "a" })).output_text);
    got.push((await cb.responses.create({ model: "m", input: "b" })).output_text);
    expect(got).toEqual(["A1", "B1", "A2", "B2"]);
    expect(a.requests.map((r) => r.body)).toEqual([
      { model: "m", input: "a" },
      { model: "m", input: "a" },
    ]);
    expect(b.requests).toHaveLength(2);
    expect(server().requests).toHaveLength(4);
    a.reset();
    expect(a.requests).toEqual([]);
    expect(b.requests).toHaveLength(2);
  });

  it("the journal routes without a session act on every session; ?session=ID or the header scopes them (reads and clears alike)", async () => {
    server().reset();
    const list = async (query = "", headers: Record<string, string> = {}) =>
      (
        (await (
          await fetch(`${server().url}/__mock/requests${query}`, { headers: { ...auth, ...headers } })
        ).json()) as { data: { session: string | null }[] }
      ).data.map((e) => e.session);
    const send = (session?: string) =>
      postResponses(
        server(),
        { model: "m", input: "x" },
        { ...auth, ...(session ? { "x-mock-session": session } : {}) },
      );
    await send("scope-a");
    await send();
    await send("scope-b");
    expect(await list()).toEqual(["scope-a", null, "scope-b"]);
    expect(server().requests.map((e) => e.session)).toEqual(["scope-a", null, "scope-b"]);
    expect(await list("?session=scope-a")).toEqual(["scope-a"]);
    expect(await list("", { "x-mock-session": "scope-b" })).toEqual(["scope-b"]);
    expect(await list("?session=scope-a", { "x-mock-session": "scope-b" })).toEqual(["scope-a"]); // the query wins
    // A scoped clear, by query or header, forgets that session only.
    expect(
      (await fetch(`${server().url}/__mock/requests?session=scope-a`, { method: "DELETE", headers: auth })).status,
    ).toBe(204);
    expect(await list()).toEqual([null, "scope-b"]);
    expect(
      (
        await fetch(`${server().url}/__mock/reset`, {
          method: "POST",
          headers: { ...auth, "x-mock-session": "scope-b" },
        })
      ).status,
    ).toBe(204);
    expect(await list()).toEqual([null]);
    // Unscoped, DELETE /__mock/requests and POST /__mock/reset forget every session, like mock.reset().
    await send("scope-a");
    expect((await fetch(`${server().url}/__mock/requests`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect(await list()).toEqual([]);
    await send("scope-a");
    server()
      .session("scope-a")
      .enqueue({ steps: [{ type: "message", text: "queued for a" }] });
    expect((await fetch(`${server().url}/__mock/reset`, { method: "POST", headers: auth })).status).toBe(204);
    expect(await list()).toEqual([]);
    const after = await postResponses(server(), { model: "m", input: "x" }, { ...auth, "x-mock-session": "scope-a" });
    expect(JSON.parse(after.text).output_text ?? JSON.parse(after.text).output[0].content[0].text).not.toBe(
      "queued for a",
    );
  });

  it("POST /__mock/queue and /__mock/scenarios take the session from ?session=ID too", async () => {
    server().reset();
    const h = { ...auth, "content-type": "application/json" };
    await fetch(`${server().url}/__mock/queue?session=q-a`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ turns: [{ steps: [{ type: "message", text: "For a." }] }] }),
    });
    const other = await client().responses.create({ model: "m", input: "not a" });
    expect(other.output_text).not.toBe("For a.");
    expect((await client({ "x-mock-session": "q-a" }).responses.create({ model: "m", input: "a" })).output_text).toBe(
      "For a.",
    );
  });

  it("scope conversation state: another session cannot see or continue a stored response", async () => {
    const a = server().session();
    const first = await client(a.headers).responses.create({ model: "m", input: "mine" });
    expect(
      (await fetch(`${server().baseURL}/responses/${first.id}`, { headers: { ...auth, ...a.headers } })).status,
    ).toBe(200);
    expect((await fetch(`${server().baseURL}/responses/${first.id}`, { headers: auth })).status).toBe(404);
    const other = await postResponses(
      server(),
      { model: "m", input: "x", previous_response_id: first.id },
      { ...auth, "x-mock-session": "someone-else" },
    );
    expect(JSON.parse(other.text).error.code).toBe("previous_response_not_found");
  });

  it("rejects a malformed session header", async () => {
    const res = await postResponses(server(), { model: "m", input: "x" }, { ...auth, "x-mock-session": "has space" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ code: "invalid_header", param: "x-mock-session" });
  });
});

describe("lifecycle", () => {
  it("admin routes can be turned off", async () => {
    await using mock = await startMockServer({ port: 0, admin: false });
    expect((await fetch(`${mock.url}/__mock/requests`)).status).toBe(404);
    // The in-process journal still works.
    await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "x" }),
    });
    expect(mock.requests).toHaveLength(1);
  });

  it("many servers start in one process, each with its own journal", async () => {
    const servers = await Promise.all(Array.from({ length: 5 }, () => startMockServer({ port: 0 })));
    await Promise.all(
      servers.map((s, i) =>
        fetch(`${s.baseURL}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", input: `n${i}` }),
        }),
      ),
    );
    expect(servers.map((s) => (s.requests[0].body as { input: string }).input)).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    await Promise.all(servers.map((s) => s.close()));
  });
});
