/**
 * OldestKeys gives what `map.keys().next()` gives (the oldest key in
 * insertion order) as long as the caller deletes each key it is given —
 * through adds, re-adds, deletes anywhere, clears and the map's rehashes —
 * without the fresh iterator's walk over deleted entries.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OldestKeys } from "../../src/util/oldest-keys.js";

type Op = { op: "set"; key: number } | { op: "delete"; key: number } | { op: "evict" } | { op: "clear" };

const ops = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ op: fc.constant("set" as const), key: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 40 }) }) },
    { weight: 3, arbitrary: fc.constant({ op: "evict" as const }) },
    { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) },
  ),
  { maxLength: 500 },
);

describe("OldestKeys", () => {
  it("gives the oldest key, as a fresh iterator would, whatever was added, moved, deleted or cleared", () => {
    fc.assert(
      fc.property(ops, (list: Op[]) => {
        const map = new Map<number, true>();
        const oldest = new OldestKeys(map);
        for (const o of list) {
          if (o.op === "set") {
            map.delete(o.key); // re-adding moves a key to the newest end, as the stores do
            map.set(o.key, true);
          } else if (o.op === "delete") map.delete(o.key);
          else if (o.op === "clear") map.clear();
          else {
            const expected = map.keys().next();
            const got = oldest.next();
            expect(got).toBe(expected.done ? undefined : expected.value);
            if (got !== undefined) map.delete(got);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a map bounded by its newest keys through many rehashes", () => {
    const map = new Map<string, number>();
    const oldest = new OldestKeys(map);
    for (let i = 0; i < 50_000; i++) {
      map.set(`k${i}`, i);
      if (map.size > 100) map.delete(oldest.next()!);
    }
    expect([...map.keys()]).toEqual(Array.from({ length: 100 }, (_, i) => `k${49_900 + i}`));
  });

  it("says undefined for an empty map, and starts again once keys come back", () => {
    const map = new Map<string, number>();
    const oldest = new OldestKeys(map);
    expect(oldest.next()).toBeUndefined();
    map.set("a", 1);
    expect(oldest.next()).toBe("a");
    map.delete("a");
    expect(oldest.next()).toBeUndefined();
    map.set("b", 2);
    expect(oldest.next()).toBe("b");
  });
});
