/**
 * The inspector's actions, end to end on real servers on port 0: "save as
 * scenario" gives a file that `openresponses-mock validate` accepts and that
 * a second server replays with the same text and tool calls; "copy as curl"
 * run through bash gets the same answer (with quotes, `$`, backticks and line
 * breaks in the body); the conformance check; and proxied entries, whose
 * upstream events are kept as they were forwarded.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { curlCommand } from "../../src/inspector/curl.js";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock } from "../../src/timing/clock.js";
import { runCli, runProcess } from "../support/run.js";
import { TEST_NOW_MS, lastEnded as ended } from "../support/server.js";
import { parseSseStrict } from "../support/sse-parser.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

/** An error answer's body. */
type ErrorBody = { error: { type: string; code: string | null; param: string | null; message: string } };

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(options: Parameters<typeof startMockServer>[0] = {}): Promise<MockServer> {
  const mock = await startMockServer({ port: 0, seed: 11, clock: fixedClock(TEST_NOW_MS), log: "off", ...options });
  servers.push(mock);
  return mock;
}

const admin = (mock: MockServer, path: string, init?: RequestInit) => fetch(`${mock.url}/__mock${path}`, init);

type Output = OpenAI.Responses.ResponseOutputItem;
/** What an answer said, without ids: text, and calls with their arguments. */
const said = (output: Output[]) =>
  output.map((item) => {
    if (item.type === "message")
      return {
        type: "message",
        text: item.content.map((p) => (p.type === "output_text" ? p.text : p.refusal)).join(""),
      };
    if (item.type === "function_call") return { type: "function_call", name: item.name, arguments: item.arguments };
    return { type: item.type };
  });

/** Saves entry `seq` as a scenario into a fresh folder; returns the file and the scenario's name. */
async function save(mock: MockServer, seq: number): Promise<{ dir: string; file: string; name: string; text: string }> {
  const res = await admin(mock, `/requests/${seq}/scenario`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const disposition = res.headers.get("content-disposition")!;
  const name = /^attachment; filename="([^"]+)\.json"$/.exec(disposition)![1];
  const text = await res.text();
  const dir = mkdtempSync(join(tmpdir(), "inspector-save-"));
  dirs.push(dir);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, text);
  return { dir, file, name, text };
}

describe("save as scenario", () => {
  it("a streamed text answer: `validate` accepts the file, and a second server replays the same text and deltas", async () => {
    const mock = await start();
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "unused" });
    const body = { model: "gpt-test", input: "Explain what a timeline shows", stream: true as const };
    const stream = await client.responses.create(body, { headers: { "x-mock-chunk-ms": "3" } });
    const deltas: string[] = [];
    let original: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") deltas.push(event.delta);
      if (event.type === "response.completed") original = event.response;
    }
    const entry = await ended(mock);
    const saved = await save(mock, entry.seq);
    expect(JSON.parse(saved.text).name).toBe(saved.name);

    const validated = await runCli(["validate", saved.file]);
    expect(validated.stderr).toBe("");
    expect(validated.code).toBe(0);

    const replay = await start({ scenarios: saved.dir, library: false, latencyMs: 0, chunkMs: 0 });
    const again = await new OpenAI({ baseURL: replay.baseURL, apiKey: "unused" }).responses.create(body, {
      headers: { "x-mock-scenario": saved.name },
    });
    const replayDeltas: string[] = [];
    let replayed: OpenAI.Responses.Response | undefined;
    for await (const event of again) {
      if (event.type === "response.output_text.delta") replayDeltas.push(event.delta);
      if (event.type === "response.completed") replayed = event.response;
    }
    expect(said(replayed!.output)).toEqual(said(original!.output));
    expect(replayDeltas).toEqual(deltas);
  });

  it("a tool call answered as JSON replays the same call and arguments", async () => {
    const mock = await start();
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "unused" });
    const body = { model: "gpt-test", input: "What is the weather in Lisbon?", tools: LIBRARY_TOOLS_NOT_STRICT };
    const original = await client.responses.create(body);
    expect(original.output.some((i) => i.type === "function_call")).toBe(true);
    const entry = await ended(mock);
    const saved = await save(mock, entry.seq);
    expect((await runCli(["validate", saved.file])).code).toBe(0);
    const replay = await start({ scenarios: saved.dir, library: false });
    const again = await new OpenAI({ baseURL: replay.baseURL, apiKey: "unused" }).responses.create(body, {
      headers: { "x-mock-scenario": saved.name },
    });
    expect(said(again.output)).toEqual(said(original.output));
  });

  it("refuses what has no whole answer to save, with a 409 error object", async () => {
    const mock = await start();
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${mock.baseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      }).then((r) => r.text().catch(() => ""));
    await post({ model: "m" }); // 400
    await post({ model: "m", input: "cut", stream: true }, { "x-mock-fault": "drop-after-events=2" });
    await ended(mock);
    for (const [seq, why] of [
      [0, /error/],
      [1, /dropped/],
    ] as const) {
      const res = await admin(mock, `/requests/${seq}/scenario`);
      expect(res.status).toBe(409);
      const { error } = (await res.json()) as ErrorBody;
      expect(error).toMatchObject({ type: "invalid_request", code: "not_savable", param: "seq" });
      expect(error.message).toMatch(why);
    }
  });
});

/** Runs a script with bash; resolves with its stdout. */
const bash = (script: string, env: NodeJS.ProcessEnv) => runProcess("bash", ["-c", script], { env });

const outputText = (response: { output: { type: string; content?: { type: string; text?: string }[] }[] }) =>
  response.output.flatMap((i) => (i.type === "message" ? (i.content ?? []).map((c) => c.text ?? "") : [])).join("");

describe("copy as curl", () => {
  // A body with quotes, $, backticks, a line break in a string, and a line that is only "JSON".
  const tricky = `{\n  "model": "gpt-test",\n  "input": "it's \\"quoted\\", costs $HOME and \`whoami\` $(id)\\nsecond line 'JSON'",\n  "instructions": "x"\nJSON\n}`;

  it("run through bash with the key from the environment, gets the same answer, and so does the replay request", async () => {
    const mock = await start({ apiKey: "sk-curl-key-0123456789" });
    const headers = {
      "content-type": "application/json",
      authorization: "Bearer sk-curl-key-0123456789",
      "x-mock-session": "s1",
      "x-mock-chunk-ms": "1",
    };
    // The body above is not JSON ("JSON" alone on a line): first the real one, with the same quoting hazards.
    const body = tricky.replace("\nJSON\n", "\n");
    const first = await fetch(`${mock.baseURL}/responses`, { method: "POST", headers, body });
    expect(first.status).toBe(200);
    const original = (await first.json()) as Parameters<typeof outputText>[0];
    const entry = await ended(mock);

    const res = await admin(mock, `/requests/${entry.seq}/curl`, {
      headers: { authorization: "Bearer sk-curl-key-0123456789" },
    });
    expect(res.status).toBe(200);
    const view = (await res.json()) as {
      curl: string;
      request: { method: string; url: string; headers: Record<string, string>; body: string };
    };
    expect(view.curl).not.toContain("sk-curl-key");
    expect(view.curl).toContain('-H "Authorization: Bearer $OPENRESPONSES_MOCK_API_KEY"');
    expect(view.request).toEqual({
      method: "POST",
      url: `${mock.baseURL}/responses`,
      headers: {
        "content-type": "application/json",
        "x-mock-session": "s1",
        "x-mock-chunk-ms": "1",
        "x-mock-scenario": "auto",
        "x-mock-seed": "11",
      },
      body,
    });

    const run = await bash(view.curl, {
      PATH: process.env.PATH,
      OPENRESPONSES_MOCK_API_KEY: "sk-curl-key-0123456789",
      HOME: "/nonexistent-home",
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const again = JSON.parse(run.stdout) as Parameters<typeof outputText>[0];
    expect(outputText(again)).toBe(outputText(original));
    expect(outputText(again)).not.toBe("");
    // The same body reached the server, byte for byte, but the here-document's final line break.
    expect(mock.requests.at(-1)!.rawBody).toBe(`${body}\n`);

    // The replay request, sent with fetch as the page sends it, gets the same answer too.
    const replay = await fetch(view.request.url, {
      method: view.request.method,
      headers: { ...view.request.headers, authorization: "Bearer sk-curl-key-0123456789" },
      body: view.request.body,
    });
    expect(outputText((await replay.json()) as Parameters<typeof outputText>[0])).toBe(outputText(original));
  });

  it("a body holding a line that is the delimiter gets another delimiter, and reaches curl as it is", async () => {
    const request = {
      method: "POST",
      url: "http://127.0.0.1:1/v1/responses",
      headers: { "content-type": "application/json", "x-mock-scenario": "it's" },
      body: tricky,
    };
    const curl = curlCommand(request, true);
    expect(curl).toMatch(/<<'JSON_1'\n[\s\S]*\nJSON_1$/);
    // curl stands in for itself: it prints its arguments, one a line, then what it reads.
    const run = await bash(`curl() { printf '%s\\n' "$@"; echo ---; cat; }\n${curl}`, {
      PATH: process.env.PATH,
      OPENRESPONSES_MOCK_API_KEY: "k$1`x`",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "-sS",
        "-N",
        "http://127.0.0.1:1/v1/responses",
        "-H",
        "content-type: application/json",
        "-H",
        "x-mock-scenario: it's",
        "-H",
        "Authorization: Bearer k$1`x`",
        "--data-binary",
        "@-",
        "---",
        tricky,
        "",
      ].join("\n"),
    );
  });

  it("refuses a request whose body was not kept, or a WebSocket turn", async () => {
    const mock = await start();
    await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    }).then((r) => r.text());
    const entry = await ended(mock);
    const res = await admin(mock, `/requests/${entry.seq}/curl`);
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).error).toMatchObject({ code: "body_not_kept", param: "seq" });
  });
});

describe("proxied entries", () => {
  it("keep the upstream's events as forwarded, with their times; check is the live check's", async () => {
    const upstream = await start({ seed: 4 });
    const proxy = await start({ upstream: upstream.baseURL });
    const res = await fetch(`${proxy.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "through the proxy", stream: true }),
    });
    const wire = parseSseStrict(await res.text());
    const entry = await ended(proxy);
    const view = (await (await admin(proxy, `/requests/${entry.seq}/answer`)).json()) as {
      kind: string;
      timeline: { t: number; kind: string; event?: unknown }[];
      upstream: { url: string };
      response: unknown;
    };
    expect(view.kind).toBe("stream");
    expect(view.upstream.url).toBe(`${upstream.baseURL}/responses`);
    const events = view.timeline.filter((m) => m.kind === "event");
    expect(events.map((m) => m.event)).toEqual(wire.events);
    const times = events.map((m) => m.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(view.timeline.slice(-2).map((m) => m.kind)).toEqual(["done", "end"]);
    expect(view.response).toEqual(wire.events.at(-1)!.response);
    const check: unknown = await (await admin(proxy, `/requests/${entry.seq}/check`)).json();
    expect(check).toEqual({ checked: true, ok: true, violations: [] });
    expect(entry.violations).toEqual([]);
  });

  it("a proxied JSON answer keeps its body", async () => {
    const upstream = await start({ seed: 4 });
    const proxy = await start({ upstream: upstream.baseURL });
    const res = await fetch(`${proxy.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "json through the proxy" }),
    });
    const body = await res.json();
    const entry = await ended(proxy);
    const view = (await (await admin(proxy, `/requests/${entry.seq}/answer`)).json()) as {
      timeline: { kind: string }[];
    };
    expect(view).toMatchObject({ kind: "json", response: body });
    expect(view.timeline.map((m) => m.kind)).toEqual(["end"]);
  });
});
