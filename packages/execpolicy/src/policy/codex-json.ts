/** Serialisation of an evaluation in the exact JSON shape (and key order) of `codex execpolicy check`. */
import type { Decision, Evaluation } from "./types.js";

/** One entry of `matchedRules` in Codex's JSON. */
export interface CodexPrefixRuleMatchJson {
  prefixRuleMatch: {
    matchedPrefix: string[];
    decision: Decision;
    resolvedProgram?: string;
    justification?: string;
  };
}

/** The `codex execpolicy check` output object; `decision` is absent when nothing matched. */
export interface CodexCheckJson {
  matchedRules: CodexPrefixRuleMatchJson[];
  decision?: Decision;
}

/** Build the Codex-compatible JSON object (keys inserted in Codex's order; optional keys omitted). */
export function evaluationToCodexJson(evaluation: Evaluation): CodexCheckJson {
  const matchedRules = evaluation.matchedRules.map((m): CodexPrefixRuleMatchJson => {
    const inner: CodexPrefixRuleMatchJson["prefixRuleMatch"] = { matchedPrefix: m.matchedPrefix, decision: m.decision };
    if (m.resolvedProgram !== undefined) inner.resolvedProgram = m.resolvedProgram;
    if (m.justification !== undefined) inner.justification = m.justification;
    return { prefixRuleMatch: inner };
  });
  const out: CodexCheckJson = { matchedRules };
  if (evaluation.decision !== undefined) out.decision = evaluation.decision;
  return out;
}
