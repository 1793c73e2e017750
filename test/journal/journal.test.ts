/** The journal keeps the newest entries within its count and byte bounds, in order, and pages them. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/journal.js";
import { utf8Length, utf8Prefix } from "../../src/util/utf8.js";

const open = (j: Journal, i: number, session: string | null = null) =>
  j.open({
    at: i,
    session,
    method: "POST",
    path: "/v1/responses",
    query: {},
    headers: { authorization: "Bearer sk-secret-123456" },
  });

describe("Journal", () => {
  it("keeps the newest `limit` entries, oldest first, across many wraps", () => {
    const j = new Journal(3);
    for (let i = 0; i < 10; i++) open(j, i);
    expect(j.list().map((e) => e.at)).toEqual([7, 8, 9]);
    expect(j.list().map((e) => e.seq)).toEqual([7, 8, 9]);
    open(j, 10);
    expect(j.list().map((e) => e.at)).toEqual([8, 9, 10]);
  });

  it("filters and clears one session after wrapping, keeping the order", () => {
    const j = new Journal(4);
    for (let i = 0; i < 7; i++) open(j, i, i % 2 ? "odd" : null);
    expect(j.list().map((e) => e.at)).toEqual([3, 4, 5, 6]);
    expect(j.list("odd").map((e) => e.at)).toEqual([3, 5]);
    j.clear("odd");
    expect(j.list().map((e) => e.at)).toEqual([4, 6]);
    for (let i = 7; i < 10; i++) open(j, i);
    expect(j.list().map((e) => e.at)).toEqual([6, 7, 8, 9]);
    j.clear();
    expect(j.list()).toEqual([]);
  });

  it("keeps nothing with a limit of 0, and masks credentials", () => {
    const j = new Journal(0);
    const e = open(j, 1);
    expect(e.headers.authorization).toBe("Bearer ***3456");
    expect(j.list()).toEqual([]);
  });

  it("hands out fresh arrays: changing one changes nothing in the journal", () => {
    const j = new Journal(2);
    open(j, 1);
    j.list().pop();
    expect(j.list()).toHaveLength(1);
  });
});

describe("Journal bytes", () => {
  const body = (n: number) => JSON.stringify({ model: "m", input: "x".repeat(Math.max(0, n - 24)) });

  it("keeps bodies up to 1/16 of the budget whole, and truncates bigger ones: a prefix, no parsed body, length and SHA-256", () => {
    const j = new Journal(100, 64 * 1024);
    expect(j.wholeBodyLimit).toBe(4096);
    const small = open(j, 1);
    const text = body(4096);
    expect(text.length).toBe(4096);
    j.setBody(small, text, JSON.parse(text));
    expect(small.rawBody === text && small.body !== null).toBe(true);
    expect(small).toMatchObject({ bodyBytes: 4096, truncated: false, bodySha256: null });
    const big = open(j, 2);
    const large = body(10_000);
    j.setBody(big, large, JSON.parse(large));
    expect(big.rawBody === large.slice(0, 4096)).toBe(true);
    expect(big).toMatchObject({ body: null, bodyBytes: 10_000, truncated: true });
    expect(big.bodySha256).toBe(createHash("sha256").update(large).digest("hex"));
  });

  it("cuts a truncated body on a whole character and counts UTF-8 bytes", () => {
    const j = new Journal(10, 16 * 8);
    const e = open(j, 1);
    const text = `"${"é".repeat(20)}"`; // 42 bytes, over 8
    j.setBody(e, text, JSON.parse(text));
    expect(e.bodyBytes).toBe(42);
    expect(e.rawBody).toBe(`"${"é".repeat(3)}`); // 7 bytes: a fourth é would need 9
    expect(utf8Length("a😀é")).toBe(7);
    expect(utf8Prefix("😀😀", 5)).toBe("😀");
  });

  it("drops the oldest entries to stay within the budget, and gives the bytes back when cleared", () => {
    const budget = 200_000;
    const j = new Journal(1000, budget);
    const text = body(10_000);
    for (let i = 0; i < 100; i++) j.setBody(open(j, i), text, JSON.parse(text));
    expect(j.bytes).toBeLessThanOrEqual(budget);
    expect(j.size).toBeGreaterThan(5);
    expect(j.size).toBeLessThan(100);
    const kept = j.list();
    expect(kept.at(-1)!.at).toBe(99);
    expect(kept.map((e) => e.seq)).toEqual(kept.map((_, i) => kept[0].seq + i));
    j.clear("nobody");
    expect(j.size).toBe(kept.length);
    j.clear();
    expect(j.bytes).toBe(0);
    expect(j.size).toBe(0);
  });

  it("with a budget of 0 keeps the entries but no bodies (bounded by the count alone)", () => {
    const j = new Journal(3, 0);
    for (let i = 0; i < 5; i++) j.setBody(open(j, i), '{"a":1}', { a: 1 });
    expect(j.list().map((e) => e.at)).toEqual([2, 3, 4]);
    expect(j.list()[0]).toMatchObject({ rawBody: null, body: null, bodyBytes: 7, truncated: true });
    expect(j.list()[0].bodySha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps the newest entry even when it alone passes a tiny budget", () => {
    const j = new Journal(10, 100);
    open(j, 1);
    open(j, 2);
    expect(j.list().map((e) => e.at)).toEqual([2]);
  });

  it("a body set on an entry already dropped changes nothing", () => {
    const j = new Journal(1);
    const old = open(j, 1);
    open(j, 2);
    const before = j.bytes;
    j.setBody(old, '{"a":1}', { a: 1 });
    expect(j.bytes).toBe(before);
    expect(j.list().map((e) => e.at)).toEqual([2]);
  });
});

describe("Journal pages", () => {
  const filled = () => {
    const j = new Journal(10);
    for (let i = 0; i < 15; i++) open(j, i, i % 3 === 0 ? "s" : null); // keeps seqs 5..14
    return j;
  };
  const seqs = (p: { data: { seq: number }[] }) => p.data.map((e) => e.seq);

  it("pages oldest first after a seq, and says when more follow", () => {
    const j = filled();
    expect(seqs(j.page({ limit: 4 }))).toEqual([5, 6, 7, 8]);
    expect(j.page({ limit: 4 }).hasMore).toBe(true);
    expect(seqs(j.page({ limit: 4, after: 8 }))).toEqual([9, 10, 11, 12]);
    expect(j.page({ limit: 4, after: 10 })).toMatchObject({ hasMore: false });
    expect(seqs(j.page({ limit: 4, after: 10 }))).toEqual([11, 12, 13, 14]);
    expect(seqs(j.page({ limit: 100, after: 0 }))).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]); // a dropped seq is still a cursor
    expect(j.page({ limit: 4, after: 14 })).toEqual({ data: [], hasMore: false });
  });

  it("pages newest first, and filters one session", () => {
    const j = filled();
    expect(seqs(j.page({ limit: 3, order: "desc" }))).toEqual([14, 13, 12]);
    expect(seqs(j.page({ limit: 3, order: "desc", after: 12 }))).toEqual([11, 10, 9]);
    expect(j.page({ limit: 5, order: "desc", after: 10 })).toMatchObject({ hasMore: false });
    expect(seqs(j.page({ limit: 2, session: "s" }))).toEqual([6, 9]);
    expect(j.page({ limit: 2, session: "s" }).hasMore).toBe(true);
    expect(seqs(j.page({ limit: 2, session: "s", after: 9 }))).toEqual([12]);
    expect(j.page({ limit: 2, session: "s", after: 9 }).hasMore).toBe(false);
    expect(seqs(j.page({ limit: 2, session: "s", order: "desc" }))).toEqual([12, 9]);
  });

  it("finds an entry by seq while the journal holds it", () => {
    const j = filled();
    expect(j.get(7)?.at).toBe(7);
    expect(j.get(4)).toBeUndefined();
    expect(j.get(15)).toBeUndefined();
  });

  it("stays in order across many evictions (the slots are compacted)", () => {
    const j = new Journal(50, 50 * 400);
    for (let i = 0; i < 5000; i++) {
      const e = open(j, i);
      if (i % 7 === 0) j.setBody(e, '{"a":"' + "y".repeat(100) + '"}', { a: "y".repeat(100) });
    }
    const all = j.list();
    expect(all.at(-1)!.seq).toBe(4999);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => all[0].seq + i));
    expect(seqs(j.page({ limit: 1000 }))).toEqual(all.map((e) => e.seq));
    expect(j.get(all[3].seq)).toBe(all[3]);
  });
});

describe("Journal ends", () => {
  it("an entry is in progress until it ends: then its outcome, end time and duration are set, once", () => {
    const j = new Journal();
    const e = open(j, 1000);
    expect(e).toMatchObject({ outcome: null, endedAt: null, durationMs: null, events: null, errorCode: null });
    expect(j.pending).toBe(1);
    e.status = 200;
    e.outcome = "completed";
    e.events = 7;
    j.end(e, 12.3456789);
    expect(e).toMatchObject({ outcome: "completed", events: 7, durationMs: 12.346, endedAt: 1012.346 });
    expect(j.pending).toBe(0);
    // A second end changes nothing.
    j.end(e, 99);
    expect(e.durationMs).toBe(12.346);
    expect(j.pending).toBe(0);
  });

  it("an outcome left unset is `error` from status 400 on, `ok` below", () => {
    const j = new Journal();
    const [a, b] = [open(j, 0), open(j, 0)];
    a.status = 404;
    b.status = 200;
    j.end(a, 1);
    j.end(b, 1);
    expect([a.outcome, b.outcome]).toEqual(["error", "ok"]);
  });

  it("tells its listeners of each entry as it ends, even entries it does not keep; a throwing listener breaks nothing", () => {
    const j = new Journal(0);
    const heard: number[] = [];
    j.onEnd(() => {
      throw new Error("a broken log");
    });
    const off = j.onEnd((e) => heard.push(e.seq));
    const [a, b] = [open(j, 0), open(j, 0)];
    j.end(b, 1);
    j.end(a, 1);
    expect(heard).toEqual([1, 0]);
    expect(j.list()).toEqual([]);
    expect(j.received).toBe(2);
    off();
    const c = open(j, 0);
    j.end(c, 1);
    expect(heard).toEqual([1, 0]);
  });

  it("settled() resolves once no request is in progress", async () => {
    const j = new Journal();
    await j.settled();
    const a = open(j, 0);
    let settled = false;
    const waiting = j.settled().then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    j.end(a, 1);
    await waiting;
    expect(settled).toBe(true);
  });
});
