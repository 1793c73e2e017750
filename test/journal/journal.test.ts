/** The journal keeps the newest `limit` entries, in order, however many requests come. */
import { describe, expect, it } from "vitest";
import { Journal } from "../../src/journal/journal.js";

const open = (j: Journal, i: number, session: string | null = null) =>
  j.open({ at: i, session, method: "POST", path: "/v1/responses", query: {}, headers: { authorization: "Bearer sk-secret-123456" } });

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
