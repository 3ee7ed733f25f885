// The sandbox policy each attempt of a run gets: the session's, the one a command's own rules name,
// or none (an allow rule, an approved escalation, the approved retry after a denial). The one place
// that chooses it; the pipeline only asks.
import type { SandboxPermissions, SandboxPolicy } from "@shellgate/sandbox";
import { fileSystemKind, hasDeniedReads, type ExecApprovalRequirement } from "../admission/requirement.js";
import type { DecisionTrace } from "../events.js";
import type { CommandRuleGrant } from "../network/rule-grant.js";

/** How the first attempt relates to the sandbox policy. */
export type SandboxOverride = DecisionTrace["sandboxOverride"];

/** The policy of an attempt that runs outside the sandbox. */
export const UNSANDBOXED_POLICY: SandboxPolicy = { mode: "danger-full-access" };

/**
 * The policy a rule-granted command runs under: the rule's mode, with the session's own roots and
 * denied reads where they apply, and never the network flag (its hosts go through the proxy). Only
 * for sessions whose policy confines commands; under full access or an outer sandbox the rule's
 * sandbox is not applied (there may be no backend to apply it with).
 */
export function ruleGrantSandboxPolicy(grant: CommandRuleGrant, session: SandboxPolicy): SandboxPolicy | undefined {
  if (session.mode !== "read-only" && session.mode !== "workspace-write") return undefined;
  if (grant.sandbox === "read-only") return { mode: "read-only", deniedReadPaths: [...session.deniedReadPaths] };
  if (session.mode === "workspace-write") return { ...session, networkAccess: false };
  return {
    mode: "workspace-write",
    writableRoots: [],
    networkAccess: false,
    excludeTmpdirEnvVar: false,
    excludeSlashTmp: false,
    deniedReadPaths: [...session.deniedReadPaths],
  };
}

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
  /** The command's own rules name a sandbox for it: it stays sandboxed where a rule would lift the sandbox. */
  ruleSandbox?: boolean;
}): SandboxOverride {
  if (fileSystemKind(input.sandboxPolicy) !== "restricted") return "none";
  if (input.ruleSandbox && !(input.permissions === "require_escalated" && input.approvedInCall)) return "rule_sandbox";
  if (hasDeniedReads(input.sandboxPolicy)) return "none";
  if (input.requirement.kind === "skip" && input.requirement.bypassSandbox) return "bypass_by_rule";
  if (input.permissions === "require_escalated" && input.approvedInCall) return "escalation_approved";
  return "none";
}

/** The policy of the first attempt under `override`: the session's, the rule's (`rulePolicy`), or none. */
export function firstAttemptPolicy(override: SandboxOverride, session: SandboxPolicy, rulePolicy: SandboxPolicy | undefined): SandboxPolicy {
  if (override === "none") return session;
  return override === "rule_sandbox" && rulePolicy ? rulePolicy : UNSANDBOXED_POLICY;
}
