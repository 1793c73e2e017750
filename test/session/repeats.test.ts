/** The repeat counter behind unique ids, and the id sources it seeds. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fnv1a } from "../../src/generate/hash.js";
import { createIdSource, idSeed } from "../../src/generate/ids.js";
import { createRng } from "../../src/generate/rng.js";
import { RepeatCounter } from "../../src/session/repeats.js";

describe("RepeatCounter", () => {
  it("counts each key's earlier sightings, per key", () => {
    const r = new RepeatCounter();
    expect([r.next("a"), r.next("a"), r.next("b"), r.next("a"), r.next("b")]).toEqual([0, 1, 0, 2, 1]);
  });

  it("keys a session apart from no session", () => {
    expect(RepeatCounter.key("s", null)).not.toBe(RepeatCounter.key("s", "t1"));
    expect(RepeatCounter.key("s", "t1")).not.toBe(RepeatCounter.key("s", "t2"));
  });

  it("stays bounded, and a forgotten key resumes at or above its true count (never an id twice)", () => {
    const r = new RepeatCounter(100);
    for (let i = 0; i < 5; i++) r.next("old");
    for (let i = 0; i < 1000; i++) r.next(`k${i}`);
    expect((r as unknown as { counts: Map<string, number> }).counts.size).toBe(100);
    expect(r.next("old")).toBeGreaterThanOrEqual(5);
  });
});

/** The counter as first written (forgets the least recently seen key, found from the front of the map each time): the reference. */
function referenceCounter(limit: number): (key: string) => number {
  const counts = new Map<string, number>();
  const floor = new Uint32Array(1 << 16);
  return (key) => {
    let k = counts.get(key);
    if (k === undefined) k = floor[fnv1a(key) & 0xffff];
    else counts.delete(key);
    counts.set(key, k + 1);
    if (counts.size > limit) {
      const [oldest, count] = counts.entries().next().value as [string, number];
      counts.delete(oldest);
      const b = fnv1a(oldest) & 0xffff;
      if (count > floor[b]) floor[b] = count;
    }
    return k;
  };
}

describe("RepeatCounter past its limit", () => {
  it("forgets the least recently seen key, exactly as the reference does, on random sequences", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 400 }),
        (limit, seq) => {
          const r = new RepeatCounter(limit);
          const ref = referenceCounter(limit);
          for (const n of seq) expect(r.next(`k${n}`)).toBe(ref(`k${n}`));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("id sources", () => {
  it("a first answer takes its ids from the answer's rng, as before; others from their own seed", () => {
    const plain = createIdSource(createRng("seed"));
    const reference = createRng("seed");
    expect(plain.response()).toBe(`resp_${reference.chars(32)}`);
    expect(plain.item("msg")).toBe(`msg_${reference.chars(24)}`);
    const repeat = createIdSource(createRng("seed"), "open-responses", idSeed("seed", null, 1));
    expect(repeat.response()).toMatch(/^resp_[A-Za-z0-9]{32}$/);
    expect(repeat.response()).not.toBe(plain.response());
  });

  it("leaves the answer's rng where it would be, whatever the ids (text never depends on them)", () => {
    const a = createRng("seed");
    const b = createRng("seed");
    createIdSource(a).item("msg");
    createIdSource(b, "openai", idSeed("seed", "session", 3)).item("msg");
    expect(a.next()).toBe(b.next());
  });

  it("openai ids: resp_ + 50 hex, items sharing its first 16 hex, call_ + 24", () => {
    const ids = createIdSource(createRng("x"), "openai", idSeed("x"));
    const resp = ids.response();
    expect(resp).toMatch(/^resp_[0-9a-f]{50}$/);
    expect(ids.item("fc")).toMatch(new RegExp(`^fc_${resp.slice(5, 21)}[0-9a-f]{34}$`));
    expect(ids.call()).toMatch(/^call_[A-Za-z0-9]{24}$/);
  });

  it("differ for every repeat and every session", () => {
    const seen = new Set<string>();
    for (const session of [null, "a", "b"])
      for (let k = 0; k < 20; k++)
        seen.add(createIdSource(createRng("s"), "open-responses", idSeed("s", session, k)).response());
    expect(seen.size).toBe(60);
  });
});
