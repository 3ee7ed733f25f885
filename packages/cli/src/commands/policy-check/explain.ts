/** `--explain`: a human-readable account of which rules matched and why the decision is what it is. */
import { formatAllowPrefixRule, workspaceCodeRunner, type Evaluation, type HostEvaluation, type NetworkRule, type RuleSandboxGrant } from "@shellgate/execpolicy";

function quote(token: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(token) ? token : JSON.stringify(token);
}

/** Where network rules take effect: said wherever policy-check reports on them, since it enforces nothing itself. */
const NETWORK_ENFORCEMENT = "shellgate's network proxy enforces network rules for `shellgate exec` and `shellgate mcp` sessions; policy-check only reports them";

/** The one line saying where the loaded `network_rule`s take effect ("" when there are none). */
function networkRulesNote(rules: readonly NetworkRule[]): string {
  if (rules.length === 0) return "";
  const first = rules[0]!.source;
  return `note: ${rules.length} network_rule(s) loaded (first at ${first.file}:${first.line}:${first.column}) play no part in command decisions: ${NETWORK_ENFORCEMENT} (ask about a host with --host HOST)\n`;
}

/** The JSON `policy-check --host` prints: `{"host":…,"decision"?:…,"rule"?:{file,line,column,protocol,justification?}}`. */
export function hostEvaluationJson(ev: HostEvaluation): { host: string; decision?: string; rule?: Record<string, unknown> } {
  if (ev.rule === undefined || ev.decision === undefined) return { host: ev.host };
  const rule: Record<string, unknown> = { file: ev.rule.source.file, line: ev.rule.source.line, column: ev.rule.source.column, protocol: ev.rule.protocol };
  if (ev.rule.justification !== undefined) rule["justification"] = ev.rule.justification;
  return { host: ev.host, decision: ev.decision, rule };
}

/**
 * `--host H --explain`: the deciding rule's file:line:col, and every earlier rule naming the host
 * (overridden, since the last one decides), so a surprising answer can be traced.
 */
export function explainHost(given: string, ev: HostEvaluation, rules: readonly NetworkRule[], addressLine?: string): string {
  const lines = [`host: ${quote(ev.host)}${ev.host !== given ? ` (normalised from ${JSON.stringify(given)})` : ""}`];
  const naming = rules.filter((r) => r.host === ev.host);
  if (ev.rule === undefined || ev.decision === undefined) {
    lines.push(`decision: none — no network_rule names this host (the JSON output omits "decision")`);
  } else {
    const n = naming.length;
    lines.push(`decision: ${ev.decision} — ${n === 1 ? "the only network_rule naming this host" : `the last of ${n} network_rules naming this host (the last one decides, whatever its protocol)`}`);
    naming.forEach((r, i) => {
      const mark = r === ev.rule ? "*" : " ";
      lines.push(`${mark} ${i + 1}. ${r.source.file}:${r.source.line}:${r.source.column}  ${r.decision}  protocol: ${r.protocol}`);
      if (r.justification !== undefined) lines.push(`       justification: ${r.justification}`);
    });
  }
  if (addressLine !== undefined) lines.push(addressLine);
  lines.push(`note: ${NETWORK_ENFORCEMENT}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Which addresses of a host the rules let through a run may reach, as the proxy judges them (an
 * allow rule names the host: loopback and link-local too; a prompt host, once approved, is allowed
 * by name only). policy-check does no network I/O and loads nothing of the proxy, so the host is not
 * resolved: the line says where it is.
 */
export function hostAddressLine(ev: HostEvaluation): string | undefined {
  if (ev.decision !== "allow" && ev.decision !== "prompt") return undefined;
  const reach = ev.decision === "allow" ? "any unicast address it resolves to, loopback and link-local included" : "once approved, any unicast address it resolves to but loopback and link-local";
  return `addresses: a run may reach ${reach}; unspecified, multicast and broadcast never (\`shellgate check --host ${ev.host}\` resolves it and tells what a run would do)`;
}

/**
 * Render the explanation text for one evaluated command: its matches, the sandbox its rules grant
 * (`grant`, from `ruleSandboxGrant`; shellgate's `prefix_rule(sandbox=…)` extension) and the
 * network-rules note, when any were loaded.
 */
export function explainEvaluation(command: readonly string[], ev: Evaluation, resolve: boolean, networkRules: readonly NetworkRule[] = [], grant?: RuleSandboxGrant): string {
  return explainCommand(command, ev, resolve) + grantLine(grant) + workspaceCodeNote(command, ev) + networkRulesNote(networkRules);
}

/**
 * The warning for an allow (without `sandbox=`) of a command that runs code the workspace defines:
 * under shellgate such a rule runs it outside the sandbox, with whatever a sandboxed command last
 * wrote into the scripts, build files or hooks it runs. Names the rule written to keep it confined.
 * The decision itself is unchanged (policy-check only evaluates rules).
 */
function workspaceCodeNote(command: readonly string[], ev: Evaluation): string {
  if (ev.decision !== "allow") return "";
  const allowing = ev.matchedRules.filter((m) => m.decision === "allow");
  if (allowing.length === 0 || allowing.some((m) => m.sandbox !== undefined)) return "";
  const runs = workspaceCodeRunner(command);
  if (!runs) return "";
  const rule = allowing.reduce((a, b) => (b.matchedPrefix.length > a.matchedPrefix.length ? b : a));
  return (
    `warning: this allow lets \`${command.map(quote).join(" ")}\` run outside shellgate's sandbox, and it ${runs}: ` +
    `whatever a sandboxed command last wrote there runs unconfined (rule at ${rule.source.file}:${rule.source.line}:${rule.source.column})\n` +
    `  to keep it allowed but confined: ${formatAllowPrefixRule(rule.matchedPrefix, { sandbox: "workspace-write" })}\n`
  );
}

function grantLine(grant: RuleSandboxGrant | undefined): string {
  if (grant === undefined) return "";
  const hosts = grant.network.length ? `network only to ${grant.network.map(quote).join(", ")}` : "no network";
  const from = grant.sources.map((s) => `${s.file}:${s.line}:${s.column}`).join(", ");
  return `sandbox: ${grant.sandbox}, ${hosts} — from the rule(s) with that decision that carry sandbox= (${from}); strictest mode, hosts every one of them allows\n`;
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
    if (m.sandbox !== undefined) lines.push(`       sandbox: ${m.sandbox}${m.network !== undefined ? `; network: ${m.network.length ? m.network.map(quote).join(", ") : "none"}` : ""}`);
  });
  return `${lines.join("\n")}\n`;
}
