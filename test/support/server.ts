/** Starting a real server on port 0 around a test file, and small HTTP helpers. */
import { afterAll, beforeAll } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import type { ServerOptionsInput } from "../../src/options.js";
import { fixedClock } from "../../src/timing/clock.js";

/** The fixed time every test server reports unless a test passes its own clock. */
export const TEST_NOW_MS = 1_767_225_600_000;

/** Starts a server before the tests of the file and closes it after; the getter returns it. */
export function useServer(options: ServerOptionsInput = {}): () => MockServer {
  let mock: MockServer | undefined;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, clock: fixedClock(TEST_NOW_MS), ...options });
  });
  afterAll(async () => {
    await mock?.close();
  });
  return () => {
    if (!mock) throw new Error("server not started yet");
    return mock;
  };
}

/** POSTs JSON to /v1/responses and returns status, headers and the text body. */
export async function postResponses(mock: MockServer, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
