/**
 * `sessionFromKey` (`--session-from-key`): a request without `x-mock-session`
 * takes its API key as its session, on every route and on WebSocket upgrades.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startMockServer, type MockServer } from "../../src/server.js";
import { startCliLine } from "../support/run.js";

const servers: MockServer[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const start = async (options: Parameters<typeof startMockServer>[0] = {}) => {
  const mock = await startMockServer({ port: 0, ...options });
  servers.push(mock);
  return mock;
};

const text = (t: string) => ({ steps: [{ type: "message" as const, text: t }] });

/** POSTs a request with `headers` and returns its status and parsed body. */
const post = async (baseURL: string, headers: Record<string, string>) => {
  const res = await fetch(`${baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", input: "hi" }),
  });
  return { status: res.status, body: (await res.json()) as { output_text?: string; output?: unknown[] } };
};

const outputText = (body: { output?: unknown[] }) =>
  (body.output as { content?: { text: string }[] }[])
    .flatMap((o) => o.content ?? [])
    .map((c) => c.text)
    .join("");

describe("sessionFromKey", () => {
  it("each API key is its own session: its queue, its journal", async () => {
    const mock = await start({ sessionFromKey: true });
    mock.session("key-alice").enqueue(text("for alice 1"), text("for alice 2"));
    mock.session("key-bob").enqueue(text("for bob"));
    mock.enqueue(text("for nobody"));
    const alice = new OpenAI({ baseURL: mock.baseURL, apiKey: "key-alice", maxRetries: 0 });
    const bob = new OpenAI({ baseURL: mock.baseURL, apiKey: "key-bob", maxRetries: 0 });
    const [a1, b1] = await Promise.all([
      alice.responses.create({ model: "m", input: "hi" }),
      bob.responses.create({ model: "m", input: "hi" }),
    ]);
    const a2 = await alice.responses.create({ model: "m", input: "again" });
    expect([a1.output_text, a2.output_text, b1.output_text]).toEqual(["for alice 1", "for alice 2", "for bob"]);
    expect(mock.session("key-alice").requests.map((r) => r.session)).toEqual(["key-alice", "key-alice"]);
    expect(mock.session("key-bob").requests.map((r) => r.reason)).toEqual(["queue"]);
    expect(mock.requests.map((r) => r.session).sort()).toEqual(["key-alice", "key-alice", "key-bob"]);
    // The key is masked where it is the authorization; the session header it became is shown.
    const entry = mock.session("key-bob").requests[0];
    expect(entry.headers["x-mock-session"]).toBe("key-bob");
    expect(entry.headers.authorization).not.toContain("key-bob");
    // The server's own queue was not touched.
    expect(outputText((await post(mock.baseURL, {})).body)).toBe("for nobody");
    // Stored responses are the session's: bob cannot read alice's.
    await expect(bob.responses.retrieve(a1.id)).rejects.toMatchObject({ status: 404 });
    expect((await alice.responses.retrieve(a1.id)).id).toBe(a1.id);
  });

  it("the admin routes act on the key's session", async () => {
    const mock = await start({ sessionFromKey: true });
    const auth = { authorization: "Bearer key-admin" };
    const queued = await fetch(`${mock.url}/__mock/queue`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ turns: [text("queued over HTTP")] }),
    });
    expect(queued.status).toBe(201);
    expect(outputText((await post(mock.baseURL, {})).body)).not.toBe("queued over HTTP");
    expect(outputText((await post(mock.baseURL, auth)).body)).toBe("queued over HTTP");
    const page = (await (await fetch(`${mock.url}/__mock/requests`, { headers: auth })).json()) as {
      data: { session: string | null }[];
    };
    expect(page.data.map((e) => e.session)).toEqual(["key-admin"]);
  });

  it("a WebSocket upgrade takes its key as its session", async () => {
    const mock = await start({ sessionFromKey: true });
    mock.session("key-ws").enqueue(text("over the socket"));
    const ws = new WebSocket(`${mock.baseURL.replace(/^http/, "ws")}/responses`, {
      headers: { authorization: "Bearer key-ws" },
    });
    await once(ws, "open");
    ws.send(JSON.stringify({ type: "response.create", model: "m", input: "hi" }));
    const done = await new Promise<{ response: { output: unknown[] } }>((resolve, reject) => {
      ws.on("message", (data) => {
        const event = JSON.parse(String(data)) as { type: string; response: { output: unknown[] } };
        if (event.type === "response.completed") resolve(event);
      });
      ws.once("error", reject);
    });
    ws.close();
    expect(outputText(done.response)).toBe("over the socket");
    expect(mock.session("key-ws").requests.map((r) => r.method)).toContain("WS");
  });

  it("an x-mock-session header wins; a key that is no session id leaves the request without one", async () => {
    const mock = await start({ sessionFromKey: true });
    mock.session("explicit").enqueue(text("explicit"));
    mock.enqueue(text("no session 1"), text("no session 2"));
    const withHeader = await post(mock.baseURL, { authorization: "Bearer key-x", "x-mock-session": "explicit" });
    expect(outputText(withHeader.body)).toBe("explicit");
    // Too long for a session id (over 200 characters), and not ASCII: no session, and no error.
    const long = await post(mock.baseURL, { authorization: `Bearer ${"k".repeat(201)}` });
    const accented = await post(mock.baseURL, { authorization: "Bearer cl\u00e9" });
    expect([long.status, accented.status]).toEqual([200, 200]);
    expect([outputText(long.body), outputText(accented.body)]).toEqual(["no session 1", "no session 2"]);
    expect(mock.requests.map((r) => r.session)).toEqual(["explicit", null, null]);
  });

  it("with apiKey the key must still match, and it is the session", async () => {
    const mock = await start({ sessionFromKey: true, apiKey: "the-key" });
    mock.session("the-key").enqueue(text("keyed"));
    expect((await post(mock.baseURL, { authorization: "Bearer wrong" })).status).toBe(401);
    const ok = await post(mock.baseURL, { authorization: "Bearer the-key" });
    expect(outputText(ok.body)).toBe("keyed");
    expect(mock.requests.map((r) => [r.status, r.session])).toEqual([
      [401, "wrong"],
      [200, "the-key"],
    ]);
  });

  it("off (the default), the key is no session", async () => {
    const mock = await start();
    mock.session("key-alice").enqueue(text("for alice"));
    mock.enqueue(text("for nobody"));
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "key-alice", maxRetries: 0 });
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).toBe("for nobody");
    expect(mock.requests.map((r) => [r.session, r.headers["x-mock-session"]])).toEqual([[null, undefined]]);
    expect(mock.session("key-alice").requests).toEqual([]);
  });
});

describe("serve --session-from-key", () => {
  it("a request's API key is its session", async () => {
    const { line } = await startCliLine(["serve", "--port", "0", "--log", "off", "--session-from-key"], children);
    const baseURL = /listening on (\S+)$/.exec(line)![1];
    const origin = baseURL.replace(/\/v1$/, "");
    await fetch(`${origin}/__mock/queue`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-session": "cli-key" },
      body: JSON.stringify({ turns: [text("for cli-key")] }),
    });
    const client = new OpenAI({ baseURL, apiKey: "cli-key", maxRetries: 0 });
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).toBe("for cli-key");
    const page = (await (await fetch(`${origin}/__mock/requests?session=cli-key`)).json()) as {
      data: { session: string | null; path: string }[];
    };
    expect(page.data.filter((e) => e.path === "/v1/responses").map((e) => e.session)).toEqual(["cli-key"]);
  });

  it("without the flag the key is no session", async () => {
    const { line } = await startCliLine(["serve", "--port", "0", "--log", "off"], children);
    const baseURL = /listening on (\S+)$/.exec(line)![1];
    const origin = baseURL.replace(/\/v1$/, "");
    await fetch(`${origin}/__mock/queue`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-session": "cli-key" },
      body: JSON.stringify({ turns: [text("for cli-key")] }),
    });
    const client = new OpenAI({ baseURL, apiKey: "cli-key", maxRetries: 0 });
    expect((await client.responses.create({ model: "m", input: "hi" })).output_text).not.toBe("for cli-key");
  });
});
