/** The `x-mock-session` header, and the store as one session sees it. */
import { ApiError } from "../spec/index.js";
import type { ResponseStore } from "../store/response-store.js";

const SESSION = /^[\x21-\x7e]{1,200}$/;

/** Whether `value` is a valid session id (what the header takes: 1-200 visible ASCII characters). */
export const isSessionId = (value: string): boolean => SESSION.test(value);

/** A request's session id (null without the header); a malformed one is a 400. */
export function sessionOf(value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (!SESSION.test(value)) {
    throw new ApiError({
      status: 400,
      type: "invalid_request",
      code: "invalid_header",
      param: "x-mock-session",
      message: "Header x-mock-session must be 1-200 visible ASCII characters (no spaces).",
    });
  }
  return value;
}

/** The store as one session sees it: only the responses created in that session (or with no session). */
export function sessionStore(store: ResponseStore, session: string | null): Pick<ResponseStore, "get"> {
  return {
    get(id) {
      const record = store.get(id);
      return record && (record.session ?? null) === session ? record : undefined;
    },
  };
}
