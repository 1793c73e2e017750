/** A 404 says what is there: admin routes off, only the Responses API, the /v1 base URL. */
import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../support/conformance.js";
import { useServer } from "../support/server.js";
import type { MockServer } from "../../src/server.js";

const RESPONSES_ROUTES =
  "POST /v1/responses, POST /v1/responses/compact, POST /v1/responses/input_tokens, GET/DELETE /v1/responses/{id}, POST /v1/responses/{id}/cancel, GET /v1/responses/{id}/input_items";

async function get(mock: MockServer, path: string, init: RequestInit = {}) {
  const res = await fetch(new URL(path, mock.url), init);
  const body = (await res.json()) as {
    error: { type: string; code: string | null; param: string | null; message: string };
  };
  return { status: res.status, body };
}

/** A 404 error object in the spec's shape, with this message. */
async function expectNotFound(mock: MockServer, path: string, message: string, init: RequestInit = {}) {
  const { status, body } = await get(mock, path, init);
  expect(status, path).toBe(404);
  expectErrorBody(body);
  expect(body.error).toEqual({ type: "not_found", code: "not_found", param: null, message });
}

describe("404 with the admin routes off", () => {
  const server = useServer({ admin: false });

  it("any /__mock/ path says the admin routes are off, and why", async () => {
    for (const [method, path] of [
      ["GET", "/__mock/requests"],
      ["POST", "/__mock/scenarios"],
      ["POST", "/__mock/reset"],
      ["GET", "/__mock/"],
      ["GET", "/__mock"],
    ]) {
      await expectNotFound(
        server(),
        path,
        `No route for ${method} ${path}: the admin routes (/__mock/…) are off, because this server was started with --no-admin (option admin: false).`,
        { method },
      );
    }
  });

  it("elsewhere, the message does not point at admin routes", async () => {
    await expectNotFound(
      server(),
      "/nowhere",
      "No route for GET /nowhere. The API lives under /v1 (POST /v1/responses); GET /health answers when the server is up.",
    );
  });
});

describe("404 with the admin routes on", () => {
  const server = useServer({ apiKey: "sk-404" });

  it("other OpenAI APIs under /v1 say that only the Responses API, Chat Completions and the models are served, and list their routes (no key needed to learn that)", async () => {
    for (const [method, path] of [
      ["POST", "/v1/completions"],
      ["POST", "/v1/embeddings"],
      ["GET", "/v1/model"],
      ["GET", "/v1"],
    ]) {
      await expectNotFound(
        server(),
        path,
        `No route for ${method} ${path}: this server mocks the Responses API (${RESPONSES_ROUTES}), Chat Completions (POST /v1/chat/completions) and lists its models (GET /v1/models, GET /v1/models/{id}); other OpenAI APIs (completions, embeddings, …) are not served.`,
        { method },
      );
    }
  });

  it("an unknown path under /v1/responses lists the Responses API's routes", async () => {
    await expectNotFound(
      server(),
      "/v1/responses/resp_1/outputs",
      `No route for GET /v1/responses/resp_1/outputs. The Responses API's routes are: ${RESPONSES_ROUTES}.`,
    );
  });

  it("a Responses path without /v1 points at the base URL", async () => {
    await expectNotFound(
      server(),
      "/responses",
      "No route for POST /responses. The API lives under /v1: did you mean POST /v1/responses? Give clients the base URL ending in /v1.",
      { method: "POST" },
    );
  });

  it("an unknown admin path lists the admin routes", async () => {
    await expectNotFound(
      server(),
      "/__mock/request",
      "No admin route for GET /__mock/request. The admin routes are: GET/DELETE /__mock/requests, GET /__mock/requests/stream, GET /__mock/requests/{seq}/answer, GET /__mock/requests/{seq}/check, GET /__mock/requests/{seq}/scenario, GET /__mock/requests/{seq}/curl, GET /__mock/requests/{seq}, POST /__mock/scenarios, POST /__mock/queue, GET /__mock/verify, GET /__mock/profiles, POST /__mock/reset, GET/POST /__mock/limits, GET /__mock/usage, GET /__mock/, GET /__mock, GET /__mock/assets/{name}.",
    );
  });

  it("anything else says where the API, the health check and the admin routes are", async () => {
    await expectNotFound(
      server(),
      "/",
      "No route for GET /. The API lives under /v1 (POST /v1/responses); GET /health answers when the server is up; the admin routes are under /__mock/.",
    );
  });

  it("a long path is cut in the message", async () => {
    const { body } = await get(server(), `/${"x".repeat(5_000)}`);
    expect(body.error.message.length).toBeLessThan(300);
  });

  it("in the openai dialect, the 404 is OpenAI's error object, with the same message", async () => {
    const { status, body } = await get(server(), "/v1/embeddings", {
      method: "POST",
      headers: { "x-mock-dialect": "openai" },
    });
    expect(status).toBe(404);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(body.error.message).toBe(
      `No route for POST /v1/embeddings: this server mocks the Responses API (${RESPONSES_ROUTES}), Chat Completions (POST /v1/chat/completions) and lists its models (GET /v1/models, GET /v1/models/{id}); other OpenAI APIs (completions, embeddings, …) are not served.`,
    );
  });

  it("a known path with another method is still a 405", async () => {
    const res = await fetch(new URL("/v1/responses", server().url), { method: "PUT" });
    expect(res.status).toBe(405);
  });
});
