/**
 * "Did you mean …?": the known name nearest to a mistyped one. Pure.
 *
 * Distance is the optimal-string-alignment edit distance (insert, delete,
 * replace, swap two neighbours: `prot` → `port` is 1), case-insensitive. A
 * name is suggested only when it is close for its length, so that a word
 * with nothing near it gets no suggestion rather than a random one.
 */

/**
 * Edit distance between `a` and `b` (insertions, deletions, replacements and
 * swaps of two adjacent characters, each 1). Returns `max + 1` as soon as the
 * distance is known to exceed `max`, so a long input costs little.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // Three rows of the dynamic-programming table: two back (for swaps), previous, current.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let best = row[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > max) return max + 1;
    [before, prev, row] = [prev, row, before];
  }
  return prev[b.length];
}

/** How far a name may be from the word typed and still be suggested: about one edit per three characters, at least one. */
export const closeEnough = (word: string): number => Math.max(1, Math.floor(word.length / 3));

/**
 * The candidate nearest to `word` (case-insensitive), if one is close enough
 * (`closeEnough`); ties go to the candidate listed first. A candidate equal
 * to `word` is returned as is (distance 0).
 */
export function nearestName(word: string, candidates: Iterable<string>, max = closeEnough(word)): string | undefined {
  const typed = word.toLowerCase();
  let found: string | undefined;
  let foundDistance = max + 1;
  for (const candidate of candidates) {
    const d = editDistance(typed, candidate.toLowerCase(), foundDistance - 1);
    if (d < foundDistance) {
      found = candidate;
      foundDistance = d;
      if (d === 0) break;
    }
  }
  return found;
}
