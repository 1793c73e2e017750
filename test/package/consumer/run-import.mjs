// Run in a consumer project: the package through `import`.
import { startMockServer } from "openresponses-mock";
import { useMockServer } from "openresponses-mock/vitest";

const mock = await startMockServer({ port: 0 });
try {
  const health = await (await fetch(`${mock.url}/health`)).json();
  console.log(JSON.stringify({ health, useMockServer: typeof useMockServer, baseURL: mock.baseURL }));
} finally {
  await mock.close();
}
