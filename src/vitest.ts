/**
 * `openresponses-mock/vitest`: one call in a test file starts a mock server
 * before its tests and closes it after. The core package never imports
 * vitest; only this subpath does. `openresponses-mock/jest` is the same on
 * jest's hooks (both in src/test-hooks.ts).
 *
 * ```ts
 * const mock = useMockServer();
 * it("…", async () => { const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "x" }); … });
 * ```
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { MockServer } from "./server.js";
import { useMockServerWith, type UseMockServerOptions } from "./test-hooks.js";

export type { UseMockServerOptions } from "./test-hooks.js";

/**
 * Starts a mock server in `beforeAll` (on a free port unless `port` is given),
 * closes it in `afterAll`, and resets its journal and controls after each
 * test (after the last of tests running concurrently; with `verify: true`,
 * verifies its expectations first). Returns the handle;
 * its members work inside tests and hooks.
 */
export function useMockServer(options: UseMockServerOptions = {}): MockServer {
  return useMockServerWith({ beforeAll, beforeEach, afterEach, afterAll }, options);
}

export type { MockServer, MockSession } from "./server.js";
