/**
 * copyWith is `{ ...source, ...extra }`: the same keys in the same order and
 * the same values, the source untouched, an own "__proto__" key kept as data
 * (not made the copy's prototype), on generated objects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { copyWith } from "../../src/util/copy-with.js";

const RUNS = Number(process.env.ORM_FUZZ_RUNS ?? 1000);
const key = fc.oneof(
  fc.constantFrom("id", "type", "store", "__proto__", "constructor", "0", "1"),
  fc.string({ maxLength: 5 }),
);
/** An object as JSON.parse makes it: "__proto__" an own key like any other. */
const parsed = fc
  .dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 6 })
  .map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>);

describe("copyWith", () => {
  it("is the spread copy, key for key, and leaves the source alone", () => {
    fc.assert(
      fc.property(
        parsed,
        fc.dictionary(fc.constantFrom("id", "store", "type", "x"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
        (source, extra) => {
          const before = JSON.stringify(source);
          const copy = copyWith(source, extra);
          const spread = { ...source, ...extra };
          expect(Object.keys(copy)).toEqual(Object.keys(spread));
          expect(JSON.stringify(copy)).toBe(JSON.stringify(spread));
          expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
          expect(JSON.stringify(source)).toBe(before);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("keeps an own __proto__ key as data", () => {
    const source = JSON.parse('{"type":"message","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const copy = copyWith(source, { id: "msg_1" });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["type", "__proto__", "id"]);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
