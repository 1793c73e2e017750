// The pacing floor: a bare node:http server that paces the frames of one captured answer
// (the same bytes our server sends, the same interval between events) and does nothing else.
// Every POST gets the captured headers at once with frame 0, then frame i at start + i × INTERVAL,
// and the last frame with the end of the body, through the one-timer pacer of floor-pacer.mjs.
// This is the least any pacer in Node can cost on this machine, which bench/timing.mjs
// measures ours against.
//
// Usage: node floor.mjs ANSWER.json INTERVAL_MS [--workers N]
//   ANSWER.json: { "headers": { name: value }, "frames": [string, ...] }
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createPacer, serveOnWorkers } from "./floor-pacer.mjs";

const [file, intervalArg, ...rest] = process.argv.slice(2);
const INTERVAL = Number(intervalArg);
const workersAt = rest.indexOf("--workers");
const WORKERS = workersAt >= 0 ? Number(rest[workersAt + 1]) : 1;

await serveOnWorkers(WORKERS, () => {
  const { headers, frames } = JSON.parse(readFileSync(file, "utf8"));
  const pacer = createPacer();
  const dueAt = (i) => i * INTERVAL;
  return createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, headers);
      pacer.play(res, frames, dueAt);
    });
  });
});
