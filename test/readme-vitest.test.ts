/**
 * The README's vitest examples (```ts blocks that import "vitest"), run as
 * vitest tests: each is written to a file inside the package (so that
 * "openresponses-mock/vitest" resolves to the built package, dist/) and
 * imported while this file is collected, so its hooks and tests are this
 * file's, in a describe block of their own. test/readme.test.ts type-checks them.
 *
 * Needs `npm run build` (dist/) first, as `npm test` does.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, tsSnippets } from "./support/readme-snippets.js";

const examples = tsSnippets().filter((s) => s.kind === "vitest");
const dir = mkdtempSync(join(fileURLToPath(ROOT), ".readme-vitest-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the README has a vitest example", () => {
  expect(examples.length).toBeGreaterThan(0);
});

for (const [i, example] of examples.entries()) {
  const file = join(dir, `example-${i}.ts`);
  writeFileSync(file, example.code);
  await describe(`README.md:${example.line} (${example.section})`, async () => {
    await import(pathToFileURL(file).href);
  });
}
