/**
 * The dialect renderers, pure: the spec dialect changes nothing (the same
 * objects come back), and the openai dialect renders each point where
 * api.openai.com differs from the spec.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DIALECT,
  DIALECT_NAMES,
  dialectFromHeader,
  dialectHeaders,
  DIALECTS,
  eventFrame,
  renderError,
  renderEvent,
  renderResponse,
  responseBody,
} from "../../src/dialect/index.js";
import { answerRequest } from "../../src/emit/index.js";
import { createRegistry } from "../../src/scenario/registry.js";
import { ApiError, CreateResponseBody, type StreamEvent } from "../../src/spec/index.js";
import { validateScenario } from "../../src/scenario/parse.js";

const openai = DIALECTS.get("openai")!;
const registry = createRegistry(
  [
    validateScenario(
      {
        name: "mixed",
        description: "reasoning, cited text",
        turns: [
          {
            steps: [
              {
                type: "reasoning",
                summary: ["Think."],
                text: "raw thoughts here",
                encrypted_content: "gAAAAAB-opaque",
              },
              {
                type: "message",
                text: "Read the spec and the guide.",
                chunk: { tokens: 1 },
                annotations: [{ url: "https://example.com/spec", title: "Spec", start_index: 9, end_index: 13 }],
              },
            ],
          },
        ],
      },
      "test",
    ),
  ],
  "auto",
);

const answer = (body: Record<string, unknown>, dialect = openai) =>
  answerRequest({
    registry,
    request: CreateResponseBody.parse({ model: "m", input: "hi", ...body }),
    seed: 1,
    scenario: "mixed",
    createdAt: 1_767_225_600,
    dialect,
  });

describe("the spec dialect", () => {
  it("is the default and renders every value as it is (no copy)", () => {
    expect(DIALECT_NAMES[0]).toBe("open-responses");
    expect(DEFAULT_DIALECT.identity).toBe(true);
    const a = answer({}, DEFAULT_DIALECT);
    for (const e of a.events) expect(renderEvent(DEFAULT_DIALECT, e, a.plan)).toBe(e);
    expect(renderResponse(DEFAULT_DIALECT, a.response, a.plan)).toBe(a.response);
    expect(eventFrame(DEFAULT_DIALECT, a.events[0], a.plan)).toBe(
      `event: response.created\ndata: ${JSON.stringify(a.events[0])}\n\n`,
    );
  });

  it("spells errors as the spec table does", () => {
    const e = new ApiError({
      status: 400,
      code: "value_below_minimum",
      param: "temperature",
      message: "m",
      bound: { side: "below", limit: 0, got: -1 },
    });
    expect(renderError(DEFAULT_DIALECT, e)).toEqual({
      status: 400,
      headers: {},
      body: { error: { type: "invalid_request", code: "value_below_minimum", param: "temperature", message: "m" } },
    });
    expect(dialectHeaders(DEFAULT_DIALECT, "resp_x", 3)).toEqual({});
  });
});

describe("the openai dialect", () => {
  it("names raw reasoning events response.reasoning_text.*, keeping the spec's events in the core", () => {
    const a = answer({ reasoning: { effort: "low" } });
    expect(a.events.some((e) => e.type === "response.reasoning.delta")).toBe(true);
    const types = a.events.map((e) => (renderEvent(openai, e, a.plan) as StreamEvent).type);
    expect(types).toContain("response.reasoning_text.delta");
    expect(types).toContain("response.reasoning_text.done");
    expect(types.some((t) => t.startsWith("response.reasoning."))).toBe(false);
  });

  it("draws OpenAI's id shapes: resp_ + 50 hex, items sharing its first 16 hex", () => {
    const a = answer({});
    expect(a.response.id).toMatch(/^resp_[0-9a-f]{50}$/);
    const prefix = a.response.id.slice(5, 21);
    for (const item of a.response.output) expect(item.id).toMatch(new RegExp(`^(msg|rs)_${prefix}[0-9a-f]{34}$`));
  });

  it("sends each annotation right after the delta that completes the cited span", () => {
    const a = answer({});
    const i = a.events.findIndex((e) => e.type === "response.output_text.annotation.added");
    const before = a.events
      .slice(0, i)
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => (e as { delta: string }).delta)
      .join("");
    expect(before.length).toBeGreaterThanOrEqual(13);
    expect(before.length - (a.events[i - 1] as { delta: string }).delta.length).toBeLessThan(13);
    expect(a.events[i - 1].type).toBe("response.output_text.delta");
    // The spec dialect keeps it after the whole text.
    const spec = answer({}, DEFAULT_DIALECT);
    const j = spec.events.findIndex((e) => e.type === "response.output_text.annotation.added");
    expect(spec.events[j + 1].type).toBe("response.output_text.done");
  });

  it("puts encrypted_content on output_item.added too, and logprobs [] on output_text parts", () => {
    const a = answer({});
    const added = a.events.find(
      (e) => e.type === "response.output_item.added" && (e as { item: { type: string } }).item.type === "reasoning",
    )!;
    expect(added).not.toHaveProperty("item.encrypted_content");
    expect(renderEvent(openai, added, a.plan)).toHaveProperty("item.encrypted_content", "gAAAAAB-opaque");
    const part = a.events.find(
      (e) => e.type === "response.content_part.added" && (e as { part: { type: string } }).part.type === "output_text",
    )!;
    expect(renderEvent(openai, part, a.plan)).toHaveProperty("part.logprobs", []);
    const message = (
      renderResponse(openai, a.response, a.plan) as { output: { type: string; content?: { logprobs?: unknown }[] }[] }
    ).output.find((o) => o.type === "message")!;
    expect(message.content![0].logprobs).toEqual([]);
  });

  it("always sends reasoning, text.verbosity, user and prompt_cache_retention; service_tier auto until the end", () => {
    const plain = answer({});
    const r = renderResponse(openai, plain.response, plain.plan) as Record<string, any>;
    expect(r.reasoning).toEqual({ effort: null, summary: null });
    expect(r.text.verbosity).toBe("medium");
    expect(r.user).toBeNull();
    expect(r.prompt_cache_retention).toBeNull();
    expect(r.service_tier).toBe("default");
    const created = renderEvent(openai, plain.events[0], plain.plan) as { response: Record<string, unknown> };
    expect(created.response.service_tier).toBe("auto");

    const asked = answer({
      reasoning: { summary: "auto" },
      user: "u-1",
      prompt_cache_retention: "24h",
      text: { verbosity: "low" },
    } as Record<string, unknown>);
    const r2 = renderResponse(openai, asked.response, asked.plan) as Record<string, any>;
    expect(r2.reasoning).toEqual({ effort: "medium", summary: "detailed" });
    expect(r2.text.verbosity).toBe("low");
    expect(r2.user).toBe("u-1");
    expect(r2.prompt_cache_retention).toBe("24h");
  });

  it("echoes a json_schema format with its schema, and writes the sampling numbers as decimals", () => {
    const schema = { type: "object", properties: { a: { type: "integer" } }, required: ["a"] };
    const a = answerRequest({
      registry,
      request: CreateResponseBody.parse({
        model: "m",
        input: "json",
        text: { format: { type: "json_schema", name: "x", schema, strict: true } },
      }),
      seed: 1,
      createdAt: 1,
      dialect: openai,
    });
    const body = responseBody(openai, a.response, a.plan);
    expect(JSON.parse(body).text.format).toEqual({
      type: "json_schema",
      description: null,
      name: "x",
      schema,
      strict: true,
    });
    expect(body).toContain('"temperature":1.0,');
    expect(body).toContain('"top_p":1.0,');
    expect(body).toContain('"frequency_penalty":0.0,');
    expect(JSON.parse(body).temperature).toBe(1);
  });

  it("spells errors as OpenAI does", () => {
    const below = new ApiError({
      status: 400,
      code: "value_below_minimum",
      param: "temperature",
      message: "spec words",
      bound: { side: "below", limit: 0, got: -1 },
    });
    expect(renderError(openai, below).body.error).toEqual({
      message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
      type: "invalid_request_error",
      param: "temperature",
      code: "decimal_below_min_value",
    });
    const tokens = new ApiError({
      status: 400,
      code: "value_below_minimum",
      param: "max_output_tokens",
      message: "m",
      bound: { side: "below", limit: 16, got: 3 },
    });
    expect(renderError(openai, tokens).body.error.code).toBe("integer_below_min_value");
    const rate = renderError(
      openai,
      new ApiError({
        status: 429,
        type: "too_many_requests",
        code: "rate_limit_exceeded",
        message: "slow down",
        headers: { "retry-after": "2" },
      }),
    );
    expect(rate.body.error).toMatchObject({ type: "requests", code: "rate_limit_exceeded" });
    expect(rate.headers).toMatchObject({ "retry-after": "2", "x-ratelimit-remaining-requests": "0" });
    expect(
      renderError(openai, new ApiError({ status: 404, type: "not_found", code: "not_found", message: "gone" })).body
        .error,
    ).toMatchObject({ type: "invalid_request_error", code: null });
    expect(Object.keys(renderError(openai, below).body.error)).toEqual(["message", "type", "param", "code"]);
  });

  it("adds x-request-id (req_ + 32 hex) and openai-processing-ms", () => {
    const h = dialectHeaders(openai, "resp_abc", 12.4);
    expect(h["x-request-id"]).toMatch(/^req_[0-9a-f]{32}$/);
    expect(h["openai-processing-ms"]).toBe("12");
    expect(dialectHeaders(openai, "resp_abc", 0)["x-request-id"]).toBe(h["x-request-id"]);
    expect(dialectHeaders(openai, "resp_abd", 0)["x-request-id"]).not.toBe(h["x-request-id"]);
  });

  it("an unknown dialect name is a 400 listing the known ones", () => {
    expect(() => dialectFromHeader("anthropic")).toThrow(/Known dialects: open-responses, openai/);
  });
});
