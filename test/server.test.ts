/** The programmatic shell: start, close (twice), and nothing left behind. */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { startMockServer } from "../src/index.js";

const handles = () =>
  process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap" || r === "TCPSocketWrap" || r === "Timeout");

describe("startMockServer", () => {
  it("listens on 127.0.0.1 with a free port and reports url and baseURL", async () => {
    const mock = await startMockServer({ port: 0 });
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(mock.baseURL).toBe(`${mock.url}/v1`);
      expect((await fetch(`${mock.url}/health`)).status).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it("close() is idempotent and frees every socket, even with a keep-alive client", async () => {
    const before = handles().length;
    const mock = await startMockServer({ port: 0 });
    const client = new OpenAI({ baseURL: mock.baseURL, apiKey: "x", maxRetries: 0 });
    await client.responses.create({ model: "m", input: "keep the connection alive" });
    await Promise.all([mock.close(), mock.close()]);
    await mock.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(handles().length).toBeLessThanOrEqual(before);
    await expect(fetch(`${mock.url}/health`)).rejects.toThrow();
  });

  it("supports await using", async () => {
    let url = "";
    {
      await using mock = await startMockServer({ port: 0 });
      url = mock.url;
      expect((await fetch(`${url}/health`)).status).toBe(200);
    }
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("rejects bad options with a message naming them", async () => {
    await expect(startMockServer({ port: -1 })).rejects.toThrow(/port/);
    await expect(startMockServer({ seed: 1.5 } as never)).rejects.toThrow(/seed/);
  });

  it("runs several servers in one process", async () => {
    const servers = await Promise.all([1, 2, 3].map(() => startMockServer({ port: 0 })));
    expect(new Set(servers.map((s) => s.port)).size).toBe(3);
    await Promise.all(servers.map((s) => s.close()));
  });
});
