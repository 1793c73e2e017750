/**
 * A strict SSE parser for the streams this server must produce: `\n` line
 * endings only, every message `event: TYPE` + exactly one `data:` line, no
 * `id:`/`retry:` lines, `event` equal to the JSON `type`, comments allowed
 * only between messages, and `data: [DONE]` as the last message.
 */
export interface ParsedStream {
  events: Array<{ type: string; sequence_number: number; [k: string]: unknown }>;
  /** Comment lines (`: keep-alive`) seen between messages. */
  comments: string[];
  done: boolean;
}

export class SseFormatError extends Error {}

export function parseSseStrict(text: string, { requireDone = true } = {}): ParsedStream {
  if (text.includes("\r")) throw new SseFormatError("stream contains \\r: lines must end with \\n only");
  const out: ParsedStream = { events: [], comments: [], done: false };
  if (!text.endsWith("\n\n") && text.length > 0) throw new SseFormatError("stream does not end with a blank line");
  const blocks = text.split("\n\n");
  blocks.pop(); // after the final blank line
  for (const block of blocks) {
    const lines = block.split("\n");
    let event: string | undefined;
    const data: string[] = [];
    for (const line of lines) {
      if (line.startsWith(":")) {
        if (event !== undefined || data.length > 0) throw new SseFormatError(`comment inside a message: ${line}`);
        out.comments.push(line);
        continue;
      }
      const colon = line.indexOf(":");
      if (colon < 0) throw new SseFormatError(`line without a field: ${JSON.stringify(line)}`);
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") {
        if (event !== undefined) throw new SseFormatError("two event lines in one message");
        event = value;
      } else if (field === "data") data.push(value);
      else throw new SseFormatError(`unexpected field '${field}'`);
    }
    if (data.length === 0 && event === undefined) continue; // a comment-only block
    if (out.done) throw new SseFormatError("message after [DONE]");
    if (data.length !== 1) throw new SseFormatError(`a message must have exactly one data line, got ${data.length}`);
    if (data[0] === "[DONE]") {
      if (event !== undefined) throw new SseFormatError("[DONE] must not carry an event line");
      out.done = true;
      continue;
    }
    if (event === undefined) throw new SseFormatError(`message without an event line: ${data[0].slice(0, 80)}`);
    const json = JSON.parse(data[0]);
    if (json.type !== event) throw new SseFormatError(`event line '${event}' differs from type '${json.type}'`);
    out.events.push(json);
  }
  if (requireDone && !out.done) throw new SseFormatError("stream did not end with data: [DONE]");
  return out;
}
