/** The pure engine: plan → events, and events → response (the fold). */
export { emitEvents } from "./emit-events.js";
export { foldEvents, FoldError } from "./fold.js";
