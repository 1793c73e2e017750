/** Starting a real server on port 0 around a test file, and small HTTP helpers. */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, vi } from "vitest";
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

/** POSTs JSON with node:http and collects every byte until the connection ends, however it ends (a dropped stream too). */
export function rawPost(
  mock: MockServer,
  payload: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(`${mock.baseURL}/responses`),
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, text, complete: res.complete }));
        res.on("error", () => resolve({ status: res.statusCode!, text, complete: false }));
        res.on("aborted", () => resolve({ status: res.statusCode!, text, complete: false }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(payload));
  });
}

/** The journal's last entry, once its request has ended (its answer may still be on its way when the client has read it). */
export function lastEnded(mock: MockServer) {
  return vi.waitFor(
    () => {
      const entry = mock.requests.at(-1);
      if (!entry || entry.outcome === null) throw new Error("still in progress");
      return entry;
    },
    { timeout: 5_000, interval: 5 },
  );
}
