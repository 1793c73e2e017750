// Writes scenario.schema.json (or the file given as the first argument) from
// the built zod schema: run after tsc. test/scenario/schema-agreement.test.ts
// fails when the committed file is not what this writes.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { scenarioJsonSchemaText } from "../dist/scenario/json-schema.js";

const target = process.argv[2] ? resolve(process.argv[2]) : new URL("../scenario.schema.json", import.meta.url);
writeFileSync(target, scenarioJsonSchemaText());
