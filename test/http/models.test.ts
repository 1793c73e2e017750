/**
 * `GET /v1/models`, `GET /v1/models/{id}` and `GET /__mock/profiles` on a
 * real server: OpenAI's shapes (read by the openai SDK), the service file's
 * models or the scenarios, 404 `model_not_found` in each dialect, the API key,
 * the journal.
 */
import OpenAI, { NotFoundError } from "openai";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useServer } from "../support/server.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/service.json", import.meta.url));
const KEY = "sk-models";
const auth = { authorization: `Bearer ${KEY}` };

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
};

describe("without a service file", () => {
  const server = useServer({
    scenarios: [{ name: "my-agent", description: "Mine.", turns: [{ steps: [{ type: "message", text: "Hi." }] }] }],
  });

  it("lists mock-model, then every scenario a request can name as its model (auto, the given, the library)", async () => {
    const { status, headers, body } = await get(`${server().baseURL}/models?client_version=0.98.0`);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^application\/json/);
    expect(body.object).toBe("list");
    const ids = (body.data as { id: string }[]).map((m) => m.id);
    expect(ids.slice(0, 3)).toEqual(["mock-model", "auto", "my-agent"]);
    expect(ids).toContain("tool-call");
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of body.data) {
      expect(Object.keys(model).sort()).toEqual(["created", "id", "object", "owned_by"]);
      expect(model).toMatchObject({ object: "model", created: 0, owned_by: "openresponses-mock" });
    }
  });

  it("a listed scenario can be named as the model: the model it lists answers", async () => {
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "my-agent", input: "x" }),
    });
    expect(
      ((await res.json()) as { output_text?: string; output: { content: { text: string }[] }[] }).output[0].content[0]
        .text,
    ).toBe("Hi.");
  });

  it("retrieves one model; an unknown id is a 404 model_not_found with the nearest id", async () => {
    expect((await get(`${server().baseURL}/models/my-agent`)).body).toEqual({
      id: "my-agent",
      object: "model",
      created: 0,
      owned_by: "openresponses-mock",
    });
    const missing = await get(`${server().baseURL}/models/my-agnet`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: {
        type: "not_found",
        code: "model_not_found",
        param: "model",
        message:
          "The model 'my-agnet' does not exist. Did you mean 'my-agent'? GET /v1/models lists the models this server serves.",
      },
    });
  });

  it("in the openai dialect the 404 is OpenAI's: invalid_request_error, model_not_found, with OpenAI's headers", async () => {
    const missing = await get(`${server().baseURL}/models/gpt-nope`, { "x-mock-dialect": "openai" });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({
      type: "invalid_request_error",
      code: "model_not_found",
      param: "model",
    });
    expect(Object.keys(missing.body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(missing.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("each request is in the journal, like the other /v1 routes", async () => {
    server().reset();
    await get(`${server().baseURL}/models?client_version=1`);
    await get(`${server().baseURL}/models/nope`);
    const entries = server().requests;
    expect(entries.map((e) => [e.method, e.path, e.status])).toEqual([
      ["GET", "/v1/models", 200],
      ["GET", "/v1/models/nope", 404],
    ]);
    expect(entries[0].query).toEqual({ client_version: "1" });
  });

  it("GET /__mock/profiles: the built-in profiles, instant the default, in the service file's shape", async () => {
    const { status, body } = await get(`${server().url}/__mock/profiles`);
    expect(status).toBe(200);
    expect(body.object).toBe("list");
    expect(body.data.map((p: { name: string; default: boolean }) => [p.name, p.default])).toEqual([
      ["instant", true],
      ["fast", false],
      ["typical", false],
      ["slow-reasoning", false],
    ]);
    expect(body.data[2]).toEqual({
      name: "typical",
      description: "a mid-sized model on a busy service",
      ttftMs: { median: 500, p99: 2000 },
      itlMs: { median: 25, p99: 80 },
      slowdown: { k: 0.5, capacity: 32 },
      default: false,
    });
  });
});

describe("with a service file and an API key", () => {
  const server = useServer({ service: EXAMPLE, apiKey: KEY, profile: "local-gpu" });

  it("lists the file's models, with their owned_by and created", async () => {
    const { status, body } = await get(`${server().baseURL}/models`, auth);
    expect(status).toBe(200);
    expect(body).toEqual({
      object: "list",
      data: [
        { id: "mock-mini", object: "model", created: 0, owned_by: "openresponses-mock" },
        { id: "mock-large", object: "model", created: 0, owned_by: "openresponses-mock" },
        { id: "mock-reasoner", object: "model", created: 1_767_225_600, owned_by: "example-lab" },
        { id: "mock-local", object: "model", created: 0, owned_by: "openresponses-mock" },
      ],
    });
    expect((await get(`${server().baseURL}/models/auto`, auth)).status).toBe(404);
  });

  it("needs the key, as every /v1 and admin route", async () => {
    expect((await get(`${server().baseURL}/models`)).status).toBe(401);
    expect((await get(`${server().baseURL}/models/mock-mini`)).status).toBe(401);
    expect((await get(`${server().url}/__mock/profiles`)).status).toBe(401);
  });

  it("the openai SDK lists and retrieves them; an unknown id is its NotFoundError", async () => {
    const client = new OpenAI({ baseURL: server().baseURL, apiKey: KEY, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(["mock-mini", "mock-large", "mock-reasoner", "mock-local"]);
    const reasoner = await client.models.retrieve("mock-reasoner");
    expect(reasoner).toEqual({ id: "mock-reasoner", object: "model", created: 1_767_225_600, owned_by: "example-lab" });
    const err = await client.models.retrieve("mock-mega").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe("model_not_found");
  });

  it("GET /__mock/profiles adds the file's profiles and marks --profile's the default", async () => {
    const { body } = await get(`${server().url}/__mock/profiles`, auth);
    const local = body.data.find((p: { name: string }) => p.name === "local-gpu");
    expect(local).toEqual({
      name: "local-gpu",
      description: "a model on one local GPU: quick to start, slows down fast when shared",
      ttftMs: { median: 80, p99: 300 },
      itlMs: { median: 15, p99: 45 },
      slowdown: { k: 2, capacity: 4 },
      default: true,
    });
    expect(body.data.filter((p: { default: boolean }) => p.default)).toHaveLength(1);
  });
});
