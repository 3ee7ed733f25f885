/**
 * Case-insensitive wildmatch for environment variable names: `*` matches any run of characters,
 * `?` exactly one, everything else literally. Variable names contain no path separators, so the
 * path-aware semantics of general-purpose glob libraries would only get in the way here.
 */
export function compileNameGlob(pattern: string): RegExp {
  let source = "";
  for (const ch of pattern) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "is");
}

/** Whether `name` matches any of the compiled patterns. */
export function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((p) => p.test(name));
}
