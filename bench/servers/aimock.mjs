// The closest npm peer, @copilotkit/aimock, answering the same text as openresponses-mock.
// Usage: node aimock.mjs TEXT_FILE [chunkSize]
import { readFileSync } from "node:fs";
import { LLMock } from "@copilotkit/aimock";

const text = readFileSync(process.argv[2], "utf8");
const chunkSize = Number(process.argv[3] ?? 20);
const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent", chunkSize });
mock.onMessage("hello", { content: text });
await mock.start();
console.log(`listening on ${mock.url}/v1`);
process.on("SIGTERM", async () => {
  await mock.stop();
  process.exit(0);
});
