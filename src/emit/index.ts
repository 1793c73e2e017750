/** The pure engine: plan → events, and events → response (the fold). */
export { emitEvents, emitStream, emitFinal, copyJson, type EmittedStream } from "./emit-events.js";
export { foldEvents, FoldError } from "./fold.js";
export { answerRequest, planRequest, withEvents, finalOnly, type Answer, type AnswerInput, type PlannedAnswer } from "./answer.js";
