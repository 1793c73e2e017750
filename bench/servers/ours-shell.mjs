// Our I/O shell alone, for bench/decompose.mjs: each POST's body is read and parsed by the
// server's own reader (dist/http/body.js) and answered by its own JSON writer (dist/http/raw.js)
// with a captured answer, headers as ours sends them. No validation, no planning, no journal,
// no store: what our request costs before any of its own work.
// Usage: node ours-shell.mjs ANSWER.json
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { readJsonBody } from "../../dist/http/body.js";
import { sendJson } from "../../dist/http/raw.js";

const answer = readFileSync(process.argv[2], "utf8");
let serial = 0;
const server = createServer((req, res) => {
  readJsonBody(req, 32 * 1024 * 1024).then(
    () =>
      sendJson(res, 200, answer, {
        "x-mock-scenario": "default",
        "x-request-id": `req_${(++serial).toString(16).padStart(32, "0")}`,
        "openai-processing-ms": "0",
      }),
    () => sendJson(res, 400, "{}"),
  );
});
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/v1`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
