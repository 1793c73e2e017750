/**
 * useMockServer with concurrent tests, each in its own session: the reset after each test
 * waits for the last running one, so a test that ends first cannot wipe the journal or the
 * queued answers of one still running (it used to, depending on which finished first).
 */
import { describe, expect, it } from "vitest";
import { useMockServer } from "../../src/vitest.js";

const mock = useMockServer();
const ask = (headers: Record<string, string>) =>
  fetch(`${mock.baseURL}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", input: "x" }),
  }).then(async (r) => ((await r.json()) as { output: { content: { text: string }[] }[] }).output[0].content[0].text);

describe.concurrent("concurrent tests in sessions", () => {
  it("a slow test keeps its journal and queue while a quick one ends", async () => {
    const s = mock.session("concurrent-slow");
    s.enqueue({ steps: [{ type: "message", text: "slow 1" }] }, { steps: [{ type: "message", text: "slow 2" }] });
    expect(await ask(s.headers)).toBe("slow 1");
    await new Promise((r) => setTimeout(r, 200)); // the quick test ends (and its afterEach runs) meanwhile
    expect(await ask(s.headers)).toBe("slow 2");
    expect(s.requests).toHaveLength(2);
  });

  it("a quick test", async () => {
    const s = mock.session("concurrent-quick");
    s.enqueue({ steps: [{ type: "message", text: "quick" }] });
    expect(await ask(s.headers)).toBe("quick");
    expect(s.requests).toHaveLength(1);
  });
});

describe("after the concurrent tests", () => {
  it("the server was reset once the last of them ended", () => {
    expect(mock.requests).toEqual([]);
  });
});
