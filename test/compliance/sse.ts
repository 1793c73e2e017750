/**
 * The compliance suite's SSE reading, re-created: each `data:` line of a
 * message is JSON-parsed (the `[DONE]` sentinel is skipped), validated
 * against the union of the 24 streaming event schemas, and any problem is
 * recorded as an error string; the `response` of the terminal event
 * (`response.completed` / `response.failed` / `response.incomplete`) is the
 * final response.
 *
 * Differences from the published parser, all in the direction of being
 * stricter or more robust, never more lenient:
 * - the published parser keeps its current `event:`/`data:` state per network
 *   chunk, so a message split across two chunks is lost; here the state lives
 *   across chunks, as SSE requires;
 * - the `event:` line must equal the data's `type` (the spec's MUST);
 * - it also records, for extra checks, whether `[DONE]` ended the stream and
 *   whether anything came after it, and the sequence numbers seen.
 */
import { formatIssues, StreamingEvent, TERMINAL_EVENT_TYPES } from "./schemas.js";

export interface ParsedSseEvent {
  /** The `event:` line of the message ("" when there was none). */
  event: string;
  data: unknown;
  valid: boolean;
}

export interface SseParseResult {
  events: ParsedSseEvent[];
  errors: string[];
  /** The `response` of the terminal event, or null when none came. */
  finalResponse: unknown;
  /** A `data: [DONE]` message was seen. */
  sawDone: boolean;
  /** Messages (other than comments) that came after `[DONE]`. */
  afterDone: number;
}

const typeOf = (data: unknown): string | undefined =>
  typeof data === "object" && data !== null && typeof (data as { type?: unknown }).type === "string"
    ? (data as { type: string }).type
    : undefined;

/** Reads a `fetch` Response body as SSE and validates every event. */
export async function parseSseStream(response: Response): Promise<SseParseResult> {
  const result: SseParseResult = { events: [], errors: [], finalResponse: null, sawDone: false, afterDone: 0 };
  const reader = response.body?.getReader();
  if (!reader) {
    result.errors.push("No response body");
    return result;
  }

  let eventName = "";
  let dataLines: string[] = [];

  const dispatch = () => {
    const name = eventName;
    const lines = dataLines;
    eventName = "";
    dataLines = [];
    for (const raw of lines) {
      if (raw === "[DONE]") {
        if (result.sawDone) result.errors.push("A second [DONE] message");
        result.sawDone = true;
        continue;
      }
      if (result.sawDone) result.afterDone++;
      let data: unknown;
      try {
        data = JSON.parse(raw);
      } catch {
        result.errors.push(`Failed to parse event data: ${raw.slice(0, 200)}`);
        continue;
      }
      const type = typeOf(data);
      const check = StreamingEvent.safeParse(data);
      result.events.push({ event: name || type || "unknown", data, valid: check.success });
      if (!check.success) {
        result.errors.push(`Event validation failed for ${type ?? "unknown"}: ${formatIssues(check.error).join("; ")}`);
      }
      if (name !== "" && name !== type) {
        result.errors.push(`The event: line '${name}' does not match the data type '${type}'`);
      } else if (name === "") {
        result.errors.push(`A message of type '${type}' has no event: line`);
      }
      if (type !== undefined && TERMINAL_EVENT_TYPES.has(type)) {
        result.finalResponse = (data as { response?: unknown }).response ?? null;
      }
    }
  };

  const decoder = new TextDecoder();
  let buffer = "";
  const handleLine = (line: string) => {
    if (line === "") {
      if (dataLines.length > 0) dispatch();
      else eventName = "";
      return;
    }
    if (line.startsWith(":")) return; // a comment (heartbeat)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") eventName = value.trim();
    else if (field === "data") dataLines.push(value.trim());
    // id:, retry: and unknown fields carry nothing the suite checks.
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        let line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        handleLine(line);
      }
    }
    buffer += decoder.decode();
    if (buffer !== "") handleLine(buffer.endsWith("\r") ? buffer.slice(0, -1) : buffer);
    // A final message without its blank line still counts.
    if (dataLines.length > 0) dispatch();
  } finally {
    reader.releaseLock();
  }
  return result;
}
