// The ceiling: a bare node:http server answering every POST with fixed bytes captured from
// openresponses-mock, so it does no work but the HTTP itself — a JSON body, or an SSE stream
// whose frames (all due at once at zero delay) go out in one chunked write, the cheapest way
// Node can send them. Usage: node ceiling.mjs FILE.json (JSON) | FILE.sse (SSE frames)
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const file = process.argv[2];
const content = readFileSync(file, "utf8");
const sse = file.endsWith(".sse");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (!sse) {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(content) });
      return res.end(content);
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(content);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/v1`));
process.on("SIGTERM", () => process.exit(0));
