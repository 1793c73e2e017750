/**
 * Response, item and call ids. They are drawn from an rng of their own, seeded
 * by the request's seed, the session and the request's repeat count, so the
 * k-th identical request of a session gets new ids (never the ids of an
 * earlier answer) while its text stays the same, and a test run twice gets the
 * same ids both times. The shape of the ids is the dialect's.
 */
import { createRng, type Rng } from "./rng.js";

/** How a dialect spells ids. */
export type IdStyle = "open-responses" | "openai";

export interface IdSource {
  /** The response id; always the same value for one source. */
  response(): string;
  /** An output item id with this prefix (`msg`, `fc`, `rs`, …). */
  item(prefix: string): string;
  /** A `call_id` for a function call. */
  call(): string;
}

const HEX = "0123456789abcdef";

function hex(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += HEX[Math.floor(rng.next() * 16)];
  return out;
}

/**
 * The seed string of a request's ids: its answer seed, then the session and
 * the repeat count only when they are set, so a first request without a
 * session keeps the seed it always had.
 */
export function idSeed(seed: string, session: string | null = null, repeat = 0): string {
  let out = `${seed}|ids`;
  if (session !== null) out += `|s:${session}`;
  if (repeat > 0) out += `|k:${repeat}`;
  return out;
}

/**
 * An id source. Every id takes its draws from the answer's rng (`rng`), as it
 * always has, so the text and chunking of an answer do not depend on its ids.
 * The first answer to a request in the spec dialect with no session uses
 * those draws as its ids; any other (`unique` given: a repeat, a session, or
 * another id style) takes its ids from an rng of its own, seeded by `unique`.
 * - `open-responses`: `resp_` + 32 base-62 characters; items `prefix_` + 24; `call_` + 24.
 * - `openai` (as api.openai.com): `resp_` + 50 lowercase hex; items `prefix_` + 50 hex
 *   that start with the response id's first 16 hex; `call_` + 24 base-62.
 */
export function createIdSource(
  rng: Rng | string,
  style: IdStyle = "open-responses",
  unique: string | null = null,
): IdSource {
  const draws = typeof rng === "string" ? createRng(rng) : rng;
  const own = unique === null && style === "open-responses" ? null : createRng(unique ?? "ids");
  let response: string | undefined;
  const responseId = () => {
    if (response !== undefined) return response;
    const drawn = draws.chars(32);
    response = own === null ? `resp_${drawn}` : style === "openai" ? `resp_${hex(own, 50)}` : `resp_${own.chars(32)}`;
    return response;
  };
  const tail = (prefix: string) => {
    const drawn = draws.chars(24);
    if (own === null) return `${prefix}_${drawn}`;
    return style === "openai" && prefix !== "call"
      ? `${prefix}_${responseId().slice(5, 21)}${hex(own, 34)}`
      : `${prefix}_${own.chars(24)}`;
  };
  return {
    response: responseId,
    item(prefix) {
      responseId();
      return tail(prefix);
    },
    call() {
      responseId();
      return tail("call");
    },
  };
}

/**
 * The id source of an answer: the k-th (`repeat`) answer to a request with
 * this seed string, in a session or not, in an id style. The first answer
 * outside a session in the spec's style keeps the ids it always had (the
 * answer rng's draws); any other draws its own from `idSeed`.
 */
export function answerIds(rng: Rng, style: IdStyle, seed: string, session: string | null = null, repeat = 0): IdSource {
  const own = session === null && repeat === 0 && style === "open-responses" ? null : idSeed(seed, session, repeat);
  return createIdSource(rng, style, own);
}
