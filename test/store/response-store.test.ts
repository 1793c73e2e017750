/**
 * The in-memory response store (cap, eviction order, re-put, limit 0) and the
 * previous_response_id chain walk over it (order, missing id, missing ancestor).
 */
import { describe, expect, it } from "vitest";
import { ApiError, type ItemParam, type OutputItem, type ResponseResource } from "../../src/spec/index.js";
import { asListedItem, priorItems, withItemIds } from "../../src/store/conversation.js";
import { MemoryResponseStore, type StoredResponse } from "../../src/store/response-store.js";

/** A minimal record: only the fields the store and the chain walk read. */
function record(
  id: string,
  opts: { previous?: string | null; input?: ItemParam[]; output?: OutputItem[] } = {},
): StoredResponse {
  const response = {
    id,
    object: "response",
    previous_response_id: opts.previous ?? null,
    output: opts.output ?? [],
  } as unknown as ResponseResource;
  return { response, input: opts.input ?? [], plan: undefined as never, events: [] };
}

const user = (id: string, text: string): ItemParam =>
  ({ type: "message", id, role: "user", content: text }) as ItemParam;
const assistant = (id: string, text: string): OutputItem =>
  ({
    type: "message",
    id,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  }) as unknown as OutputItem;

const present = (store: MemoryResponseStore, ids: string[]) => ids.filter((id) => store.get(id) !== undefined);

/** Catches the error a function throws (or fails the test). */
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error("expected an ApiError, nothing was thrown");
}

describe("MemoryResponseStore", () => {
  it("defaults to a cap of 1000", () => {
    expect(new MemoryResponseStore().limit).toBe(1000);
  });

  it("keeps at most `limit` responses, evicting the oldest first, one per put", () => {
    const store = new MemoryResponseStore(3);
    const ids = ["r1", "r2", "r3", "r4", "r5"];
    store.put(record("r1"));
    store.put(record("r2"));
    store.put(record("r3"));
    expect(store.size).toBe(3);
    expect(present(store, ids)).toEqual(["r1", "r2", "r3"]);
    store.put(record("r4"));
    expect(store.size).toBe(3);
    expect(present(store, ids)).toEqual(["r2", "r3", "r4"]);
    store.put(record("r5"));
    expect(present(store, ids)).toEqual(["r3", "r4", "r5"]);
  });

  it("evicts in insertion order over many puts (size never exceeds the cap)", () => {
    const store = new MemoryResponseStore(10);
    for (let i = 0; i < 1000; i++) {
      store.put(record(`r${i}`));
      expect(store.size).toBe(Math.min(i + 1, 10));
    }
    const all = Array.from({ length: 1000 }, (_, i) => `r${i}`);
    expect(present(store, all)).toEqual(all.slice(-10));
  });

  it("get returns the record that was put (same object)", () => {
    const store = new MemoryResponseStore(2);
    const r = record("r1");
    store.put(r);
    expect(store.get("r1")).toBe(r);
    expect(store.get("nope")).toBeUndefined();
  });

  it("re-putting an id moves it to the newest end (and replaces the record)", () => {
    const store = new MemoryResponseStore(3);
    store.put(record("a"));
    store.put(record("b"));
    store.put(record("c"));
    const updated = record("a", { input: [user("msg_x", "updated")] });
    store.put(updated);
    expect(store.size).toBe(3);
    expect(store.get("a")).toBe(updated);
    store.put(record("d")); // b is now the oldest
    expect(present(store, ["a", "b", "c", "d"])).toEqual(["a", "c", "d"]);
    store.put(record("e")); // then c
    expect(present(store, ["a", "b", "c", "d", "e"])).toEqual(["a", "d", "e"]);
    store.put(record("f")); // then a
    expect(present(store, ["a", "d", "e", "f"])).toEqual(["d", "e", "f"]);
  });

  it("limit 0 keeps nothing (and a re-put removes what is there)", () => {
    const store = new MemoryResponseStore(0);
    store.put(record("r1"));
    store.put(record("r2"));
    expect(store.size).toBe(0);
    expect(store.get("r1")).toBeUndefined();
    expect(store.get("r2")).toBeUndefined();
  });

  it("limit 1 keeps only the newest", () => {
    const store = new MemoryResponseStore(1);
    store.put(record("r1"));
    store.put(record("r2"));
    expect(store.size).toBe(1);
    expect(present(store, ["r1", "r2"])).toEqual(["r2"]);
  });

  it("delete removes a record and says whether it was there; the freed slot is reused", () => {
    const store = new MemoryResponseStore(2);
    store.put(record("a"));
    store.put(record("b"));
    expect(store.delete("a")).toBe(true);
    expect(store.delete("a")).toBe(false);
    expect(store.size).toBe(1);
    store.put(record("c"));
    expect(present(store, ["a", "b", "c"])).toEqual(["b", "c"]);
  });

  it("rejects a negative or fractional limit", () => {
    expect(() => new MemoryResponseStore(-1)).toThrow(RangeError);
    expect(() => new MemoryResponseStore(1.5)).toThrow(RangeError);
    expect(() => new MemoryResponseStore(Number.NaN)).toThrow(RangeError);
  });
});

describe("priorItems (previous_response_id chains)", () => {
  /** r1 ← r2 ← r3, each with one user input and one assistant output. */
  function chain() {
    const store = new MemoryResponseStore(10);
    store.put(record("r1", { input: [user("u1", "one")], output: [assistant("a1", "first")] }));
    store.put(record("r2", { previous: "r1", input: [user("u2", "two")], output: [assistant("a2", "second")] }));
    store.put(
      record("r3", {
        previous: "r2",
        input: [user("u3", "three"), user("u3b", "three b")],
        output: [assistant("a3", "third")],
      }),
    );
    return store;
  }
  const ids = (items: ItemParam[]) => items.map((i) => (i as { id?: string }).id);

  it("returns every earlier input and output, oldest response first, input before output", () => {
    const store = chain();
    expect(ids(priorItems(store, "r3"))).toEqual(["u1", "a1", "u2", "a2", "u3", "u3b", "a3"]);
    expect(ids(priorItems(store, "r2"))).toEqual(["u1", "a1", "u2", "a2"]);
    expect(ids(priorItems(store, "r1"))).toEqual(["u1", "a1"]);
  });

  it("replays output items unchanged as input items", () => {
    const store = chain();
    const items = priorItems(store, "r1");
    expect(items[1]).toEqual(assistant("a1", "first"));
  });

  it("does not modify the stored records", () => {
    const store = chain();
    const before = JSON.stringify([store.get("r1"), store.get("r2"), store.get("r3")]);
    priorItems(store, "r3").push(user("zz", "extra"));
    expect(JSON.stringify([store.get("r1"), store.get("r2"), store.get("r3")])).toBe(before);
  });

  it("a missing id is a 400 previous_response_not_found naming previous_response_id", () => {
    const err = thrown(() => priorItems(chain(), "resp_missing"));
    expect(err.status).toBe(400);
    expect(err.type).toBe("invalid_request");
    expect(err.code).toBe("previous_response_not_found");
    expect(err.param).toBe("previous_response_id");
    expect(err.message).toContain("resp_missing");
    expect(err.toBody()).toEqual({
      error: {
        type: "invalid_request",
        code: "previous_response_not_found",
        param: "previous_response_id",
        message: err.message,
      },
    });
  });

  it("a missing ancestor is the same error, naming the requested id and the missing ancestor", () => {
    const store = chain();
    store.delete("r1");
    const err = thrown(() => priorItems(store, "r3"));
    expect(err.status).toBe(400);
    expect(err.code).toBe("previous_response_not_found");
    expect(err.param).toBe("previous_response_id");
    expect(err.message).toContain("'r3'");
    expect(err.message).toContain("ancestor 'r1'");
    // r2 needs r1 too.
    expect(() => priorItems(store, "r2")).toThrow(/ancestor 'r1'/);
  });

  it("an evicted ancestor (store cap) breaks the chain the same way", () => {
    const store = new MemoryResponseStore(2);
    store.put(record("r1", { input: [user("u1", "one")] }));
    store.put(record("r2", { previous: "r1", input: [user("u2", "two")] }));
    store.put(record("r3", { previous: "r2", input: [user("u3", "three")] }));
    expect(store.get("r1")).toBeUndefined();
    expect(() => priorItems(store, "r3")).toThrow(/ancestor 'r1'/);
  });

  it("stops on a cycle instead of looping forever", () => {
    const store = new MemoryResponseStore(10);
    store.put(record("x", { previous: "y", input: [user("ux", "x")] }));
    store.put(record("y", { previous: "x", input: [user("uy", "y")] }));
    expect(ids(priorItems(store, "x"))).toEqual(["uy", "ux"]);
  });

  it("stops at maxDepth", () => {
    const store = chain();
    expect(ids(priorItems(store, "r3", 2))).toEqual(["u2", "a2", "u3", "u3b", "a3"]);
  });
});

describe("withItemIds / asListedItem", () => {
  it("keeps given ids and gives the others deterministic, type-prefixed ids", () => {
    const items: ItemParam[] = [
      user("msg_given", "hi"),
      { type: "message", role: "user", content: "no id" } as ItemParam,
      { type: "function_call_output", call_id: "call_1", output: "42" } as ItemParam,
    ];
    const a = withItemIds(items, "resp_1");
    const b = withItemIds(items, "resp_1");
    const c = withItemIds(items, "resp_2");
    expect((a[0] as { id: string }).id).toBe("msg_given");
    expect((a[1] as { id: string }).id).toMatch(/^msg_/);
    expect((a[2] as { id: string }).id).toMatch(/^fco_/);
    expect(a).toEqual(b);
    expect((c[1] as { id: string }).id).not.toBe((a[1] as { id: string }).id);
    // The input is not modified.
    expect((items[1] as { id?: string }).id).toBeUndefined();
    // The copy is the item's keys in its order, then the id; an own "__proto__" key stays data (not the prototype).
    expect(Object.keys(a[2])).toEqual(["type", "call_id", "output", "id"]);
    const odd = JSON.parse('{"type":"message","role":"user","content":"x","__proto__":{"polluted":true}}') as ItemParam;
    const [copy] = withItemIds([odd], "resp_1");
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["type", "role", "content", "__proto__", "id"]);
    expect((copy as unknown as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("lists a string-content message as a completed message with an input_text part", () => {
    expect(asListedItem(user("msg_1", "hello"))).toEqual({
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "user",
      content: [{ type: "input_text", text: "hello" }],
    });
  });
});
