/**
 * The conformance checker: is this answer what the Open Responses spec (or
 * the `openai` dialect) allows? Pure: text, frames, events and bodies go in,
 * violations come out; no I/O, no timers, no clock. The `check` command and
 * the proxy are the shells around it.
 *
 * ```ts
 * const checker = new StreamChecker({ request, dialect: "open-responses", status, contentType });
 * for await (const chunk of body) report(checker.write(chunk)); // violations as they show
 * const verdict = checker.end();                               // the final verdict
 * ```
 *
 * Its schemas are its own, written from openapi.json (schemas.ts); it does
 * not use the server's src/spec, nor is it used by test/compliance, so each
 * checks the other.
 */
export {
  RULES,
  ViolationList,
  jsonPath,
  pathPattern,
  type RuleId,
  type Violation,
  type ViolationLimits,
} from "./rules.js";
export {
  CHECK_DIALECTS,
  DIALECT_RULES,
  dialectRules,
  isCheckDialect,
  type CheckDialect,
  type DialectRules,
} from "./dialects.js";
export { SseDecoder, decodeSse, type SseFrame } from "./sse.js";
export { StreamChecker, checkStream, mediaType, type StreamCheckOptions, type StreamVerdict } from "./stream.js";
export { checkAnswer, checkErrorBody, checkResponseBody, type AnswerInput, type Verdict } from "./http.js";
export { responseViolations, usageViolations } from "./response.js";
export { echoViolations, jsonEqual } from "./echo.js";
export {
  BATTERY,
  BATTERY_NAMES,
  judgeAnswer,
  runBattery,
  type BatteryReport,
  type BatteryRequest,
  type CheckResult,
  type CheckViolation,
  type RawAnswer,
  type RunOptions,
  type Send,
} from "./battery.js";
export { checkCompactBody, COMPACT_NOT_SERVED } from "./compact.js";
export {
  runWebSocketCheck,
  WEBSOCKET_CHECKS,
  WEBSOCKET_CHECK_NAMES,
  WEBSOCKET_NOT_SERVED,
  type WsConnect,
  type WsConnection,
  type WsFrame,
  type WsOpen,
  type WsRead,
} from "./websocket.js";
export {
  BRIDGE_CHECKS,
  BRIDGE_CHECK_NAMES,
  DEFAULT_SLOW_UPSTREAM_MS,
  faultCutViolations,
  faultStatusViolations,
  fidelityViolations,
  responsesTranslationViolations,
  runBridgeBench,
  slowNote,
  translationViolations,
  UPSTREAM_APIS,
  UPSTREAM_JUDGES,
  type BridgeIo,
  type BridgeRunOptions,
  type BridgeSide,
  type UpstreamApi,
  type UpstreamJudge,
  type UpstreamRequest,
  type UpstreamTurn,
} from "./bridge.js";
export { formatReport, groupViolations, jsonReport, type TextReportOptions, type ViolationGroup } from "./report.js";
export {
  baseUrlHints,
  givenEndpoint,
  needsPathProbe,
  servedByBattery,
  specEndpoint,
  type PathProbe,
} from "./base-url.js";
