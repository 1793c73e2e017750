// Compiled (never run) in a consumer project by test/package/consumer.test.ts, with
// skipLibCheck off: the package's published types as a user's code meets them.
import {
  ScenarioError,
  startMockServer,
  type JournalEntry,
  type MockServer,
  type MockSession,
  type ScenarioInput,
  type ServerOptionsInput,
  type TurnInput,
} from "openresponses-mock";
import { useMockServer, type UseMockServerOptions } from "openresponses-mock/vitest";
import { useMockServer as useJestMockServer, type UseMockServerOptions as JestOptions } from "openresponses-mock/jest";

const options: ServerOptionsInput = { port: 0, host: "127.0.0.1", seed: 1, apiKey: "sk-test", scenario: "text" };
const scenario: ScenarioInput = {
  name: "greeting",
  description: "Says hello.",
  turns: [{ steps: [{ type: "message", text: "Hello!" }], end: { type: "completed" } }],
};
const turn: TurnInput = { steps: [{ type: "function_call", name: "get_weather", arguments: { city: "Paris" } }] };

export async function run(): Promise<string[]> {
  const mock: MockServer = await startMockServer(options);
  try {
    mock.use(scenario, { times: 1 });
    mock.enqueue(turn);
    const session: MockSession = mock.session("one-test");
    const headers: { "x-mock-session": string } = session.headers;
    session.reset();
    const entries: readonly JournalEntry[] = mock.requests;
    const port: number = mock.port;
    const address = mock.server.address();
    return [
      mock.url,
      mock.baseURL,
      String(port),
      JSON.stringify(address),
      headers["x-mock-session"],
      ...entries.map((e) => `${e.method} ${e.path} ${e.status} ${e.scenario ?? "-"}`),
    ];
  } finally {
    await mock.close();
  }
}

export async function disposed(): Promise<number> {
  await using mock = await startMockServer();
  return mock.port;
}

export function helper(): MockServer {
  const settings: UseMockServerOptions = { seed: 2, resetAfterEach: false };
  return useMockServer(settings);
}

export function jestHelper(): MockServer {
  const settings: JestOptions = { seed: 2, verify: true };
  return useJestMockServer(settings);
}

export function issuesOf(error: unknown): string[] {
  return error instanceof ScenarioError ? error.issues.map((issue) => issue.message) : [];
}

// If the package's types were missing or `any`, these would not be errors and the
// unused @ts-expect-error directives would fail the compile.
export function mistakes(): void {
  // @ts-expect-error the port is a number
  void startMockServer({ port: "4010" });
  // @ts-expect-error a step has a known type
  const bad: ScenarioInput = { name: "x", description: "y", turns: [{ steps: [{ type: "nope" }] }] };
  void bad;
  // @ts-expect-error the handle has no such member
  void helper().listen;
  // @ts-expect-error verify is a boolean
  void useJestMockServer({ verify: "yes" });
}
