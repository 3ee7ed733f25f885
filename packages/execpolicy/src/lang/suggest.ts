/** "did you mean" suggestions for misspelt names, keyword arguments and attributes. */

/** Levenshtein distance between `a` and `b`, giving up (returning `limit + 1`) once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      // A swap of two neighbours counts as one edit, the most common typo after a dropped letter.
      cur.push(i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1] ? Math.min(v, prev[j - 2]! + 1) : v);
      best = Math.min(best, cur[j]!);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The known name closest to `name`, when it is close enough to be a plausible typo: at most one
 * edit for names of up to four characters, two up to eight, three beyond. Ties go to the first
 * candidate in alphabetical order, so the suggestion is stable.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestD = limit + 1;
  for (const c of [...new Set(candidates)].sort()) {
    if (c === name) continue;
    const d = editDistance(name.toLowerCase(), c.toLowerCase(), limit);
    if (d < bestD && d < Math.max(c.length, name.length)) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** `" (did you mean `x`?)"`, or "" when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closestName(name, candidates);
  return c === undefined ? "" : `; did you mean \`${c}\`?`;
}
