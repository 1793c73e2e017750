/**
 * The store bounded by bytes (`storeBytes`), on a real server on port 0: the
 * oldest responses go first once the budget is passed; a response over 1/16
 * of it is kept without its input (`input_items` is a 404
 * `input_items_unavailable` that names the sizes), and a continuation of it
 * works on a stand-in (its first text). The pure parts (cost, stand-in) too.
 */
import { describe, expect, it } from "vitest";
import { expectErrorBody } from "../support/conformance.js";
import { useServer } from "../support/server.js";
import type { MockServer } from "../../src/server.js";
import { DEFAULT_STORE_BYTES, inputStandIn, STAND_IN_BYTES, valueCost } from "../../src/store/record-cost.js";
import { MemoryResponseStore } from "../../src/store/response-store.js";
import { resolveOptions } from "../../src/options.js";

const MODEL = "mock-model-1";

function client(get: () => MockServer) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${get().baseURL}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
}

describe("storeBytes: the option", () => {
  it("defaults to 64 MiB, beside storeLimit", () => {
    const options = resolveOptions({});
    expect(options.storeBytes).toBe(64 * 1024 * 1024);
    expect(DEFAULT_STORE_BYTES).toBe(64 * 1024 * 1024);
    expect(new MemoryResponseStore().byteLimit).toBe(DEFAULT_STORE_BYTES);
  });
});

describe("storeBytes: eviction, oldest first", () => {
  // An 8 KiB input costs ~9–10 kB with its plan: 256 KiB holds about two dozen, each under 1/16 (16 KiB), so each keeps its input.
  const server = useServer({ storeBytes: 256 * 1024 });
  const api = client(server);

  it("keeps the newest responses within the budget and evicts the oldest first, in order", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const res = await api("POST", "/responses", { model: MODEL, input: `${i} ${"y".repeat(8 * 1024)}` });
      expect(res.status).toBe(200);
      ids.push(res.json.id);
    }
    const present: boolean[] = [];
    for (const id of ids) present.push((await api("GET", `/responses/${id}`)).status === 200);
    const firstKept = present.indexOf(true);
    // Some went (60 × ~9 kB is over 256 KiB), the newest stayed, and what is kept is a suffix: the oldest went first.
    expect(firstKept).toBeGreaterThan(0);
    expect(present.slice(firstKept).every(Boolean)).toBe(true);
    expect(present.slice(0, firstKept).some(Boolean)).toBe(false);
    // The kept ones fit the budget: about 256 KiB / 9 kB of them, not the 1000 of storeLimit.
    const kept = present.length - firstKept;
    expect(kept).toBeGreaterThan(15);
    expect(kept).toBeLessThan(30);
    // Those kept keep their input items whole.
    const items = await api("GET", `/responses/${ids.at(-1)}/input_items`);
    expect(items.status).toBe(200);
    expect(items.json.data[0].content[0].text).toBe(`59 ${"y".repeat(8 * 1024)}`);
  });
});

describe("storeBytes: a response over 1/16 of the budget", () => {
  // 1 MiB budget: over 64 KiB, a record keeps a stand-in of its input (1/64 of the budget: 16 KiB of text).
  const server = useServer({ storeBytes: 1024 * 1024 });
  const api = client(server);
  const big = `Start of the big document. ${"z".repeat(200_000)} End of it.`;

  it("is stored and retrievable, but its input_items are a 404 input_items_unavailable naming the size and the budget", async () => {
    const created = await api("POST", "/responses", { model: MODEL, input: big });
    expect(created.status).toBe(200);
    expect((await api("GET", `/responses/${created.json.id}`)).json).toEqual(created.json);
    const items = await api("GET", `/responses/${created.json.id}/input_items`);
    expect(items.status).toBe(404);
    expectErrorBody(items.json);
    expect(items.json.error.type).toBe("not_found");
    expect(items.json.error.code).toBe("input_items_unavailable");
    expect(items.json.error.param).toBe("response_id");
    const message: string = items.json.error.message;
    expect(message).toContain(created.json.id);
    expect(message).toMatch(/about 19\d\.\d KiB/); // the record's size with its input (200 kB of text and its plan)
    expect(message).toContain("budget of 1 MiB (--store-bytes)");
    expect(message).toMatch(/--store-bytes \d{7} or more/);
    expect(message).toContain("previous_response_id works");
  });

  it("a small response beside it keeps its input items", async () => {
    const created = await api("POST", "/responses", { model: MODEL, input: "A small one." });
    const items = await api("GET", `/responses/${created.json.id}/input_items`);
    expect(items.status).toBe(200);
    expect(items.json.data[0].content).toEqual([{ type: "input_text", text: "A small one." }]);
  });

  it("can be continued with previous_response_id: the conversation holds its input's first 16 KiB of text", async () => {
    const first = await api("POST", "/responses", { model: MODEL, input: big });
    const next = await api("POST", "/responses", {
      model: MODEL,
      previous_response_id: first.json.id,
      input: "And then?",
    });
    expect(next.status).toBe(200);
    expect(next.json.status).toBe("completed");
    expect(next.json.previous_response_id).toBe(first.json.id);
    // The tokens counted for the continuation: more than the new input and the earlier output alone, far fewer than the whole document's.
    const count = async (body: Record<string, unknown>) =>
      (await api("POST", "/responses/input_tokens", { model: MODEL, ...body })).json.input_tokens as number;
    const continued = await count({ previous_response_id: first.json.id, input: "And then?" });
    const whole = await count({
      input: [{ role: "user", content: big }, ...first.json.output, { role: "user", content: "And then?" }],
    });
    const standIn = await count({
      input: [
        { role: "user", content: big.slice(0, STAND_IN_BYTES) },
        ...first.json.output,
        { role: "user", content: "And then?" },
      ],
    });
    expect(continued).toBe(standIn);
    expect(continued).toBeLessThan(whole);
    // A chain through it goes on: the continuation itself is small, and keeps its input.
    const third = await api("POST", "/responses", { model: MODEL, previous_response_id: next.json.id, input: "More." });
    expect(third.status).toBe(200);
    expect((await api("GET", `/responses/${next.json.id}/input_items`)).status).toBe(200);
  });
});

describe("storeBytes: 0 keeps no inputs", () => {
  const server = useServer({ storeBytes: 0, storeLimit: 5 });
  const api = client(server);

  it("stores every response without its input, bounded by storeLimit alone", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await api("POST", "/responses", { model: MODEL, input: `Turn ${i}.` })).json.id);
    const statuses = await Promise.all(ids.map(async (id) => (await api("GET", `/responses/${id}`)).status));
    expect(statuses).toEqual([404, 404, 200, 200, 200, 200, 200]);
    const items = await api("GET", `/responses/${ids[6]}/input_items`);
    expect(items.status).toBe(404);
    expect(items.json.error.code).toBe("input_items_unavailable");
    expect(items.json.error.message).toContain("--store-bytes 0");
  });
});

describe("the stand-in and the cost estimate", () => {
  it("valueCost counts strings by their length and grows with the items", () => {
    expect(valueCost("x".repeat(1000))).toBeGreaterThanOrEqual(1000);
    const one = valueCost([{ type: "message", role: "user", content: "hi" }]);
    const two = valueCost([
      { type: "message", role: "user", content: "hi" },
      { type: "message", role: "user", content: "hi" },
    ]);
    expect(two).toBeGreaterThan(one);
  });

  it("cuts the long strings of the items in order to maxChars in all, keeps short ones and the shape, and leaves out values past maxValues", () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "a".repeat(100) }] },
      { type: "message", role: "user", content: "b".repeat(100) },
      { type: "message", role: "user", content: "c".repeat(100) },
    ];
    const cut = inputStandIn(input, 150);
    expect(cut).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "a".repeat(100) }] },
      { type: "message", role: "user", content: "b".repeat(50) },
      { type: "message", role: "user", content: "" },
    ]);
    // The array, the first item and its three values: the second item is left out.
    expect(inputStandIn(input, 1000, 5)).toEqual([{ type: "message", role: "user", content: [] }]);
  });

  it("counts the stand-in's text in UTF-8 bytes, and never cuts a character or a surrogate pair", () => {
    expect(inputStandIn([{ content: "é".repeat(100) }], 51)).toEqual([{ content: "é".repeat(25) }]);
    expect(inputStandIn([{ content: "😀".repeat(50) }], 10)).toEqual([{ content: "😀😀" }]);
    expect(inputStandIn(["é".repeat(40) + "a".repeat(40), "b".repeat(70)], 85)).toEqual([
      "é".repeat(40) + "a".repeat(5),
      "",
    ]);
  });
});
