/** One server shared by the test files under test/shared/, which run in parallel, each in its own session. */
import type { TestProject } from "vitest/node";
import { startMockServer, type MockServer } from "../src/index.js";

let shared: MockServer | undefined;

export async function setup(project: TestProject) {
  shared = await startMockServer({ port: 0 });
  project.provide("sharedBaseURL", shared.baseURL);
}

export async function teardown() {
  await shared?.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedBaseURL: string;
  }
}
