/**
 * Which sandbox a rule-decided command runs in, from the `sandbox=`/`network=` arguments of the
 * rules that decided it (a shellgate extension of `prefix_rule`).
 */
import type { SourceLocation } from "../errors.js";
import type { Evaluation, RuleSandbox } from "./types.js";

/** The sandbox that matching rules attach to a command's `allow`/`prompt` decision. */
export interface RuleSandboxGrant {
  /** `read-only` when any contributing rule says so (the stricter mode wins), else `workspace-write`. */
  sandbox: RuleSandbox;
  /**
   * Hosts every contributing rule grants (the intersection of their `network=` lists, in the
   * order of the first contributing rule); `[]` means no network. A rule with `sandbox=` and no
   * `network=` grants no host, so it empties the intersection.
   */
  network: string[];
  /** The first contributing rule (in definition order of the matches). */
  source: SourceLocation;
  /** Every contributing rule, in match order. */
  sources: SourceLocation[];
}

/**
 * The sandbox grant that applies to `evaluation`, or `undefined` when none does.
 *
 * Defined only when the effective decision is `allow` or `prompt` and at least one matched rule
 * *with that decision* carries `sandbox=`. Those rules are the contributing rules. Matched rules
 * of that decision without `sandbox=` are ignored rather than lifting the sandbox: a rule's
 * sandbox is a restriction its author asked for, and another rule that happens to match the same
 * command (say `prefix_rule(["npm"])` next to a sandboxed `prefix_rule(["npm", "ci"], ...)`)
 * must not silently remove it. Rules whose decision was overridden by a stricter one do not
 * contribute: their verdict (and the conditions attached to it) is not the one that applies.
 *
 * `forbidden` never has a grant (the command does not run); no match has none either (the
 * caller's own default applies). For `evaluateAll` results the grant spans every segment's
 * matches, so a script runs in the strictest sandbox and the smallest network any of its deciding
 * rules allows; segments that matched no rule are the caller's to decide.
 */
export function ruleSandboxGrant(evaluation: Evaluation): RuleSandboxGrant | undefined {
  const d = evaluation.decision;
  if (d !== "allow" && d !== "prompt") return undefined;
  const contributing = evaluation.matchedRules.filter((m) => m.decision === d && m.sandbox !== undefined);
  const first = contributing[0];
  if (first === undefined) return undefined;
  const sandbox: RuleSandbox = contributing.some((m) => m.sandbox === "read-only") ? "read-only" : "workspace-write";
  let network = [...new Set(first.network ?? [])];
  for (const m of contributing.slice(1)) {
    const allowed = new Set(m.network ?? []);
    network = network.filter((h) => allowed.has(h));
  }
  return { sandbox, network, source: { ...first.source }, sources: contributing.map((m) => ({ ...m.source })) };
}
