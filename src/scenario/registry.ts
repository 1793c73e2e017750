/**
 * The scenarios a server knows, and the choice of one for a request, in the
 * order of the design: the `x-mock-scenario` header, a scenario named like
 * the request's model, the first whose `match` rules fit, the default.
 * Names are only ever looked up in a map: a header never reaches the disk.
 */
import { ApiError } from "../spec/index.js";
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import { nearestName } from "../util/nearest-name.js";
import { lastUserText } from "./conversation.js";
import { ScenarioError } from "./parse.js";
import type { MatchRules, Scenario } from "./schema.js";

/** The built-in scenario every server has. */
export const AUTO_SCENARIO: Scenario = {
  name: "auto",
  description:
    "Behaves like a plausible model: tool calls when tools are offered, answers to tool outputs, JSON for json_schema, reasoning when asked, text otherwise.",
  generate: { strategy: "auto" },
};

export interface ScenarioRegistry {
  /** Every scenario, in load order (match rules are tried in this order). */
  readonly scenarios: readonly Scenario[];
  readonly byName: ReadonlyMap<string, Scenario>;
  /** The scenario used when nothing else applies. */
  readonly defaultScenario: Scenario;
}

/** Why a scenario was chosen: the header, a queued answer, a `use()`, the model name, a match rule, the default. */
export type SelectionReason = "header" | "queue" | "use" | "model" | "match" | "default";

export interface Selection {
  scenario: Scenario;
  reason: SelectionReason;
}

/**
 * What to say after "unknown scenario 'NAME'": the nearest known name if one
 * is close, then every known name — `Did you mean 'hello'? Known scenarios:
 * auto, hello, tools.` The same words wherever a name is refused.
 */
export function knownScenariosHint(name: string, known: Iterable<string>): string {
  const names = [...known].sort();
  const near = nearestName(name, names);
  return `${near !== undefined ? `Did you mean '${near}'? ` : ""}Known scenarios: ${names.join(", ")}.`;
}

/**
 * What `use()` and `POST /__mock/scenarios` were given: a scenario object as
 * it is, or the name of a loaded scenario, looked up (an unknown name is a
 * ScenarioError at `$` that lists the known ones and the nearest).
 */
export function scenarioToUse<T>(registry: ScenarioRegistry, scenario: T | string, label: string): T | Scenario {
  if (typeof scenario !== "string") return scenario;
  const found = registry.byName.get(scenario);
  if (found) return found;
  throw new ScenarioError([
    {
      file: label,
      path: "$",
      message: `no loaded scenario is named '${scenario.slice(0, 80)}'. ${knownScenariosHint(scenario, registry.byName.keys())}`,
    },
  ]);
}

/** A default scenario (option `scenario`, `--scenario`) that no loaded scenario is named. */
export class UnknownScenarioError extends Error {
  /** The name asked for, and what to say next (`knownScenariosHint`). */
  constructor(
    readonly scenario: string,
    readonly hint: string,
  ) {
    super(`Unknown default scenario '${scenario}'. ${hint}`);
    this.name = "UnknownScenarioError";
  }
}

/** Builds a registry; later scenarios with the same name replace earlier ones. */
export function createRegistry(scenarios: readonly Scenario[], defaultName = "auto"): ScenarioRegistry {
  const byName = new Map<string, Scenario>([[AUTO_SCENARIO.name, AUTO_SCENARIO]]);
  for (const s of scenarios) byName.set(s.name, s);
  const defaultScenario = byName.get(defaultName);
  if (!defaultScenario) throw new UnknownScenarioError(defaultName, knownScenariosHint(defaultName, byName.keys()));
  return { scenarios: [...byName.values()], byName, defaultScenario };
}

/** The 400 for an `x-mock-scenario` header that names no scenario (HTTP and WebSocket alike). */
export function unknownScenarioHeader(registry: ScenarioRegistry, header: string): ApiError {
  return new ApiError({
    status: 400,
    type: "invalid_request",
    code: "unknown_scenario",
    param: "x-mock-scenario",
    message: `Unknown scenario '${header.slice(0, 80)}' in x-mock-scenario. ${knownScenariosHint(header, registry.byName.keys())}`,
  });
}

const regexCache = new WeakMap<MatchRules, RegExp>();

/** Whether a scenario's match rules all hold for a request. */
export function matches(rules: MatchRules, request: CreateResponseBody, items: readonly ItemParam[]): boolean {
  const text = rules.contains !== undefined || rules.matches !== undefined ? lastUserText(items) : "";
  if (rules.contains !== undefined && !text.toLowerCase().includes(rules.contains.toLowerCase())) return false;
  if (rules.matches !== undefined) {
    let re = regexCache.get(rules);
    if (!re) regexCache.set(rules, (re = new RegExp(rules.matches, "u")));
    if (!re.test(text)) return false;
  }
  if (rules.model !== undefined && request.model !== rules.model) return false;
  if (
    rules.tool !== undefined &&
    !(request.tools ?? []).some((t) => t.type === "function" && (t as { name: string }).name === rules.tool)
  )
    return false;
  if (rules.afterToolOutput !== undefined && (items.at(-1)?.type === "function_call_output") !== rules.afterToolOutput)
    return false;
  if (rules.metadata !== undefined) {
    for (const [k, v] of Object.entries(rules.metadata)) if (request.metadata?.[k] !== v) return false;
  }
  return true;
}

/**
 * Chooses the scenario for a request. `header` is the x-mock-scenario value,
 * if any; `forced` a queued answer or a `use()` of the request's session,
 * which come right after the header.
 */
export function selectScenario(
  registry: ScenarioRegistry,
  request: CreateResponseBody,
  items: readonly ItemParam[],
  header?: string,
  forced?: Selection,
): Selection {
  if (header !== undefined && header !== "") {
    const named = registry.byName.get(header);
    if (!named) throw unknownScenarioHeader(registry, header);
    return { scenario: named, reason: "header" };
  }
  if (forced) return forced;
  const byModel = registry.byName.get(request.model);
  if (byModel) return { scenario: byModel, reason: "model" };
  for (const scenario of registry.scenarios) {
    if (scenario.match && matches(scenario.match, request, items)) return { scenario, reason: "match" };
  }
  return { scenario: registry.defaultScenario, reason: "default" };
}
