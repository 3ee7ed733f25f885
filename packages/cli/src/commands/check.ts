import { formatAllowPrefixRule } from "@shellgate/execpolicy";
import { PolicyStore, assessCommand, renderCommand, type Admission } from "@shellgate/orchestrator";
import { deriveExecArgs, detectUserShell } from "@shellgate/shell-detect";
import { configOverrides, CONFIG_OPTIONS, CONFIG_OPTIONS_HELP, parseCommandArgs } from "../args.js";
import { CONFIG_FILES_HELP } from "../options.js";
import { loadConfig, type EffectiveConfig } from "../config/index.js";
import { describeError } from "../error-text.js";
import { UsageError } from "../errors.js";

/** `shellgate check --help`. */
export const HELP = `Usage: shellgate check [options] -- COMMAND [ARGS...]
       shellgate check [options] "SCRIPT"

Show what would happen if an agent ran this command: how it splits into segments, which rule
matched each segment (file:line), the heuristic verdict for segments no rule matched, and the
resulting requirement — skip (in the sandbox, or bypassing it), needs approval (with the reason and
the prefix "always allow" would add), or forbidden (with the reason). Nothing is executed.

After \`--\` the words are the command itself. A single quoted argument without \`--\` is a script for
your shell (\`bash -lc SCRIPT\`, or whatever your shell is).

Options:
      --json                 print one JSON object instead of the explanation
      --escalate             judge it as a request to run outside the sandbox
${CONFIG_OPTIONS_HELP}
  -h, --help                 show this help

${CONFIG_FILES_HELP}

JSON: { "requirement": "skip" | "needs_approval" | "forbidden", "bypassSandbox"?, "reason"?,
        "proposedAmendment"?, "segments": [[...]], "matchedRules": [...], "split", "unmatched" }

Exit codes: 0 the report was printed (whatever it says); 2 bad arguments; 1 configuration or
rules-file error.

Examples:
  shellgate check -- git push --force
  shellgate check --approval-policy untrusted "cargo build && echo ok"
  shellgate check --rules examples/default.rules --json -- rm -rf build
`;

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
}

/** `shellgate check`: see {@link HELP}. */
export async function run(args: string[]): Promise<number> {
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
    if (parsed.values["help"]) {
      process.stdout.write(HELP);
      return 0;
    }
    json = parsed.values["json"] === true;
    escalate = parsed.values["escalate"] === true;
    const overrides = configOverrides(parsed.values);
    argv = commandArgv(parsed.hadTerminator, parsed.positionals, parsed.afterTerminator);
    config = await loadConfig(overrides);
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    if (error instanceof UsageError) {
      process.stderr.write("Run `shellgate check --help` for usage.\n");
      return 2;
    }
    return 1;
  }

  let admission: Admission;
  try {
    const store = await PolicyStore.load(config.rules.map((r) => r.file));
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

  process.stdout.write(json ? `${JSON.stringify(toJson(admission))}\n` : explain(argv, config, escalate, admission));
  return 0;
}

function commandArgv(hadTerminator: boolean, positionals: string[], afterTerminator: string[]): string[] {
  if (hadTerminator) {
    if (positionals.length > afterTerminator.length) {
      throw new UsageError("put options before `--` and the command after it: shellgate check [options] -- COMMAND [ARGS...]");
    }
    if (afterTerminator.length === 0) throw new UsageError("no command after `--`");
    return afterTerminator;
  }
  if (positionals.length === 0) throw new UsageError('no command given: shellgate check -- COMMAND [ARGS...] or shellgate check "SCRIPT"');
  if (positionals.length > 1) {
    throw new UsageError(`several words without \`--\`: write \`shellgate check -- ${positionals.join(" ")}\`, or quote them as one script`);
  }
  const script = positionals[0]!;
  if (script.trim() === "") throw new UsageError("the script is empty");
  return deriveExecArgs(detectUserShell(), script, { login: true });
}

/** The JSON form: the object, plus `split` and `unmatched`. */
export function toJson(admission: Admission): CheckJson {
  const r = admission.requirement;
  const out: CheckJson = { requirement: r.kind, segments: admission.segments, matchedRules: admission.matchedRules, split: admission.split, unmatched: admission.unmatched };
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
export function explain(argv: readonly string[], config: EffectiveConfig, escalate: boolean, admission: Admission): string {
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
      lines.push(`     no rule matched; heuristic: ${d.verdict ?? "unknown"} → ${d.decision}`);
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
    lines.push(`  "always allow" would add: ${formatAllowPrefixRule(r.proposedAmendment).trimEnd()}`);
  }
  return `${lines.join("\n")}\n`;
}
