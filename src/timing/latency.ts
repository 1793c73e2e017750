/**
 * Latency profiles in the schedule: time to first token (TTFT) and
 * inter-token latency (ITL) drawn from log-normal distributions, and ITL
 * slowed by load. Pure: the uniform draws come from the schedule's seeded
 * rng and the load from a function the turn passes in, so the same seed and
 * request give the same latencies.
 *
 * A distribution is given by its median and 99th percentile: the log-normal
 * with μ = ln(median) and σ = ln(p99 / median) / z₀.₉₉ (z₀.₉₉ ≈ 2.3263). A
 * draw is `exp(μ + σ·Φ⁻¹(u))` for one uniform `u` of the rng: one uniform per
 * draw, so a stream's draws stay in step with its seed.
 */

/** A latency distribution: its median and 99th percentile in ms (as `Distribution` in src/service/service.ts). */
export interface LatencyDistribution {
  medianMs: number;
  p99Ms: number;
}

/**
 * What a latency profile puts in one answer's schedule. A part is undefined
 * where the answer's explicit timing replaces it (a `latencyMs` given
 * replaces the TTFT draw; a `chunkMs` or `tokensPerSecond` given replaces the
 * ITL draws), or where the profile's median is 0.
 */
export interface LatencyDraws {
  /** The gap before the first event. */
  ttft: LatencyDistribution | undefined;
  /** The gap per token of a text delta. */
  itl: LatencyDistribution | undefined;
  /** ITL × (1 + k × (active − 1) / capacity); k = 0: no slowdown. */
  slowdown: { k: number; capacity: number };
  /** How many answers of the model are playing now, this one included; read at each ITL gap when k > 0. */
  load: (() => number) | undefined;
}

/** Φ⁻¹(0.99): the standard normal's 99th percentile. */
export const Z99 = 2.3263478740408408;

/** μ and σ of the log-normal with this median and p99 (σ = 0 for a p99 at or under the median: every draw is the median). */
export function logNormalOf(d: LatencyDistribution): { mu: number; sigma: number } {
  const mu = Math.log(d.medianMs);
  const sigma = d.p99Ms > d.medianMs ? Math.log(d.p99Ms / d.medianMs) / Z99 : 0;
  return { mu, sigma };
}

// Acklam's rational approximation of the normal quantile (relative error < 1.2e-9).
const A0 = -3.969683028665376e1,
  A1 = 2.209460984245205e2,
  A2 = -2.759285104469687e2,
  A3 = 1.38357751867269e2,
  A4 = -3.066479806614716e1,
  A5 = 2.506628277459239;
const B0 = -5.447609879822406e1,
  B1 = 1.615858368580409e2,
  B2 = -1.556989798598866e2,
  B3 = 6.680131188771972e1,
  B4 = -1.328068155288572e1;
const C0 = -7.784894002430293e-3,
  C1 = -3.223964580411365e-1,
  C2 = -2.400758277161838,
  C3 = -2.549732539343734,
  C4 = 4.374664141464968,
  C5 = 2.938163982698783;
const D0 = 7.784695709041462e-3,
  D1 = 3.224671290700398e-1,
  D2 = 2.445134137142996,
  D3 = 3.754408661907416;
const P_LOW = 0.02425;
/** The smallest uniform used: the rng's 0 would be −∞. */
const P_MIN = 1e-12;

/** The standard normal quantile Φ⁻¹(p), for p in (0, 1) (clamped to [1e-12, 1 − 1e-12]). */
export function normalQuantile(p: number): number {
  if (p < P_MIN) p = P_MIN;
  else if (p > 1 - P_MIN) p = 1 - P_MIN;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((C0 * q + C1) * q + C2) * q + C3) * q + C4) * q + C5) / ((((D0 * q + D1) * q + D2) * q + D3) * q + 1);
  }
  if (p > 1 - P_LOW) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -((((((C0 * q + C1) * q + C2) * q + C3) * q + C4) * q + C5) / ((((D0 * q + D1) * q + D2) * q + D3) * q + 1));
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A0 * r + A1) * r + A2) * r + A3) * r + A4) * r + A5) * q) /
    (((((B0 * r + B1) * r + B2) * r + B3) * r + B4) * r + 1)
  );
}

/** One log-normal draw for the uniform `u` in [0, 1). */
export const drawLogNormal = (mu: number, sigma: number, u: number): number =>
  sigma === 0 ? Math.exp(mu) : Math.exp(mu + sigma * normalQuantile(u));

/** The ITL factor under load: 1 + k × (active − 1) / capacity (active counts this answer; below 1 is taken as 1). */
export function slowdownFactor(slowdown: { k: number; capacity: number }, active: number): number {
  return active > 1 ? 1 + (slowdown.k * (active - 1)) / slowdown.capacity : 1;
}
