/**
 * openresponses-mock: a mock and reference server for the Open Responses API.
 *
 * ```ts
 * import { startMockServer } from "openresponses-mock";
 * const mock = await startMockServer({ port: 0, seed: 1 });
 * // new OpenAI({ baseURL: mock.baseURL, apiKey: "test" })
 * await mock.close();
 * ```
 */
export {
  startMockServer,
  loadRegistry,
  type MockServer,
  type MockSession,
  type MockControls,
  type TurnInput,
  type ExpectRulesInput,
} from "./server.js";
export type { ExpectationReport, ExpectationStatus, ExpectRule } from "./scenario/expect.js";
export type { JournalEntry, JournalLimits } from "./journal/journal.js";
export {
  LimitsError,
  type LimitsPatch,
  type LimitsView,
  type UsageReport,
  type UsageTotals,
} from "./service/limits.js";
export type { Scenario, ScenarioInput } from "./scenario/schema.js";
export { ScenarioError, type ScenarioIssue } from "./scenario/parse.js";
export { ServiceError, type ServiceIssue } from "./service/parse.js";
export { ServerOptions, resolveOptions, type ServerOptionsInput, type ResolvedServerOptions } from "./options.js";
export { emitEvents, foldEvents, FoldError } from "./emit/index.js";
export { fixedClock, systemClock, ManualClock, type Clock } from "./timing/clock.js";
export type { Plan, PlanItem, PlanOutcome } from "./generate/plan.js";
export * as spec from "./spec/index.js";
export * as check from "./check/index.js";
export type { LiveChecker, LiveCheck, LiveCheckRequest, LiveViolation } from "./proxy/live-check.js";
