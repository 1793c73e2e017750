/**
 * The seeded random source. It is created per request from a seed string and
 * passed in everywhere; nothing in the project keeps module-level randomness.
 */
import seedrandom from "seedrandom";

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Integer in [min, max], both ends included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** `length` random characters from [0-9a-zA-Z]. */
  chars(length: number): string;
}

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A deterministic rng: the same seed gives the same sequence on every machine. */
export function createRng(seed: string): Rng {
  const source = seedrandom.alea(seed);
  const next = () => source();
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    chars: (length) => {
      let out = "";
      for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * 62)];
      return out;
    },
  };
}
