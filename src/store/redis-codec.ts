/**
 * How a stored response is written to a shared store and read back: the one
 * place that knows its form, so that a change to what the store keeps (say,
 * a more compact record) changes only this file. JSON, whole: the response,
 * its input items, the plan its events are re-emitted from, the events of a
 * cancelled run and the session. A record read back replays byte for byte
 * (test/store/redis-codec.test.ts proves it for every library scenario).
 */
import type { StoredResponse } from "./response-store.js";

/** A record as the text a shared store keeps. */
export const encodeRecord = (record: StoredResponse): string => JSON.stringify(record);

/** The record a shared store's text holds. */
export const decodeRecord = (text: string): StoredResponse => JSON.parse(text) as StoredResponse;

/** The response a record continues (its `previous_response_id`), kept beside it so a chain is walked without reading the records. */
export const previousOf = (record: StoredResponse): string => record.response.previous_response_id ?? "";
