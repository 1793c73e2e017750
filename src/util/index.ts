/**
 * Small pure helpers with no home of their own, used by any layer (they
 * import nothing of the project): the nearest known name to a mistyped one.
 */
export * from "./nearest-name.js";
