/**
 * The request seed is what every answer's text and ids are drawn from: its
 * canonical JSON and digest must never change. They are checked here against
 * the first, plainly written definitions, on generated request-like values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fnv1a } from "../../src/generate/hash.js";
import { canonicalJson, requestDigest, requestSeed } from "../../src/generate/seed.js";

/** The definition as first written (map/filter/sort/join). */
function referenceCanonical(value: unknown, skip?: ReadonlySet<string>): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => referenceCanonical(v)).join(",")}]`;
  const keys = Object.keys(value)
    .filter((k) => !skip?.has(k) && (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${referenceCanonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
}
const TRANSPORT = new Set(["stream", "stream_options"]);
const referenceDigest = (body: unknown) => {
  const text = referenceCanonical(body, TRANSPORT);
  return `${fnv1a(text).toString(36)}${fnv1a(text, 0x9e3779b9).toString(36)}`;
};

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(undefined, [undefined, 1], { a: undefined, b: 1 }),
);
const body = fc.record(
  {
    model: fc.string(),
    input: fc.oneof(fc.string({ unit: "binary" }), fc.array(value, { maxLength: 3 })),
    stream: fc.boolean(),
    stream_options: value,
    extra: value,
  },
  { requiredKeys: [] },
);

describe("the request seed", () => {
  it("canonical JSON and digest are the first definitions' (every seed and id depends on them)", () => {
    fc.assert(
      fc.property(body, value, (b, v) => {
        expect(canonicalJson(v)).toBe(referenceCanonical(v));
        expect(canonicalJson(b, TRANSPORT)).toBe(referenceCanonical(b, TRANSPORT));
        expect(requestDigest(b)).toBe(referenceDigest(b));
      }),
      { numRuns: 2000 },
    );
  });

  it("is pinned for a known request", () => {
    // Key order and transport fields do not matter.
    expect(requestSeed(0, { input: "hello", model: "mock-model-1", stream: true })).toBe(
      requestSeed(0, { model: "mock-model-1", input: "hello" }),
    );
    expect(requestDigest({ model: "mock-model-1", input: "hello" })).toBe(
      referenceDigest({ model: "mock-model-1", input: "hello" }),
    );
  });
});
