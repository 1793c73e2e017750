/** The SSE decoder the checker reads streams with, as the HTML standard parses an event stream. */
import { describe, expect, it } from "vitest";
import { SseDecoder, decodeSse } from "../../src/check/index.js";

describe("SseDecoder", () => {
  const text =
    'event: a\ndata: {"x":1}\n\n: keep-alive\n\nevent: b\r\ndata: line one\r\ndata: line two\r\n\r\nid: 3\rdata:no-space\r\rdata: [DONE]\n\n';
  const expected = [
    { event: "a", data: '{"x":1}' },
    { event: "b", data: "line one\nline two" },
    { id: "3", data: "no-space" },
    { data: "[DONE]" },
  ];

  it("reads \\n, \\r\\n and \\r line ends, comments, joined data lines and one dropped space", () => {
    expect(decodeSse(text)).toEqual({ frames: expected, unterminated: false });
  });

  it("gives the same messages whatever the chunking, a \\r\\n split across chunks included", () => {
    for (let cut = 0; cut <= text.length; cut++) {
      const d = new SseDecoder();
      const frames = [...d.push(text.slice(0, cut)), ...d.push(text.slice(cut))];
      const end = d.end();
      expect([...frames, ...end.frames], `cut at ${cut}`).toEqual(expected);
      expect(end.unterminated).toBe(false);
    }
    const d = new SseDecoder();
    const frames = [...text].flatMap((ch) => d.push(ch));
    expect([...frames, ...d.end().frames]).toEqual(expected);
  });

  it("returns a message without data (for the checker to report), and says when the text stops mid-message", () => {
    expect(decodeSse("event: lonely\n\n")).toEqual({ frames: [{ event: "lonely" }], unterminated: false });
    expect(decodeSse('event: a\ndata: {"x":1}')).toEqual({
      frames: [{ event: "a", data: '{"x":1}' }],
      unterminated: true,
    });
    expect(decodeSse('data: {"x":1}\n')).toEqual({ frames: [{ data: '{"x":1}' }], unterminated: true });
  });
});
