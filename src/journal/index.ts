/** The request journal (what tests assert on). */
export * from "./journal.js";
export * from "./serialize.js";
export * from "./timeline.js";
export * from "./trace.js";
