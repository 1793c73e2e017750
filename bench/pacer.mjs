// npm run bench:pacer -- [STREAMS=500] [--no-timeline]: the CPU our own code spends per paced
// event, with no I/O: STREAMS long answers (the long-text scenario, ~485 events each) played
// 20 ms apart through the real pipeline — the answer's events produced as they come due, the
// schedule, the pacer and its shared tick, the inspector's timeline, the SSE sink and its frames
// — into responses that only count the bytes, on a ManualClock moved 1 ms at a time. Streams
// start 4 ms apart, so most are open at once and out of phase, as in bench:timing.
//
// It isolates what bench:timing's "server CPU per event" holds of ours: that figure adds
// Node's HTTP write path and the kernel's, which the floor pays too. Run `npm run build` first.
import { planRequest, withLazyEvents } from "../dist/emit/index.js";
import { DEFAULT_DIALECT } from "../dist/dialect/index.js";
import { createRng } from "../dist/generate/index.js";
import { sseSink } from "../dist/http/sse.js";
import { parseCreateRequest } from "../dist/http/validate.js";
import { Timeline } from "../dist/journal/timeline.js";
import { tracedSink } from "../dist/journal/traced-sink.js";
import { LIBRARY_DIR, loadScenarios } from "../dist/scenario/load.js";
import { createRegistry } from "../dist/scenario/registry.js";
import { ManualClock } from "../dist/timing/clock.js";
import { playSchedule } from "../dist/timing/pacer.js";
import { scheduleCursor } from "../dist/timing/schedule.js";

const args = process.argv.slice(2);
const STREAMS = Number(args.find((a) => !a.startsWith("-")) ?? 500);
const timeline = !args.includes("--no-timeline");
const library = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
const registry = createRegistry(library);
const scenario = library.find((s) => s.name === "long-text");
const profile = { latencyMs: 0, chunkMs: 20, jitterMs: 0, tokensPerSecond: null, heartbeatMs: 15_000 };
const clock = new ManualClock(0);

let writes = 0;
/** What the sink needs of a ServerResponse; writes only count. */
const response = () => ({
  destroyed: false,
  writableEnded: false,
  headersSent: false,
  socket: null,
  writeHead() {
    this.headersSent = true;
  },
  write() {
    writes++;
    return true;
  },
  end() {
    writes++;
    this.writableEnded = true;
  },
  destroy() {},
  on() {},
  off() {},
  once() {},
});

async function run() {
  writes = 0;
  const streams = [];
  for (let s = 0; s < STREAMS; s++) {
    const request = parseCreateRequest(
      { model: "mock-model-1", input: `Pacing ${s}`, stream: true },
      { strict: false },
    );
    const planned = planRequest({
      registry,
      request,
      seed: 1,
      createdAt: 1_767_225_600,
      selected: { scenario, reason: "header" },
    });
    const answer = withLazyEvents(planned);
    const cursor = scheduleCursor(answer.events, profile, createRng(`${planned.seed}|timing`), {});
    const sink = sseSink(response(), answer.events, DEFAULT_DIALECT, planned.plan, {});
    const traced = timeline
      ? tracedSink(sink, new Timeline(0, 100_000, { grow: () => true }), { now: () => clock.now(), done: true })
      : sink;
    streams.push({ cursor, sink: traced, start: s * 4 });
  }
  const played = [];
  const before = process.cpuUsage();
  let started = 0;
  for (let t = 0; started < STREAMS || clock.pending > 0; t++) {
    while (started < STREAMS && streams[started].start <= t) {
      const s = streams[started++];
      played.push(playSchedule(s.cursor, s.sink, { clock, start: clock.now() }));
    }
    await clock.advance(1);
  }
  await Promise.all(played);
  const used = process.cpuUsage(before);
  return { writes, userUs: used.user / writes, systemUs: used.system / writes };
}

await run(); // warm-up (JIT)
const r = await run();
console.log(
  `bench:pacer — ${STREAMS} streams × ~485 events, 20 ms apart, ${timeline ? "with" : "without"} the timeline, no I/O: ` +
    `${r.writes} writes, ${r.userUs.toFixed(2)} µs user + ${r.systemUs.toFixed(2)} µs system of CPU per event`,
);
