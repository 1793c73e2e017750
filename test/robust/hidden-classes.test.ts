/**
 * Answering makes no new hidden classes (V8 maps). In V8 a copy made by
 * spreading (`{ ...where, part }`) that gains a key gets a map of its own once
 * the code is warm, and an object literal with a getter is a dictionary: the
 * first cost every short stream six new maps, and slowed every answer
 * (runtime calls, megamorphic code, GC). Checked on the built package (npm
 * test builds it first): a real server in a child Node under `--log-maps`
 * counts the maps it creates for 1,000 requests after 300; and the objects
 * themselves, compared with `--allow-natives-syntax` once warm.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));

const script = `
const dist = ${JSON.stringify(dist)};
const { loadRegistry } = await import(dist + "server.js");
const { planRequest } = await import(dist + "emit/answer.js");
const { emitEvents, emitFinal } = await import(dist + "emit/emit-events.js");
const { withItemIds } = await import(dist + "store/conversation.js");
const { sseSink } = await import(dist + "http/sse.js");
const { DEFAULT_DIALECT } = await import(dist + "dialect/index.js");
const registry = await loadRegistry({ scenarios: [], scenario: "auto", library: true });
const answer = (i, scenario) => planRequest({ request: { model: "m", input: "hello " + i, stream: true }, registry, scenario, seed: 1, createdAt: 1700000000 }).plan;
const same = (a, b) => %HaveSameMap(a, b);
const out = {};
for (const scenario of ["text", "reasoning", "tool-call", "annotations", "refusal"]) {
  let a, b;
  for (let i = 0; i < 400; i++) { a = emitEvents(answer(i, scenario)); emitFinal(answer(i, scenario)); }
  b = emitEvents(answer(1000, scenario));
  const differ = [];
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    if (a[k].type !== b[k].type) continue;
    if (!same(a[k], b[k])) differ.push(a[k].type);
    for (const key of ["item", "part", "response"]) if (a[k][key] && b[k][key] && !same(a[k][key], b[k][key])) differ.push(a[k].type + "." + key);
  }
  out[scenario] = { events: a.length, differ: [...new Set(differ)] };
}
let x, y;
for (let i = 0; i < 3000; i++) x = withItemIds([{ type: "message", role: "user", content: "hi " + i }], "resp_" + i)[0];
y = withItemIds([{ type: "message", role: "user", content: "ho" }], "resp_x")[0];
out.storedInput = same(x, y);
const res = { headersSent: false, destroyed: false, writableEnded: false, writeHead() { this.headersSent = true; }, write() { return true; }, end() {} };
const sink = sseSink(res, { at: () => undefined }, DEFAULT_DIALECT, undefined, { "x-mock-scenario": "text" });
out.sinkFast = %HasFastProperties(sink);
console.log(JSON.stringify(out));
`;

const dir = mkdtempSync(join(tmpdir(), "orm-maps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Maps a server (in a child Node under --log-maps) creates while answering `n` requests, sent from
 * here after `warm` others. The child marks the window in its own log: on "mark" it gives a fresh
 * object a property nobody else has, which V8 logs as a transition with that name. Counting inside
 * one process's window keeps out what Node loads lazily now and then (a few hundred maps at once).
 */
async function mapsCreated(warm: number, n: number, stream: boolean): Promise<number> {
  const log = join(dir, `maps-${stream}.log`);
  const server = `const { startMockServer } = await import(${JSON.stringify(`${dist}index.js`)});
const server = await startMockServer({ port: 0, log: "off" });
console.log(server.url);
let marks = 0;
process.stdin.setEncoding("utf8");
process.stdin.on("data", async (line) => {
  if (line.startsWith("mark")) {
    const o = {};
    o["orm_window_mark_" + marks++] = 1;
    return void process.stdout.write("marked\\n");
  }
  await server.close();
  process.exit(0);
});`;
  const child = spawn(
    process.execPath,
    [
      "--log-maps",
      "--no-log-maps-details",
      "--no-logfile-per-isolate",
      `--logfile=${log}`,
      "--input-type=module",
      "-e",
      server,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d: string) => {
    for (const line of d.split("\n").filter(Boolean)) waiting ? waiting(line) : lines.push(line);
  });
  const next = () =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : new Promise<string>((resolve) => (waiting = (line) => ((waiting = undefined), resolve(line))));
  const url = await next();
  const ask = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", input: `hello ${i}`, stream }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
  };
  await ask(warm);
  child.stdin.write("mark\n");
  expect(await next()).toBe("marked");
  await ask(n);
  child.stdin.write("mark\n");
  expect(await next()).toBe("marked");
  child.stdin.write("stop\n");
  await exited;
  const logged = readFileSync(log, "utf8").split("\n");
  const from = logged.findIndex((line) => line.endsWith(",orm_window_mark_0"));
  const to = logged.findIndex((line) => line.endsWith(",orm_window_mark_1"));
  expect(from).toBeGreaterThan(0);
  expect(to).toBeGreaterThan(from);
  return logged.slice(from, to).filter((line) => line.startsWith("map-create,")).length;
}

describe("hidden classes of what every answer makes", () => {
  it.each([
    ["non-streamed", false],
    ["streamed", true],
  ])(
    "a %s answer creates no map once warm (1,000 requests after 300, --log-maps)",
    async (_, stream) => {
      // Was 1.0 a request (stored input items) and 6.0 a stream (event fields, headers, a generator per part).
      expect((await mapsCreated(300, 1000, stream)) / 1000).toBeLessThan(0.5);
    },
    120_000,
  );

  it("events, stored input items and the SSE sink share their maps once warm", () => {
    const stdout = execFileSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    for (const scenario of ["text", "reasoning", "tool-call", "annotations", "refusal"]) {
      const r = out[scenario] as { events: number; differ: string[] };
      expect(r.events, scenario).toBeGreaterThan(5);
      expect(r.differ, `${scenario}: events whose hidden class differs between two answers`).toEqual([]);
    }
    expect(out.storedInput).toBe(true);
    expect(out.sinkFast).toBe(true);
  });
});
