/**
 * The spec model: zod schemas for every request, response, item, content part,
 * streaming event and error of Open Responses (release 2026-04-24), and the
 * types inferred from them. One source of truth for names.
 *
 * Where OpenAI accepts more than the spec (openai-tools.ts, openai-items.ts),
 * the plain name (`CreateResponseBody`, `ItemParam`, `ToolParam`, …) is what
 * the server accepts by default, and `Spec…` exactly the spec: what
 * `--strict` accepts.
 */
export * from "./common.js";
export * from "./content.js";
export * from "./items.js";
export * from "./tools.js";
export * from "./openai-items.js";
export * from "./openai-tools.js";
export * from "./request.js";
export * from "./response.js";
export * from "./events.js";
export * from "./errors.js";
export { tagged } from "./tagged.js";
