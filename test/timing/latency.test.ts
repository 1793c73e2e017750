/**
 * Latency profiles in the pure schedule: TTFT and inter-token draws follow
 * the profile's log-normal (median and p99), a delta of n tokens waits n
 * draws, other events come with their neighbour, the slowdown law under
 * load, determinism from the seed; and which profile an answer gets
 * (timingOf: x-mock-profile > the model's > the server's) and what explicit
 * timing replaces of it.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../src/generate/rng.js";
import { BUILTIN_PROFILES, defaultService, type LatencyProfile, type Service } from "../../src/service/service.js";
import { logNormalOf, normalQuantile, slowdownFactor, type LatencyDraws } from "../../src/timing/latency.js";
import { mergeProfiles, ZERO_PROFILE } from "../../src/timing/profile.js";
import { buildSchedule, type Slot } from "../../src/timing/schedule.js";
import type { StreamEvent } from "../../src/spec/index.js";
import { timingOf } from "../../src/turn/turn.js";
import { ActiveStreams } from "../../src/turn/load.js";
import type { RequestControls } from "../../src/turn/control-headers.js";

const PROFILES = new Map(BUILTIN_PROFILES.map((p) => [p.name, p]));
const typical = PROFILES.get("typical")!;
const slow = PROFILES.get("slow-reasoning")!;

/** A stream: created, `tokens` deltas of one word each (or the given texts), completed. */
function stream(deltas: number | string[]): StreamEvent[] {
  const texts = typeof deltas === "number" ? Array.from({ length: deltas }, () => " word") : deltas;
  return [
    { type: "response.created" },
    { type: "response.output_item.added" },
    ...texts.map((delta) => ({ type: "response.output_text.delta", delta })),
    { type: "response.output_text.done" },
    { type: "response.output_item.done" },
    { type: "response.completed" },
  ] as unknown as StreamEvent[];
}

const draws = (profile: LatencyProfile, load?: () => number): LatencyDraws => ({
  ttft: profile.ttft,
  itl: profile.itl,
  slowdown: profile.slowdown,
  load,
});

const eventTimes = (slots: Slot[]) => slots.filter((s) => s.kind === "event").map((s) => s.at);

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The gaps before each delta but the first (the first's one token came with the TTFT). */
function deltaGaps(events: StreamEvent[], slots: Slot[]): number[] {
  const times = slots.filter((s) => s.kind === "event") as { at: number; index: number }[];
  const gaps: number[] = [];
  for (let k = 1; k < times.length; k++)
    if (events[times[k].index].type.endsWith(".delta") && events[times[k - 1].index].type.endsWith(".delta"))
      gaps.push(times[k].at - times[k - 1].at);
  return gaps;
}

describe("the log-normal", () => {
  it("has the normal quantile right (Acklam's approximation)", () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.99)).toBeCloseTo(2.3263478740408408, 7);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.3263478740408408, 7);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 7);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 6);
    expect(Number.isFinite(normalQuantile(0))).toBe(true);
  });

  it("takes σ = ln(p99 / median) / 2.3263, and σ = 0 when p99 is the median", () => {
    const { mu, sigma } = logNormalOf({ medianMs: 25, p99Ms: 80 });
    expect(mu).toBeCloseTo(Math.log(25), 12);
    expect(sigma).toBeCloseTo(Math.log(80 / 25) / 2.3263, 4);
    expect(logNormalOf({ medianMs: 10, p99Ms: 10 }).sigma).toBe(0);
  });

  it("slows down by 1 + k × (active − 1) / capacity", () => {
    expect(slowdownFactor({ k: 0.5, capacity: 32 }, 1)).toBe(1);
    expect(slowdownFactor({ k: 0.5, capacity: 32 }, 0)).toBe(1);
    expect(slowdownFactor({ k: 0.5, capacity: 32 }, 9)).toBeCloseTo(1.125, 12);
    expect(slowdownFactor({ k: 1, capacity: 16 }, 17)).toBe(2);
  });
});

describe("a profile in the schedule", () => {
  it("draws inter-token gaps with the profile's median and p99", () => {
    const events = stream(20_000);
    const { slots } = buildSchedule(events, ZERO_PROFILE, createRng("itl"), { latency: draws(typical) });
    const gaps = deltaGaps(events, slots);
    expect(gaps).toHaveLength(19_999);
    expect(Math.abs(quantile(gaps, 0.5) / typical.itl.medianMs - 1)).toBeLessThan(0.03);
    expect(Math.abs(quantile(gaps, 0.99) / typical.itl.p99Ms - 1)).toBeLessThan(0.08);
  });

  it("draws the time to first token with the profile's median and p99, over many requests", () => {
    const events = stream(3);
    const firsts = Array.from({ length: 10_000 }, (_, n) => {
      const { slots } = buildSchedule(events, ZERO_PROFILE, createRng(`seed-${n}|timing`), { latency: draws(slow) });
      return slots[0].at;
    });
    expect(Math.abs(quantile(firsts, 0.5) / slow.ttft.medianMs - 1)).toBeLessThan(0.04);
    expect(Math.abs(quantile(firsts, 0.99) / slow.ttft.p99Ms - 1)).toBeLessThan(0.1);
  });

  it("puts the first token at the TTFT, structural events with their neighbour, and n draws before a delta of n tokens", () => {
    const events = stream([" one", " two three four", " five"]);
    const rng = createRng("shape");
    const { slots } = buildSchedule(events, ZERO_PROFILE, rng, { latency: draws(typical) });
    const times = eventTimes(slots);
    // created, item added, the first delta (one token): all at the TTFT.
    expect(times[0]).toBeGreaterThan(0);
    expect(times[1]).toBe(times[0]);
    expect(times[2]).toBe(times[0]);
    // The done events and completed come with the last delta.
    expect(times.slice(5)).toEqual([times[4], times[4], times[4]]);
    // The draws: one for the TTFT, three for the three-token delta, one for the last.
    const again = createRng("shape");
    const { mu, sigma } = logNormalOf(typical.itl);
    const ttft = logNormalOf(typical.ttft);
    const draw = (m: number, s: number) => Math.exp(m + s * normalQuantile(again.next()));
    expect(times[0]).toBeCloseTo(draw(ttft.mu, ttft.sigma), 9);
    const three = draw(mu, sigma) + draw(mu, sigma) + draw(mu, sigma);
    expect(times[3] - times[2]).toBeCloseTo(three, 9);
    expect(times[4] - times[3]).toBeCloseTo(draw(mu, sigma), 9);
  });

  it("paces a delta of n tokens n times as long, on average", () => {
    const one = stream(6_000);
    const three = stream(Array.from({ length: 2_000 }, () => " a b c"));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const gapsOne = deltaGaps(one, buildSchedule(one, ZERO_PROFILE, createRng("a"), { latency: draws(typical) }).slots);
    const gapsThree = deltaGaps(
      three,
      buildSchedule(three, ZERO_PROFILE, createRng("b"), { latency: draws(typical) }).slots,
    );
    expect(mean(gapsThree) / mean(gapsOne)).toBeGreaterThan(2.85);
    expect(mean(gapsThree) / mean(gapsOne)).toBeLessThan(3.15);
  });

  it("is the same schedule for the same seed, another for another seed", () => {
    const events = stream(50);
    const of = (seed: string) =>
      buildSchedule(events, mergeProfiles({ heartbeatMs: 30, jitterMs: 2 }), createRng(seed), {
        latency: draws(typical),
      });
    expect(of("s1")).toEqual(of("s1"));
    expect(eventTimes(of("s2").slots)).not.toEqual(eventTimes(of("s1").slots));
  });

  it("slows each gap by the law, at the load read as the gap is drawn", () => {
    const events = stream(200);
    const base = buildSchedule(events, ZERO_PROFILE, createRng("load"), { latency: draws(slow, () => 1) });
    let reads = 0;
    // Eight answers playing for the first 100 gaps, then one: the law's factor, then none.
    const loaded = buildSchedule(events, ZERO_PROFILE, createRng("load"), {
      latency: draws(slow, () => (reads++ < 100 ? 8 : 1)),
    });
    const a = deltaGaps(events, base.slots);
    const b = deltaGaps(events, loaded.slots);
    const factor = 1 + (slow.slowdown.k * 7) / slow.slowdown.capacity;
    for (let k = 0; k < 100; k++) expect(b[k] / a[k]).toBeCloseTo(factor, 9);
    for (let k = 100; k < a.length; k++) expect(b[k]).toBeCloseTo(a[k], 9);
    // Read once per delta that waits (the first delta's one token came with the TTFT).
    expect(reads).toBe(199);
    // The TTFT does not slow down.
    expect(loaded.slots[0].at).toBe(base.slots[0].at);
  });

  it("keeps jitter, heartbeats and faults on top", () => {
    const events = stream(40);
    const { slots } = buildSchedule(events, mergeProfiles({ heartbeatMs: 10 }), createRng("hb"), {
      latency: draws(typical),
      faults: { dropAfterEvents: 20 },
    });
    expect(slots.some((s) => s.kind === "heartbeat")).toBe(true);
    expect(slots.at(-1)!.kind).toBe("drop");
    expect(eventTimes(slots)).toHaveLength(20);
  });
});

const controls = (over: Partial<RequestControls> = {}): RequestControls => ({
  seed: undefined,
  scenario: undefined,
  dialect: undefined,
  timing: {},
  profile: undefined,
  fault: undefined,
  strict: undefined,
  ...over,
});

/** A service with a model of its own profile, a default profile for models not listed, and a server profile. */
function service(over: Partial<Service> = {}): Service {
  const base = defaultService();
  return {
    ...base,
    models: new Map([["gpt-fast", { ...base.defaults, id: "gpt-fast", profile: "fast" }]]),
    profile: "typical",
    ...over,
  };
}

const plan = (timing?: Record<string, unknown>) => ({ plan: { timing, fault: undefined } }) as never;

describe("which profile an answer gets (timingOf)", () => {
  it("x-mock-profile beats the model's, which beats the server's (--profile)", () => {
    const deps = { timing: {}, service: service() };
    expect(timingOf(deps, controls(), plan(), "other").latency?.itl).toBe(typical.itl);
    expect(timingOf(deps, controls(), plan(), "gpt-fast").latency?.itl).toBe(PROFILES.get("fast")!.itl);
    expect(timingOf(deps, controls({ profile: slow }), plan(), "gpt-fast").latency?.itl).toBe(slow.itl);
    // The file's default for models it does not list ranks with the model's, over the server's.
    const withDefault = service();
    withDefault.defaults = { ...withDefault.defaults, profile: "slow-reasoning" };
    expect(timingOf({ timing: {}, service: withDefault }, controls(), plan(), "other").latency?.itl).toBe(slow.itl);
  });

  it("is none without a profile, or with instant: today's behaviour, not paced", () => {
    const none = timingOf({ timing: {}, service: defaultService() }, controls(), plan(), "m");
    expect(none).toEqual({
      profile: ZERO_PROFILE,
      stepDelays: true,
      faults: {},
      paced: false,
      latency: undefined,
    });
    const instant = timingOf(
      { timing: {}, service: service() },
      controls({ profile: PROFILES.get("instant") }),
      plan(),
      "gpt-fast",
    );
    expect(instant.latency).toBeUndefined();
    expect(instant.paced).toBe(false);
    expect(timingOf({ timing: {}, service: service() }, controls(), plan(), "m").paced).toBe(true);
  });

  it("lets a latency given anywhere replace the TTFT draw, and a pace given anywhere the ITL draws", () => {
    const deps = { timing: {}, service: service() };
    const header = timingOf(deps, controls({ timing: { latencyMs: 7 } }), plan(), "m");
    expect(header.latency).toMatchObject({ ttft: undefined, itl: typical.itl });
    expect(header.profile.latencyMs).toBe(7);
    expect(timingOf({ ...deps, timing: { latencyMs: 0 } }, controls(), plan(), "m").latency?.ttft).toBeUndefined();
    expect(timingOf(deps, controls(), plan({ latencyMs: 3 }), "m").latency?.ttft).toBeUndefined();
    expect(timingOf(deps, controls({ timing: { chunkMs: 5 } }), plan(), "m").latency).toMatchObject({
      ttft: typical.ttft,
      itl: undefined,
    });
    expect(timingOf(deps, controls({ timing: { tokensPerSecond: 50 } }), plan(), "m").latency?.itl).toBeUndefined();
    expect(timingOf(deps, controls(), plan({ chunkMs: 0 }), "m").latency?.itl).toBeUndefined();
    // Both replaced: nothing of the profile is left.
    expect(timingOf(deps, controls({ timing: { latencyMs: 0, chunkMs: 0 } }), plan(), "m").latency).toBeUndefined();
  });

  it("replaces a recorded pace (and its step delays) with the profile", () => {
    const deps = { timing: {}, service: service() };
    const recorded = timingOf(deps, controls(), plan({ recorded: true, latencyMs: 300, chunkMs: 12 }), "m");
    expect(recorded.latency).toMatchObject({ ttft: typical.ttft, itl: typical.itl });
    expect(recorded.stepDelays).toBe(false);
    expect(timingOf(deps, controls(), plan({ chunkMs: 12 }), "m").stepDelays).toBe(true);
  });

  it("reads the model's load only for a profile that slows down", () => {
    const active = new ActiveStreams();
    active.enter("m");
    active.enter("m");
    active.enter("other");
    const deps = { timing: {}, service: service(), active };
    expect(timingOf(deps, controls(), plan(), "m").latency!.load!()).toBe(2);
    active.leave("m");
    expect(timingOf(deps, controls(), plan(), "m").latency!.load!()).toBe(1);
    const flat: LatencyProfile = { ...typical, name: "flat", slowdown: { k: 0, capacity: 1 } };
    expect(timingOf(deps, controls({ profile: flat }), plan(), "m").latency!.load).toBeUndefined();
  });
});
