/** A plan for any scenario: scripted turns, `auto`, or seeded-random. */
import type { Scenario } from "../scenario/schema.js";
import { planAuto } from "./auto.js";
import type { GenerateContext } from "./context.js";
import type { Plan } from "./plan.js";
import { planRandom } from "./random.js";
import { planScripted } from "./scripted.js";

export function planScenario(scenario: Scenario, ctx: GenerateContext): Plan {
  if (scenario.turns) return planScripted(scenario as Scenario & { turns: NonNullable<Scenario["turns"]> }, ctx);
  const generate = scenario.generate!;
  switch (generate.strategy) {
    case "auto":
      return planAuto(ctx, scenario);
    case "random":
      return planRandom(generate, ctx, scenario);
  }
}
