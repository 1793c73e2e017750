// The pacing floor: a bare node:http server that paces the frames of one captured answer
// (the same bytes our server sends, the same interval between events) and does nothing else.
// Every POST gets the captured headers at once with frame 0, then frame i at start + i × INTERVAL,
// and the last frame with the end of the body. One timer for all streams: a min-heap of the
// streams' next due times, one setTimeout for the earliest; each tick writes every frame due
// (the frames of one stream due together in one write). A stream whose socket buffer is full
// skips its turns until `drain`, then sends what is due. This is the least any pacer in Node
// can cost on this machine, which bench/timing.mjs measures ours against.
//
// Usage: node floor.mjs ANSWER.json INTERVAL_MS [--workers N]
//   ANSWER.json: { "headers": { name: value }, "frames": [string, ...] }
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [file, intervalArg, ...rest] = process.argv.slice(2);
const INTERVAL = Number(intervalArg);
const workersAt = rest.indexOf("--workers");
const WORKERS = workersAt >= 0 ? Number(rest[workersAt + 1]) : 1;

if (WORKERS > 1 && cluster.isPrimary) {
  // Workers share the port; the primary prints the one address bench/lib.mjs waits for.
  let port;
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  let listening = 0;
  cluster.on("listening", (_, address) => {
    port = address.port;
    if (++listening === WORKERS) console.log(`listening on http://127.0.0.1:${port}/v1`);
  });
  process.on("SIGTERM", () => {
    for (const w of Object.values(cluster.workers)) w.kill("SIGTERM");
    process.exit(0);
  });
} else {
  serve();
}

function serve() {
  const { headers, frames } = JSON.parse(readFileSync(file, "utf8"));

  /** Min-heap of open streams by their next due time. */
  const heap = [];
  const less = (a, b) => a.due < b.due;
  const push = (s) => {
    let i = heap.push(s) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  };

  let timer;
  let timerAt = Infinity;
  const arm = () => {
    const next = heap.length > 0 ? heap[0].due : Infinity;
    if (next >= timerAt) return;
    clearTimeout(timer);
    timerAt = next;
    timer = setTimeout(tick, Math.max(0, Math.ceil(next - performance.now())));
  };

  /** Writes every frame of `s` due by `now`; false when the stream is over or waits for drain. */
  const run = (s, now) => {
    if (s.res.destroyed) return false;
    let chunk = "";
    while (s.next < frames.length && s.start + s.next * INTERVAL <= now) chunk += frames[s.next++];
    if (s.next === frames.length) {
      s.res.end(chunk);
      return false;
    }
    s.due = s.start + s.next * INTERVAL;
    if (chunk !== "" && !s.res.write(chunk)) {
      s.res.once("drain", () => run(s, performance.now()) && (push(s), arm()));
      return false;
    }
    return true;
  };

  function tick() {
    timerAt = Infinity;
    const now = performance.now();
    while (heap.length > 0 && heap[0].due <= now) {
      const s = pop();
      if (run(s, now)) push(s);
    }
    arm();
  }

  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, headers);
      const s = { res, start: performance.now(), next: 0, due: 0 };
      if (run(s, s.start)) {
        push(s);
        arm();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, "127.0.0.1", () => {
    if (cluster.isPrimary) console.log(`listening on http://127.0.0.1:${server.address().port}/v1`);
  });
  process.on("SIGTERM", () => process.exit(0));
}
