/**
 * Scenarios: the file format (zod, and the JSON Schema generated from it),
 * parsing with errors that name file and JSON path, the registry and the
 * selection rules. Everything here is pure but `load.ts`, the only code that
 * touches the file system.
 */
export * from "./schema.js";
export * from "./parse.js";
export * from "./registry.js";
export * from "./conversation.js";
export { scenarioJsonSchema } from "./json-schema.js";
