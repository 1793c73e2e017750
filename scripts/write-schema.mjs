// Writes scenario.schema.json and service.schema.json from the built zod
// schemas: run after tsc. With arguments, writes only those given:
// `write-schema.mjs SCENARIO_OUT [SERVICE_OUT]`.
// test/scenario/schema-agreement.test.ts and test/service/schema-agreement.test.ts
// fail when a committed file is not what this writes.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { scenarioJsonSchemaText } from "../dist/scenario/json-schema.js";
import { serviceJsonSchemaText } from "../dist/service/json-schema.js";

const [scenarioOut, serviceOut] = process.argv.slice(2);
if (scenarioOut !== undefined || serviceOut === undefined) {
  writeFileSync(
    scenarioOut ? resolve(scenarioOut) : new URL("../scenario.schema.json", import.meta.url),
    scenarioJsonSchemaText(),
  );
}
if (serviceOut !== undefined || scenarioOut === undefined) {
  writeFileSync(
    serviceOut ? resolve(serviceOut) : new URL("../service.schema.json", import.meta.url),
    serviceJsonSchemaText(),
  );
}
