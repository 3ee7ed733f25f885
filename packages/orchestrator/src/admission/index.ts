// `@shellgate/orchestrator/admission`: how a command is judged before it runs, for integrators that
// show or test the reasoning (`shellgate check`) without running anything. An explicit list, pinned
// by test/public-api.test.ts. Nothing inside the package imports this file: its modules import each
// other directly, so this subpath can re-export from anywhere without creating a cycle.
export { ApprovalPolicySchema, APPROVAL_POLICIES, type ApprovalPolicy } from "./approval-policy.js";
export {
  assessCommand,
  isKnownSafeCommand,
  type Admission,
  type AdmissionInput,
  type HeuristicVerdict,
  type ScriptDialect,
  type SegmentDetail,
} from "./assess.js";
export {
  mapToRequirement,
  decideSegments,
  fileSystemKind,
  hasDeniedReads,
  renderCommand,
  NEVER_PROMPT_REASON,
  type ExecApprovalRequirement,
  type RequirementContext,
  type SegmentFacts,
  type SegmentVerdict,
  type FileSystemKind,
} from "./requirement.js";
export { applyEscalationGuard, ESCALATION_REASON, NEVER_ESCALATION_REASON } from "./escalation.js";
export { amendmentPrefixRefusal, isRefusedAmendmentPrefix, prefixCovers } from "./amendments.js";
export {
  findSandboxWrittenCode,
  programControlled,
  sandboxKeptReason,
  sandboxWritable,
  withSandboxKept,
  writableUnder,
  type SandboxWrittenCode,
  type SandboxWrittenInput,
  type SandboxWrittenKind,
} from "./sandbox-written-code.js";
export type { PolicyDecision, PolicyEvaluation, PolicyEvaluator, PolicyRuleMatch } from "./policy-types.js";
export { retryAllowed } from "../pipeline/decisions.js";
