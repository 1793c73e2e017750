// Programmatic start time: median (and p90) of 50 startMockServer() + close() cycles, in one process.
import { startMockServer } from "../dist/index.js";
import { fmt, summary } from "./lib.mjs";

export async function measureStart(runs = 50) {
  // One warm-up: the first start also loads modules and compiles.
  await (await startMockServer({ port: 0 })).close();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const mock = await startMockServer({ port: 0 });
    times.push(performance.now() - t);
    await mock.close();
  }
  const s = summary(times);
  return { median: s.p50, p90: times.sort((a, b) => a - b)[Math.floor(runs * 0.9)], runs };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measureStart();
  console.log(
    `programmatic start: median ${fmt(r.median)} ms, p90 ${fmt(r.p90)} ms over ${r.runs} starts (target: < 50 ms)`,
  );
}
