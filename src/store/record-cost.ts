/**
 * What a stored response costs to keep, estimated cheaply, and what is kept
 * of an input too big to keep whole. The store is bounded by bytes
 * (`storeBytes`) as the journal is (`journalBytes`): a record's cost is its
 * plan's (the journal's planCost), its input's, and a fixed overhead. A
 * record whose cost is over 1/16 of the budget keeps, instead of its input,
 * a small stand-in (the input with its text cut, see `inputStandIn`) that a
 * `previous_response_id` continuation reads, and `input_items` answers
 * `input_items_unavailable` for it. Pure.
 */
import { planCost } from "../journal/trace.js";
import type { Plan } from "../generate/plan.js";
import { ApiError } from "../spec/index.js";
import { utf8Length, utf8Prefix } from "../util/utf8.js";

/** The default byte budget of the response store (64 MiB). */
export const DEFAULT_STORE_BYTES = 64 * 1024 * 1024;
/** A record is kept with its input up to this share of the byte budget (1/16: at least 16 such records fit). */
export const WHOLE_INPUT_SHARE = 16;
/** What a record costs besides its plan and its input (its objects, the store's map entry), roughly. */
export const RECORD_OVERHEAD_BYTES = 256;
/** The most UTF-8 bytes of text a stand-in keeps (all its strings together): the generators read 16 KiB of a message. */
export const STAND_IN_BYTES = 16 * 1024;
/** The most values (items, parts, keys' values) a stand-in keeps. */
export const STAND_IN_VALUES = 1024;
/** Strings this short are kept whole in a stand-in, outside its characters (types, roles, ids, names, statuses). */
const WHOLE_STRING_CHARS = 64;

/** Why a stored response has no input items: what it would have cost, and the budget it was over 1/16 of. */
export interface InputOmitted {
  /** The record's estimated cost with its input, in bytes. */
  bytes: number;
  /** The store's byte budget (`storeBytes`) when it was stored. */
  budget: number;
}

/** What a string costs: its characters (two bytes each when any is past Latin-1 would be closer; one is the estimate) and a header. */
const STRING_BYTES = 16;
/** What an object or an array costs besides its values, and each of its slots. */
const OBJECT_BYTES = 32;
const SLOT_BYTES = 8;

/** What a JSON-like value costs to keep, estimated: its strings' characters and its objects' slots. */
export function valueCost(value: unknown): number {
  if (typeof value === "string") return value.length + STRING_BYTES;
  if (typeof value !== "object" || value === null) return SLOT_BYTES;
  let n = OBJECT_BYTES;
  if (Array.isArray(value)) {
    for (const v of value) n += SLOT_BYTES + valueCost(v);
    return n;
  }
  for (const key in value) n += SLOT_BYTES + key.length + valueCost((value as Record<string, unknown>)[key]);
  return n;
}

/** What a record answered from a plan costs: the plan, the request's input as it came, the overhead. */
export const plannedCost = (plan: Plan, input: unknown): number =>
  RECORD_OVERHEAD_BYTES + planCost(plan) + (input == null ? 0 : valueCost(input));

/** The bytes of text a stand-in keeps under a budget: at most STAND_IN_BYTES, and 1/64 of the budget. */
export const standInBytes = (budget: number): number => Math.min(STAND_IN_BYTES, Math.floor(budget / 64));

/** The largest cost a record may have and keep its input, for a budget. */
export const wholeInputLimit = (budget: number): number => Math.floor(budget / WHOLE_INPUT_SHARE);

/**
 * What a record too big to keep whole keeps of its input: the same items in
 * the same shape, with its text cut so that its longer strings together keep
 * at most `maxBytes` UTF-8 bytes (the first ones, in order; strings of up to
 * 64 characters — types, roles, ids, names — are kept whole), and at most
 * `maxValues` values (the items and keys past them are left out). A cut
 * string is a fresh copy (utf8Prefix): it does not keep the request's own
 * long string alive.
 */
export function inputStandIn<T>(input: T, maxBytes = STAND_IN_BYTES, maxValues = STAND_IN_VALUES): T {
  let bytes = maxBytes;
  let values = maxValues;
  const cut = (value: unknown): unknown => {
    values--;
    if (typeof value === "string") {
      if (value.length <= WHOLE_STRING_CHARS) return value;
      const kept = utf8Prefix(value, bytes);
      bytes -= utf8Length(kept);
      return kept;
    }
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const v of value) {
        if (values <= 0) break;
        out.push(cut(v));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (values <= 0) break;
      out[key] = cut((value as Record<string, unknown>)[key]);
    }
    return out;
  };
  return cut(input) as T;
}

/** Bytes as a message says them: `1.5 MiB`, `64 MiB`, `900 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [n, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KiB"] : [bytes / (1024 * 1024), "MiB"];
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${unit}`;
}

/** `GET /v1/responses/{id}/input_items` of a response stored without its input. */
export const inputItemsUnavailable = (id: string, omitted: InputOmitted) =>
  new ApiError({
    status: 404,
    type: "not_found",
    code: "input_items_unavailable",
    param: "response_id",
    message:
      omitted.budget === 0
        ? `Response '${id.slice(0, 80)}' is stored without its input items: the server keeps no inputs (--store-bytes 0). Start it with a --store-bytes budget to keep them.`
        : `Response '${id.slice(0, 80)}' is stored without its input items: with them it would hold about ${sizeText(omitted.bytes)}, over 1/16 of the store's budget of ${sizeText(omitted.budget)} (--store-bytes). Start the server with --store-bytes ${16 * omitted.bytes} or more to keep them. Continuing it with previous_response_id works, with its input cut to its first ${sizeText(standInBytes(omitted.budget))} of text.`,
  });
