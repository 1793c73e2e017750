/**
 * The one deterministic token count used everywhere (usage, budgets, chunking).
 * A token is a run of letters/digits or one other character, with the
 * whitespace before it; the pieces of a text always join back to the text.
 */
const TOKEN = /\s*(?:[\p{L}\p{N}_]{1,12}|[^\s\p{L}\p{N}_])|\s+/gu;

/** Splits text into token pieces whose concatenation is the text. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * Counts of short texts seen recently (deltas repeat a lot). A memo of a pure
 * function: it changes no result, only how often the regex runs.
 */
const memo = new Map<string, number>();
const MEMO_LIMIT = 20_000;

/** Number of tokens in a text. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const short = text.length <= 64;
  if (short) {
    const known = memo.get(text);
    if (known !== undefined) return known;
  }
  let n = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text) !== null) n++;
  if (short) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(text, n);
  }
  return n;
}

/** The longest prefix of `text` that holds at most `budget` tokens. */
export function takeTokens(text: string, budget: number): string {
  if (budget <= 0) return "";
  const pieces = tokenize(text);
  return pieces.length <= budget ? text : pieces.slice(0, budget).join("");
}
