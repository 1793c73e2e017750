/**
 * The WebSocket checks (src/check/websocket.ts) with a scripted socket: a
 * "server" that answers each `response.create` with the spec's text stream
 * (echoing the request) or the spec's WebSocketErrorEvent, as JSON text
 * messages. Pure and instant: no socket, no timer. Each variant breaks one
 * thing the way a server could, and is caught by the rule meant for it; what
 * the spec tolerates (a literal `[DONE]`) is a note.
 */
import { describe, expect, it } from "vitest";
import { runBattery, type BatteryReport, type WsConnect, type WsRead } from "../../src/check/index.js";
import { snapshot, textStream, type Ev } from "./streams.js";

type Out = string | { binary: string } | { close: number };
/** What the server sends for one `response.create` (the turns of a connection counted from 0). */
type Script = (message: Record<string, any>, turn: number) => Out[];

/** A WsConnect whose connections answer by `script`; when the script has nothing more, a read ends "no message". */
function scripted(script: Script): WsConnect {
  return async () => {
    const queue: WsRead[] = [];
    let turn = 0;
    let closed: WsRead | undefined;
    return {
      connection: {
        send(text) {
          if (closed) return;
          for (const out of script(JSON.parse(text) as Record<string, any>, turn++)) {
            if (typeof out === "string") queue.push({ message: { data: out, binary: false } });
            else if ("binary" in out) queue.push({ message: { data: out.binary, binary: true } });
            else {
              closed = { end: `the server closed the connection (code ${out.close})`, closed: true };
              queue.push(closed);
              break;
            }
          }
        },
        read: async () => queue.shift() ?? closed ?? { end: "no message within 5 ms (--timeout-ms)", closed: false },
        close() {
          closed ??= { end: "closed by the client", closed: true };
        },
      },
    };
  };
}

let ids = 0;
/** The spec's text stream for a request, its snapshots echoing it (model, store, previous_response_id). */
function answer(message: Record<string, any>): Ev[] {
  const id = `resp_ws_${++ids}`;
  const echo = {
    id,
    model: message.model,
    store: message.store ?? true,
    previous_response_id: message.previous_response_id ?? null,
  };
  return textStream().map((e) =>
    e.response ? { ...e, response: snapshot({ ...e.response, ...echo, output: e.response.output }) } : e,
  );
}

const wsError = (status: number, code: string, param: string | null, message = "Bad request.") =>
  JSON.stringify({ type: "error", status, error: { type: "invalid_request", code, message, param } });

/** A conformant server: the bad input and the unknown id get error events; the rest streams, one event a message. */
const good = (m: Record<string, any>, _turn?: number): string[] => {
  if (typeof m.input !== "string") return [wsError(400, "invalid_type", "input")];
  if (m.previous_response_id === "resp_openresponses_check_unknown")
    return [wsError(400, "previous_response_not_found", "previous_response_id")];
  return answer(m).map((e) => JSON.stringify(e));
};

const run = (script: Script) =>
  runBattery({
    model: "m",
    dialect: "open-responses",
    only: ["websocket", "websocket-error"],
    send: () => Promise.reject(new Error("no HTTP request is expected")),
    connect: scripted(script),
  });

const rules = (report: BatteryReport, name: string) => [
  ...new Set(report.results.find((r) => r.name === name)!.violations.map((v) => v.rule)),
];

describe("WebSocket checks with a scripted socket", () => {
  it("a conformant server passes both, every turn played", async () => {
    const report = await run(good);
    expect(report.results.map((r) => [r.name, r.outcome, r.violations])).toEqual([
      ["websocket", "pass", []],
      ["websocket-error", "pass", []],
    ]);
    expect(report.results.map((r) => r.requests.length)).toEqual([2, 3]);
  });

  it("a literal [DONE] after each turn is a note, not a violation, and is not read as the next turn's", async () => {
    const report = await run((m, t) => [...good(m, t), "[DONE]"]);
    expect(report.results.map((r) => r.outcome)).toEqual(["pass", "pass"]);
    // Said once per check, though it came after every turn.
    expect(report.results[0].specNotes.map((n) => n.rule)).toEqual(["websocket.message"]);
    expect(report.results[1].specNotes.map((n) => n.rule)).toEqual(["websocket.message"]);
  });

  it("two events in one message (a JSON array, or one per line): websocket.message", async () => {
    const pairs = (join: (a: string, b: string) => string): Script => {
      return (m, t) => {
        const out = good(m, t);
        return out.length > 1 ? [join(out[0], out[1]), ...out.slice(2)] : out;
      };
    };
    for (const join of [(a: string, b: string) => `[${a},${b}]`, (a: string, b: string) => `${a}\n${b}`]) {
      const report = await run(pairs(join));
      expect(rules(report, "websocket")).toEqual(["websocket.message"]);
      expect(report.results[0].violations[0].message).toMatch(/message 0 (is a JSON array of 2|holds 2 JSON events)/);
    }
  });

  it("binary frames: websocket.message, once per turn with its count", async () => {
    const report = await run((m, t) => good(m, t).map((data) => ({ binary: data })));
    expect(rules(report, "websocket")).toEqual(["websocket.message"]);
    expect(report.results[0].violations[0]).toMatchObject({ count: 10, message: expect.stringContaining("binary") });
  });

  it("a bad response.create answered with events instead of an error event: websocket.error", async () => {
    const report = await run((m, t) =>
      m.previous_response_id === "resp_openresponses_check_unknown" || typeof m.input === "string"
        ? good(m, t)
        : answer({ ...m, input: "x" }).map((e) => JSON.stringify(e)),
    );
    expect(rules(report, "websocket-error")).toEqual(["websocket.error"]);
    expect(report.results[1].violations[0].message).toContain(
      "a response.create with `input: 42` was answered with 10 event(s) ending response.completed, not an error event",
    );
  });

  it("error events of the wrong shape, status or code: websocket.error, at the field", async () => {
    const report = await run((m, t) => {
      // A streaming `error` event (no status) for the bad input; a 404 not_found for the unknown id.
      if (typeof m.input !== "string")
        return [
          JSON.stringify({
            type: "error",
            sequence_number: 0,
            error: { type: "invalid_request", code: "invalid_type", message: "Bad input.", param: "input" },
          }),
        ];
      if (m.previous_response_id === "resp_openresponses_check_unknown")
        return [wsError(500, "not_found", "previous_response_id")];
      return good(m, t);
    });
    expect(report.results[1].violations.map((v) => [v.rule, v.request, v.path])).toEqual([
      ["websocket.error", 0, "$.status"],
      ["websocket.error", 1, "$.status"],
      ["websocket.error", 1, "$.error.code"],
    ]);
    expect(report.results[1].violations[0].message).toBe("`status` is required but missing");
  });

  it("an error event, then the socket closed: websocket.error (the connection must stay open for the next message)", async () => {
    const report = await run((m, t) =>
      typeof m.input !== "string" ? [wsError(400, "invalid_type", "input"), { close: 1000 }] : good(m, t),
    );
    expect(report.results[1].violations.map((v) => [v.rule, v.request, v.message])).toEqual([
      [
        "websocket.error",
        1,
        "a response.create with an unknown `previous_response_id` got no error event: the server closed the connection (code 1000); a bad response.create gets an error event and the connection stays open",
      ],
    ]);
  });

  it("an error event naming another parameter: error.param", async () => {
    const report = await run((m, t) =>
      typeof m.input !== "string" ? [wsError(400, "invalid_type", "model")] : good(m, t),
    );
    expect(rules(report, "websocket-error")).toEqual(["error.param"]);
  });

  it("a turn whose events stop before the terminal one: stream.terminal and websocket.turn", async () => {
    const report = await run((m, t) => (t === 0 && typeof m.input === "string" ? good(m, t).slice(0, 5) : good(m, t)));
    expect(rules(report, "websocket")).toEqual(["stream.terminal", "websocket.turn"]);
    // The connection is not trusted with the next turn.
    expect(report.results[0].requests).toHaveLength(1);
  });

  it("a valid turn answered 401: websocket.turn, with the --api-key hint", async () => {
    const report = await run(() => [wsError(401, "invalid_api_key", null)]);
    expect(rules(report, "websocket")).toEqual(["websocket.turn"]);
    expect(report.results[0].violations[0].message).toContain("if the server wants a key, pass it with --api-key");
  });

  it("no WebSocket transport given: the WebSocket checks are not run", async () => {
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      only: ["websocket"],
      send: () => Promise.reject(new Error("no HTTP request is expected")),
    });
    expect(report.results).toEqual([]);
  });

  it("the first check's upgrade gets no answer: unreachable, as for HTTP", async () => {
    const report = await runBattery({
      model: "m",
      dialect: "open-responses",
      only: ["websocket"],
      send: () => Promise.reject(new Error("no HTTP request is expected")),
      connect: async () => ({ failure: "ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)" }),
    });
    expect(report.unreachable).toBe("ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)");
    expect(report.ok).toBe(false);
  });
});
