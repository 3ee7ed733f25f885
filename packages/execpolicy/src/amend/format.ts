/** The text amend writes (kept apart from the I/O so that importing it costs nothing). */

/** Largest rules file amend will read (it reads the whole file to de-duplicate). */
export const MAX_AMEND_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The line amend writes for `prefix`: `prefix_rule(pattern=["a", "b"], decision="allow")`. Tokens
 * are JSON-encoded (a JSON string is a valid Starlark string, and our lexer decodes every JSON
 * escape, including `\uXXXX` for control characters and lone surrogates), so the file reads back
 * to exactly the same tokens.
 */
export function formatAllowPrefixRule(prefix: readonly string[]): string {
  return `prefix_rule(pattern=[${prefix.map((t) => JSON.stringify(t)).join(", ")}], decision="allow")`;
}
