// jest's own run of the jest helper's tests (test/jest/jest.test.ts drives it; vitest
// does not collect these files). ESM as the package is: run jest with
// `node --experimental-vm-modules`, e.g.
//   node --experimental-vm-modules node_modules/jest/bin/jest.js -c test/jest/jest.config.mjs
export default {
  rootDir: import.meta.dirname,
  testMatch: ["<rootDir>/**/*.jest.mjs"],
  testEnvironment: "node",
  transform: {},
  // The helper takes its hooks from @jest/globals: it must not need the injected globals.
  injectGlobals: false,
};
