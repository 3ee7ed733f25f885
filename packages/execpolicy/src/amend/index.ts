/** Public entry of amend; the locking/appending code is loaded only when a rule is appended. */
import type { LockOptions } from "./lock.js";
import type { AllowRuleSandbox, NetworkRuleToAppend } from "./format.js";
export { formatAllowPrefixRule, formatNetworkRule, MAX_AMEND_FILE_BYTES } from "./format.js";
export type { AllowRuleSandbox, NetworkRuleToAppend } from "./format.js";

/** Options of `appendAllowPrefixRule`: lock tuning, and the sandbox of an "allow, sandboxed" amendment. */
export type AppendAllowOptions = LockOptions & AllowRuleSandbox;

/**
 * Append `prefix_rule(pattern=[...], decision="allow")` to `file` under an exclusive cross-process
 * lock: creates the parent directory (one level), skips the append when an identical line is
 * already there, and adds a missing final newline first. Returns whether a line was added.
 * With `options.sandbox` (and optionally `options.network`) the line also carries
 * `sandbox="…"`/`network=[…]`, so the prefix is allowed only inside that sandbox (a shellgate
 * extension: Codex cannot load such a line).
 * Throws `InvalidArgumentError` for a bad prefix or sandbox, `InvalidNetworkHostError` for a bad
 * host, and `AmendError` (with the failing `step`) for I/O.
 */
export async function appendAllowPrefixRule(file: string, prefix: readonly string[], options: AppendAllowOptions = {}): Promise<{ added: boolean }> {
  const { appendAllowPrefixRuleImpl } = await import("./append.js");
  return appendAllowPrefixRuleImpl(file, prefix, options);
}

/**
 * Append `network_rule(host="<h>", protocol="<p>", decision="<allow|prompt|deny>"[, justification="<j>"])`
 * to `file` under the same lock as `appendAllowPrefixRule`. Never de-duplicated: the
 * last rule for a host decides, so appending a rule that already exists further up still changes
 * (or re-asserts) the outcome. Returns `{ added: true }`. Throws `InvalidNetworkHostError` for a
 * bad host, `InvalidArgumentError` for the other fields and `AmendError` for I/O.
 */
export async function appendNetworkRule(file: string, rule: NetworkRuleToAppend, options: LockOptions = {}): Promise<{ added: boolean }> {
  const { appendNetworkRuleImpl } = await import("./append.js");
  return appendNetworkRuleImpl(file, rule, options);
}
