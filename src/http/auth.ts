/** `Authorization: Bearer KEY` checked in constant time. */
import { createHash, timingSafeEqual } from "node:crypto";
import { ApiError } from "../spec/index.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Returns a checker for one key; comparing digests keeps the time independent
 * of the key. `Bearer KEY` is the spec's form; a bare `KEY` is accepted too, as
 * the compliance tester can send it that way.
 */
export function bearerChecker(apiKey: string): (header: string | undefined) => void {
  const expected = digest(apiKey);
  return (header) => {
    const value = header?.trim() ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(value) ?? (value && !/\s/.test(value) ? [value, value] : null);
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
