// Writes scenario.schema.json from the built zod schema (run after tsc).
import { writeFileSync } from "node:fs";
import { scenarioJsonSchema } from "../dist/scenario/json-schema.js";

const target = new URL("../scenario.schema.json", import.meta.url);
writeFileSync(target, JSON.stringify(scenarioJsonSchema(), null, 2) + "\n");
