/** The token scanner is the regex it replaced, match for match, on any text. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countTokens, takeTokens, tokenize } from "../../src/generate/tokens.js";

const RULE = /\s*(?:[\p{L}\p{N}_]{1,12}|[^\s\p{L}\p{N}_])|\s+/gu;
const byRegex = (text: string) => text.match(RULE) ?? [];

/** Text that hits every class: ASCII words and punctuation, runs of spaces, other scripts, emoji, lone surrogates. */
const piece = fc.oneof(
  fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", "\u2028", "\ufeff", "\u3000"),
  fc.constantFrom("a", "Z", "_", "7", "hello", "abcdefghijklmnopq", "é", "ß", "日本語", "٣", "Ⅻ", "𝒜𝒝𝒞", "x̃"),
  fc.constantFrom(".", ",", '"', "{", "-", "€", "😀", "👍🏽", "\ud800", "\udc00", "\u0301"),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(""));

describe("tokens", () => {
  it("splits exactly as the rule's regex does", () => {
    fc.assert(
      fc.property(text, (t) => {
        const pieces = tokenize(t);
        expect(pieces).toEqual(byRegex(t));
        expect(pieces.join("")).toBe(t);
        expect(countTokens(t)).toBe(pieces.length);
      }),
      { numRuns: 3000 },
    );
  });

  it("takes the longest prefix within a budget", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -1, max: 50 }), (t, budget) => {
        expect(takeTokens(t, budget)).toBe(byRegex(t).slice(0, Math.max(0, budget)).join(""));
      }),
      { numRuns: 1000 },
    );
  });

  it("counts words of up to 12 letters, with the space before them", () => {
    expect(tokenize("Hello,  world! abcdefghijklmnop ")).toEqual([
      "Hello",
      ",",
      "  world",
      "!",
      " abcdefghijkl",
      "mnop",
      " ",
    ]);
    expect(countTokens("")).toBe(0);
  });
});
