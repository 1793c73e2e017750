/**
 * Expectations on what a client sends next (a scenario turn's `expect`, or
 * `mock.expect()`): pure judging, no clock and no state of its own. The step
 * that opens them and feeds them requests is src/turn/expect.ts.
 *
 * An expectation is opened when an answer ends. The next request of the same
 * conversation (the one whose `previous_response_id` is the answer's id, or
 * whose input replays its output items by id or call_id; for an answer with
 * no response, an HTTP error, the next request with the same body) is judged
 * against each rule once. `no_retry_ms` watches every request of the session
 * with the same body until its time is up.
 */
import type { CreateResponseBody, ItemParam } from "../spec/index.js";
import { inputItems } from "./conversation.js";
import { matches } from "./registry.js";
import type { ExpectRules } from "./schema.js";

export type ExpectationStatus = "met" | "unmet" | "pending";

/** The rules an expectation reports on, one entry each (`within_ms` is not a rule: it bounds the others). */
export type ExpectRule = Exclude<keyof ExpectRules, "within_ms">;

/** One rule of one expectation, as `GET /__mock/verify` reports it. */
export interface ExpectationReport {
  status: ExpectationStatus;
  rule: ExpectRule;
  /** The scenario and turn index that carried the rule; null for `mock.expect()`. */
  scenario: string | null;
  turn: number | null;
  /** The journal seq of the request that met or broke it; null while pending (or when no request came in time). */
  seq: number | null;
  /** What was expected and what came. */
  message: string;
}

/** What an answer left for its next request to be judged against. */
export interface AnswerFacts {
  /** The response's id; null for an answer that created none (an HTTP error). */
  responseId: string | null;
  /** The call_ids of its function calls, in order. */
  callIds: string[];
  /** Its reasoning items: id and encrypted_content (if it sent one). */
  reasoning: { id: string; encrypted_content: string | undefined }[];
  /** The ids of its output items. */
  itemIds: string[];
  /** The call_id of each function call item, by its item id. */
  callOf: Record<string, string>;
  /** When the answer ended (deps.clock, ms). */
  endedAt: number;
  /** The digest of the request it answered (for no_retry_ms and to tie a retry of an error answer). */
  digest: string;
  /** The journal seq of the request it answered; null when not journaled. */
  seq: number | null;
}

/** An expectation: its rules, where they came from, the answer they follow, and what was found. */
export interface Expectation {
  rules: ExpectRules;
  scenario: string | null;
  turn: number | null;
  /** The answer the rules refer to; null for a `mock.expect()` made when the session had no answer yet. */
  answer: AnswerFacts | null;
  /** The verdict of each rule judged on the next request, once it came. */
  judged: Map<ExpectRule, { met: boolean; seq: number | null; message: string }> | undefined;
  /** A request with the same body within no_retry_ms. */
  retry: { seq: number | null; gapMs: number } | undefined;
}

const RULE_ORDER: readonly ExpectRule[] = [
  "tool_outputs",
  "reasoning_returned",
  "continues",
  "waits_ms",
  "no_retry_ms",
  "match",
];

/** The rules an expectation carries, in a fixed order. */
export const rulesOf = (rules: ExpectRules): ExpectRule[] => RULE_ORDER.filter((r) => rules[r] !== undefined);

/** What an answer's output leaves to be checked. */
export function answerFacts(
  output: readonly { type: string; id?: string; call_id?: string; encrypted_content?: string | null }[],
  responseId: string | null,
  endedAt: number,
  digest: string,
  seq: number | null,
): AnswerFacts {
  const callIds: string[] = [];
  const reasoning: AnswerFacts["reasoning"] = [];
  const itemIds: string[] = [];
  const callOf: Record<string, string> = {};
  for (const item of output) {
    if (item.id) itemIds.push(item.id);
    if (item.type === "function_call" && item.call_id) {
      callIds.push(item.call_id);
      if (item.id) callOf[item.id] = item.call_id;
    }
    if (item.type === "reasoning" && item.id)
      reasoning.push({ id: item.id, encrypted_content: item.encrypted_content ?? undefined });
  }
  return { responseId, callIds, reasoning, itemIds, callOf, endedAt, digest, seq };
}

type LooseItem = { type?: string; id?: string; call_id?: string; encrypted_content?: string | null };

/** Whether a request continues an answer: by previous_response_id, by replaying its items, or (an error answer) as a retry of its body. */
export function ties(answer: AnswerFacts, request: CreateResponseBody, digest: () => string): boolean {
  if (answer.responseId !== null) {
    if (request.previous_response_id === answer.responseId) return true;
    if (typeof request.input === "string") return false;
    for (const item of request.input as LooseItem[]) {
      if (item.id !== undefined && answer.itemIds.includes(item.id)) return true;
      if (item.call_id !== undefined && answer.callIds.includes(item.call_id)) return true;
    }
    return false;
  }
  return digest() === answer.digest;
}

const list = (ids: readonly string[]) => (ids.length === 0 ? "none" : ids.join(", "));

/**
 * Judges the next request against every rule but no_retry_ms (which
 * `sameBody` judges). `at` is when it arrived (deps.clock); `items` its whole
 * conversation (the previous_response_id chain, then its input).
 */
export function judgeNext(
  expectation: Expectation,
  request: CreateResponseBody,
  items: readonly ItemParam[],
  at: number,
  seq: number | null,
): void {
  const { rules, answer } = expectation;
  const judged = new Map<ExpectRule, { met: boolean; seq: number | null; message: string }>();
  const verdict = (rule: ExpectRule, met: boolean, message: string) => judged.set(rule, { met, seq, message });
  const input = inputItems(request.input) as LooseItem[];
  for (const rule of rulesOf(rules)) {
    if (rule === "no_retry_ms") continue;
    if (rule === "match") {
      const ok = matches(rules.match!, request, items);
      verdict(
        rule,
        ok,
        ok ? "the request fits the match rules" : `expected a request that fits ${JSON.stringify(rules.match)}`,
      );
      continue;
    }
    if (!answer) {
      verdict(
        rule,
        false,
        `expected an earlier answer of the session to judge '${rule}' against (one sent after the session's first expect()); there was none`,
      );
      continue;
    }
    switch (rule) {
      case "tool_outputs": {
        const outputs = input.filter((i) => i.type === "function_call_output").map((i) => i.call_id ?? "");
        const missing = answer.callIds.filter((id) => !outputs.includes(id));
        const got = outputs.filter((id) => answer.callIds.includes(id));
        verdict(
          rule,
          missing.length === 0,
          missing.length === 0
            ? `function_call_output for ${list(answer.callIds)}`
            : `expected function_call_output for ${missing.join(", ")}; got ${got.length === 0 ? "no outputs for this turn's calls" : `outputs for ${got.join(", ")} only`}${outputs.length > got.length ? ` (and for unknown call_ids ${outputs.filter((id) => !answer.callIds.includes(id)).join(", ")})` : ""}`,
        );
        break;
      }
      case "reasoning_returned": {
        if (request.store !== false) {
          verdict(rule, true, "the request did not set store: false (the server keeps the reasoning)");
          break;
        }
        const missing = answer.reasoning.filter(
          (r) =>
            !input.some(
              (i) =>
                i.type === "reasoning" &&
                i.id === r.id &&
                (r.encrypted_content === undefined || i.encrypted_content === r.encrypted_content),
            ),
        );
        verdict(
          rule,
          missing.length === 0,
          missing.length === 0
            ? `reasoning ${list(answer.reasoning.map((r) => r.id))} returned with store: false`
            : `expected reasoning ${missing.map((r) => r.id).join(", ")} with its encrypted_content back (the request has store: false); it was not in the input`,
        );
        break;
      }
      case "continues": {
        if (answer.responseId !== null && request.previous_response_id === answer.responseId) {
          verdict(rule, true, `previous_response_id ${answer.responseId}`);
          break;
        }
        const ids = new Set(input.map((i) => i.id).filter((id) => id !== undefined));
        const calls = new Set(input.filter((i) => i.type === "function_call").map((i) => i.call_id));
        const missing = answer.itemIds.filter((id) => !ids.has(id));
        // A function call replayed without its id still counts by its call_id.
        const stillMissing = missing.filter(
          (id) => !(Object.hasOwn(answer.callOf, id) && calls.has(answer.callOf[id])),
        );
        verdict(
          rule,
          stillMissing.length === 0,
          stillMissing.length === 0
            ? "the history including this turn's output items"
            : `expected previous_response_id ${answer.responseId ?? "(none)"} or the history with this turn's items; ${request.previous_response_id ? `got previous_response_id ${request.previous_response_id}` : "got no previous_response_id"} and no items ${stillMissing.join(", ")}`,
        );
        break;
      }
      case "waits_ms": {
        const gap = at - answer.endedAt;
        const ok = gap >= rules.waits_ms!;
        verdict(
          rule,
          ok,
          `${ok ? "came" : "expected the next request no sooner than"} ${ok ? `${Math.round(gap)} ms after the answer ended` : `${rules.waits_ms} ms after the answer ended; it came after ${Math.round(gap)} ms`}`,
        );
        break;
      }
    }
  }
  expectation.judged = judged;
}

/** A request of the session with the same body as the answer's request, `gapMs` after the answer ended. */
export function sameBody(expectation: Expectation, gapMs: number, seq: number | null): void {
  if (expectation.retry) return;
  if (gapMs < expectation.rules.no_retry_ms!) expectation.retry = { seq, gapMs };
}

/** Whether the expectation still waits for a request (its next one, or a retry within no_retry_ms). */
export function isOpen(expectation: Expectation, now: number): boolean {
  if (expectation.judged === undefined && rulesOf(expectation.rules).some((r) => r !== "no_retry_ms")) return true;
  const { no_retry_ms } = expectation.rules;
  return (
    no_retry_ms !== undefined &&
    expectation.retry === undefined &&
    expectation.answer !== null &&
    now - expectation.answer.endedAt < no_retry_ms
  );
}

/** Each rule's status at `now` (deps.clock): a rule no request judged is pending, or unmet once within_ms is past. */
export function report(expectation: Expectation, now: number): ExpectationReport[] {
  const { rules, scenario, turn, answer, judged, retry } = expectation;
  const out: ExpectationReport[] = [];
  const since = answer ? now - answer.endedAt : 0;
  for (const rule of rulesOf(rules)) {
    const base = { rule, scenario, turn };
    if (rule === "no_retry_ms") {
      if (retry)
        out.push({
          ...base,
          status: "unmet",
          seq: retry.seq,
          message: `expected no request with the same body within ${rules.no_retry_ms} ms; one came after ${Math.round(retry.gapMs)} ms`,
        });
      else if (answer && since >= rules.no_retry_ms!)
        out.push({
          ...base,
          status: "met",
          seq: null,
          message: `no request with the same body within ${rules.no_retry_ms} ms`,
        });
      else
        out.push({
          ...base,
          status: "pending",
          seq: null,
          message: `waiting: no request with the same body may come within ${rules.no_retry_ms} ms`,
        });
      continue;
    }
    const verdict = judged?.get(rule);
    if (verdict)
      out.push({ ...base, status: verdict.met ? "met" : "unmet", seq: verdict.seq, message: verdict.message });
    else if (rules.within_ms !== undefined && since > rules.within_ms)
      out.push({
        ...base,
        status: "unmet",
        seq: null,
        message: `expected the next request of the conversation within ${rules.within_ms} ms; none came`,
      });
    else
      out.push({ ...base, status: "pending", seq: null, message: "waiting for the next request of the conversation" });
  }
  return out;
}

/** One line per unmet rule, for an Error a test runner shows. */
export function unmetMessage(reports: readonly ExpectationReport[]): string | undefined {
  const unmet = reports.filter((r) => r.status === "unmet");
  if (unmet.length === 0) return undefined;
  const lines = unmet.map(
    (r) =>
      `  - ${r.rule}${r.scenario !== null ? ` (scenario '${r.scenario}', turn ${r.turn})` : " (mock.expect)"}${r.seq !== null ? `, request #${r.seq}` : ""}: ${r.message}`,
  );
  return `${unmet.length} unmet expectation${unmet.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}
