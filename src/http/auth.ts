/** `Authorization: Bearer KEY` checked in constant time. */
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../spec/index.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Returns a checker for one key; comparing digests keeps the time independent of the key. */
export function bearerChecker(apiKey: string): (header: string | undefined) => void {
  const expected = digest(apiKey);
  return (header) => {
    const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "");
    if (!match) {
      throw new ApiError({
        status: 401,
        type: "invalid_request",
        code: "invalid_api_key",
        message: "Missing API key. Send it as 'Authorization: Bearer KEY'.",
      });
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      throw new ApiError({
        status: 401,
        type: "invalid_request",
        code: "invalid_api_key",
        message: "Incorrect API key. Send the key the server was started with (--api-key).",
      });
    }
  };
}
