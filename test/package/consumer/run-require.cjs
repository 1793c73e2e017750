// Run in a consumer project: the package through `require` (Node 20.19+ requires ES modules).
const { startMockServer } = require("openresponses-mock");
const { useMockServer } = require("openresponses-mock/vitest");

(async () => {
  const mock = await startMockServer({ port: 0 });
  try {
    const health = await (await fetch(`${mock.url}/health`)).json();
    console.log(JSON.stringify({ health, useMockServer: typeof useMockServer, baseURL: mock.baseURL }));
  } finally {
    await mock.close();
  }
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
