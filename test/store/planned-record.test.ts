/**
 * PlannedRecord: a stored response kept as its plan and the request's input.
 * What it builds when read is what the answer sent (the terminal event's
 * response, the input items with ids the previous code stored); the memory
 * store keeps it without building either; a shared store writes it whole.
 */
import { describe, expect, it } from "vitest";
import { emitStream } from "../../src/emit/emit-events.js";
import { inputItems } from "../../src/scenario/conversation.js";
import type { CreateResponseBody, ItemParam } from "../../src/spec/index.js";
import { withItemIds } from "../../src/store/conversation.js";
import { PlannedRecord } from "../../src/store/planned-record.js";
import { decodeRecord, encodeRecord } from "../../src/store/redis-codec.js";
import { MemoryResponseStore, storedId } from "../../src/store/response-store.js";
import { ITEMS, OUTCOMES, makePlan } from "../support/plans.js";

const INPUTS: CreateResponseBody["input"][] = [
  "Hello",
  [
    { type: "message", role: "user", content: "Hi" } as ItemParam,
    { type: "message", id: "msg_given", role: "user", content: "kept id" } as ItemParam,
  ],
  [],
];

/** Whether a record has built its response or its input items yet (its private fields, read from outside). */
const built = (record: PlannedRecord) => {
  const own = record as unknown as { built?: unknown; items?: unknown };
  return { response: own.built !== undefined, input: own.items !== undefined };
};

describe("PlannedRecord", () => {
  for (const [itemsName, items] of Object.entries(ITEMS)) {
    for (const [outcomeName, outcome] of Object.entries(OUTCOMES)) {
      it(`builds the stream's terminal response: ${itemsName}, ${outcomeName}`, () => {
        const plan = makePlan(items, { outcome });
        const record = new PlannedRecord(plan, "Hello", null);
        expect(built(record).response).toBe(false);
        const { response } = emitStream(plan);
        // Key order too: a retrieved response is serialised as it comes.
        expect(JSON.stringify(record.response)).toBe(JSON.stringify(response));
        expect(record.response).toBe(record.response); // built once
      });
    }
  }

  it("builds the input items with ids the store kept before (given ids kept, others derived from the response id)", () => {
    for (const input of INPUTS) {
      const plan = makePlan(ITEMS.text);
      const record = new PlannedRecord(plan, input, "s1");
      expect(record.input).toEqual(withItemIds(inputItems(input), plan.base.id));
      expect(record.input).toBe(record.input);
    }
    const ids = new PlannedRecord(makePlan(ITEMS.text), INPUTS[1], null).input.map(
      (item) => (item as { id?: string }).id,
    );
    expect(ids[1]).toBe("msg_given");
    expect(ids[0]).toMatch(/^msg_[0-9a-zA-Z]{24}$/);
  });

  it("is kept by the memory store under its plan's id without building its response or input", () => {
    const store = new MemoryResponseStore(10);
    const record = new PlannedRecord(makePlan(ITEMS.text), "Hello", null);
    store.put(record);
    expect(storedId(record)).toBe("resp_test");
    expect(built(record)).toEqual({ response: false, input: false });
    expect(store.get("resp_test")).toBe(record);
    expect(store.get("resp_test")!.response.id).toBe("resp_test");
  });

  it("is written whole by the shared store's codec, as a plain record with the same fields", () => {
    const plan = makePlan(ITEMS.reasoningThenText, { outcome: OUTCOMES.incomplete });
    const record = new PlannedRecord(plan, INPUTS[1], "s1");
    const plain = {
      response: emitStream(plan).response,
      input: withItemIds(inputItems(INPUTS[1]), plan.base.id),
      plan,
      session: "s1",
    };
    expect(encodeRecord(record)).toBe(encodeRecord(plain));
    expect(decodeRecord(encodeRecord(record))).toEqual(JSON.parse(JSON.stringify(plain)));
  });

  it("takes a response or input set on it (a run that replaces its response)", () => {
    const record = new PlannedRecord(makePlan(ITEMS.text), "Hello", null);
    const replaced = { ...record.response, status: "cancelled" as const };
    record.response = replaced;
    expect(record.response).toBe(replaced);
    record.input = [];
    expect(record.input).toEqual([]);
  });
});
