export { ApprovalPolicySchema, APPROVAL_POLICIES, type ApprovalPolicy } from "./approval-policy.js";
export {
  mapToRequirement,
  decideSegments,
  heuristicDecision,
  fileSystemKind,
  hasDeniedReads,
  NEVER_PROMPT_REASON,
  type ExecApprovalRequirement,
  type RequirementContext,
  type SegmentFacts,
  type SegmentVerdict,
  type FileSystemKind,
} from "./requirement.js";
export { applyEscalationGuard, ESCALATION_REASON, NEVER_ESCALATION_REASON } from "./escalation.js";
export { REFUSED_AMENDMENT_PREFIXES, isRefusedAmendmentPrefix, prefixCovers } from "./amendments.js";
export {
  assessWith,
  isKnownSafeWith,
  type Admission,
  type AdmissionInput,
  type AdmissionDeps,
  type HeuristicVerdict,
  type SegmentDetail,
  type SplitOutcome,
  type HeredocOutcome,
} from "./assess.js";
export type { PolicyDecision, PolicyEvaluation, PolicyEvaluator, PolicyRuleMatch } from "./policy-types.js";
export { renderCommand } from "./quote.js";
export { assessCommand, isKnownSafeCommand } from "./assess-command.js";
export { DEFAULT_ADMISSION_DEPS } from "./default-deps.js";
