// The load floor: a bare node:http server that plays captured answers on given offsets and
// does nothing else, through the one-timer pacer of floor-pacer.mjs. A POST's `x-mock-seed`
// picks the answer; its frame i goes out at `offsets[i]` ms after the request's body ended.
// bench/load.mjs measures our server's pacing against this one in the same run.
//
// Usage: node floor-load.mjs ANSWERS.json [--workers N]
//   ANSWERS.json: { "headers": { name: value }, "answers": { SEED: { "frames": [...], "offsets": [...] } } }
//   An answer under the seed "*" is played for any seed without its own (bench/memory.mjs).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createPacer, serveOnWorkers } from "./floor-pacer.mjs";

const [file, ...rest] = process.argv.slice(2);
const workersAt = rest.indexOf("--workers");
const WORKERS = workersAt >= 0 ? Number(rest[workersAt + 1]) : 1;

await serveOnWorkers(WORKERS, () => {
  const { headers, answers } = JSON.parse(readFileSync(file, "utf8"));
  const pacer = createPacer();
  const plays = new Map(
    Object.entries(answers).map(([seed, { frames, offsets }]) => [seed, { frames, dueAt: (i) => offsets[i] }]),
  );
  return createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const play = plays.get(String(req.headers["x-mock-seed"])) ?? plays.get("*");
      if (!play) return res.writeHead(404).end();
      res.writeHead(200, headers);
      pacer.play(res, play.frames, play.dueAt);
    });
  });
});
