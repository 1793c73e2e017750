/**
 * src/generate/hash.ts: hashString and the pieces the emitter uses for every
 * delta's obfuscation (hashChars, fnv1aNumbered) give what the first
 * definitions gave — the characters appended one by one, the key hashed as a
 * whole string — on generated keys, numbers, lengths and alphabets.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fnv1a, fnv1aNumbered, hashChars, hashString } from "../../src/generate/hash.js";

const RUNS = Number(process.env.ORM_FUZZ_RUNS ?? 1000);
const BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** hashString as first written: FNV-1a of the key, then one character per round. */
function firstHashString(key: string, length: number, alphabet = BASE62): string {
  let out = "";
  let h = fnv1a(key);
  for (let i = 0; i < length; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39) >>> 0;
    h = (h ^ (h >>> 15)) >>> 0;
    out += alphabet[h % alphabet.length];
  }
  return out;
}

describe("hash.ts", () => {
  it("hashString and hashChars: the first definition's characters", () => {
    const alphabet = fc.oneof(fc.constant(BASE62), fc.string({ minLength: 1, maxLength: 70 }));
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.integer({ min: 0, max: 80 }), alphabet, (key, length, abc) => {
        const expected = firstHashString(key, length, abc);
        expect(hashString(key, length, abc)).toBe(expected);
        expect(hashChars(fnv1a(key), length, abc)).toBe(expected);
        if (abc === BASE62) expect(hashString(key, length)).toBe(expected);
      }),
      { numRuns: RUNS },
    );
  });

  it("fnv1aNumbered(fnv1a(prefix), n) is fnv1a(`${prefix}:${n}`)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), fc.oneof(fc.nat(), fc.integer({ min: 0, max: 2_000 })), (prefix, n) => {
        expect(fnv1aNumbered(fnv1a(prefix), n)).toBe(fnv1a(`${prefix}:${n}`));
      }),
      { numRuns: RUNS },
    );
    // An answer's obfuscation strings: event 7 of resp_x, a 3-character delta (16 − 3 characters).
    expect(hashChars(fnv1aNumbered(fnv1a("resp_x"), 7), 13)).toBe(firstHashString("resp_x:7", 13));
  });
});
