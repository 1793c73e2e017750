/** Where time comes from. Tests pass a fixed or manual clock. */

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that always says `ms` (e.g. to pin `created_at` in tests). */
export const fixedClock = (ms: number): Clock => ({ now: () => ms });
