/**
 * The answer memo: a repeated request is answered from it with exactly the
 * bytes a server without it sends, and never when stored state or a session
 * control decides the answer. Also the bounds of the memo itself.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, createRequestListener, type AppDeps } from "../../src/http/app.js";
import { resolveOptions } from "../../src/options.js";
import { createDeps, loadRegistry } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { AnswerMemo, type MemoEntry } from "../../src/emit/answer-memo.js";
import { expectConformantStream, expectErrorBody, expectValidResponse } from "../support/conformance.js";
import { postResponses, rawPost, TEST_NOW_MS, useServer } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";

const clock = { t: TEST_NOW_MS, now: () => clock.t };
const cached = useServer({ clock });
const plain = useServer({ clock, answerCache: 0 });

const weather = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const bodies = [
  { model: "m", input: "hello" },
  { model: "m", input: "hello", stream: true },
  { model: "m", input: "weather?", tools: [weather], stream: true },
  { model: "m", input: "json", text: { format: { type: "json_schema", name: "x", schema: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] } } } },
  { model: "m", input: "think", reasoning: { effort: "high", summary: "auto" }, stream: true },
];

describe("the answer memo", () => {
  it("answers a repeated request with the bytes a server without it sends", async () => {
    for (const body of bodies) {
      const first = await postResponses(cached(), body);
      const again = await postResponses(cached(), body);
      const reference = await postResponses(plain(), body);
      expect(first.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.text).toBe(reference.text);
      expect(again.headers.get("content-type")).toBe(reference.headers.get("content-type"));
      expect(again.headers.get("x-mock-scenario")).toBe(reference.headers.get("x-mock-scenario"));
      if (body.stream) expectConformantStream(parseSseStrict(again.text).events);
      else expectValidResponse(JSON.parse(again.text));
    }
  });

  it("journals and stores every repeated request", async () => {
    cached().reset();
    const body = { model: "m", input: "keep me" };
    const a = await postResponses(cached(), body);
    const b = await postResponses(cached(), body, { "x-mock-session": "memo-s" });
    expect(b.text).toBe(a.text);
    const journal = cached().requests;
    expect(journal.map((e) => [e.status, e.session, e.scenario, e.reason])).toEqual([
      [200, null, "auto", "default"],
      [200, "memo-s", "auto", "default"],
    ]);
    expect(journal[1].body).toEqual(body);
    expect(journal[1].body).not.toBe(journal[0].body);
    // The hit was stored in its own session: that session can read it and its input items.
    const id = JSON.parse(b.text).id as string;
    const got = await fetch(`${cached().baseURL}/responses/${id}`, { headers: { "x-mock-session": "memo-s" } });
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(b.text);
    const items = (await (await fetch(`${cached().baseURL}/responses/${id}/input_items`, { headers: { "x-mock-session": "memo-s" } })).json()) as { data: { type: string }[] };
    expect(items.data).toHaveLength(1);
  });

  it("keys on the second of created_at, the seed header and the scenario header", async () => {
    const body = { model: "m", input: "keyed" };
    const base = JSON.parse((await postResponses(cached(), body)).text);
    const seeded = JSON.parse((await postResponses(cached(), body, { "x-mock-seed": "77" })).text);
    const text = JSON.parse((await postResponses(cached(), body, { "x-mock-scenario": "text" })).text);
    expect(seeded.id).not.toBe(base.id);
    expect(text.output).not.toEqual(base.output);
    clock.t += 1000;
    try {
      const later = JSON.parse((await postResponses(cached(), body)).text);
      expect(later.created_at).toBe(base.created_at + 1);
      expect(later.id).toBe(base.id);
    } finally {
      clock.t = TEST_NOW_MS;
    }
  });

  it("gives way to a queued answer, and is used again after it", async () => {
    const body = { model: "m", input: "queue first" };
    const before = await postResponses(cached(), body);
    cached().enqueue({ steps: [{ type: "message", text: "from the queue" }] });
    const queued = JSON.parse((await postResponses(cached(), body)).text);
    expect(queued.output[0].content[0].text).toBe("from the queue");
    expect((await postResponses(cached(), body)).text).toBe(before.text);
    expect(cached().requests.at(-2)?.reason).toBe("queue");
  });

  it("never answers a continuation from it: the stored chain is read every time", async () => {
    const first = JSON.parse((await postResponses(cached(), { model: "m", input: "chain start" })).text);
    const next = { model: "m", input: "go on", previous_response_id: first.id };
    const a = await postResponses(cached(), next);
    expect(a.status).toBe(200);
    expect((await fetch(`${cached().baseURL}/responses/${first.id}`, { method: "DELETE" })).status).toBe(200);
    const b = await postResponses(cached(), next);
    expect(b.status).toBe(400);
    const error = JSON.parse(b.text);
    expectErrorBody(error);
    expect(error.error.code).toBe("previous_response_not_found");
  });

  it("applies a hit's own timing and fault headers", async () => {
    const body = { model: "m", input: "faulty", stream: true };
    const whole = parseSseStrict((await postResponses(cached(), body)).text);
    const dropped = await rawPost(cached(), body, { "x-mock-fault": "drop-after-events=3" });
    expect(dropped.complete).toBe(false);
    const events = parseSseStrict(dropped.text, { requireDone: false }).events;
    expect(events).toEqual(whole.events.slice(0, 3));
    expect(dropped.text).not.toContain("[DONE]");
    // And the next plain request still gets the whole stream.
    expect(parseSseStrict((await postResponses(cached(), body)).text).events).toEqual(whole.events);
  });

  it("still validates: a bad body or a bad header is the same 400 on a hit", async () => {
    const body = { model: "m", input: "valid" };
    await postResponses(cached(), body);
    const badHeader = await postResponses(cached(), body, { "x-mock-chunk-ms": "soon" });
    expect(badHeader.status).toBe(400);
    expect(JSON.parse(badHeader.text).error.param).toBe("x-mock-chunk-ms");
    const badBody = await postResponses(cached(), { model: "m", input: 5 });
    expect(badBody.status).toBe(400);
    expect(JSON.parse(badBody.text).error.param).toBe("input");
  });
});

/** Serves `listener` on port 0; resolves with its origin. */
async function serve(listener: Parameters<typeof createServer>[1], servers: Server[]): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the direct path and the Koa app, on the same state", () => {
  let deps: AppDeps;
  let direct: string;
  let koa: string;
  const servers: Server[] = [];
  beforeAll(async () => {
    const options = resolveOptions({ clock: fixedClock(TEST_NOW_MS), apiKey: "sk-memo-key-123" });
    deps = createDeps(options, await loadRegistry(options));
    direct = await serve(createRequestListener(deps), servers);
    koa = await serve(createApp(deps).callback(), servers);
  });
  afterAll(() => servers.forEach((s) => s.close()));

  const post = (origin: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}/v1/responses`, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer sk-memo-key-123", ...headers }, body: JSON.stringify(body) });

  it("answer alike: the same bytes, headers, errors and journal entries", async () => {
    for (const [body, headers] of [
      [{ model: "m", input: "alike" }, {}],
      [{ model: "m", input: "alike", stream: true }, {}],
      [{ model: "m", input: 3 }, {}],
      [{ model: "m", input: "x" }, { authorization: "Bearer wrong" }],
      [{ model: "m", input: "x" }, { "x-mock-scenario": "no-such-scenario" }],
    ] as const) {
      const a = await post(direct, body, headers);
      const b = await post(koa, body, headers);
      expect(a.status).toBe(b.status);
      for (const h of ["content-type", "x-mock-scenario", "cache-control"]) expect(a.headers.get(h)).toBe(b.headers.get(h));
      expect(await a.text()).toBe(await b.text());
      const [ea, eb] = deps.journal.list().slice(-2);
      expect({ ...ea, seq: 0, at: 0, headers: {} }).toEqual({ ...eb, seq: 0, at: 0, headers: {} });
    }
  });

  it("repeats are answered from the memo once seen twice; distinct requests leave nothing in it", async () => {
    const memo = deps.memo!;
    memo.clear();
    const before = { hits: memo.hits, size: memo.size };
    for (let i = 0; i < 20; i++) expect((await post(direct, { model: "m", input: `distinct ${i}` })).status).toBe(200);
    expect(memo.size).toBe(before.size);
    const texts: string[] = [];
    for (let i = 0; i < 4; i++) texts.push(await (await post(direct, { model: "m", input: "again and again" })).text());
    expect(new Set(texts).size).toBe(1);
    expect(memo.size).toBe(before.size + 1);
    expect(memo.hits - before.hits).toBe(2); // the first two computed it (seen, then kept), the next two were hits
  });
});

describe("AnswerMemo bounds", () => {
  const entry = (bytes: number) => ({ bytes }) as MemoEntry;

  it("keeps at most maxEntries, evicting the least recently used", () => {
    const memo = new AnswerMemo(2, 1_000_000);
    memo.set("a", entry(10));
    memo.set("b", entry(10));
    expect(memo.get("a")).toBeDefined(); // a is now the newest
    memo.set("c", entry(10));
    expect(memo.get("b")).toBeUndefined();
    expect(memo.get("a")).toBeDefined();
    expect(memo.get("c")).toBeDefined();
    expect(memo.size).toBe(2);
  });

  it("keeps at most maxBytes, and never an entry above a quarter of it", () => {
    const memo = new AnswerMemo(100, 1000);
    memo.set("big", entry(251));
    expect(memo.get("big")).toBeUndefined();
    for (const k of ["a", "b", "c", "d", "e"]) memo.set(k, entry(250));
    expect(memo.size).toBe(4);
    expect(memo.get("a")).toBeUndefined();
    memo.set("e", entry(10)); // replacing counts the old size out
    memo.set("f", entry(250));
    expect(memo.size).toBe(4);
    expect(memo.get("b")).toBeUndefined();
  });

  it("keeps nothing with 0 entries", () => {
    const memo = new AnswerMemo(0);
    memo.set("a", entry(1));
    expect(memo.enabled).toBe(false);
    expect(memo.size).toBe(0);
  });
});
