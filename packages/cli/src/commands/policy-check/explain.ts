/** `--explain`: a human-readable account of which rules matched and why the decision is what it is. */
import type { Evaluation, NetworkRule } from "@shellgate/execpolicy";

function quote(token: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(token) ? token : JSON.stringify(token);
}

/** The one line saying that the loaded `network_rule`s do nothing yet ("" when there are none). */
export function networkRulesNote(rules: readonly NetworkRule[]): string {
  if (rules.length === 0) return "";
  const first = rules[0]!.source;
  return `note: ${rules.length} network_rule(s) loaded (first at ${first.file}:${first.line}:${first.column}) have no effect yet: shellgate does not enforce domain policy; network access is decided by the sandbox's --network setting alone\n`;
}

/** Render the explanation text for one evaluated command (plus the network-rules note, when any were loaded). */
export function explainEvaluation(command: readonly string[], ev: Evaluation, resolve: boolean, networkRules: readonly NetworkRule[] = []): string {
  return explainCommand(command, ev, resolve) + networkRulesNote(networkRules);
}

function explainCommand(command: readonly string[], ev: Evaluation, resolve: boolean): string {
  const lines = [`command: ${command.map(quote).join(" ")}`];
  if (ev.matchedRules.length === 0 || ev.decision === undefined) {
    lines.push("decision: none — no rule matched (the JSON output omits \"decision\")");
    if (!resolve && command[0]?.includes("/")) {
      lines.push("note: the program is a path; --resolve-host-executables would let it match rules for its basename");
    }
    return `${lines.join("\n")}\n`;
  }
  const n = ev.matchedRules.length;
  const why = n === 1 ? "the only matching rule" : `the strictest of ${n} matching rules (forbidden > prompt > allow)`;
  lines.push(`decision: ${ev.decision} — ${why}`);
  ev.matchedRules.forEach((m, i) => {
    const mark = m.decision === ev.decision ? "*" : " ";
    lines.push(`${mark} ${i + 1}. ${m.source.file}:${m.source.line}:${m.source.column}  ${m.decision}  matched prefix: ${m.matchedPrefix.map(quote).join(" ")}`);
    if (m.resolvedProgram !== undefined) lines.push(`       via host executable ${m.resolvedProgram} (basename fallback)`);
    if (m.justification !== undefined) lines.push(`       justification: ${m.justification}`);
  });
  return `${lines.join("\n")}\n`;
}
