/**
 * `openresponses-mock/jest`: `useMockServer` of `openresponses-mock/vitest`,
 * on jest's hooks. The hooks come from `@jest/globals`, which jest's module
 * loader provides to every module it runs (nothing to install), so it works
 * with `injectGlobals: false` too. ESM: on Node 20 and 22 jest loads this module
 * under `node --experimental-vm-modules`; from Node 24.9 on, a CommonJS test file can
 * `require()` it too.
 *
 * ```js
 * const mock = useMockServer();
 * test("…", async () => { const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "x" }); … });
 * ```
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "@jest/globals";
import type { MockServer } from "./server.js";
import { useMockServerWith, type UseMockServerOptions } from "./test-hooks.js";

export type { UseMockServerOptions } from "./test-hooks.js";

/**
 * Starts a mock server in `beforeAll` (on a free port unless `port` is given),
 * closes it in `afterAll`, and resets its journal and controls after each
 * test (with `verify: true`, verifies its expectations first: an unmet one
 * fails the test). Returns the handle; its members work inside tests and hooks.
 */
export function useMockServer(options: UseMockServerOptions = {}): MockServer {
  return useMockServerWith({ beforeAll, beforeEach, afterEach, afterAll }, options);
}

export type { MockServer, MockSession } from "./server.js";
