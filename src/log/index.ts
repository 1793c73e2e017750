/**
 * The request log: what a server says at start, for each request as it ends,
 * and at stop — pure line formats (format.ts) and the writer that follows the
 * journal (logger.ts). It reads journal entries; it never changes them.
 */
export * from "./format.js";
export * from "./logger.js";
