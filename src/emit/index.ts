/** The pure engine: plan → events, and events → response (the fold). */
export { emitEvents, emitStream, type EmittedStream } from "./emit-events.js";
export { foldEvents, FoldError } from "./fold.js";
export { answerRequest, type Answer, type AnswerInput } from "./answer.js";
