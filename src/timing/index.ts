/**
 * Time: the pure schedule (events + profile + rng → times of events,
 * heartbeats and faults), the Clock interface with a real and a manual
 * implementation, and the pacer that plays a schedule through a clock.
 */
export * from "./clock.js";
export * from "./profile.js";
export * from "./schedule.js";
export * from "./pacer.js";
export * from "./latency.js";
