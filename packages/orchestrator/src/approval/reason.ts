import type { ApprovalPolicy } from "../admission/approval-policy.js";
import type { Admission } from "../admission/assess.js";
import type { PolicyRuleMatch } from "../admission/policy-types.js";
import { renderCommand } from "../admission/requirement.js";
import type { SandboxPermissions } from "@shellgate/sandbox";
import type { SandboxWrittenCode } from "../admission/sandbox-written-code.js";

/**
 * Why a person is asked:
 * - `rule`: a `prompt` rule matched (its file:line and justification are in `rule`);
 * - `heuristic`: the built-in heuristics rate a command dangerous;
 * - `approval_policy`: the approval policy asks for anything not known to be safe;
 * - `escalation`: the agent asked to run the command outside the sandbox;
 * - `sandbox_retry`: the command already ran in the sandbox, failed as if the sandbox refused something,
 *   and would now run again without it;
 * - `network`: a running command wants to reach a host a `prompt` network rule names;
 * - `sandbox_kept`: allow rules match, but outside the sandbox the command would run what a sandboxed
 *   command could have written, so it runs in the sandbox once approved (`sandboxWritten` says what).
 */
export type ApprovalReasonKind = "rule" | "heuristic" | "approval_policy" | "escalation" | "sandbox_retry" | "network" | "sandbox_kept";

/** The rule behind a `rule` reason. */
export interface ApprovalReasonRule {
  file: string;
  line: number;
  column: number;
  /** The prefix the rule matched. */
  prefix: string[];
  justification?: string;
}

/** Why an approval request was made, for display (raw text: escape it before showing it to anyone). */
export interface ApprovalReason {
  kind: ApprovalReasonKind;
  /** One line a person reads, e.g. "dangerous: `rm -rf /tmp/x` is a forced recursive delete". */
  text: string;
  /** Present for `rule`. */
  rule?: ApprovalReasonRule;
  /** Present for `sandbox_retry`: the first (sandboxed) attempt's exit code. */
  exitCode?: number;
  /** Present for `network`: the host the command wants to reach. */
  network?: { host: string; port: number; protocol: string };
  /**
   * What a run outside the sandbox would execute that a sandboxed command could have written (a
   * program, a PATH entry, a repository), with each resolved path; the text names them too.
   */
  sandboxWritten?: SandboxWrittenCode[];
}

/**
 * The evidence of the failed sandboxed attempt, as the pipeline hands it over. Structural, so any
 * denial explanation with a `kind` and a human sentence (`summary`, `message`, `explanation` or
 * `suggestion`) and the `paths` it names fits.
 */
export interface FirstAttemptEvidence {
  exitCode: number;
  /** What the retry outside the sandbox would execute that a sandboxed command could have written. */
  sandboxWritten?: readonly SandboxWrittenCode[];
  denial?: {
    kind?: string;
    paths?: readonly string[];
    summary?: string;
    message?: string;
    explanation?: string;
    suggestion?: string;
  };
}

function longestPromptRule(matches: readonly PolicyRuleMatch[]): PolicyRuleMatch | undefined {
  let best: PolicyRuleMatch | undefined;
  for (const m of matches) if (m.decision === "prompt" && (!best || m.matchedPrefix.length > best.matchedPrefix.length)) best = m;
  return best;
}

/** The PowerShell commands rated dangerous whatever their arguments; the others are removals. */
const POWERSHELL_WIPE = /^(format-volume|clear-disk|initialize-disk|remove-partition|clear-recyclebin|stop-computer|restart-computer|format)(\.com|\.exe)?$/i;

/** What makes a command dangerous here, in words (`rm -f`, or in a PowerShell script a tree removal or a wipe). */
function describeDangerous(segment: readonly string[], dialect: Admission["dialect"]): string {
  if (dialect === "powershell") {
    const name = (segment[0] ?? "").replace(/^.*[\\/]/, "");
    return POWERSHELL_WIPE.test(name)
      ? `dangerous: \`${renderCommand(segment)}\` (PowerShell) wipes a disk or the recycle bin, or stops the machine, without asking`
      : `dangerous: \`${renderCommand(segment)}\` is a forced removal (PowerShell): it removes files, a whole tree with -Recurse or /s, without asking`;
  }
  const args = segment.slice(1);
  const recursive = args.some((a) => a === "--recursive" || (/^-[a-zA-Z]*[rR]/.test(a) && !a.startsWith("--")));
  return `dangerous: \`${renderCommand(segment)}\` is a forced${recursive ? " recursive" : ""} delete (rm -f${recursive ? "r" : ""}): it removes files without asking`;
}

/**
 * The reason for asking before the first attempt: the most specific `prompt` rule, else the dangerous
 * command heuristic, else an escalation request, else the approval policy.
 */
export function approvalReasonFor(
  admission: Pick<Admission, "matchedRules" | "dangerousSegments" | "sandboxWritten" | "dialect">,
  ctx: { approvalPolicy: ApprovalPolicy; permissions: SandboxPermissions },
): ApprovalReason {
  const written = admission.sandboxWritten;
  if (written?.kept) {
    return {
      kind: "sandbox_kept",
      text: `allow rules match, but outside the sandbox it would run what a sandboxed command could have written: ${written.found.map((f) => f.text).join("; ")}; approved, it runs in the sandbox`,
      sandboxWritten: [...written.found],
    };
  }
  return withWrittenNote(primaryReason(admission, ctx), written?.found);
}

/** `reason`, naming what the run outside the sandbox would execute that a sandboxed command could have written. */
function withWrittenNote(reason: ApprovalReason, found: readonly SandboxWrittenCode[] | undefined): ApprovalReason {
  if (!found || found.length === 0) return reason;
  return {
    ...reason,
    text: `${reason.text}; outside the sandbox it would run what a sandboxed command could have written: ${found.map((f) => f.text).join("; ")}`,
    sandboxWritten: [...found],
  };
}

function primaryReason(
  admission: Pick<Admission, "matchedRules" | "dangerousSegments" | "dialect">,
  ctx: { approvalPolicy: ApprovalPolicy; permissions: SandboxPermissions },
): ApprovalReason {
  const rule = longestPromptRule(admission.matchedRules);
  if (rule) {
    const where = `${rule.source.file}:${rule.source.line}`;
    const text = rule.justification
      ? `rule ${where} asks for approval: ${rule.justification}`
      : `rule ${where} asks for approval of commands starting with \`${renderCommand(rule.matchedPrefix)}\``;
    return {
      kind: "rule",
      text,
      rule: {
        file: rule.source.file,
        line: rule.source.line,
        column: rule.source.column,
        prefix: [...rule.matchedPrefix],
        ...(rule.justification ? { justification: rule.justification } : {}),
      },
    };
  }
  const dangerous = admission.dangerousSegments?.[0];
  if (dangerous) return { kind: "heuristic", text: describeDangerous(dangerous, admission.dialect) };
  if (ctx.permissions === "require_escalated") {
    return { kind: "escalation", text: "the agent asks to run this command outside the sandbox" };
  }
  if (ctx.approvalPolicy === "untrusted") {
    return { kind: "approval_policy", text: "approval policy `untrusted`: only known-safe commands run without asking" };
  }
  return { kind: "approval_policy", text: `approval policy \`${ctx.approvalPolicy}\` asks before this command runs` };
}

/** A denial explanation as one phrase. */
function describeDenial(denial: NonNullable<FirstAttemptEvidence["denial"]>): string {
  const sentence = denial.summary ?? denial.message ?? denial.explanation;
  if (sentence) return sentence;
  const what = denial.kind ? `${denial.kind} access was refused` : "the sandbox refused something";
  return denial.paths && denial.paths.length > 0 ? `${what} (${denial.paths.join(", ")})` : what;
}

/** The reason for asking to retry outside the sandbox after the sandboxed attempt failed. */
export function retryReasonFor(first: FirstAttemptEvidence): ApprovalReason {
  const why = first.denial ? describeDenial(first.denial) : "its output looks like the sandbox refused something";
  return withWrittenNote(
    { kind: "sandbox_retry", text: `it failed in the sandbox (exit ${first.exitCode}): ${why}`, exitCode: first.exitCode },
    first.sandboxWritten,
  );
}
