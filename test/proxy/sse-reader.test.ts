/** The proxy's incremental SSE reader: frames out of pieces cut anywhere, and the raw text of whole frames only. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseReader } from "../../src/proxy/sse-reader.js";

const STREAM = 'event: a\ndata: {"x":1}\n\n: keep-alive\n\nevent: b\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';
const FRAMES = [{ event: "a", data: '{"x":1}' }, { event: "b", data: "line1\nline2" }, { data: "[DONE]" }];

describe("SseReader", () => {
  it("reads frames, joins data lines, skips comments", () => {
    const r = new SseReader();
    const { frames, text } = r.push(STREAM);
    expect(frames).toEqual(FRAMES);
    expect(text).toBe(STREAM);
    expect(r.rest).toBe("");
  });

  it("reads \\r\\n and \\r line ends, even split between pieces", () => {
    const crlf = STREAM.replace(/\n/g, "\r\n");
    const r = new SseReader();
    const frames = [...crlf].flatMap((ch) => r.push(ch).frames);
    expect(frames).toEqual(FRAMES);
    const cr = new SseReader();
    expect(cr.push(STREAM.replace(/\n/g, "\r")).frames).toEqual(FRAMES);
  });

  it("gives the same frames and the same bytes however the stream is cut", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const r = new SseReader();
        let at = 0;
        const frames = [];
        let text = "";
        for (const p of [...points, STREAM.length]) {
          const out = r.push(STREAM.slice(at, p));
          frames.push(...out.frames);
          text += out.text;
          at = p;
        }
        expect(frames).toEqual(FRAMES);
        expect(text).toBe(STREAM);
      }),
    );
  });

  it("releases raw text only through whole frames: half a frame is held back", () => {
    const r = new SseReader();
    const first = r.push('event: a\ndata: {"x":1}\n\nevent: b\ndata: {"y"');
    expect(first.frames).toEqual([{ event: "a", data: '{"x":1}' }]);
    expect(first.text).toBe('event: a\ndata: {"x":1}\n\n');
    expect(r.rest).toBe('event: b\ndata: {"y"');
    const second = r.push(":2}\n\n");
    expect(second.frames).toEqual([{ event: "b", data: '{"y":2}' }]);
    expect(second.text).toBe('event: b\ndata: {"y":2}\n\n');
  });
});
