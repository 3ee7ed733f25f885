import type { ExecEnv, SandboxPermissions, SandboxPolicy, SandboxType } from "@shellgate/sandbox";
import { isLikelySandboxDenied } from "@shellgate/sandbox";
import type { ApprovalPolicy } from "../admission/approval-policy.js";
import { fileSystemKind, hasDeniedReads, type ExecApprovalRequirement } from "../admission/requirement.js";
import type { DecisionTrace } from "../events.js";
import type { ExecProbe } from "./types.js";

/** How the first attempt relates to the sandbox policy. */
export type SandboxOverride = DecisionTrace["sandboxOverride"];

/**
 * Whether the first attempt runs outside the sandbox. Two things can lift it: explicit allow rules
 * for every segment (`skip` with `bypassSandbox`), or an escalation request that a person actually
 * approved in this call (or this session). Approval alone never does, and denied-read paths — which
 * only a sandbox can enforce — keep it on whatever was approved.
 */
export function firstAttemptOverride(input: {
  requirement: ExecApprovalRequirement;
  permissions: SandboxPermissions;
  approvedInCall: boolean;
  sandboxPolicy: SandboxPolicy;
}): SandboxOverride {
  if (fileSystemKind(input.sandboxPolicy) !== "restricted" || hasDeniedReads(input.sandboxPolicy)) return "none";
  if (input.requirement.kind === "skip" && input.requirement.bypassSandbox) return "bypass_by_rule";
  if (input.permissions === "require_escalated" && input.approvedInCall) return "escalation_approved";
  return "none";
}

/**
 * Whether a likely sandbox denial may lead to asking for an unsandboxed retry. `never` cannot ask and
 * `on-request` has the model ask up front instead; denied-read paths must stay enforced.
 */
export function retryAllowed(approvalPolicy: ApprovalPolicy, sandboxPolicy: SandboxPolicy): boolean {
  if (approvalPolicy !== "untrusted" && approvalPolicy !== "on-failure") return false;
  return !hasDeniedReads(sandboxPolicy);
}

/** What a finished attempt amounts to. A plain non-zero exit is a result, never a denial by itself. */
export type ProbeVerdict = "success" | "nonzero_exit" | "timeout" | "sandbox_denied";

/** Judge a finished attempt. */
export function judgeProbe(probe: ExecProbe, sandboxType: SandboxType): ProbeVerdict {
  if (probe.timedOut) return "timeout";
  if (probe.exitCode === 0) return "success";
  return isLikelySandboxDenied(probe, sandboxType) ? "sandbox_denied" : "nonzero_exit";
}

/** The reason shown when asking to retry outside the sandbox. */
export const RETRY_REASON = "command failed; retry without sandbox?";

/**
 * Remove an attempt's sandbox files once its process is gone. Best effort: a failed cleanup must not
 * turn a finished command into a failed call.
 */
export async function releaseSandbox(env: Pick<ExecEnv, "cleanup">): Promise<void> {
  await env.cleanup?.().catch(() => undefined);
}
