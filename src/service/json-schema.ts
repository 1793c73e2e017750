/**
 * The JSON Schema of service files, generated from the zod schema (published
 * as service.schema.json by scripts/write-schema.mjs). The rules JSON Schema
 * cannot state are listed in its description (SERVICE_SEMANTIC_RULES).
 */
import { z } from "zod";
import { SERVICE_SEMANTIC_RULES, ServiceFile } from "./schema.js";

export function serviceJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(ServiceFile, { io: "input", target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
  return {
    $schema,
    title: "openresponses-mock service",
    description: [
      "The service openresponses-mock plays (serve --service FILE): models with prices, limits, capacity and a latency profile; limits per API key; named latency profiles.",
      `The server also checks what this schema cannot say: ${SERVICE_SEMANTIC_RULES.map((rule, i) => `(${i + 1}) ${rule}`).join("; ")}.`,
      "`openresponses-mock validate FILE` checks all of it.",
    ].join(" "),
    ...schema,
  };
}

/** service.schema.json's exact text (what scripts/write-schema.mjs writes, and a test compares with the committed file). */
export const serviceJsonSchemaText = (): string => JSON.stringify(serviceJsonSchema(), null, 2) + "\n";
