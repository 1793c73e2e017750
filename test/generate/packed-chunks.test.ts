/**
 * PackedChunks over a text the caller has: the same deltas as packing them
 * joined, and a text that is not the deltas' is never taken for them. A
 * scripted step's long text is packed over the step's text (one string for
 * all of its answers).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PACK_MIN_CHUNKS, PackedChunks } from "../../src/generate/packed-chunks.js";
import { planScripted } from "../../src/generate/scripted.js";
import { createRng } from "../../src/generate/rng.js";
import { answerIds } from "../../src/generate/ids.js";
import type { Scenario } from "../../src/scenario/schema.js";
import type { CreateResponseBody } from "../../src/spec/index.js";

const same = (a: PackedChunks, b: PackedChunks) => {
  expect([...a]).toEqual([...b]);
  expect(a.length).toBe(b.length);
  expect(a.join("")).toBe(b.join(""));
  for (let n = 0; n <= a.length; n++) expect(a.prefix(n)).toBe(b.prefix(n));
  for (let i = -1; i <= a.length; i++) expect(a.at(i)).toBe(b.at(i));
};

describe("PackedChunks over its text", () => {
  it("reads as the deltas packed joined, for any text cut anywhere", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 40 }), (chunks) => {
        const text = chunks.join("");
        same(new PackedChunks(chunks, text), new PackedChunks(chunks));
      }),
    );
  });

  it("joins the deltas when the text given is not theirs (another length)", () => {
    const chunks = ["ab", "cd"];
    const packed = new PackedChunks(chunks, "abc");
    expect(packed.text).toBe("abcd");
    expect([...packed]).toEqual(chunks);
  });

  it("packs a scripted step's long text over the text itself", () => {
    const text = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
    const scenario = {
      name: "long",
      turns: [{ steps: [{ type: "message", text, chunk: { tokens: 1 } }] }],
    } as Scenario & { turns: NonNullable<Scenario["turns"]> };
    const request = { model: "m", input: "hi" } as CreateResponseBody;
    const rng = createRng("1|x");
    const plan = planScripted(scenario, {
      request,
      items: [{ type: "message", role: "user", content: "hi" }],
      rng,
      ids: answerIds(rng, "open-responses", "1|x"),
      createdAt: 1,
      vendorExtensions: false,
    } as Parameters<typeof planScripted>[1]);
    const item = plan.items[0];
    expect(item.kind).toBe("message");
    const chunks = item.kind === "message" ? item.parts[0].chunks : [];
    expect(chunks).toBeInstanceOf(PackedChunks);
    expect(chunks.length).toBeGreaterThanOrEqual(PACK_MIN_CHUNKS);
    expect((chunks as PackedChunks).text).toBe(text);
  });
});
