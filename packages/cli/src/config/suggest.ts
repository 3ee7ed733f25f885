/** Edit distance with adjacent transpositions (optimal string alignment): `aproval` → `approval` is 1. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name a mistyped `name` most likely meant: the closest within an edit distance of a third
 * of its length (at least 1, at most 3), else one it is a prefix of or that is a prefix of it
 * (`network` → `network_access`); undefined when nothing is close.
 */
export function suggestName(name: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(name.toLowerCase(), k.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name: k, distance };
  }
  if (best) return best.name;
  if (name.length < 4) return undefined;
  return known.find((k) => k.startsWith(name) || name.startsWith(k));
}
