/**
 * Generation: scenario + request + rng → a plan. Pure: no I/O, no timers;
 * the rng is passed in.
 */
export * from "./plan.js";
export * from "./context.js";
export * from "./rng.js";
export * from "./seed.js";
export * from "./tokens.js";
export * from "./chunk.js";
export * from "./conversation.js";
export * from "./response-base.js";
export { planAuto, planOptions, callableTools } from "./auto.js";
export { sampleJsonSchema } from "./json-schema-sample.js";
