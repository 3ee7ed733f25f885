export {
  ReviewDecisionSchema,
  ApprovalResponseSchema,
  type ReviewDecision,
  type ApprovalResponse,
  type ApprovalRequest,
  type ApprovalHandler,
} from "./types.js";
export { ApprovalCache, type ApprovalKeyInput } from "./cache.js";
export { PolicyStore, EXECPOLICY_IO, type PolicyIo } from "./policy-store.js";
export {
  approvalReasonFor,
  retryReasonFor,
  type ApprovalReason,
  type ApprovalReasonKind,
  type ApprovalReasonRule,
  type FirstAttemptEvidence,
} from "./reason.js";
export { approvalOffer, amendmentRefusal, type ApprovalOffer, type OfferInput } from "./offers.js";
export { sandboxRetryMessage, withSandboxRetryNote, NOTE_MARKER, type SandboxRetryStatus } from "./retry-message.js";
