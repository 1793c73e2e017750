/**
 * The bytes of every shipped scenario's answer, streamed and not, in both
 * dialects, under seeds 1–50, held to what the server sent before streams
 * were rendered as bytes (issue 30): test/golden/stream-bytes.json keeps a
 * SHA-256 per scenario, dialect and delivery over the 50 answers, written by
 * the build before that change. The same answers are also held to the old
 * serialiser, kept here as the reference: each frame's `data:` is what
 * JSON.stringify writes for its event (with the dialect's `1.0` floats), and
 * its `event:` line is the event's type. A paced stream (one write per event,
 * through the pacer) sends the very bytes of the unpaced one (one write).
 *
 * UPDATE_STREAM_BYTES=1 npx vitest run test/golden/stream-bytes.test.ts
 * rewrites the hashes (only when a change of the streams is meant).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { rawPost, useServer } from "../support/server.js";
import { LIBRARY_TOOLS_NOT_STRICT } from "../support/tools.js";

const FILE = fileURLToPath(new URL("./stream-bytes.json", import.meta.url));
const UPDATE = process.env.UPDATE_STREAM_BYTES === "1";
const SEEDS = Array.from({ length: 50 }, (_, i) => i + 1);
const DIALECTS = ["open-responses", "openai"] as const;

const LIBRARY = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
const NAMES = ["auto", ...LIBRARY.map((s) => s.name)].sort();
const steps = (s: Scenario | undefined) => (s?.turns ?? []).flatMap((t) => t.steps);

/** The request each scenario is played with: the library's tools where it calls them, a reasoning summary where it reasons. */
function bodyFor(name: string, seed: number, stream: boolean): Record<string, unknown> {
  const scenario = LIBRARY.find((s) => s.name === name);
  const body: Record<string, unknown> = {
    model: "mock-model-1",
    input: `What is the weather in Paris? (${seed})`,
    stream,
  };
  if (!scenario?.turns || steps(scenario).some((s) => s.type === "function_call")) body.tools = LIBRARY_TOOLS_NOT_STRICT;
  if (!scenario?.turns || steps(scenario).some((s) => s.type === "reasoning")) {
    body.reasoning = { effort: "medium", summary: "auto" };
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}

const unpaced = useServer({ seed: 7 });
const paced = useServer({ seed: 7 });

const FLOATS = /"(temperature|top_p|presence_penalty|frequency_penalty)":(-?\d+)(?=[,}])/g;

/** The old serialiser: an event's frame as JSON.stringify writes it (the openai dialect's floats as `1.0` in a response). */
function referenceFrame(data: string, dialect: string): string {
  const event = JSON.parse(data) as { type: string };
  let json = JSON.stringify(event);
  if (dialect === "openai" && json.includes('"object":"response"')) json = json.replace(FLOATS, '"$1":$2.0');
  return `event: ${event.type}\ndata: ${json}\n\n`;
}

/** Checks a stream's frames against the reference serialiser; returns how many it held. */
function holdToReference(text: string, dialect: string, where: string): number {
  const frames = text.split("\n\n").filter((f) => f.length > 0);
  let n = 0;
  for (const frame of frames) {
    if (frame === "data: [DONE]" || frame.startsWith(":")) continue;
    const data = frame.slice(frame.indexOf("\ndata: ") + 7);
    expect(`${frame}\n\n`, `${where}, frame ${n}`).toBe(referenceFrame(data, dialect));
    n++;
  }
  return n;
}

const hashes: Record<string, string> = {};
const want: Record<string, string> = existsSync(FILE) ? JSON.parse(await readFile(FILE, "utf8")) : {};

afterAll(async () => {
  if (UPDATE) await writeFile(FILE, JSON.stringify(hashes, Object.keys(hashes).sort(), 2) + "\n");
});

describe("stream bytes under seeds 1–50", () => {
  for (const dialect of DIALECTS) {
    it.each(NAMES)(`%s (${dialect}): the same bytes as before, and the reference serialiser's`, async (name) => {
      const headers = { "x-mock-scenario": name, "x-mock-dialect": dialect };
      for (const stream of [true, false]) {
        const hash = createHash("sha256");
        let frames = 0;
        for (const seed of SEEDS) {
          const res = await rawPost(unpaced(), bodyFor(name, seed, stream), { ...headers, "x-mock-seed": String(seed) });
          hash.update(`${res.status}\n${res.text}\n`);
          if (stream && res.status === 200) frames += holdToReference(res.text, dialect, `${name} seed ${seed}`);
        }
        const key = `${name}|${dialect}|${stream ? "sse" : "json"}`;
        hashes[key] = hash.digest("hex");
        if (!UPDATE) expect(hashes[key], `${key}: the bytes changed`).toBe(want[key]);
        if (stream && !name.startsWith("error-")) expect(frames).toBeGreaterThan(SEEDS.length * 2);
      }
    });
  }

  it.each(DIALECTS)("a paced stream sends the bytes of the unpaced one (%s)", async (dialect) => {
    // Seeds 1–3 of every scenario, 1 ms per delta: each event goes through the pacer and its own write.
    await Promise.all(
      NAMES.map(async (name) => {
        for (const seed of [1, 2, 3]) {
          const headers = { "x-mock-scenario": name, "x-mock-dialect": dialect, "x-mock-seed": String(seed) };
          const body = bodyFor(name, seed, true);
          const a = await rawPost(unpaced(), body, { ...headers, "x-mock-session": `paced-${dialect}-${name}` });
          const b = await rawPost(paced(), body, { ...headers, "x-mock-session": `paced-${dialect}-${name}`, "x-mock-chunk-ms": "1" });
          expect(b.text, `${name} seed ${seed}`).toBe(a.text);
        }
      }),
    );
  });

  it.skipIf(UPDATE)("has a hash for every scenario, dialect and delivery, and none for a scenario that is gone", () => {
    expect(Object.keys(want).sort()).toEqual(
      NAMES.flatMap((n) => DIALECTS.flatMap((d) => [`${n}|${d}|json`, `${n}|${d}|sse`])).sort(),
    );
  });
});
