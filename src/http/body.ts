/**
 * Reading a JSON request body: the content type is checked, a body over the
 * limit is refused from its Content-Length before it is read (and as soon as
 * the limit is passed otherwise), invalid UTF-8 and malformed JSON are 400s.
 */
import type { IncomingMessage } from "node:http";
import type { Journal, JournalEntry } from "../journal/journal.js";
import { ApiError, MAX_JSON_DEPTH, nestsDeeperThan } from "../spec/index.js";

const decoder = new TextDecoder("utf-8", { fatal: true });

function tooLarge(limit: number): ApiError {
  return new ApiError({
    status: 413,
    type: "invalid_request",
    code: "request_too_large",
    param: null,
    message: `The request body is larger than the limit of ${limit} bytes. Send less, or start the server with a larger --body-limit.`,
  });
}

/** Reads and parses the body of a JSON request. */
export function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<{ raw: string; json: unknown; bytes: number }> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) {
    req.resume();
    return Promise.reject(
      new ApiError({
        status: 415,
        type: "invalid_request",
        code: "unsupported_media_type",
        message: `Content-Type must be application/json${type ? `, got '${type}'` : " (none was sent)"}. Send the body as JSON with that header.`,
      }),
    );
  }
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  // Plain listeners, never removed: they go with the request, and settled tells them apart.
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let parts: Buffer[] | undefined;
    let size = 0;
    let settled = false;
    const fail = (err: ApiError) => {
      settled = true;
      reject(err);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        req.pause();
        return fail(tooLarge(limit));
      }
      if (first === undefined) first = chunk;
      else (parts ??= [first]).push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      try {
        resolve(parseJsonBody(parts ? Buffer.concat(parts, size) : (first ?? Buffer.alloc(0))));
      } catch (err) {
        reject(err);
      }
    });
    // A client that goes away mid-body is its own doing, not a server fault (nginx's 499).
    req.on("error", (err: Error) => {
      if (!settled)
        fail(
          new ApiError({
            status: 499,
            type: "invalid_request",
            code: "client_closed_request",
            message: `The client closed the connection while sending the body (${err.message}).`,
          }),
        );
    });
  });
}

/** The text, JSON and length in bytes of a whole body: valid UTF-8, not empty, JSON, not nested too deeply. */
function parseJsonBody(buffer: Buffer): { raw: string; json: unknown; bytes: number } {
  let raw: string;
  try {
    raw = decoder.decode(buffer);
  } catch {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_json",
      message: "The request body is not valid UTF-8. Send UTF-8 encoded JSON.",
    });
  }
  if (raw.trim().length === 0) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_json",
      message: "The request body is empty. Send a JSON object with at least 'model' and 'input'.",
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_json",
      message: `The request body is not valid JSON (${(err as Error).message}). Send a JSON object.`,
    });
  }
  if (nestsDeeperThan(json)) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "nested_too_deeply",
      message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`,
    });
  }
  return { raw, json, bytes: buffer.length };
}

/** Reads the request body (into the journal entry too, truncated when it is big) and checks it is a JSON object. */
export async function readObjectBody(
  req: IncomingMessage,
  deps: { bodyLimit: number; journal: Journal },
  entry: JournalEntry | undefined,
): Promise<{ raw: string; json: Record<string, unknown> }> {
  const { raw, json, bytes } = await readJsonBody(req, deps.bodyLimit);
  if (entry) deps.journal.setBody(entry, raw, json, bytes);
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_type",
      message: "The request body must be a JSON object with at least 'model' and 'input'.",
    });
  }
  return { raw, json: json as Record<string, unknown> };
}
