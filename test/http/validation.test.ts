/**
 * Every bad input gets a 4xx with a spec error object (`type`, `code`, `param`,
 * `message`) that names the offending field — never a 500.
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../support/conformance.js";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { postResponses, useServer } from "../support/server.js";

const server = useServer({ bodyLimit: 64 * 1024 });
const ok = { model: "mock-model-1", input: "Hello" };
const weather = {
  type: "function",
  name: "get_weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
  param: string | null;
  message?: RegExp;
}

const cases: Case[] = [
  {
    name: "malformed JSON",
    body: '{"model": "m", "input": ',
    status: 400,
    code: "invalid_json",
    param: null,
    message: /not valid JSON/,
  },
  { name: "empty body", body: "", status: 400, code: "invalid_json", param: null, message: /empty/ },
  { name: "a JSON array as body", body: [], status: 400, code: "invalid_type", param: null, message: /JSON object/ },
  { name: "missing model", body: { input: "Hi" }, status: 400, code: "missing_required_parameter", param: "model" },
  { name: "missing input", body: { model: "m" }, status: 400, code: "missing_required_parameter", param: "input" },
  { name: "model of the wrong type", body: { ...ok, model: 42 }, status: 400, code: "invalid_type", param: "model" },
  { name: "input of the wrong type", body: { ...ok, input: 42 }, status: 400, code: "invalid_type", param: "input" },
  {
    name: "temperature of the wrong type",
    body: { ...ok, temperature: "hot" },
    status: 400,
    code: "invalid_type",
    param: "temperature",
  },
  {
    name: "stream of the wrong type",
    body: { ...ok, stream: "yes" },
    status: 400,
    code: "invalid_type",
    param: "stream",
  },
  {
    name: "unknown truncation value",
    body: { ...ok, truncation: "sometimes" },
    status: 400,
    code: "invalid_value",
    param: "truncation",
  },
  {
    name: "reasoning effort outside OpenAI's",
    body: { ...ok, reasoning: { effort: "extreme" } },
    status: 400,
    code: "invalid_value",
    param: "reasoning.effort",
  },
  {
    name: "unknown include value",
    body: { ...ok, include: ["file_search_call.everything"] },
    status: 400,
    code: "invalid_value",
    param: "include[0]",
    message: /web_search_call\.action\.sources/,
  },
  {
    name: "unknown service_tier",
    body: { ...ok, service_tier: "turbo" },
    status: 400,
    code: "invalid_value",
    param: "service_tier",
  },
  {
    name: "unknown text.format type",
    body: { ...ok, text: { format: { type: "xml" } } },
    status: 400,
    code: "invalid_value",
    param: "text.format.type",
  },
  {
    name: "unknown role",
    body: { ...ok, input: [{ type: "message", role: "robot", content: "hi" }] },
    status: 400,
    code: "invalid_value",
    param: "input[0].role",
    message: /user/,
  },
  {
    name: "unknown item type",
    body: { ...ok, input: [{ type: "mystery", id: "x" }] },
    status: 400,
    code: "invalid_value",
    param: "input[0].type",
  },
  {
    name: "item that is not an object",
    body: { ...ok, input: ["hi"] },
    status: 400,
    code: "invalid_type",
    param: "input[0]",
  },
  {
    name: "bad content part type",
    body: { ...ok, input: [{ type: "message", role: "user", content: [{ type: "output_text", text: "x" }] }] },
    status: 400,
    code: "invalid_value",
    param: "input[0].content[0].type",
  },
  {
    name: "function_call without call_id",
    body: { ...ok, input: [{ type: "function_call", name: "f", arguments: "{}" }] },
    status: 400,
    code: "missing_required_parameter",
    param: "input[0].call_id",
  },
  {
    name: "tool name with spaces",
    body: { ...ok, tools: [{ type: "function", name: "get weather" }] },
    status: 400,
    code: "invalid_value",
    param: "tools[0].name",
  },
  {
    name: "bad tool_choice string",
    body: { ...ok, tool_choice: "sometimes" },
    status: 400,
    code: "invalid_value",
    param: "tool_choice",
  },
  {
    name: "tool_choice function without a name",
    body: { ...ok, tools: [weather], tool_choice: { type: "function" } },
    status: 400,
    code: "missing_required_parameter",
    param: "tool_choice.name",
  },
  {
    name: "tool_choice of an unknown type",
    body: { ...ok, tool_choice: { type: "web_browse" } },
    status: 400,
    code: "invalid_value",
    param: "tool_choice.type",
  },
  {
    name: "allowed_tools with no tools",
    body: { ...ok, tools: [weather], tool_choice: { type: "allowed_tools", tools: [] } },
    status: 400,
    code: "value_below_minimum",
    param: "tool_choice.tools",
  },
  {
    name: "tool_choice naming a tool that was not given",
    body: { ...ok, tools: [weather], tool_choice: { type: "function", name: "send_email" } },
    status: 400,
    code: "tool_not_found",
    param: "tool_choice.name",
  },
  {
    name: "tool_choice required with no tools",
    body: { ...ok, tool_choice: "required" },
    status: 400,
    code: "invalid_value",
    param: "tool_choice",
  },
  {
    name: "max_output_tokens below 16",
    body: { ...ok, max_output_tokens: 5 },
    status: 400,
    code: "value_below_minimum",
    param: "max_output_tokens",
  },
  {
    name: "top_logprobs above 20",
    body: { ...ok, top_logprobs: 21 },
    status: 400,
    code: "value_above_maximum",
    param: "top_logprobs",
  },
  {
    name: "too many metadata keys",
    body: { ...ok, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
    status: 400,
    code: "invalid_value",
    param: "metadata",
  },
  {
    name: "metadata value not a string",
    body: { ...ok, metadata: { a: 1 } },
    status: 400,
    code: "invalid_type",
    param: "metadata.a",
  },
  {
    name: "function_call_output for an unknown call",
    body: {
      ...ok,
      input: [
        { type: "message", role: "user", content: "hi" },
        { type: "function_call_output", call_id: "call_nope", output: "x" },
      ],
    },
    status: 400,
    code: "call_not_found",
    param: "input[1].call_id",
  },
  {
    name: "bad x-mock-seed header",
    body: ok,
    headers: { "x-mock-seed": "banana" },
    status: 400,
    code: "invalid_header",
    param: "x-mock-seed",
  },
  {
    name: "wrong content type",
    body: ok,
    headers: { "content-type": "text/plain" },
    status: 415,
    code: "unsupported_media_type",
    param: null,
  },
  {
    name: "body over the size limit",
    body: { ...ok, input: "x".repeat(70 * 1024) },
    status: 413,
    code: "request_too_large",
    param: null,
    message: /larger than the limit/,
  },
];

describe("bad requests get a spec error object", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const res = await postResponses(server(), c.body, c.headers);
      expect(res.status, res.text).toBe(c.status);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const body = JSON.parse(res.text);
      expectErrorBody(body);
      expect(body.error.type).toBe("invalid_request");
      expect(body.error.code).toBe(c.code);
      expect(body.error.param).toBe(c.param);
      if (c.message) expect(body.error.message).toMatch(c.message);
    });
  }

  it("invalid UTF-8 in the body", async () => {
    const bytes = Buffer.concat([Buffer.from('{"model":"m","input":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await fetch(`${server().baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bytes,
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body);
    expect(body.error.code).toBe("invalid_json");
    expect(body.error.message).toMatch(/UTF-8/);
  });

  it("an unknown path is a 404 not_found error", async () => {
    const res = await fetch(`${server().url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expectErrorBody(body);
    expect(body.error.type).toBe("not_found");
  });

  it("a wrong method on a known path is a 405 error with Allow, any method (PROPFIND too)", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/v1/responses", "POST"],
      ["PROPFIND", "/v1/responses", "POST"],
      ["PATCH", "/v1/responses/resp_x", "HEAD, GET, DELETE"],
      ["GET", "/v1/responses/resp_x/cancel", "POST"],
    ] as const) {
      const res = await rawRequest(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      const body = JSON.parse(res.text);
      expectErrorBody(body);
      expect(body.error).toMatchObject({ type: "invalid_request", code: "method_not_allowed" });
      expect(body.error.message).toContain(allow);
    }
    // An unknown path is a 404 whatever the method.
    expect((await rawRequest("PROPFIND", "/v1/nothing-here")).status).toBe(404);
  });

  it("honours connection: close on a stream (the server ends the socket after it), and keeps alive otherwise", async () => {
    const closing = await rawSocket("close");
    expect(closing.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(closing.head).toMatch(/\r\nconnection: close\r\n/i);
    expect(closing.serverEnded).toBe(true);
    expect(closing.text).toContain("data: [DONE]");
    const open = await rawSocket("keep-alive");
    expect(open.head).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(open.text).toContain("data: [DONE]");
    expect(open.serverEnded).toBe(false);
  });

  it("extra unknown fields are accepted, as the spec allows", async () => {
    const res = await postResponses(server(), { ...ok, some_vendor_field: { x: 1 } });
    expect(res.status).toBe(200);
  });

  it("accepts a message without `type` and an item reference with only an id (the spec's own examples)", async () => {
    const res = await postResponses(server(), { ...ok, input: [{ role: "user", content: "hi" }, { id: "msg_0000" }] });
    expect(res.status, res.text).toBe(200);
  });
});

describe("--api-key", () => {
  const secured = useServer({ apiKey: "sekret" });

  it("rejects a missing key with 401 invalid_api_key", async () => {
    const res = await postResponses(secured(), ok);
    expect(res.status).toBe(401);
    const body = JSON.parse(res.text);
    expectErrorBody(body);
    expect(body.error).toMatchObject({ type: "invalid_request", code: "invalid_api_key" });
  });

  it("rejects a wrong key with 401", async () => {
    const res = await postResponses(secured(), ok, { authorization: "Bearer wrong" });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text).error.message).toMatch(/Incorrect API key/);
  });

  it("accepts the right key", async () => {
    const res = await postResponses(secured(), ok, { authorization: "Bearer sekret" });
    expect(res.status).toBe(200);
  });

  it("leaves /health open", async () => {
    const res = await fetch(`${secured().url}/health`);
    expect(res.status).toBe(200);
  });
});

/**
 * One request on its own socket (no agent): status, headers, body, and
 * whether the server closed the socket within 200 ms of the answer's end.
 */
function rawRequest(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
    socketClosed: boolean;
  }>((resolve, reject) => {
    let closed = false;
    const req = httpRequest(new URL(path, server().url), { method, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        setTimeout(() => {
          req.destroy();
          resolve({ status: res.statusCode!, headers: res.headers, text, socketClosed: closed });
        }, 200);
      });
    });
    req.on("socket", (socket) => socket.once("close", () => (closed = true)));
    req.on("error", reject);
    req.end(body);
  });
}

/** A streamed POST written by hand on a raw socket with this Connection header: what came back, and whether the server ended the socket within 300 ms of [DONE]. */
function rawSocket(connection: string) {
  return new Promise<{ head: string; text: string; serverEnded: boolean }>((resolve, reject) => {
    const url = new URL(server().url);
    const body = JSON.stringify({ model: "m", input: "bye", stream: true });
    const socket = connect(Number(url.port), url.hostname);
    let text = "";
    let serverEnded = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      socket.destroy();
      const at = text.indexOf("\r\n\r\n");
      resolve({ head: text.slice(0, at + 2), text: text.slice(at + 4), serverEnded });
    };
    socket.setEncoding("utf8");
    socket.on("data", (d) => {
      text += d;
      if (text.includes("data: [DONE]") && !timer) timer = setTimeout(finish, 300);
    });
    socket.on("end", () => (serverEnded = true));
    socket.on("error", reject);
    socket.write(
      `POST /v1/responses HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: ${connection}\r\n\r\n${body}`,
    );
  });
}
