/**
 * The JSON Schema of scenario files, generated from the zod schema (published
 * as scenario.schema.json by scripts/write-schema.mjs). The rules zod checks
 * in refinements reach it through the `.meta()` beside each one (schema.ts);
 * those JSON Schema cannot state are listed in its description.
 */
import { z } from "zod";
import { SEMANTIC_RULES, Scenario } from "./schema.js";

export function scenarioJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(Scenario, { io: "input", target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
  return {
    $schema,
    title: "openresponses-mock scenario",
    description: [
      "One scenario: scripted turns or seeded generation that openresponses-mock plays as Open Responses answers.",
      "Give exactly one of 'turns' and 'generate'.",
      `The server also checks what this schema cannot say: ${SEMANTIC_RULES.map((rule, i) => `(${i + 1}) ${rule}`).join("; ")}.`,
      "`openresponses-mock validate FILE` checks all of it.",
    ].join(" "),
    ...schema,
  };
}

/** scenario.schema.json's exact text (what scripts/write-schema.mjs writes, and a test compares with the committed file). */
export const scenarioJsonSchemaText = (): string => JSON.stringify(scenarioJsonSchema(), null, 2) + "\n";
