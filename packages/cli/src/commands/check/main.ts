import { formatAllowPrefixRule, type NetworkRule } from "@shellgate/execpolicy";
import { PolicyStore } from "@shellgate/orchestrator";
import { assessCommand, renderCommand, type Admission } from "@shellgate/orchestrator/admission";
import { deriveExecArgs, detectUserShell } from "@shellgate/shell-detect";
import { configOverrides, CONFIG_OPTIONS, parseCommandArgs } from "../../args.js";
import { loadConfig, type EffectiveConfig } from "../../config/index.js";
import { describeError } from "../../error-text.js";
import { UsageError } from "../../errors.js";
import { CONFIG_ERROR_EXIT } from "../../exit-table.js";

/** The `--json` object of `shellgate check`. */
export interface CheckJson {
  requirement: Admission["requirement"]["kind"];
  bypassSandbox?: boolean;
  reason?: string;
  proposedAmendment?: string[];
  segments: string[][];
  matchedRules: Admission["matchedRules"];
  split: Admission["split"];
  unmatched: Admission["unmatched"];
  /** `network_rule` entries of the loaded rules; they have no effect yet (`effective` is always false). */
  networkRules?: { effective: false; rules: Array<{ host: string; protocol: string; decision: string; file: string; line: number }> };
}

/** The note every report gives while `network_rule` is parsed but not enforced. */
export const NETWORK_RULES_NOTE = "network_rule has no effect yet: network access is decided by the sandbox mode and --network alone";

function networkRulesJson(rules: readonly NetworkRule[]): NonNullable<CheckJson["networkRules"]> {
  return { effective: false, rules: rules.map((r) => ({ host: r.host, protocol: r.protocol, decision: r.decision, file: r.source.file, line: r.source.line })) };
}

/** The body of `shellgate check` (see its `--help`). */
export async function checkMain(args: string[]): Promise<number> {
  let json = false;
  let escalate = false;
  let argv: string[];
  let config: EffectiveConfig;
  try {
    const parsed = parseCommandArgs(args, {
      ...CONFIG_OPTIONS,
      json: { type: "boolean" },
      escalate: { type: "boolean" },
      help: { type: "boolean" },
    });
    json = parsed.values["json"] === true;
    escalate = parsed.values["escalate"] === true;
    const overrides = configOverrides(parsed.values);
    argv = commandArgv(parsed.hadTerminator, parsed.command);
    config = await loadConfig(overrides);
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    if (error instanceof UsageError) {
      process.stderr.write("Run `shellgate check --help` for usage.\n");
      return 2;
    }
    return CONFIG_ERROR_EXIT;
  }

  let store: PolicyStore;
  try {
    store = await PolicyStore.load(config.rules.map((r) => r.file));
  } catch (error) {
    // A rules file that does not load is a configuration error, as in every command.
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return CONFIG_ERROR_EXIT;
  }
  let admission: Admission;
  try {
    admission = await assessCommand({
      argv,
      policy: store.policy,
      approvalPolicy: config.approvalPolicy,
      sandboxPolicy: config.sandboxPolicy,
      permissions: escalate ? "require_escalated" : "use_default",
    });
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return 1;
  }

  const networkRules = store.policy?.networkRules ?? [];
  process.stdout.write(
    json ? `${JSON.stringify(toJson(admission, networkRules))}\n` : explain(argv, config, escalate, admission, networkRules),
  );
  return 0;
}

/** The argv to judge: as for `exec`, after `--` or several words an argv, one word a script for the user's shell. */
function commandArgv(hadTerminator: boolean, command: string[]): string[] {
  if (hadTerminator) {
    if (command.length === 0) throw new UsageError("no command after `--`");
    return command;
  }
  if (command.length === 0) throw new UsageError('no command given: shellgate check [options] COMMAND [ARGS...] or shellgate check "SCRIPT"');
  if (command.length > 1) return command;
  const script = command[0]!;
  if (script.trim() === "") throw new UsageError("the script is empty");
  return deriveExecArgs(detectUserShell(), script, { login: true });
}

/** The JSON form: the object, plus `split`, `unmatched` and (when any) the inert `networkRules`. */
export function toJson(admission: Admission, networkRules: readonly NetworkRule[] = []): CheckJson {
  const r = admission.requirement;
  const out: CheckJson = { requirement: r.kind, segments: admission.segments, matchedRules: admission.matchedRules, split: admission.split, unmatched: admission.unmatched };
  if (networkRules.length > 0) out.networkRules = networkRulesJson(networkRules);
  if (r.kind === "skip") out.bypassSandbox = r.bypassSandbox;
  if (r.kind !== "skip" && r.reason !== undefined) out.reason = r.reason;
  if (r.kind !== "forbidden" && r.proposedAmendment) out.proposedAmendment = r.proposedAmendment;
  // Keep the key order: requirement, bypassSandbox, reason, proposedAmendment, segments, matchedRules.
  const { requirement, bypassSandbox, reason, proposedAmendment, ...rest } = out;
  return {
    requirement,
    ...(bypassSandbox !== undefined ? { bypassSandbox } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(proposedAmendment ? { proposedAmendment } : {}),
    ...rest,
  };
}

const SPLIT_TEXT: Record<Admission["split"], string> = {
  plain: "a shell script of plain commands, judged one by one",
  heredoc: "a shell script of one command fed by a heredoc, matched against rules only (no known-safe shortcut, no amendment)",
  "not-plain": "a shell script that is not plain (redirections, expansions, ...), judged as a whole",
  "not-a-shell": "not a shell wrapper, judged as given",
};

/** The human explanation. */
export function explain(
  argv: readonly string[],
  config: EffectiveConfig,
  escalate: boolean,
  admission: Admission,
  networkRules: readonly NetworkRule[] = [],
): string {
  const lines: string[] = [];
  lines.push(`command:   ${renderCommand(argv)}`);
  lines.push(
    `policy:    approval ${config.approvalPolicy}, sandbox ${config.sandboxPolicy.mode}${escalate ? ", asks to run outside the sandbox" : ""}`,
  );
  lines.push(`rules:     ${config.rules.length === 0 ? "none" : config.rules.map((r) => r.file).join(", ")}`);
  lines.push(`segments:  ${admission.segments.length} (${SPLIT_TEXT[admission.split]})`);
  admission.details.forEach((d, i) => {
    lines.push(`  ${i + 1}. ${renderCommand(d.segment)}`);
    if (d.source === "rule") {
      for (const m of d.matchedRules) {
        const why = m.justification ? ` — ${m.justification}` : "";
        const via = m.resolvedProgram ? ` (via ${m.resolvedProgram})` : "";
        lines.push(`     rule ${m.source.file}:${m.source.line}: prefix ${renderCommand(m.matchedPrefix)} → ${m.decision}${via}${why}`);
      }
    } else {
      lines.push(`     ${heuristicLabel(d, config)}`);
    }
  });
  const r = admission.requirement;
  switch (r.kind) {
    case "skip":
      lines.push(
        r.bypassSandbox
          ? "requirement: skip — runs without asking, OUTSIDE the sandbox (every segment has an explicit allow rule)"
          : "requirement: skip — runs without asking, inside the sandbox",
      );
      break;
    case "needs_approval":
      lines.push("requirement: needs_approval — a person must approve it first");
      break;
    case "forbidden":
      lines.push("requirement: forbidden — it will not run");
      break;
  }
  if (r.kind !== "skip" && r.reason) lines.push(`  reason: ${r.reason}`);
  if (r.kind !== "forbidden" && r.proposedAmendment) {
    // A command that runs without asking is offered "always allow" only if a person is asked later.
    const when = r.kind === "skip" ? "if a person is asked later (a retry or an escalation), " : "";
    lines.push(`  ${when}"always allow" would add: ${formatAllowPrefixRule(r.proposedAmendment).trimEnd()}`);
  }
  if (networkRules.length > 0) {
    const where = [...new Set(networkRules.map((n) => `${n.source.file}:${n.source.line}`))].join(", ");
    lines.push(`note: ${NETWORK_RULES_NOTE} (${networkRules.length} network_rule at ${where})`);
  }
  return `${lines.join("\n")}\n`;
}

/** Where a command no rule matched will run, under the configured sandbox mode. */
function whereItRuns(config: EffectiveConfig): string {
  switch (config.sandboxPolicy.mode) {
    case "read-only":
    case "workspace-write":
      return "runs in the sandbox";
    case "external-sandbox":
      return "runs as is (sandbox mode external-sandbox: your own sandbox confines it)";
    default:
      return `runs WITHOUT a sandbox (sandbox mode ${config.sandboxPolicy.mode})`;
  }
}

/** How a segment no rule matched is judged, named by the heuristic that decided it. */
function heuristicLabel(d: Admission["details"][number], config: EffectiveConfig): string {
  const outcome = d.decision === "allow" ? whereItRuns(config) : d.decision === "prompt" ? "asks first" : "forbidden";
  switch (d.verdict) {
    case "known-safe":
      return `no rule; known-safe command (heuristic) → ${outcome}`;
    case "dangerous":
      return `no rule; dangerous command (heuristic) → ${outcome}`;
    default:
      return d.decision === "allow" ? `no rule; ${outcome}` : `no rule; not known to be safe → ${outcome} (approval policy ${config.approvalPolicy})`;
  }
}
