// Compiled (never run) in a consumer project by test/package/consumer.test.ts: a
// CommonJS TypeScript file that requires the package (module node20 or nodenext;
// node16 cannot type a require() of an ES module).
import mock = require("openresponses-mock");
import helper = require("openresponses-mock/vitest");
import type { MockServer } from "openresponses-mock";

export async function port(): Promise<number> {
  const server: MockServer = await mock.startMockServer({ port: 0 });
  await server.close();
  return server.port;
}

export const useMockServer: typeof helper.useMockServer = helper.useMockServer;

export function mistake(): void {
  // @ts-expect-error the seed is a number
  void mock.startMockServer({ seed: "1" });
}
