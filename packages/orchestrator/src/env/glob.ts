/**
 * Case-insensitive wildmatch for environment variable names: `*` matches any run of characters,
 * `?` exactly one, everything else literally. Variable names contain no path separators, so the
 * path-aware semantics of general-purpose glob libraries would only get in the way here.
 *
 * Matching is what `new RegExp("^…$", "is")` does, but an ASCII pattern is compiled without the `i`
 * flag: with it, V8 works out the case closure of every character class, and `.` under `s` is all of
 * Unicode — about 0.2–1 ms per pattern on first use, paid for the five default secret globs on every
 * command start. Without `u`, `i` folds a letter only to its ASCII other case (a non-ASCII character
 * whose upper case is ASCII, such as U+017F, stays apart), so `[Kk]` matches exactly what `K` does
 * under `i`. A pattern with a non-ASCII character keeps the `i` flag.
 */
export function compileNameGlob(pattern: string): RegExp {
  const ascii = /^[\x00-\x7f]*$/.test(pattern);
  let source = "";
  for (const ch of pattern) {
    if (ch === "*") source += "[^]*";
    else if (ch === "?") source += "[^]";
    else if (ascii && /[A-Za-z]/.test(ch)) source += `[${ch.toUpperCase()}${ch.toLowerCase()}]`;
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, ascii ? "" : "i");
}

/** Whether `name` matches any of the compiled patterns. */
export function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}
