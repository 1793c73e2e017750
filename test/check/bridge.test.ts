/**
 * `check URL --bridge --upstream-port N`: the bench against our own bridge
 * (`proxy --upstream-api chat`), which passes every check, and against small
 * broken bridges, each caught by the rule meant for it.
 */
import { createServer as createNetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockServer, type MockServer } from "../../src/server.js";
import { runBridgeChecks } from "../../src/cli/bridge.js";
import { checkSettings, send } from "../../src/cli/check.js";
import type { BatteryReport } from "../../src/check/index.js";

/** A port free now (listened on, then closed). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function bench(bridgeBase: string, port: number, only?: string[]): Promise<BatteryReport> {
  const settings = checkSettings({
    url: bridgeBase,
    model: "openresponses-check",
    json: false,
    bridge: true,
    "upstream-port": String(port),
    only,
  });
  return runBridgeChecks({ ...settings, bridge: settings.bridge! }, { send: (r, k) => send(settings, r, k) });
}

describe("check --bridge against our own proxy --upstream-api chat", () => {
  let port: number;
  let proxy: MockServer;
  beforeAll(async () => {
    port = await freePort();
    proxy = await startMockServer({ port: 0, upstream: `http://127.0.0.1:${port}/v1`, upstreamApi: "chat" });
  });
  afterAll(async () => {
    await proxy.close();
  });

  it("passes every check", async () => {
    const report = await bench(proxy.baseURL, port);
    console.log(
      JSON.stringify(
        report.results.map((r) => [r.name, r.outcome, r.violations]),
        null,
        1,
      ),
    );
    expect(report.results.filter((r) => r.outcome !== "pass")).toEqual([]);
  });
});
