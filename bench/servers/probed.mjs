// The mock server in a process of its own, with a probe of its event loop: a 1 ms interval
// timer whose late firings are the time the loop was held. Reads commands on stdin:
// "reset" clears the longest hold, "report" prints "held <ms>". Prints "listening on URL" first.
import { createInterface } from "node:readline";
import { startMockServer } from "../../dist/index.js";

const mock = await startMockServer({ port: 0 });
let last = performance.now();
let held = 0;
setInterval(() => {
  const now = performance.now();
  held = Math.max(held, now - last - 1);
  if (process.env.PROBE_LOG && now - last - 1 > Number(process.env.PROBE_LOG))
    console.error(`probe: held ${(now - last - 1).toFixed(1)} ms at ${now.toFixed(0)}`);
  last = now;
}, 1);
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "reset") {
    held = 0;
    last = performance.now();
    console.log("ok");
  } else if (line === "report") {
    held = Math.max(held, performance.now() - last - 1);
    console.log(`held ${held.toFixed(2)}`);
  }
});
process.on("SIGTERM", () => void mock.close().then(() => process.exit(0)));
console.log(`listening on ${mock.baseURL}`);
