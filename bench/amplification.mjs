// npm run bench:amplification: small requests that used to cost a lot (issue 12), each sent to
// the server in a process of its own (bench/servers/probed.mjs). For each case: the status, the
// answer's size, the longest the server's event loop was held while it answered (a 1 ms interval
// timer in the server process: how late it fired) and the wall time. The WebSocket burst of 1,000
// response.create messages also reports how long /health took when asked right after the burst
// was sent, and how many answers had arrived by then. Env: ROUNDS (default 3; the worst is shown).
import { spawn } from "node:child_process";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { WebSocket } from "ws";

const rounds = Number(process.env.ROUNDS ?? 3);
const server = spawn(process.execPath, [fileURLToPath(new URL("./servers/probed.mjs", import.meta.url))], {
  stdio: ["pipe", "pipe", "inherit"],
});
const lines = createInterface({ input: server.stdout });
const waiting = [];
lines.on("line", (line) => waiting.shift()?.(line));
const nextLine = () => new Promise((resolve) => waiting.push(resolve));
const command = (c) => {
  const line = nextLine();
  server.stdin.write(`${c}\n`);
  return line;
};
const port = Number(new URL((/listening on (\S+)/.exec(await nextLine()) ?? [])[1]).port);

const tool = (parameters, name = "make_thing") => ({
  type: "function",
  name,
  description: "Makes a thing",
  parameters,
});
const object = (props) => ({ type: "object", properties: props, required: Object.keys(props) });
const conversation = (n, size) =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 ? "assistant" : "user",
    content: `message ${i} `.padEnd(size, "x"),
  }));

const cases = [
  [
    "pattern ^(a{1000}){1000}$ (auto, streamed)",
    {
      tools: [tool(object({ code: { type: "string", pattern: "^(a{1000}){1000}$" } }))],
      tool_choice: "required",
      stream: true,
    },
  ],
  [
    "pattern ^[a-z]{1,10000}$ x50 props (auto, streamed)",
    {
      tools: [
        tool(
          object(
            Object.fromEntries(
              Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: "string", pattern: "^[a-z]{1,10000}$" }]),
            ),
          ),
        ),
      ],
      tool_choice: "required",
      stream: true,
    },
  ],
  [
    "minLength 1e9 (auto, streamed)",
    { tools: [tool(object({ s: { type: "string", minLength: 1e9 } }))], tool_choice: "required", stream: true },
  ],
  [
    "minLength 50,000 (auto, streamed)",
    { tools: [tool(object({ s: { type: "string", minLength: 50_000 } }))], tool_choice: "required", stream: true },
  ],
  [
    "minItems 1e9 of minLength 100 (auto, streamed)",
    {
      tools: [tool(object({ a: { type: "array", minItems: 1e9, items: { type: "string", minLength: 100 } } }))],
      tool_choice: "required",
      stream: true,
    },
  ],
  [
    "nested minItems 45 x3 (auto, streamed)",
    {
      tools: [
        tool(
          object({
            a: {
              type: "array",
              minItems: 45,
              items: {
                type: "array",
                minItems: 45,
                items: { type: "array", minItems: 45, items: { type: "string", minLength: 40 } },
              },
            },
          }),
        ),
      ],
      tool_choice: "required",
      stream: true,
    },
  ],
  [
    "pattern in json_schema output (auto, streamed)",
    {
      text: {
        format: {
          type: "json_schema",
          name: "x",
          schema: object({ code: { type: "string", pattern: "^(a{1000}){1000}$" } }),
        },
      },
      stream: true,
    },
  ],
  [
    "pattern (random scenario, streamed)",
    {
      tools: [tool(object({ code: { type: "string", pattern: "^(a{1000}){1000}$" } }))],
      tool_choice: "required",
      stream: true,
    },
    { "x-mock-scenario": "random" },
  ],
  [
    "10,000 tools",
    { tools: Array.from({ length: 10_000 }, (_, i) => tool(object({ city: { type: "string" } }), `tool_${i}`)) },
  ],
  [
    "128 tools, 50 things named (auto, streamed)",
    {
      input: `Read ${Array.from({ length: 50 }, (_, i) => `docs/file${i}.md`).join(", ")}`,
      tools: Array.from({ length: 128 }, (_, i) => tool(object({ path: { type: "string" } }), `read_file_${i}`)),
      stream: true,
    },
  ],
  ["1 MB input, 500 items (streamed)", { input: conversation(500, 2_000), stream: true }],
  ["1 MB input, 10,000 items (streamed)", { input: conversation(10_000, 100), stream: true }],
  ["1 MB input, 10,000 items (JSON)", { input: conversation(10_000, 100) }],
];

/** Posts a body; resolves with the status and the number of bytes received (the body is not kept). */
function post(body, headers = {}) {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        path: "/v1/responses",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": data.length, ...headers },
      },
      (res) => {
        let bytes = 0;
        res.on("data", (c) => (bytes += c.length));
        res.on("end", () => resolve({ status: res.statusCode, bytes }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

function getHealth() {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path: "/health" }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      })
      .on("error", reject);
  });
}

async function measure(run) {
  await new Promise((r) => setTimeout(r, 20));
  await command("reset");
  const t0 = performance.now();
  const result = await run();
  const wall = performance.now() - t0;
  const blocked = Number((await command("report")).split(" ")[1]);
  return { ...result, wall, blocked };
}

async function burst() {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/responses`);
  await new Promise((r, j) => (ws.once("open", r), ws.once("error", j)));
  let terminals = 0;
  let bytes = 0;
  const done = new Promise((resolve) =>
    ws.on("message", (data) => {
      bytes += data.length;
      const t = JSON.parse(data.toString()).type;
      if (t === "response.completed" || t === "error" || t === "response.failed" || t === "response.incomplete")
        if (++terminals === 1000) resolve();
    }),
  );
  const message = JSON.stringify({
    type: "response.create",
    model: "mock-model-1",
    input: "hello there",
    store: false,
  });
  for (let i = 0; i < 1000; i++) ws.send(message);
  const t0 = performance.now();
  let terminalsAtHealth = -1;
  const health = getHealth().then(() => {
    terminalsAtHealth = terminals;
    return performance.now() - t0;
  });
  await done;
  const healthMs = await health;
  ws.close();
  return {
    status: 101,
    bytes,
    extra: `, /health answered in ${healthMs.toFixed(1)} ms, after ${terminalsAtHealth} of 1000 answers`,
  };
}

const fmt = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`);
// Warm up: the first requests of a process compile code.
for (let i = 0; i < 20; i++)
  await post({
    model: "mock-model-1",
    input: "hello",
    tools: [tool(object({ city: { type: "string" } }))],
    stream: i % 2 === 0,
  });
const all = [
  ...cases.map(([name, extra, headers]) => [
    name,
    () => post({ model: "mock-model-1", input: "Make the thing please", ...extra }, headers),
  ]),
  ["WebSocket burst of 1,000 response.create", burst],
];
console.log(`${"case".padEnd(50)} status  answer     loop held: max / median   wall (max)`);
for (const [name, run] of all) {
  const runs = [];
  for (let i = 0; i < rounds; i++) runs.push(await measure(run));
  const held = runs.map((r) => r.blocked).sort((a, b) => a - b);
  const worst = runs.reduce((a, b) => (b.blocked > a.blocked ? b : a));
  console.log(
    `${name.padEnd(50)} ${worst.status}  ${fmt(worst.bytes).padStart(9)}  ${held.at(-1).toFixed(1).padStart(7)} / ${held[Math.floor(held.length / 2)].toFixed(1).padStart(6)} ms  ${Math.max(
      ...runs.map((r) => r.wall),
    )
      .toFixed(0)
      .padStart(6)} ms${worst.extra ?? ""}`,
  );
}
server.kill("SIGTERM");
