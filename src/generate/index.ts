/**
 * Generation: scenario + request + rng → a plan. Pure: no I/O, no timers;
 * the rng is passed in.
 */
export * from "./plan.js";
export * from "./context.js";
export * from "./ids.js";
export * from "./rng.js";
export * from "./seed.js";
export * from "./tokens.js";
export * from "./chunk.js";
export * from "./input-tokens.js";
export * from "./response-base.js";
export { planAuto, callableTools } from "./auto.js";
export { assemblePlan, planOptions } from "./assemble.js";
export { planScripted, planSteps, turnFor, httpErrorOf, chunkWith } from "./scripted.js";
export { sampleJsonSchema } from "./json-schema-sample.js";
export { planRandom, drawKind, ANSWER_KINDS, type AnswerKind } from "./random.js";
export { planScenario } from "./scenario-plan.js";
export { compactConversation, expandCompactions, COMPACTION_PREFIX, type CompactResource } from "./compact.js";
