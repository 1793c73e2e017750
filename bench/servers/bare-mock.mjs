// The bare mock: the least a mock that really answers does for each request, written by hand
// for one answer shape. It reads and parses the body, mints the answer's ids, puts the
// request's input into the reply text (so no two answers are alike), builds the response —
// or every event of the stream — as objects of the shape openresponses-mock sends, serialises
// them with JSON.stringify, keeps the response in a bounded Map (what GET /v1/responses/{id}
// and previous_response_id would read) and sends it; a stream's frames go out in one write.
// Nothing else: no validation, no seeded generation, no token counting, no journal, no
// request log. bench/index.mjs runs it beside ours on the every-request-different rows:
// its speed is what those rows could reach if our own work cost nothing more than this.
//
// Usage: node bare-mock.mjs FILE.json | FILE.sse   (an answer of openresponses-mock to the input
// "hello", captured: its shape and text are the template)
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const file = process.argv[2];
const sse = file.endsWith(".sse");
const content = readFileSync(file, "utf8");
/** The captured answer: a response, or the events of a stream (each `{type, …}`). */
const events = sse
  ? content
      .split("\n\n")
      .filter((frame) => frame.startsWith("event: "))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("\ndata: ") + 7)))
  : null;
const template = sse ? events.at(-1).response : JSON.parse(content);
const templateText = template.output[0].content[0].text;
const STORE_LIMIT = 1000;
const store = new Map();
const id = (prefix) => prefix + randomUUID().replaceAll("-", "");

/** The reply: the template's text after the request's input, so every distinct request gets a distinct answer. */
function replyOf(body) {
  const input = typeof body.input === "string" ? body.input : JSON.stringify(body.input ?? "");
  return { lead: `${input}: `, text: `${input}: ${templateText}` };
}

/** The final response: the template's fields, with this answer's ids, times, text and usage. */
function responseOf(body, respId, msgId, now, text) {
  const words = text.split(" ").length;
  const message = {
    type: "message",
    id: msgId,
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  return {
    ...template,
    id: respId,
    created_at: now,
    completed_at: now,
    model: body.model,
    output: [message],
    usage: { ...template.usage, output_tokens: words, total_tokens: template.usage.input_tokens + words },
  };
}

function keep(response) {
  store.set(response.id, response);
  if (store.size > STORE_LIMIT) store.delete(store.keys().next().value);
}

/** The stream: each captured event again, with this answer's ids, sequence numbers, text and snapshots. */
function framesOf(body, respId, msgId, now) {
  const { lead, text } = replyOf(body);
  const final = responseOf(body, respId, msgId, now, text);
  keep(final);
  const item = final.output[0];
  const part = item.content[0];
  const inProgress = { ...final, status: "in_progress", completed_at: null, output: [], usage: null };
  let out = "";
  let seq = 0;
  // Each event is written with a placeholder sequence_number (keeping the key second, as ours sends it), numbered here.
  const send = (event) => {
    event.sequence_number = seq++;
    out += `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  };
  let first = true;
  for (const e of events) {
    const type = e.type;
    if (type === "response.created" || type === "response.in_progress")
      send({ type, sequence_number: 0, response: inProgress });
    else if (type === "response.completed") send({ type, sequence_number: 0, response: final });
    else if (type === "response.output_item.added")
      send({ type, sequence_number: 0, output_index: 0, item: { ...item, status: "in_progress", content: [] } });
    else if (type === "response.output_item.done") send({ type, sequence_number: 0, output_index: 0, item });
    else if (type === "response.content_part.added")
      send({
        type,
        sequence_number: 0,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        part: { ...part, text: "" },
      });
    else if (type === "response.content_part.done")
      send({ type, sequence_number: 0, item_id: msgId, output_index: 0, content_index: 0, part });
    else if (type === "response.output_text.done")
      send({ type, sequence_number: 0, item_id: msgId, output_index: 0, content_index: 0, text, logprobs: [] });
    else if (type === "response.output_text.delta") {
      const delta = first ? lead + e.delta : e.delta;
      first = false;
      send({
        type,
        sequence_number: 0,
        item_id: msgId,
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
        obfuscation: e.obfuscation,
      });
    } else send({ ...e });
  }
  return out + "data: [DONE]\n\n";
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(
        '{"error":{"type":"invalid_request_error","code":"invalid_json","param":null,"message":"bad JSON"}}',
      );
    }
    const now = Math.floor(Date.now() / 1000);
    const respId = id("resp_");
    const msgId = id("msg_");
    if (sse) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      return res.end(framesOf(body, respId, msgId, now));
    }
    const response = responseOf(body, respId, msgId, now, replyOf(body).text);
    keep(response);
    const json = JSON.stringify(response);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
    res.end(json);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/v1`));
process.on("SIGTERM", () => process.exit(0));
