/**
 * src/generate/hash.ts: hashString gives the strings it always gave (pinned
 * below, computed by the implementation before the emitter's obfuscation
 * took the short cut), and the short cut — the prefix hashed once
 * (fnv1aNumbered), the characters drawn from that hash (hashChars) — gives
 * exactly hashString of the whole key, on generated keys, numbers, lengths
 * and alphabets.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fnv1a, fnv1aNumbered, hashChars, hashString } from "../../src/generate/hash.js";

const RUNS = Number(process.env.ORM_FUZZ_RUNS ?? 1000);

describe("hash.ts", () => {
  it("hashString: the strings it gave before", () => {
    expect(hashString("resp_x:7", 13)).toBe("Jh0HtpGjLT61K");
    expect(hashString("msg:input:0", 24)).toBe("GkMLpyvH3od7SJI03wmKwYoH");
    expect(hashString("", 5)).toBe("43mZ6");
    expect(hashString("é🙂\u0000", 16)).toBe("ejZLaWLVUWtOMVQa");
    expect(hashString("key", 8, "ab")).toBe("babaabbb");
  });

  it("hashChars(fnv1a(key), n) is hashString(key, n)", () => {
    const alphabet = fc.option(fc.string({ minLength: 1, maxLength: 70 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.integer({ min: 0, max: 80 }),
        alphabet,
        (key, length, abc) => {
          expect(hashChars(fnv1a(key), length, abc)).toBe(hashString(key, length, abc));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("fnv1aNumbered(fnv1a(prefix), n) is fnv1a(`${prefix}:${n}`)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.oneof(fc.nat(), fc.integer({ min: 0, max: 2_000 })),
        (prefix, n) => {
          expect(fnv1aNumbered(fnv1a(prefix), n)).toBe(fnv1a(`${prefix}:${n}`));
        },
      ),
      { numRuns: RUNS },
    );
    // An answer's obfuscation string: event 7 of resp_x, a 3-character delta (16 − 3 characters).
    expect(hashChars(fnv1aNumbered(fnv1a("resp_x"), 7), 13)).toBe("Jh0HtpGjLT61K");
  });
});
