/**
 * Small pure helpers with no home of their own, used by any layer (they
 * import nothing of the project): the nearest known name to a mistyped one,
 * the oldest key of a bounded Map, a copy that gains keys, a string's UTF-8
 * length and prefix.
 */
export * from "./copy-with.js";
export * from "./nearest-name.js";
export * from "./oldest-keys.js";
export * from "./utf8.js";
