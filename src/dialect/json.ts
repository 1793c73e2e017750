/**
 * JSON text of stream events and responses, byte for byte what
 * `JSON.stringify` gives, built cheaper where it can be: serialising is most
 * of what a short stream costs. Pure.
 *
 * - An event that carries a response snapshot has its own keys walked in
 *   their order, as JSON.stringify walks them: scalars written directly, the
 *   `response` by `responseJson`.
 * - A running snapshot that is its plan's base response with a status
 *   (`response.created`, `response.in_progress`) reuses the text of the one
 *   before it.
 *
 * Anything else — an object that is not plain, a value with `toJSON`, a
 * number that is not finite — goes to JSON.stringify whole. A property test
 * compares both with JSON.stringify on generated values, and the goldens hold
 * the streams to their bytes.
 */

/** Characters JSON.stringify escapes in a string: `"`, `\`, controls, and lone surrogates (any surrogate, to keep the test simple). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON text. */
export function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** `"key":`, for the keys events and responses have (a bounded table: other keys are built each time). */
const KEY_TEXT = new Map<string, string>();
const MAX_KEYS = 256;
function keyText(key: string): string {
  let text = KEY_TEXT.get(key);
  if (text === undefined) {
    text = `${quote(key)}:`;
    if (KEY_TEXT.size < MAX_KEYS) KEY_TEXT.set(key, text);
  }
  return text;
}

const isPlain = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** A value that JSON.stringify would serialise differently in place than on its own (toJSON gets its key), or leave out. */
const isAwkward = (value: unknown): boolean =>
  value === undefined ||
  typeof value === "function" ||
  typeof value === "symbol" ||
  typeof value === "bigint" ||
  (typeof value === "object" && value !== null && typeof (value as { toJSON?: unknown }).toJSON === "function");

/** The JSON text of one value written in place (null: not a value this writer takes; the caller falls back). */
function valueText(value: unknown): string | null {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      // Finite numbers print as JSON.stringify prints them (-0 as 0).
      return Number.isFinite(value) ? String(value) : null;
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value) && value.length === 0) return "[]";
      if (isAwkward(value)) return null;
      return JSON.stringify(value);
    default:
      return null;
  }
}

/**
 * The texts of the last "base with a status" snapshots serialised, by base response: a few,
 * newest last. Not a WeakMap: one entry per answer in a WeakMap is an ephemeron that every
 * scavenge walks. A snapshot's text is wanted again by the very next event of its answer
 * (`response.in_progress` after `response.created`), so a short list serves; one pushed out
 * by other answers' snapshots meanwhile is only serialised again.
 */
const RUNNING: Running[] = Array.from({ length: 16 }, () => ({ base: null, status: null, text: "" }));
let runningNext = 0;

interface Running {
  base: object | null;
  status: unknown;
  text: string;
}

function runningOf(base: object): Running | undefined {
  for (let i = 0; i < RUNNING.length; i++) if (RUNNING[i].base === base) return RUNNING[i];
  return undefined;
}

/** Whether a response is its base with (at most) another status: the same keys, the very same values. */
function isBaseSnapshot(response: Record<string, unknown>, base: Record<string, unknown>): boolean {
  let n = 0;
  for (const key in response) {
    if (response[key] !== base[key] && key !== "status") return false;
    n++;
  }
  // Same count and every key of the response has the base's value: the same keys (none is undefined in a base).
  let m = 0;
  for (const key in base) {
    if (base[key] === undefined) return false;
    m++;
  }
  return n === m;
}

/**
 * The JSON text of a response. `base` is the response its plan started
 * from: a snapshot that is the base with a status (a stream's
 * `response.created`, `response.queued`, `response.in_progress`) reuses the
 * text of the one before it when the status is the same. The plan, its base
 * included, never changes once planned (a stored response is replayed from
 * it), so that text stays true; it is forgotten once another snapshot of the
 * answer (its terminal one) is serialised, or once 16 other answers' were.
 */
export function responseJson(response: object, base?: object): string {
  if (base === undefined || !isPlain(response)) return JSON.stringify(response);
  const own = response as Record<string, unknown>;
  // Only running snapshots are kept: a finished one (a JSON body, a terminal event) is written once.
  const running = own.status === "in_progress" || own.status === "queued";
  const last = runningOf(base);
  if (!running || !isBaseSnapshot(own, base as Record<string, unknown>)) {
    if (last !== undefined) {
      last.base = null;
      last.text = "";
    }
    return JSON.stringify(response);
  }
  if (last !== undefined && last.status === own.status) return last.text;
  const text = JSON.stringify(response);
  const slot = last ?? RUNNING[runningNext++ % RUNNING.length];
  slot.base = base;
  slot.status = own.status;
  slot.text = text;
  return text;
}

const DELTA_HEAD = ["type", "sequence_number", "item_id", "output_index"];

/** A finite number (JSON.stringify's text for it is `${n}`, -0 as 0). */
const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/**
 * The constant parts of a run of delta events: the text before the sequence
 * number, and between it and the delta. Consecutive deltas of one item share
 * them, so a delta's JSON is a few pieces joined. A framed head starts with
 * the SSE message's `event: TYPE\ndata: ` and ends it with its blank line.
 */
interface DeltaHead {
  type: string;
  item: string;
  output: number;
  index: "content_index" | "summary_index" | null;
  at: number;
  framed: boolean;
  /** `[event: TYPE\ndata: ]{"type":TYPE,"sequence_number":` */
  head: string;
  /** `,"item_id":ITEM,"output_index":N[,"content_index":N],"delta":` */
  mid: string;
  /** `mid` and the opening quote of a delta that needs no escape. */
  midQuote: string;
  /** `}`, framed `}\n\n`. */
  tail: string;
  /** A closing quote, then `tail`. */
  quoteTail: string;
}

/**
 * Where one stream keeps the head of its current run of deltas. Hundreds of
 * paced streams interleave in a tick, so a table shared by every stream
 * would miss for nearly every delta and build its head again (docs/performance.md, issue 30).
 */
export interface DeltaCache {
  last: DeltaHead | undefined;
}

/** A stream's own DeltaCache. */
export const deltaCache = (): DeltaCache => ({ last: undefined });

/** The heads of the last delta runs seen by writers without a cache of their own (a few streams interleave in one tick). */
const HEADS: (DeltaHead | undefined)[] = new Array(8).fill(undefined);
let headsNext = 0;

const sameHead = (
  h: DeltaHead | undefined,
  type: string,
  item: string,
  output: number,
  index: "content_index" | "summary_index" | null,
  at: number,
  framed: boolean,
): h is DeltaHead =>
  h !== undefined &&
  h.item === item &&
  h.type === type &&
  h.output === output &&
  h.index === index &&
  h.at === at &&
  h.framed === framed;

const LINE_BREAK = /[\r\n]/;

/** An SSE event name may not hold a line break (it would end the `event:` line): throws for one that does. */
export function checkEventName(type: string): void {
  if (LINE_BREAK.test(type)) throw new Error(`event type may not contain a line break: ${JSON.stringify(type)}`);
}

function deltaHead(
  type: string,
  item: string,
  output: number,
  index: "content_index" | "summary_index" | null,
  at: number,
  framed: boolean,
  cache: DeltaCache | undefined,
): DeltaHead {
  if (cache !== undefined) {
    if (sameHead(cache.last, type, item, output, index, at, framed)) return cache.last;
  } else {
    for (let i = 0; i < HEADS.length; i++) {
      const h = HEADS[i];
      if (sameHead(h, type, item, output, index, at, framed)) return h;
    }
  }
  if (framed) checkEventName(type);
  const mid = `,"item_id":${quote(item)},"output_index":${output}${index === null ? "" : `,"${index}":${at}`},"delta":`;
  const tail = framed ? "}\n\n" : "}";
  const h: DeltaHead = {
    type,
    item,
    output,
    index,
    at,
    framed,
    head: `${framed ? `event: ${type}\ndata: ` : ""}{"type":${quote(type)},"sequence_number":`,
    mid,
    midQuote: `${mid}"`,
    tail,
    quoteTail: `"${tail}`,
  };
  if (cache !== undefined) cache.last = h;
  else HEADS[headsNext++ % HEADS.length] = h;
  return h;
}

/**
 * A delta event as the emitter builds it (most of a stream's events), as one
 * template: `type, sequence_number, item_id, output_index[, content_index |
 * summary_index], delta[, logprobs][, obfuscation]`. Null for any other keys,
 * order or values (the general writer takes those). The constant parts of a
 * run of deltas are built once (DeltaHead); `framed`, the text is the whole
 * SSE message (`event: TYPE\ndata: JSON\n\n`).
 */
export function deltaJson(own: Record<string, unknown>, cache?: DeltaCache, framed = false): string | null {
  let step = 0;
  let index: "content_index" | "summary_index" | null = null;
  let logprobs = false;
  let obfuscation = false;
  // The keys, in order: the same ones JSON.stringify would walk.
  for (const key in own) {
    if (step < 4) {
      if (key !== DELTA_HEAD[step]) return null;
      step++;
    } else if (step === 4 && (key === "content_index" || key === "summary_index")) {
      index = key;
      step = 5;
    } else if (step <= 5 && key === "delta") step = 6;
    else if (step === 6 && key === "logprobs") {
      logprobs = true;
      step = 7;
    } else if ((step === 6 || step === 7) && key === "obfuscation") {
      obfuscation = true;
      step = 8;
    } else return null;
  }
  if (step < 6) return null;
  const { type, sequence_number: seq, item_id: item, output_index: output, delta } = own;
  if (
    typeof type !== "string" ||
    typeof item !== "string" ||
    typeof delta !== "string" ||
    !finite(seq) ||
    !finite(output)
  )
    return null;
  let at = 0;
  if (index !== null) {
    const value = own[index];
    if (!finite(value)) return null;
    at = value;
  }
  const list = own.logprobs;
  if (logprobs && (!Array.isArray(list) || (list.length > 0 && isAwkward(list)))) return null;
  const text = own.obfuscation;
  if (obfuscation && typeof text !== "string") return null;
  const h = deltaHead(type, item, output, index, at, framed, cache);
  // A string that needs no escape is written between quotes; the closing one goes out with what follows it.
  let open = !NEEDS_ESCAPE.test(delta);
  let out = open ? h.head + seq + h.midQuote + delta : h.head + seq + h.mid + JSON.stringify(delta);
  if (logprobs) {
    const lp = (list as unknown[]).length === 0 ? ',"logprobs":[]' : `,"logprobs":${JSON.stringify(list)}`;
    out += open ? `"${lp}` : lp;
    open = false;
  }
  if (obfuscation) {
    const t = text as string;
    if (NEEDS_ESCAPE.test(t)) {
      out += (open ? '","obfuscation":' : ',"obfuscation":') + JSON.stringify(t);
      open = false;
    } else {
      out += (open ? '","obfuscation":"' : ',"obfuscation":"') + t;
      open = true;
    }
  }
  return out + (open ? h.quoteTail : h.tail);
}

/**
 * The JSON text of a stream event; `base` as for responseJson, for the
 * snapshot a lifecycle event carries. Its own keys are walked in order and
 * its scalars written directly (a nested value by JSON.stringify in place):
 * for the flat events that are most of a stream (deltas) that costs about a
 * quarter less than JSON.stringify (docs/performance.md, "Second pass").
 */
export function eventJson(event: object, base?: object): string {
  if (!isPlain(event)) return JSON.stringify(event);
  const own = event as Record<string, unknown>;
  if (typeof own.delta === "string") {
    const text = deltaJson(own);
    if (text !== null) return text;
  }
  let out = "{";
  for (const key in own) {
    const value = own[key];
    const text =
      key === "response" && base !== undefined && typeof value === "object" && value !== null
        ? isAwkward(value)
          ? null
          : responseJson(value, base)
        : valueText(value);
    if (text === null) return JSON.stringify(event);
    out += out.length === 1 ? keyText(key) + text : `,${keyText(key)}${text}`;
  }
  return `${out}}`;
}
