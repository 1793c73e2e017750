// The floor's pacer: the least any pacer in Node can do. One timer for all streams: a
// min-heap of the streams' next due times, one setTimeout for the earliest; each tick writes
// every frame due (the frames of one stream due together in one write). A stream whose socket
// buffer is full skips its turns until `drain`, then sends what is due. Used by floor.mjs
// (one answer, a fixed interval) and floor-load.mjs (many answers, each on its own offsets).

/**
 * A pacer: `play(res, frames, dueAt)` writes `frames[i]` at `start + dueAt(i)` ms (start: the
 * call), ending the response with the last frame.
 */
export function createPacer() {
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
    const { frames, dueAt } = s;
    let chunk = "";
    while (s.next < frames.length && s.start + dueAt(s.next) <= now) chunk += frames[s.next++];
    if (s.next === frames.length) {
      s.res.end(chunk);
      return false;
    }
    s.due = s.start + dueAt(s.next);
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

  return {
    play(res, frames, dueAt) {
      const s = { res, frames, dueAt, start: performance.now(), next: 0, due: 0 };
      if (run(s, s.start)) {
        push(s);
        arm();
      }
    },
  };
}

/** Runs `serve()` in this process, or in `workers` cluster workers behind one port (the primary prints the address). */
export async function serveOnWorkers(workers, serve) {
  const { default: cluster } = await import("node:cluster");
  if (workers > 1 && cluster.isPrimary) {
    let listening = 0;
    for (let i = 0; i < workers; i++) cluster.fork();
    cluster.on("listening", (_, address) => {
      if (++listening === workers) console.log(`listening on http://127.0.0.1:${address.port}/v1`);
    });
    process.on("SIGTERM", () => {
      for (const w of Object.values(cluster.workers)) w.kill("SIGTERM");
      process.exit(0);
    });
    return;
  }
  const server = serve();
  server.keepAliveTimeout = 5_000;
  server.listen(0, "127.0.0.1", () => {
    if (cluster.isPrimary) console.log(`listening on http://127.0.0.1:${server.address().port}/v1`);
  });
  process.on("SIGTERM", () => process.exit(0));
}
