import { describe, expect, it } from "vitest";
import { closeEnough, editDistance, nearestName } from "../../src/util/nearest-name.js";

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["port", "port", 0],
    ["prot", "port", 1], // a swap of neighbours is one edit
    ["helo", "hello", 1],
    ["hello", "help", 2],
    ["kitten", "sitting", 3],
    ["ca", "abc", 3], // optimal string alignment: no edit of a swapped pair
    ["tool_call", "tool-call", 1],
  ])("%j → %j is %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it("stops early past max, answering max + 1", () => {
    expect(editDistance("kitten", "sitting", 1)).toBe(2);
    expect(editDistance("a".repeat(10_000), "b", 3)).toBe(4);
    expect(editDistance("abcdef", "uvwxyz", 2)).toBe(3);
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
  });
});

describe("nearestName", () => {
  const flags = ["port", "host", "seed", "scenario", "scenarios", "body-limit", "latency-ms", "chunk-ms"];

  it("suggests the closest known name", () => {
    expect(nearestName("prot", flags)).toBe("port");
    expect(nearestName("sede", flags)).toBe("seed");
    expect(nearestName("bodylimit", flags)).toBe("body-limit");
    expect(nearestName("latency", flags)).toBeUndefined(); // 3 edits from latency-ms: too far for 7 letters
    expect(nearestName("scenarioes", flags)).toBe("scenarios");
  });

  it("ignores case, and returns the name as known", () => {
    expect(nearestName("Hello", ["hello", "help"])).toBe("hello");
    expect(nearestName("TEXT", ["text"])).toBe("text");
  });

  it("suggests nothing when nothing is close", () => {
    expect(nearestName("klingon", ["open-responses", "openai"])).toBeUndefined();
    expect(nearestName("x", ["port", "host"])).toBeUndefined();
    expect(nearestName("anything", [])).toBeUndefined();
    expect(nearestName("x".repeat(8_000), ["auto", "text"])).toBeUndefined();
  });

  it("prefers the nearer name, and the first listed on a tie", () => {
    expect(nearestName("scenari", ["scenarios", "scenario"])).toBe("scenario");
    expect(nearestName("tex", ["text", "tax"])).toBe("text");
    expect(nearestName("tex", ["tax", "text"])).toBe("tax");
  });

  it("is close enough at about one edit per three characters", () => {
    expect([1, 2, 3, 5, 6, 9, 12].map((n) => closeEnough("a".repeat(n)))).toEqual([1, 1, 1, 1, 2, 3, 4]);
    expect(nearestName("opnai", ["openai"])).toBe("openai");
    expect(nearestName("opn", ["openai"])).toBeUndefined();
    expect(nearestName("ab", ["abc"], 0)).toBeUndefined();
  });
});
