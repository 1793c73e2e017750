/**
 * The import rules of src/ (issue 25), checked by `npm run lint`
 * (scripts/lint-imports.mjs runs dependency-cruiser with this file; `npx
 * depcruise src --config .dependency-cruiser.cjs` runs it alone).
 *
 * 1. No runtime import cycle among src/ files. Cycles made only through
 *    `import type` are allowed: they vanish when TypeScript compiles.
 * 2. Layers, low to high. A module imports its own layer and lower ones only;
 *    `import type` counts too (a type is a piece of the layer that defines it).
 * 3. The inspector's page (src/inspector/page/) is browser code compiled on its
 *    own: it imports only itself, and nothing imports it.
 *
 * Paths are relative to the directory cruised from (the project, or a test's
 * fixture), so the same rules check both.
 *
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Low to high. `paths` are regular expressions for the modules of the layer. */
const LAYERS = [
  { name: "util", paths: ["^src/util/"], what: "util/: helpers with no knowledge of the API" },
  { name: "spec", paths: ["^src/spec/"], what: "spec/: the Open Responses types, schemas and errors" },
  {
    name: "core",
    // scenario/load.ts reads files: it sits with the state, above the pure core.
    paths: [
      "^src/scenario/(?!load[.]ts$)",
      "^src/(generate|emit|dialect|timing|check|record|exam)/",
      "^src/service/(?!load[.]ts$)",
    ],
    what: "the pure core: scenario/ (not its loader), generate/, emit/, dialect/, timing/, check/, record/, exam/",
  },
  {
    name: "state",
    paths: [
      "^src/(store|journal|session|log)/",
      "^src/inspector/(?!page/)",
      "^src/scenario/load[.]ts$",
      "^src/service/load[.]ts$",
    ],
    what: "state: store/, journal/, session/, log/, inspector/ (not its page), and scenario/load.ts",
  },
  { name: "turn", paths: ["^src/turn/"], what: "turn/: the one path every turn goes through" },
  { name: "http", paths: ["^src/http/"], what: "http/: the Koa app and its routes" },
  { name: "proxy", paths: ["^src/proxy/"], what: "proxy/: the proxy mode" },
  {
    name: "shell",
    paths: ["^src/[^/]+[.]ts$", "^src/cli/"],
    what: "the shells: src/*.ts (server, options, index, vitest, jest, test-hooks, shared-state) and cli/",
  },
];

const PAGE = "^src/inspector/page/";

/** One rule per layer but the top: it imports no layer above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, i) => {
  const above = LAYERS.slice(i + 1);
  return {
    name: `layer-${layer.name}`,
    severity: "error",
    comment:
      `A lower layer imports a higher one. ${layer.what} (layer ${i + 1}) may import its own layer and ` +
      `lower ones only, not ${above.map((l) => l.name).join(", ")}; type-only imports count. Move what both ` +
      "need down into the lower layer, or have the higher layer pass it in (the lower one declaring the " +
      "interface it needs). The layers are in .dependency-cruiser.cjs and docs/architecture.md (Layers).",
    from: { path: layer.paths },
    to: { path: above.flatMap((l) => l.paths) },
  };
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "A runtime import cycle: these modules load each other, so one of them runs against the " +
        "other's half-initialised exports. Break it by moving the shared piece into a module both " +
        "import, or make the back edge `import type` if it only needs types (type-only cycles are allowed).",
      from: { path: "^src/" },
      to: {
        circular: true,
        dependencyTypesNot: ["type-only"],
        viaOnly: { dependencyTypesNot: ["type-only"] },
      },
    },
    ...layerRules,
    {
      name: "inspector-page-alone",
      severity: "error",
      comment:
        "src/inspector/page/ is the inspector's browser code, compiled on its own (tsconfig.page.json) " +
        "and served as files: it imports only itself.",
      from: { path: PAGE },
      to: { path: "^src/", pathNot: PAGE },
    },
    {
      name: "inspector-page-not-imported",
      severity: "error",
      comment:
        "src/inspector/page/ is the inspector's browser code, compiled on its own (tsconfig.page.json) " +
        "and served as files: no server module imports it.",
      from: { path: "^src/", pathNot: PAGE },
      to: { path: PAGE },
    },
    {
      name: "not-in-a-layer",
      severity: "error",
      comment:
        "This module is in no layer. Put it in a layer's folder, or give its folder a layer in " +
        ".dependency-cruiser.cjs (LAYERS) and in docs/architecture.md (Layers).",
      from: {},
      to: { path: "^src/", pathNot: [PAGE, ...LAYERS.flatMap((l) => l.paths)] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Import type and type-only specifiers are kept and marked `type-only`: the layer rules see
    // them, the cycle rule passes over them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    skipAnalysisNotInRules: true,
  },
};
