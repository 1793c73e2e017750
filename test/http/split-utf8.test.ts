/**
 * The `splitUtf8` fault: the SSE sink cuts its writes in the middle of a
 * multi-byte UTF-8 character, so a client gets one character's bytes in two
 * reads; the bytes of the whole stream are those of the unfaulted stream.
 * Paced on a ManualClock: each advance lets one event's write out.
 */
import { request as httpRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { fixedClock, ManualClock } from "../../src/timing/clock.js";
import { expectConformantStream, expectErrorBody } from "../support/conformance.js";
import { parseSseStrict } from "../support/sse-parser.js";

const TEXT = "Café ñandú — 😀 日本語 🎉 naïve";
const CHUNK_MS = 10;

const scenario = {
  name: "utf8-text",
  turns: [{ steps: [{ type: "message" as const, text: TEXT, chunk: { chars: 1 } }] }],
};

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(): Promise<{ mock: MockServer; clock: ManualClock }> {
  const clock = new ManualClock(1_000);
  const mock = await startMockServer({ port: 0, clock: fixedClock(1_767_225_600_000), timers: clock });
  servers.push(mock);
  mock.use(scenario);
  return { mock, clock };
}

/** Advances the clock one event's pause at a time, with a moment of real time for the I/O, until `done()`. */
async function drive(clock: ManualClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) {
    await clock.advance(CHUNK_MS);
    await sleep(2);
  }
}

/** POSTs a streamed request with node:http and records every body chunk as it arrives. */
function rawStream(
  mock: MockServer,
  headers: Record<string, string>,
): { chunks: Buffer[]; result: Promise<{ status: number }>; ended: () => boolean } {
  const chunks: Buffer[] = [];
  let ended = false;
  const result = new Promise<{ status: number }>((resolve, reject) => {
    const req = httpRequest(
      new URL(`${mock.baseURL}/responses`),
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          ended = true;
          resolve({ status: res.statusCode! });
        });
        // A dropped stream ends with the connection instead.
        res.on("error", () => undefined);
        res.on("close", () => {
          ended = true;
          resolve({ status: res.statusCode! });
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ model: "m", input: "hi", stream: true }));
  });
  return { chunks, result, ended: () => ended };
}

/** Whether `bytes` decode as UTF-8 on their own (no sequence cut at either end). */
const validUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe("splitUtf8", () => {
  it("x-mock-fault: split-utf8 cuts writes inside characters; the bytes are the unfaulted stream's", async () => {
    // Two servers, each answering its first request: the same ids and bytes (a repeated request on one server gets new ids).
    const plain = rawStream((await start()).mock, {});
    await plain.result;
    const { mock, clock } = await start();
    const faulted = rawStream(mock, { "x-mock-fault": "split-utf8", "x-mock-chunk-ms": String(CHUNK_MS) });
    await drive(clock, faulted.ended);
    expect((await faulted.result).status).toBe(200);

    const whole = Buffer.concat(faulted.chunks);
    expect(whole.equals(Buffer.concat(plain.chunks))).toBe(true);
    const stream = parseSseStrict(whole.toString("utf8"), { requireDone: false });
    expect(expectConformantStream(stream.events).output).toMatchObject([{ content: [{ text: TEXT }] }]);
    // Written piece by piece, and some pieces end inside a character: its bytes came in two reads.
    expect(faulted.chunks.length).toBeGreaterThan(10);
    const cut = faulted.chunks.filter((c) => !validUtf8(c));
    expect(cut.length).toBeGreaterThan(0);
    // Cut right after a character's first byte (0b11xxxxxx): the next read starts with its continuation bytes (0b10xxxxxx).
    const leadEnded = faulted.chunks.flatMap((c, i) => (c[c.length - 1] >= 0xc0 ? [i] : []));
    expect(leadEnded.length).toBeGreaterThan(5);
    for (const i of leadEnded) expect(faulted.chunks[i + 1][0] & 0xc0).toBe(0x80);
  });

  it("a scenario's fault splitUtf8: true does the same; without it the writes are whole frames", async () => {
    const { mock, clock } = await start();
    mock.use({ ...scenario, turns: [{ ...scenario.turns[0], fault: { splitUtf8: true } }] });
    const faulted = rawStream(mock, { "x-mock-chunk-ms": String(CHUNK_MS) });
    await drive(clock, faulted.ended);
    expect(faulted.chunks.some((c) => !validUtf8(c))).toBe(true);

    const other = await start();
    const paced = rawStream(other.mock, { "x-mock-chunk-ms": String(CHUNK_MS) });
    await drive(other.clock, paced.ended);
    expect(paced.chunks.length).toBeGreaterThan(10);
    expect(paced.chunks.every(validUtf8)).toBe(true);
    expect(Buffer.concat(paced.chunks).equals(Buffer.concat(faulted.chunks))).toBe(true);
  });

  it("a stream dropped mid-way sends every byte it holds before the cut", async () => {
    const dropped = async (fault: string) => {
      const { mock, clock } = await start();
      const stream = rawStream(mock, { "x-mock-fault": fault, "x-mock-chunk-ms": String(CHUNK_MS) });
      await drive(clock, stream.ended);
      return stream.chunks;
    };
    const plain = await dropped("drop-after-events=20");
    const split = await dropped("drop-after-events=20; split-utf8");
    expect(split.some((c) => !validUtf8(c))).toBe(true);
    expect(Buffer.concat(split).equals(Buffer.concat(plain))).toBe(true);
    expect(Buffer.concat(plain).toString("utf8")).toContain('"sequence_number":19,');
    expect(Buffer.concat(plain).toString("utf8")).not.toContain('"sequence_number":20,');
  });

  it("a hanging stream holds nothing back: the bytes up to the hang are all sent", async () => {
    const hung = async (fault: string) => {
      const { mock, clock } = await start();
      const stream = rawStream(mock, { "x-mock-fault": fault, "x-mock-chunk-ms": String(CHUNK_MS) });
      for (let i = 0; i < 40; i++) {
        await clock.advance(CHUNK_MS);
        await sleep(2);
      }
      await sleep(20);
      expect(stream.ended()).toBe(false);
      return Buffer.concat(stream.chunks);
    };
    const plain = await hung("hang-after-events=20");
    const split = await hung("hang-after-events=20; split-utf8");
    expect(split.equals(plain)).toBe(true);
    expect(plain.toString("utf8")).toMatch(/"sequence_number":19,[^\n]*\n\n$/);
  });

  it("the openai SDK reads the split stream and gets the exact text", async () => {
    const { mock, clock } = await start();
    const client = new OpenAI({
      baseURL: mock.baseURL,
      apiKey: "test",
      maxRetries: 0,
      defaultHeaders: { "x-mock-fault": "split-utf8", "x-mock-chunk-ms": String(CHUNK_MS) },
    });
    let done = false;
    const read = (async () => {
      const stream = await client.responses.create({ model: "m", input: "hi", stream: true });
      let deltas = "";
      let final = "";
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") deltas += event.delta;
        if (event.type === "response.completed")
          final = event.response.output
            .flatMap((o) => (o.type === "message" ? o.content : []))
            .map((c) => (c.type === "output_text" ? c.text : ""))
            .join("");
      }
      return { deltas, final };
    })().finally(() => (done = true));
    await drive(clock, () => done);
    expect(await read).toEqual({ deltas: TEXT, final: TEXT });
  });

  it("a JSON answer is not split", async () => {
    const { mock } = await start();
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-fault": "split-utf8" },
      body: JSON.stringify({ model: "m", input: "hi" }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: { content: { text: string }[] }[] }).output[0].content[0].text).toBe(TEXT);
  });

  it("a bad x-mock-fault names split-utf8 among what it takes", async () => {
    const { mock } = await start();
    const res = await fetch(`${mock.baseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mock-fault": "split-utf9" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; param: string; message: string } };
    expectErrorBody(body);
    expect(body.error).toMatchObject({ code: "invalid_header", param: "x-mock-fault" });
    expect(body.error.message).toContain("split-utf8");
  });
});
