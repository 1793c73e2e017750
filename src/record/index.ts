/**
 * Recording: a proxied exchange as a scenario file that `serve --scenarios`
 * replays. from-exchange.ts is pure (exchange in, scenario out); writer.ts
 * is the file-system shell.
 */
export {
  recordInto,
  turnOf,
  conversationName,
  matchRule,
  chunkingOf,
  timingOf,
  userTextPerTurn,
  type Exchange,
  type RecordedAnswer,
  type RecordedEvent,
} from "./from-exchange.js";
export { Recorder, redact, type Recorded } from "./writer.js";
