/** Public entry of amend; the locking/appending code is loaded only when a rule is appended. */
import type { LockOptions } from "./lock.js";

export { formatAllowPrefixRule, MAX_AMEND_FILE_BYTES } from "./format.js";

/**
 * Append `prefix_rule(pattern=[...], decision="allow")` to `file` under an exclusive cross-process
 * lock: creates the parent directory (one level), skips the append when an identical line is
 * already there, and adds a missing final newline first. Returns whether a line was added.
 * Throws `InvalidArgumentError` for a bad prefix and `AmendError` (with the failing `step`) for I/O.
 */
export async function appendAllowPrefixRule(file: string, prefix: readonly string[], options: LockOptions = {}): Promise<{ added: boolean }> {
  const { appendAllowPrefixRuleImpl } = await import("./append.js");
  return appendAllowPrefixRuleImpl(file, prefix, options);
}
