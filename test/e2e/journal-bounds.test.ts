/**
 * The journal's bounds and routes on a real server: big bodies kept truncated (HTTP and
 * WebSocket), the byte budget, memory given back when cleared, GET /__mock/requests paged,
 * GET /__mock/requests/{seq}, and bad query values as error objects.
 */
import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startMockServer, type MockServer } from "../../src/server.js";
import type { JournalEntry } from "../../src/journal/journal.js";
import { expectErrorBody } from "../support/conformance.js";
import { postResponses, useServer } from "../support/server.js";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const get = async (mock: MockServer, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${mock.url}${path}`, { headers });
  return { status: res.status, type: res.headers.get("content-type"), json: (await res.json()) as Json };
};

describe("big bodies", () => {
  // 64 KiB budget: bodies up to 4 KiB are kept whole, bigger ones truncated to their first 4 KiB.
  const server = useServer({ journalBytes: 64 * 1024 });

  it("are kept truncated: a prefix, no parsed body, the full length and SHA-256, in mock.requests and over HTTP", async () => {
    server().reset();
    const body = JSON.stringify({ model: "m", input: "é".repeat(5000) }); // 10,024 bytes of UTF-8
    const res = await postResponses(server(), body);
    expect(res.status).toBe(200);
    const small = { model: "m", input: "small" };
    await postResponses(server(), small);
    const [big, whole] = server().requests;
    expect(big).toMatchObject({
      truncated: true,
      body: null,
      bodyBytes: Buffer.byteLength(body),
      bodySha256: sha256(body),
      status: 200,
    });
    expect(Buffer.byteLength(big.rawBody!)).toBeLessThanOrEqual(4096);
    expect(body.startsWith(big.rawBody!)).toBe(true);
    expect(whole).toMatchObject({
      truncated: false,
      body: small,
      rawBody: JSON.stringify(small),
      bodySha256: null,
      bodyBytes: JSON.stringify(small).length,
    });
    const one = await get(server(), `/__mock/requests/${big.seq}`);
    expect(one.status).toBe(200);
    expect(one.type).toMatch(/^application\/json/);
    expect(one.json).toEqual(JSON.parse(JSON.stringify(big)));
  });

  it("a WebSocket turn is truncated the same way", async () => {
    server().reset();
    const ws = new WebSocket(`${server().url.replace(/^http/, "ws")}/v1/responses`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const message = JSON.stringify({ type: "response.create", model: "m", input: "w".repeat(10_000) });
    const done = new Promise<void>((resolve) =>
      ws.on("message", (d) => /"type":"response\.completed"/.test(d.toString()) && resolve()),
    );
    ws.send(message);
    await done;
    ws.close();
    const [turn] = server().requests;
    expect(turn).toMatchObject({
      method: "WS",
      status: 200,
      truncated: true,
      body: null,
      bodyBytes: message.length,
      bodySha256: sha256(message),
    });
    expect(message.startsWith(turn.rawBody!)).toBe(true);
  });
});

/** What the journal holds of the big requests (numbers only: no entry is kept alive by the test). */
function bigEntries(mock: MockServer, bytes: number) {
  const entries = mock.requests.filter((e) => e.bodyBytes === bytes);
  return {
    count: entries.length,
    bytes: entries.reduce(
      (n, e: JournalEntry) => n + (e.truncated ? (e.rawBody?.length ?? 0) : 2 * (e.bodyBytes ?? 0)),
      0,
    ),
    lastSeq: entries.at(-1)?.seq,
    truncated: entries.filter((e) => e.truncated).length,
  };
}

describe("the byte budget", () => {
  it(
    "bounds the journal under many ~1 MB requests, and the memory comes back when it is cleared",
    { timeout: 180_000 },
    async () => {
      setFlagsFromString("--expose-gc");
      const gc = runInNewContext("gc") as () => void;
      const heap = () => {
        gc();
        return process.memoryUsage().heapUsed;
      };
      const budget = 32 * 1024 * 1024;
      await using mock = await startMockServer({ port: 0, journalBytes: budget });
      const body = JSON.stringify({ model: "m", input: "x".repeat(1_048_000), store: false });
      await postResponses(mock, "{}"); // warm up the request path before measuring
      const before = heap();
      for (let round = 0; round < 50; round++) {
        await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            postResponses(mock, body, { "x-mock-seed": String(round * 4 + i + 1), "x-mock-scenario": "text" }).then(
              (r) => expect(r.status).toBe(200),
            ),
          ),
        );
      }
      const held = bigEntries(mock, body.length);
      // The journal's own estimate (raw text + parsed body) stays within the budget: ~16 of the 200 are kept, whole.
      expect(held.bytes).toBeLessThanOrEqual(budget);
      expect(held.count).toBeGreaterThanOrEqual(8);
      expect(held.count).toBeLessThan(200);
      expect(held.lastSeq).toBe(200);
      expect(held.truncated).toBe(0);
      // Generous: 200 MB of bodies went through; the budget is 32 MiB.
      expect(heap() - before).toBeLessThan(budget + 64 * 1024 * 1024);
      const cleared = await fetch(`${mock.url}/__mock/requests`, { method: "DELETE" });
      expect(cleared.status).toBe(204);
      expect(mock.requests).toEqual([]);
      expect(heap() - before).toBeLessThan(16 * 1024 * 1024);
    },
  );
});

describe("GET /__mock/requests", () => {
  const server = useServer();
  const page = (query: string, headers: Record<string, string> = {}) =>
    get(server(), `/__mock/requests${query}`, headers);
  const seqs = (json: { data: { seq: number }[] }) => json.data.map((e) => e.seq);

  it("pages: limit, after, order, first_seq, last_seq, has_more", async () => {
    server().reset();
    for (let i = 0; i < 5; i++) await postResponses(server(), { model: "m", input: `n${i}` });
    const s = server().requests.map((e) => e.seq);
    const all = await page("");
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ object: "list", first_seq: s[0], last_seq: s[4], has_more: false });
    expect(all.json.data.map((e: JournalEntry) => (e.body as { input: string }).input)).toEqual([
      "n0",
      "n1",
      "n2",
      "n3",
      "n4",
    ]);
    const first = await page("?limit=2");
    expect(seqs(first.json)).toEqual(s.slice(0, 2));
    expect(first.json).toMatchObject({ first_seq: s[0], last_seq: s[1], has_more: true });
    const second = await page(`?limit=2&after=${first.json.last_seq}`);
    expect(seqs(second.json)).toEqual(s.slice(2, 4));
    const last = await page(`?limit=2&after=${second.json.last_seq}`);
    expect(last.json).toMatchObject({ has_more: false, first_seq: s[4], last_seq: s[4] });
    const newest = await page("?order=desc&limit=3");
    expect(seqs(newest.json)).toEqual([s[4], s[3], s[2]]);
    expect(newest.json.has_more).toBe(true);
    expect(seqs((await page(`?order=desc&after=${s[2]}`)).json)).toEqual([s[1], s[0]]);
    expect((await page(`?after=${s[4]}`)).json).toEqual({
      object: "list",
      data: [],
      first_seq: null,
      last_seq: null,
      has_more: false,
    });
  });

  it("holds 100 entries unless told, at most 1000", async () => {
    server().reset();
    await Promise.all(
      Array.from({ length: 120 }, (_, i) => postResponses(server(), { model: "m", input: `p${i}`, store: false })),
    );
    const first = await page("");
    expect(first.json.data).toHaveLength(100);
    expect(first.json.has_more).toBe(true);
    expect((await page(`?after=${first.json.last_seq}`)).json.data).toHaveLength(20);
    expect((await page("?limit=1000")).json.data).toHaveLength(120);
  });

  it.each([
    ["?limit=0", "limit"],
    ["?limit=1001", "limit"],
    ["?limit=abc", "limit"],
    ["?limit=1&limit=2", "limit"],
    ["?after=-1", "after"],
    ["?after=1.5", "after"],
    ["?order=newest", "order"],
    ["?session=", "session"],
    ["?session=has%20space", "session"],
  ])("answers %s with a 400 naming %s", async (query, param) => {
    const res = await page(query);
    expect(res.status).toBe(400);
    expectErrorBody(res.json);
    expect(res.json.error).toMatchObject({ type: "invalid_request", code: "invalid_value", param });
  });

  it("GET /__mock/requests/{seq}: one entry, 404 when unknown or another session's, 400 when not a seq", async () => {
    server().reset();
    await postResponses(server(), { model: "m", input: "mine" }, { "x-mock-session": "seq-a" });
    const [entry] = server().requests;
    expect((await get(server(), `/__mock/requests/${entry.seq}`)).json).toEqual(JSON.parse(JSON.stringify(entry)));
    expect((await get(server(), `/__mock/requests/${entry.seq}?session=seq-a`)).status).toBe(200);
    for (const [path, headers, status] of [
      [`/__mock/requests/${entry.seq + 1000}`, {}, 404],
      [`/__mock/requests/${entry.seq}`, { "x-mock-session": "seq-b" }, 404],
      ["/__mock/requests/first", {}, 400],
    ] as const) {
      const res = await get(server(), path, headers);
      expect(res.status).toBe(status);
      expectErrorBody(res.json);
    }
  });
});
