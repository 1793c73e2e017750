// The cost of keeping a Map bounded by dropping its oldest key, as the repeat counter (100,000
// request keys), the response store and the proxy's memory (--store-limit) do, once full:
// a fresh `map.keys().next()` per drop (how it was done) against one OldestKeys iterator kept
// for good (src/util/oldest-keys.ts), side by side, for a few limits. Then the two users on
// the hot path: RepeatCounter.next and MemoryResponseStore.put past their limits.
//
//   npm run bench:maps          (builds, then: node bench/bounded-maps.mjs)
import { OldestKeys } from "../dist/util/oldest-keys.js";
import { RepeatCounter } from "../dist/session/repeats.js";
import { MemoryResponseStore } from "../dist/store/response-store.js";

const OPS = 100_000;
/** ns per operation of `step(i)` over OPS operations, after filling with `fill` operations; best of 3. */
function measure(fill, step) {
  let i = 0;
  for (; i < fill; i++) step(i);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const t = process.hrtime.bigint();
    for (const end = i + OPS; i < end; i++) step(i);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / OPS);
  }
  return best;
}

const fmt = (ns) => (ns >= 1000 ? `${(ns / 1000).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
console.log("bounded Map, drop the oldest key for each one added (ns per add)");
console.log(`${"limit".padStart(9)}  ${"keys().next()".padStart(14)}  ${"OldestKeys".padStart(11)}`);
for (const limit of [1_000, 10_000, 100_000]) {
  const fresh = new Map();
  const a = measure(limit, (i) => {
    fresh.set(`k${i}`, i);
    if (fresh.size > limit) fresh.delete(fresh.keys().next().value);
  });
  const kept = new Map();
  const oldest = new OldestKeys(kept);
  const b = measure(limit, (i) => {
    kept.set(`k${i}`, i);
    if (kept.size > limit) kept.delete(oldest.next());
  });
  console.log(`${String(limit).padStart(9)}  ${fmt(a).padStart(14)}  ${fmt(b).padStart(11)}`);
}

const repeats = new RepeatCounter();
console.log(`\nRepeatCounter.next past its 100,000 keys: ${fmt(measure(100_000, (i) => repeats.next(`1|seed${i}`)))}`);
for (const limit of [1_000, 100_000]) {
  const store = new MemoryResponseStore(limit);
  const put = (i) => store.put({ response: { id: `resp_${i}` }, input: [], plan: null, session: null });
  console.log(`MemoryResponseStore.put past --store-limit ${limit}: ${fmt(measure(limit, put))}`);
}
