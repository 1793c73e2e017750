/** A folder walk loads the user's scenarios, not node_modules nor dot-entries; a path given by name is read. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScenarios, skippedInWalk } from "../../src/scenario/load.js";
import { ScenarioError } from "../../src/scenario/parse.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "orm-walk-"));
  const scenario = (name: string) => JSON.stringify({ name, description: name, generate: { strategy: "auto" } });
  writeFileSync(join(dir, "a.json"), scenario("a"));
  mkdirSync(join(dir, "deep", "er"), { recursive: true });
  writeFileSync(join(dir, "deep", "er", "b.json"), scenario("b"));
  // Valid scenarios where no walk should look (they would load) and junk (it would fail).
  for (const folder of ["node_modules/pkg", "deep/node_modules", ".git", ".cache/x"]) {
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, "hidden.json"), scenario(`hidden-${folder.replace(/[^a-z]/g, "")}`));
    writeFileSync(join(dir, folder, "package.json"), "{ not json");
  }
  writeFileSync(join(dir, ".prettierrc.json"), "{}");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("loadScenarios walking a folder", () => {
  it("skips node_modules and dot-entries at every depth", async () => {
    const loaded = await loadScenarios([dir]);
    expect(loaded.map((l) => l.scenario.name)).toEqual(["a", "b"]);
  });

  it("reads a skipped folder when it is named", async () => {
    const loaded = await loadScenarios([join(dir, ".cache", "x", "hidden.json")]);
    expect(loaded.map((l) => l.scenario.name)).toEqual(["hidden-cachex"]);
    await expect(loadScenarios([join(dir, "node_modules", "pkg")])).rejects.toBeInstanceOf(ScenarioError);
  });

  it("skippedInWalk", () => {
    expect(["node_modules", ".git", ".eslintrc.json", "."].map(skippedInWalk)).toEqual([true, true, true, true]);
    expect(["scenarios", "a.json", "node_modules2", "my.node_modules"].map(skippedInWalk)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
