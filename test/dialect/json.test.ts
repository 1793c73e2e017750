/**
 * src/dialect/json.ts writes what JSON.stringify writes, byte for byte: on
 * generated JSON values, on events that carry snapshots built from a base
 * response (reused text included), and on whole answers of every library
 * scenario in both dialects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DIALECTS,
  deltaCache,
  eventFrame,
  renderEvent,
  renderResponse,
  responseBody,
  toJson,
} from "../../src/dialect/index.js";
import { eventJson, quote, responseJson } from "../../src/dialect/json.js";
import { answerRequest } from "../../src/emit/index.js";
import { LIBRARY_DIR, loadScenarios } from "../../src/scenario/load.js";
import { createRegistry } from "../../src/scenario/registry.js";
import { CreateResponseBody } from "../../src/spec/index.js";
import { anyText } from "../robust/arbitraries.js";

const RUNS = Number(process.env.ORM_FUZZ_RUNS ?? 1000);
/** One stream's delta templates, shared by every generated delta. */
const deltas = deltaCache();
const json = fc.jsonValue({ maxDepth: 3 });
/** Values JSON.stringify treats specially, in places JSON.stringify reaches them. */
const awkward = fc.constantFrom<unknown>(
  undefined,
  NaN,
  Infinity,
  -0,
  () => 1,
  new Date(0),
  { toJSON: (k: string) => `key ${k}` },
  [undefined],
  Object.create({ inherited: 1 }),
);

describe("json.ts writes JSON.stringify's bytes", () => {
  it("quote: any string", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.string({ unit: "binary" })), (s) => {
        expect(quote(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: RUNS },
    );
  });

  it("events and responses: generated values, with and without a base", () => {
    const base = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 8 });
    fc.assert(
      fc.property(
        base,
        fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(json, awkward), { maxKeys: 4 }),
        fc.constantFrom("in_progress", "completed", undefined),
        (b, extra, status) => {
          // A snapshot as the emitter makes one: the base with a status, sometimes more.
          const snapshot = status === undefined ? { ...b, ...extra } : { ...b, status };
          expect(responseJson(snapshot, b)).toBe(JSON.stringify(snapshot));
          expect(responseJson(snapshot, b)).toBe(JSON.stringify(snapshot)); // the second time, from what was kept
          const event = { type: "response.in_progress", sequence_number: 1, ...extra, response: snapshot };
          expect(eventJson(event, b)).toBe(JSON.stringify(event));
          expect(eventJson(event)).toBe(JSON.stringify(event));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("events without a snapshot: generated flat and nested values, awkward ones included", () => {
    const scalar = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant([]),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(scalar, json, awkward), { maxKeys: 9 }),
        (fields) => {
          const event = { type: "response.output_text.delta", sequence_number: 3, ...fields };
          expect(eventJson(event)).toBe(JSON.stringify(event));
          expect(eventJson(event, { id: "resp_1" })).toBe(JSON.stringify(event));
          // A "response" that is not an object is written like any other value.
          expect(eventJson({ ...event, response: fields.x ?? "text" }, { id: "resp_1" })).toBe(
            JSON.stringify({ ...event, response: fields.x ?? "text" }),
          );
        },
      ),
      { numRuns: RUNS },
    );
    const delta = {
      type: "response.output_text.delta",
      sequence_number: 7,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: ' "quoted"\n\u2028',
      logprobs: [],
      obfuscation: "abc",
    };
    expect(eventJson(delta)).toBe(JSON.stringify(delta));
    expect(eventJson([1, 2])).toBe("[1,2]");
    expect(eventJson(Object.assign(Object.create({ inherited: 1 }), { own: 2 }))).toBe(
      JSON.stringify(Object.assign(Object.create({ inherited: 1 }), { own: 2 })),
    );
  });

  it("delta events: the emitter's shapes, and near misses (other keys, order, values), awkward values included", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), anyText);
    const number = fc.oneof(fc.integer({ min: 0, max: 1e6 }), fc.constantFrom(-0, 0.5, 1e21, NaN, Infinity));
    const value = fc.oneof(text, number, json, awkward);
    const logprob = fc.record({
      token: text,
      logprob: fc.double({ noNaN: true, noDefaultInfinity: true }),
      bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }),
      top_logprobs: fc.constant([]),
    });
    const shape = fc.record({
      type: fc.oneof(
        fc.constantFrom(
          "response.output_text.delta",
          "response.reasoning_summary_text.delta",
          "response.function_call_arguments.delta",
        ),
        text,
      ),
      sequence_number: number,
      item_id: text,
      output_index: number,
      index: fc.constantFrom(null, "content_index", "summary_index", "annotation_index"),
      at: number,
      delta: text,
      logprobs: fc.option(fc.oneof(fc.array(logprob, { maxLength: 2 }), value), { nil: undefined }),
      obfuscation: fc.option(fc.oneof(text, value), { nil: undefined }),
      // A near miss: one key moved, renamed or added, or a value of another type.
      miss: fc.option(
        fc.record({
          kind: fc.constantFrom("move", "extra", "value"),
          key: fc.constantFrom(
            "type",
            "sequence_number",
            "item_id",
            "output_index",
            "delta",
            "logprobs",
            "obfuscation",
          ),
          value,
        }),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(shape, (d) => {
        const event: Record<string, unknown> = {
          type: d.type,
          sequence_number: d.sequence_number,
          item_id: d.item_id,
          output_index: d.output_index,
        };
        if (d.index !== null) event[d.index] = d.at;
        event.delta = d.delta;
        if (d.logprobs !== undefined) event.logprobs = d.logprobs;
        if (d.obfuscation !== undefined) event.obfuscation = d.obfuscation;
        if (d.miss?.kind === "move" && d.miss.key in event) {
          const v = event[d.miss.key];
          delete event[d.miss.key];
          event[d.miss.key] = v;
        } else if (d.miss?.kind === "extra") event[`x_${d.miss.key}`] = d.miss.value;
        else if (d.miss?.kind === "value") event[d.miss.key] = d.miss.value;
        expect(eventJson(event)).toBe(JSON.stringify(event));
        // A stream's own cache, framed: the whole SSE message, the first time (a miss) and the second (a hit).
        // The cache is shared by every generated event, so it also holds the head of another run when asked.
        for (const dialect of DIALECTS.values()) {
          const rendered = renderEvent(dialect, event as never, undefined) as Record<string, unknown>;
          const type = String(rendered.type);
          const expected = /[\r\n]/.test(type) ? "throws" : `event: ${type}\ndata: ${toJson(dialect, rendered)}\n\n`;
          const frame = () => {
            try {
              return eventFrame(dialect, event as never, undefined, deltas);
            } catch {
              return "throws";
            }
          };
          expect(frame()).toBe(expected);
          expect(frame()).toBe(expected);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("a stream's snapshots in turn (running, then terminal with keys changed, added or left out): each is JSON.stringify's", () => {
    const value = fc.oneof(json, awkward, fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 6 }), json, { minKeys: 1, maxKeys: 8 }),
        fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 5 }),
        fc.boolean(),
        (b, changes, spreadFirst) => {
          const base = { ...b, status: "in_progress" };
          const created = { ...base };
          expect(responseJson(created, base)).toBe(JSON.stringify(created));
          expect(responseJson({ ...base }, base)).toBe(JSON.stringify(base));
          // The terminal one: the base spread with its changes (keys of the base overridden in place, new ones last), or the other way round.
          const terminal = spreadFirst
            ? { ...base, status: "completed", ...changes }
            : { ...changes, ...base, status: "completed" };
          expect(responseJson(terminal, base)).toBe(JSON.stringify(terminal));
          // Forgotten once the terminal one is out: the next running snapshot is written afresh.
          expect(responseJson({ ...base }, base)).toBe(JSON.stringify(base));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("a snapshot that is not its base with a status is never served from what was kept", () => {
    const base = { id: "resp_1", status: "in_progress", output: [] as unknown[], usage: null };
    const created = { ...base };
    expect(responseJson(created, base)).toBe(JSON.stringify(created));
    const other = { ...base, output: [{ type: "message" }] };
    expect(responseJson(other, base)).toBe(JSON.stringify(other));
    const queued = { ...base, status: "queued" };
    expect(responseJson(queued, base)).toBe(JSON.stringify(queued));
    // Same keys in another order: another text.
    const reordered = { status: "in_progress", id: "resp_1", output: base.output, usage: null };
    expect(responseJson(reordered, base)).toBe(JSON.stringify(reordered));
  });

  it("many answers' snapshots interleaved (more than are kept): each text is its own, kept or not", () => {
    const bases = Array.from({ length: 40 }, (_, i) => ({
      id: `resp_${i}`,
      status: "in_progress",
      output: [] as unknown[],
      n: i,
    }));
    for (const round of [0, 1, 2]) {
      for (const base of round === 1 ? [...bases].reverse() : bases) {
        const snapshot = { ...base };
        const first = responseJson(snapshot, base);
        const again = responseJson(snapshot, base);
        expect(first).toBe(JSON.stringify(snapshot));
        expect(again).toBe(JSON.stringify(snapshot));
      }
    }
    // A terminal snapshot forgets its base's text; the next running one is written afresh, and right.
    const base = bases[0];
    expect(responseJson({ ...base, status: "completed" }, base)).toBe(JSON.stringify({ ...base, status: "completed" }));
    expect(responseJson({ ...base }, base)).toBe(JSON.stringify(base));
  });

  it("every library scenario's stream and body, in both dialects", async () => {
    const library = (await loadScenarios([LIBRARY_DIR])).map((l) => l.scenario);
    const registry = createRegistry(library, "auto");
    let frames = 0;
    for (const dialect of DIALECTS.values()) {
      for (const scenario of ["auto", ...library.map((s) => s.name)]) {
        let answer;
        try {
          const request = CreateResponseBody.parse({
            model: "m",
            input: "What's the weather in Paris? Think first.",
            reasoning: { effort: "low", summary: "auto" },
            stream: true,
          });
          answer = answerRequest({ registry, request, seed: 7, scenario, createdAt: 1_767_225_600, dialect });
        } catch {
          continue; // an http_error scenario
        }
        for (const event of answer.events) {
          // What the renderer produced, serialised by JSON.stringify (toJson), with the dialect's floats.
          const rendered = renderEvent(dialect, event, answer.plan) as { type: string };
          expect(eventFrame(dialect, event, answer.plan)).toBe(
            `event: ${rendered.type}\ndata: ${toJson(dialect, rendered)}\n\n`,
          );
          frames++;
        }
        expect(responseBody(dialect, answer.response, answer.plan)).toBe(
          toJson(dialect, renderResponse(dialect, answer.response, answer.plan)),
        );
      }
    }
    expect(frames).toBeGreaterThan(500);
  });
});
