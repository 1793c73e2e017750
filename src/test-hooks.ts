/**
 * The runner-independent half of `useMockServer` (`openresponses-mock/vitest`,
 * `openresponses-mock/jest`): given a runner's four hooks, it starts a mock
 * server before all tests, verifies and resets it after each and closes it after
 * all, and returns a handle that reaches the live server. Each runner's module
 * passes its own hooks; this one imports no test runner.
 */
import { startMockServer, type MockServer, type MockSession } from "./server.js";
import type { ServerOptionsInput } from "./options.js";

export interface UseMockServerOptions extends ServerOptionsInput {
  /**
   * Forget the journal and the use()/enqueue() controls after each test
   * (default true) — once no other test of the file is running, so that
   * concurrent tests do not wipe each other's requests.
   */
  resetAfterEach?: boolean;
  /**
   * Call `verify()` after each test (after the last of tests running
   * concurrently, before the reset): an unmet expectation fails the test
   * with the list of what was unmet. Default false.
   */
  verify?: boolean;
}

type Hook = (fn: () => void | Promise<void>) => unknown;

/** A test runner's hooks, as vitest and jest name them. */
export interface TestHooks {
  beforeAll: Hook;
  beforeEach: Hook;
  afterEach: Hook;
  afterAll: Hook;
}

/**
 * Registers `useMockServer`'s hooks with a runner's `hooks` and returns the
 * handle (see src/vitest.ts for the behaviour).
 */
export function useMockServerWith(hooks: TestHooks, options: UseMockServerOptions = {}): MockServer {
  const { resetAfterEach = true, verify = false, ...serverOptions } = options;
  let current: MockServer | undefined;
  const live = (): MockServer => {
    if (!current)
      throw new Error(
        "useMockServer(): the server starts in beforeAll — use the handle inside tests and hooks, not at the top level of the file.",
      );
    return current;
  };
  hooks.beforeAll(async () => {
    current = await startMockServer({ port: 0, ...serverOptions });
  });
  // The reset forgets every session's requests and controls: with concurrent tests it waits
  // until the last running one has ended (resetting after each would wipe the others' state).
  let running = 0;
  hooks.beforeEach(() => {
    running++;
  });
  hooks.afterEach(() => {
    running = Math.max(0, running - 1);
    if (running !== 0) return;
    try {
      if (verify) current?.verify();
    } finally {
      if (resetAfterEach) current?.reset();
    }
  });
  hooks.afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get url() {
      return live().url;
    },
    get baseURL() {
      return live().baseURL;
    },
    get port() {
      return live().port;
    },
    get server() {
      return live().server;
    },
    get requests() {
      return live().requests;
    },
    use: (scenario, opts) => live().use(scenario, opts),
    enqueue: (...turns) => live().enqueue(...turns),
    reset: () => live().reset(),
    expect: (rules, opts) => live().expect(rules, opts),
    get expectations() {
      return live().expectations;
    },
    verify: () => live().verify(),
    limits: (limits) => live().limits(limits),
    usage: () => live().usage(),
    session: (id?: string): MockSession => live().session(id),
    close: () => live().close(),
    [Symbol.asyncDispose]: () => live().close(),
  };
}
