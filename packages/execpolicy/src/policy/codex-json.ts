/** Serialisation of an evaluation in the exact JSON shape (and key order) of `codex execpolicy check`. */
import type { Decision, Evaluation, RuleSandbox } from "./types.js";

/** One entry of `matchedRules` in Codex's JSON. */
export interface CodexPrefixRuleMatchJson {
  prefixRuleMatch: {
    matchedPrefix: string[];
    decision: Decision;
    resolvedProgram?: string;
    justification?: string;
    /** shellgate extension: present only for a rule written with `sandbox=` (Codex rejects such files). */
    sandbox?: RuleSandbox;
    /** shellgate extension: present only for a rule written with `network=`. */
    network?: string[];
  };
}

/** The `codex execpolicy check` output object; `decision` is absent when nothing matched. */
export interface CodexCheckJson {
  matchedRules: CodexPrefixRuleMatchJson[];
  decision?: Decision;
}

/**
 * Build the Codex-compatible JSON object (keys inserted in Codex's order; optional keys omitted).
 * For rules without shellgate's `sandbox=`/`network=` the result is exactly Codex's; a match of a
 * rule with them gains `"sandbox"` and `"network"` after Codex's keys.
 */
export function evaluationToCodexJson(evaluation: Evaluation): CodexCheckJson {
  const matchedRules = evaluation.matchedRules.map((m): CodexPrefixRuleMatchJson => {
    const inner: CodexPrefixRuleMatchJson["prefixRuleMatch"] = { matchedPrefix: m.matchedPrefix, decision: m.decision };
    if (m.resolvedProgram !== undefined) inner.resolvedProgram = m.resolvedProgram;
    if (m.justification !== undefined) inner.justification = m.justification;
    if (m.sandbox !== undefined) inner.sandbox = m.sandbox;
    if (m.network !== undefined) inner.network = [...m.network];
    return { prefixRuleMatch: inner };
  });
  const out: CodexCheckJson = { matchedRules };
  if (evaluation.decision !== undefined) out.decision = evaluation.decision;
  return out;
}
