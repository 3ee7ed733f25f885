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
