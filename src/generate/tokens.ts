/**
 * The one deterministic token count used everywhere (usage, budgets, chunking).
 * A token is a run of letters/digits or one other character, with the
 * whitespace before it; the pieces of a text always join back to the text.
 *
 * As a regular expression (with the `u` flag) the rule is
 * `\s*(?:[\p{L}\p{N}_]{1,12}|[^\s\p{L}\p{N}_])|\s+`. The scanner below gives
 * exactly its matches (a property test checks it against the regex), with a
 * table for ASCII and the regex classes only for other code points: every
 * answer counts and splits its text, so this is on the hot path.
 */
const WORD_RE = /^[\p{L}\p{N}_]$/u;
const SPACE_RE = /^\s$/u;

const OTHER = 0;
const WORD = 1;
const SPACE = 2;
/** Classes of the ASCII characters. */
const ASCII = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII[c] = WORD_RE.test(ch) ? WORD : SPACE_RE.test(ch) ? SPACE : OTHER;
}

/** The class of the code point at `i` (a table for ASCII, the regex classes otherwise). */
function classAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII[c];
  const ch = String.fromCodePoint(text.codePointAt(i)!);
  return WORD_RE.test(ch) ? WORD : SPACE_RE.test(ch) ? SPACE : OTHER;
}

/** Length in UTF-16 units of the code point at `i`. */
const widthAt = (text: string, i: number) => {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
};

/** Where the token that starts at `start` ends (`start` < text.length). */
export function tokenEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && classAt(text, i) === SPACE) i += widthAt(text, i);
  // Whitespace at the very end is a token of its own.
  if (i >= text.length) return i;
  if (classAt(text, i) !== WORD) return i + widthAt(text, i);
  // A run of up to 12 letters/digits (code points).
  let n = 0;
  while (i < text.length && n < 12 && classAt(text, i) === WORD) {
    i += widthAt(text, i);
    n++;
  }
  return i;
}

/** Splits text into token pieces whose concatenation is the text. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    const end = tokenEnd(text, i);
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** Number of tokens in a text. */
export function countTokens(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; n++) i = tokenEnd(text, i);
  return n;
}

/** The longest prefix of `text` that holds at most `budget` tokens. */
export function takeTokens(text: string, budget: number): string {
  if (budget <= 0) return "";
  let i = 0;
  for (let n = 0; n < budget && i < text.length; n++) i = tokenEnd(text, i);
  return text.slice(0, i);
}
