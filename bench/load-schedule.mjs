// The schedule our server draws for one answer under a latency profile, computed with its
// own code (dist/): the frames' events, the request's seed string, the profile, and the
// load the server's process sees (`active` answers of the model playing at once). What
// bench/load.mjs holds both servers' arrivals against.
import { requestSeed } from "../dist/generate/index.js";
import { createRng } from "../dist/generate/rng.js";
import { BUILTIN_PROFILES } from "../dist/service/service.js";
import { ZERO_PROFILE } from "../dist/timing/profile.js";
import { buildSchedule } from "../dist/timing/schedule.js";

/**
 * The due offset (ms from the request) of each frame: `frames` as captured ([DONE] joined
 * to the last event), `seed` the server's, `requestSeed` the request's x-mock-seed, `body`
 * the request.
 */
export function expectedOffsets({ frames, seed, body, profile, active }) {
  const chosen = BUILTIN_PROFILES.find((p) => p.name === profile);
  if (!chosen) throw new Error(`unknown profile ${profile}`);
  const events = frames.map((frame) => {
    const data = /^data: (.*)$/m.exec(frame)?.[1];
    return JSON.parse(data);
  });
  const latency = {
    ttft: chosen.ttft.medianMs > 0 ? chosen.ttft : undefined,
    itl: chosen.itl.medianMs > 0 ? chosen.itl : undefined,
    slowdown: chosen.slowdown,
    load: () => active,
  };
  const seedString = requestSeed(seed, body);
  const schedule = buildSchedule(events, ZERO_PROFILE, createRng(`${seedString}|timing`), { latency });
  return schedule.slots.filter((s) => s.kind === "event").map((s) => s.at);
}
