/**
 * `GET /__mock/requests/stream`: the backlog, then each request as it
 * arrives and as it ends, then clears — read with a strict SSE reader from a
 * real server on port 0 — and the admin guard of every inspector route. The
 * stream's shell on a bare node:http server: a subscriber that goes away, or
 * reads too slowly, leaves no listener behind and never holds the journal up.
 */
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import OpenAI from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Journal } from "../../src/journal/journal.js";
import { KEEP_ALIVE_MS, MAX_BUFFERED_BYTES, streamJournal } from "../../src/inspector/journal-stream.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { ManualClock, fixedClock, systemClock } from "../../src/timing/clock.js";
import { TEST_NOW_MS } from "../support/server.js";

/** An error answer's body. */
type ErrorBody = { error: { type: string; code: string | null; param: string | null; message: string } };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const mock = await startMockServer({ port: 0, seed: 2, clock: fixedClock(TEST_NOW_MS), log: "off", ...options });
  closers.push(() => mock.close());
  return mock;
}

interface Frame {
  event: string | null;
  data: string | null;
  comment: string | null;
}

/**
 * A strict SSE reader over a fetch body: `\n` line endings only, a message
 * is one `event:` line and exactly one `data:` line, comments stand alone.
 */
class SseReader {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  private readonly frames: Frame[] = [];
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next frame (a message or a comment), waiting for it. */
  async next(): Promise<Frame> {
    while (this.frames.length === 0) {
      const { value, done } = await this.reader.read();
      if (done) throw new Error("the stream ended");
      this.buffer += this.decoder.decode(value, { stream: true });
      if (this.buffer.includes("\r")) throw new Error("\\r in the stream");
      let end: number;
      while ((end = this.buffer.indexOf("\n\n")) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        this.frames.push(parseBlock(block));
      }
    }
    return this.frames.shift()!;
  }

  /** The next message, skipping comments. */
  async message(): Promise<{ event: string; data: unknown }> {
    for (;;) {
      const f = await this.next();
      if (f.comment === null) return { event: f.event!, data: JSON.parse(f.data!) };
    }
  }
}

function parseBlock(block: string): Frame {
  const lines = block.split("\n");
  if (lines.length === 1 && lines[0].startsWith(":")) return { event: null, data: null, comment: lines[0] };
  if (lines.length !== 2 || !lines[0].startsWith("event: ") || !lines[1].startsWith("data: "))
    throw new Error(`not one event line and one data line: ${block.slice(0, 200)}`);
  return { event: lines[0].slice(7), data: lines[1].slice(6), comment: null };
}

async function subscribe(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  closers.push(async () => controller.abort());
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return { reader: new SseReader(res.body!.getReader()), abort: () => controller.abort() };
}

type Entry = { seq: number; outcome: string | null; session: string | null; model: string | null; path: string };

describe("GET /__mock/requests/stream", () => {
  it("sends the backlog (newest N, oldest first), then each request as it arrives and ends, then clears", async () => {
    const mock = await start();
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "unused" });
    for (const input of ["one", "two", "three"]) await client.responses.create({ model: "gpt-test", input });
    const { reader } = await subscribe(`${mock.url}/__mock/requests/stream?backlog=2`);
    const backlog = [await reader.message(), await reader.message()];
    expect(backlog.map((m) => m.event)).toEqual(["entry", "entry"]);
    expect(backlog.map((m) => (m.data as Entry).seq)).toEqual([1, 2]);
    // The same serializer as GET /__mock/requests/{seq}.
    expect(backlog[1].data).toEqual(await (await fetch(`${mock.url}/__mock/requests/2`)).json());
    expect((backlog[0].data as Entry).model).toBe("gpt-test");

    const stream = await client.responses.create({ model: "gpt-test", input: "four", stream: true });
    for await (const _ of stream) void _;
    const arrived = await reader.message();
    expect(arrived.event).toBe("entry");
    expect(arrived.data).toMatchObject({ seq: 3, outcome: null, path: "/v1/responses" });
    const endedMsg = await reader.message();
    expect(endedMsg.data).toMatchObject({ seq: 3, outcome: "completed", streamed: true, model: "gpt-test" });
    expect(endedMsg.data).toEqual(await (await fetch(`${mock.url}/__mock/requests/3`)).json());

    expect((await fetch(`${mock.url}/__mock/requests`, { method: "DELETE" })).status).toBe(204);
    expect(await reader.message()).toEqual({ event: "clear", data: { session: null } });
    // Admin requests are not journaled, the stream's own included.
    expect(mock.requests).toHaveLength(0);
  });

  it("with ?session=S, only that session's entries and clears", async () => {
    const mock = await start();
    const { reader } = await subscribe(`${mock.url}/__mock/requests/stream?session=a&backlog=0`);
    const post = (session: string) =>
      fetch(`${mock.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mock-session": session },
        body: JSON.stringify({ model: "m", input: session }),
      }).then((r) => r.text());
    await post("b");
    await post("a");
    const first = await reader.message();
    expect(first.data).toMatchObject({ session: "a", outcome: null });
    expect(await reader.message()).toMatchObject({ data: { session: "a", outcome: "completed" } });
    await fetch(`${mock.url}/__mock/requests?session=b`, { method: "DELETE" });
    await fetch(`${mock.url}/__mock/reset`, { method: "POST", headers: { "x-mock-session": "a" } });
    expect(await reader.message()).toEqual({ event: "clear", data: { session: "a" } });
  });

  it("answers HEAD with the headers alone, holding nothing open", async () => {
    const mock = await start();
    const res = await fetch(`${mock.url}/__mock/requests/stream`, {
      method: "HEAD",
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe("");
  });

  it("refuses a bad backlog with an error object naming it", async () => {
    const mock = await start();
    for (const value of ["1001", "-1", "x"]) {
      const res = await fetch(`${mock.url}/__mock/requests/stream?backlog=${value}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as ErrorBody).error).toMatchObject({ type: "invalid_request", param: "backlog" });
    }
  });
});

describe("the inspector routes are admin routes", () => {
  const routes = [
    "/requests/stream",
    "/requests/0/answer",
    "/requests/0/check",
    "/requests/0/scenario",
    "/requests/0/curl",
  ];

  it("behind --api-key: 401 without the key, answered with it", async () => {
    const mock = await start({ apiKey: "sk-inspect" });
    await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-inspect" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    }).then((r) => r.text());
    for (const route of routes) {
      const denied = await fetch(`${mock.url}/__mock${route}`);
      expect(denied.status, route).toBe(401);
      expect(((await denied.json()) as ErrorBody).error).toMatchObject({ code: "invalid_api_key" });
      const controller = new AbortController();
      const allowed = await fetch(`${mock.url}/__mock${route}`, {
        headers: { authorization: "Bearer sk-inspect" },
        signal: controller.signal,
      });
      expect(allowed.status, route).toBe(200);
      controller.abort();
    }
  });

  it("off with --no-admin: 404", async () => {
    const mock = await start({ admin: false });
    await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    }).then((r) => r.text());
    for (const route of routes) {
      const res = await fetch(`${mock.url}/__mock${route}`);
      expect(res.status, route).toBe(404);
      expect(((await res.json()) as ErrorBody).error.message).toMatch(/--no-admin/);
    }
  });
});

/** The stream's shell on a bare server over `journal`. */
async function bareServer(
  journal: Journal,
  clock: ManualClock | typeof systemClock = systemClock,
): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => streamJournal(res, { journal, clock, backlog: 100 }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/`, server };
}

const request = (journal: Journal, body: string) => {
  const entry = journal.open({ at: 0, session: null, method: "POST", path: "/v1/responses", query: {}, headers: {} });
  journal.setBody(entry, body, null);
  entry.status = 200;
  journal.end(entry, 1);
};

describe("a subscriber", () => {
  it("that goes away leaves no listener behind", async () => {
    const journal = new Journal();
    const { url } = await bareServer(journal);
    expect(journal.listenerCount).toBe(0);
    const sub = await subscribe(url);
    expect((await sub.reader.next()).comment).toBe(": keep-alive");
    expect(journal.listenerCount).toBe(3);
    request(journal, '{"model":"m"}');
    expect((await sub.reader.message()).data).toMatchObject({ seq: 0 });
    sub.abort();
    await vi.waitFor(() => expect(journal.listenerCount).toBe(0));
  });

  it("that reads nothing is dropped once too much waits for it, and the journal never waits", async () => {
    const journal = new Journal();
    const { url } = await bareServer(journal);
    const { port } = new URL(url);
    // A client that asks and never reads: the server's writes pile up.
    const socket = connect(Number(port), "127.0.0.1");
    closers.push(async () => void socket.destroy());
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    socket.pause();
    await vi.waitFor(() => expect(journal.listenerCount).toBe(3));
    const body = `{"text":"${"y".repeat(1024 * 1024)}"}`;
    // Each entry's frame is about 2 MB (the raw body, and the body parsed): more than the bound within a few dozen.
    const rounds = Math.ceil((4 * MAX_BUFFERED_BYTES) / body.length);
    for (let i = 0; i < rounds; i++) request(journal, body);
    expect(journal.received).toBe(rounds);
    await vi.waitFor(() => expect(journal.listenerCount).toBe(0));
  });

  it("gets a keep-alive comment every 15 s", async () => {
    const journal = new Journal();
    const clock = new ManualClock(0);
    const { url } = await bareServer(journal, clock);
    const sub = await subscribe(url);
    expect((await sub.reader.next()).comment).toBe(": keep-alive"); // nothing held: one at once
    await vi.waitFor(() => expect(clock.pending).toBe(1));
    await clock.advance(KEEP_ALIVE_MS);
    expect((await sub.reader.next()).comment).toBe(": keep-alive");
    sub.abort();
    await vi.waitFor(() => expect(clock.pending).toBe(0));
  });
});
