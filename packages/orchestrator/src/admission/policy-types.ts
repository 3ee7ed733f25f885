import type { HostRule } from "../network/host-policy.js";

/**
 * The parts of an execpolicy evaluation that admission reads. They mirror `@shellgate/execpolicy`'s
 * `Evaluation` and `RuleMatch` structurally, so the mapping to an approval requirement stays a pure
 * function that tests can drive with hand-written evaluations.
 */
export type PolicyDecision = "allow" | "prompt" | "forbidden";

/** One prefix rule that matched a command segment. */
export interface PolicyRuleMatch {
  kind: "prefix";
  matchedPrefix: string[];
  decision: PolicyDecision;
  resolvedProgram?: string;
  justification?: string;
  source: { file: string; line: number; column: number };
  /** The sandbox the rule keeps the command in (`prefix_rule(..., sandbox=...)`, a shellgate extension). */
  sandbox?: "read-only" | "workspace-write";
  /** Hosts the rule lets the command reach through the session proxy (`network=[...]`). */
  network?: readonly string[];
}

/** A rule evaluation of one segment: no decision means no rule matched. */
export interface PolicyEvaluation {
  decision?: PolicyDecision;
  matchedRules: PolicyRuleMatch[];
}

/** Anything that evaluates a segment against loaded rules (a `Policy` from `@shellgate/execpolicy`). */
export interface PolicyEvaluator {
  /**
   * `opts.dialect: "powershell"`: the segment came from a PowerShell script, whose command names are
   * read without regard to case, aliases and qualifiers; rules naming the command in another spelling
   * may then forbid or ask (never allow). An evaluator that ignores it matches the words as written.
   */
  evaluate(argv: readonly string[], opts?: { resolveHostExecutables?: boolean; dialect?: "posix" | "powershell" }): PolicyEvaluation;
  /** A copy with one more rule; lets admission ask "would allowing this prefix approve the command?" exactly. */
  withPrefixRule?(prefix: readonly string[], decision?: PolicyDecision): PolicyEvaluator;
  /** The loaded `network_rule`s in file order (execpolicy's `Policy#networkRules`); they drive the session proxy. */
  readonly networkRules?: readonly HostRule[];
}

const RANK: Record<PolicyDecision, number> = { allow: 0, prompt: 1, forbidden: 2 };

/** The stricter of two decisions (forbidden > prompt > allow). */
export function stricter(a: PolicyDecision, b: PolicyDecision): PolicyDecision {
  return RANK[a] >= RANK[b] ? a : b;
}
