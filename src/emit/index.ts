/** The pure engine: plan → events, and events → response (the fold). */
export {
  emitEvents,
  emitStream,
  emitFinal,
  copyJson,
  EventSource,
  EventWindow,
  type EmittedStream,
} from "./emit-events.js";
export { foldEvents, FoldError } from "./fold.js";
export { directFinal, finalResponse } from "./final.js";
export {
  answerRequest,
  planRequest,
  withEvents,
  withLazyEvents,
  withStreamEvents,
  finalOnly,
  type Answer,
  type AnswerInput,
  type LazyAnswer,
  type PlannedAnswer,
} from "./answer.js";
