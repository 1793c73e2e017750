/** The JSON Schema of scenario files, generated from the zod schema (published as scenario.schema.json). */
import { z } from "zod";
import { Scenario } from "./schema.js";

export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Scenario, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    title: "openresponses-mock scenario",
    description: "One scenario: scripted turns or seeded generation that openresponses-mock plays as Open Responses answers.",
    ...schema,
  };
}
