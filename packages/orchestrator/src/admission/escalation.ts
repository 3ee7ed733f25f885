import type { ExecApprovalRequirement, RequirementContext } from "./requirement.js";
import { fileSystemKind, hasDeniedReads } from "./requirement.js";

/** The reason given when `never` meets a request to run outside the sandbox. */
export const NEVER_ESCALATION_REASON =
  "approval policy is never; reject command — you should not ask for escalated permissions if the approval policy is never";

/** The reason shown to the person when only the escalation request makes a command need approval. */
export const ESCALATION_REASON = "the command asks to run outside the sandbox";

/**
 * `require_escalated` is a request, never an approval. The spec's table lets a heuristically allowed
 * command (`skip` without bypass) carry an escalation request under `untrusted`, `on-failure` and
 * `never`; left alone, the first attempt would then run unsandboxed with nobody having agreed. This
 * guard closes that gap: the request needs approval, or is forbidden under `never`. It does nothing when
 * the sandbox could not be lifted anyway (unrestricted/external policies, denied-read paths) or when an
 * explicit allow rule for every segment already pre-authorised running unsandboxed.
 */
export function applyEscalationGuard(requirement: ExecApprovalRequirement, ctx: RequirementContext): ExecApprovalRequirement {
  if (ctx.permissions !== "require_escalated") return requirement;
  if (requirement.kind !== "skip" || requirement.bypassSandbox) return requirement;
  if (fileSystemKind(ctx.sandboxPolicy) !== "restricted" || hasDeniedReads(ctx.sandboxPolicy)) return requirement;
  if (ctx.approvalPolicy === "never") return { kind: "forbidden", reason: NEVER_ESCALATION_REASON };
  const guarded: ExecApprovalRequirement = { kind: "needs_approval", reason: ESCALATION_REASON };
  if (requirement.proposedAmendment) guarded.proposedAmendment = requirement.proposedAmendment;
  return guarded;
}
