/**
 * The proxy's live checker: the conformance checker of `src/check`, behind
 * the proxy's `LiveChecker` seam. Each answer is judged by the dialect the
 * client was answered in; a stream is fed frame by frame as it passes, a JSON
 * or error body whole. Pure, like the checker.
 */
import { StreamChecker, checkAnswer, isCheckDialect, type CheckDialect, type Violation } from "../check/index.js";
import type { LiveCheck, LiveChecker, LiveViolation } from "./live-check.js";

const asLive = (v: Violation): LiveViolation => ({
  index: v.event ?? null,
  path: v.path ?? null,
  message: v.message,
  rule: v.rule,
  ...(v.eventType !== undefined ? { eventType: v.eventType } : {}),
});

/** A checker that judges every proxied answer against the spec (or the `openai` dialect's rules). */
export function conformanceChecker(): LiveChecker {
  return {
    start(request): LiveCheck {
      const dialect: CheckDialect = isCheckDialect(request.dialect) ? request.dialect : "open-responses";
      let stream: StreamChecker | undefined;
      let whole: Violation[] | undefined;
      return {
        event(frame) {
          stream ??= new StreamChecker({
            request: request.body,
            dialect,
            status: 200,
            contentType: "text/event-stream",
          });
          stream.frame({ event: frame.event, data: frame.data });
        },
        json(status, body) {
          whole = checkAnswer({
            request: request.body,
            status,
            contentType: "application/json",
            body,
            dialect,
            stream: request.stream,
          }).violations;
        },
        end() {
          if (whole) return whole.map(asLive);
          return stream ? stream.end({ framing: "sse" }).violations.map(asLive) : [];
        },
      };
    },
  };
}
