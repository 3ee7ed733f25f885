import type { SandboxPermissions } from "@shellgate/sandbox";
import { z } from "zod";
import type { PolicyRuleMatch } from "../admission/policy-types.js";

/**
 * A person's answer to an approval request:
 * - `approved`: run this once;
 * - `approved_for_session`: run it, and the identical call (same argv, cwd, sandbox request) again without asking;
 * - `approved_with_amendment`: run it, and append the proposed prefix to the user's rules so it is allowed from now on;
 * - `denied`: do not run it (the model is told, the turn goes on);
 * - `abort`: do not run it and stop the turn.
 */
export const ReviewDecisionSchema = z.enum(["approved", "approved_for_session", "approved_with_amendment", "denied", "abort"]);
export type ReviewDecision = z.infer<typeof ReviewDecisionSchema>;

/** What an approval handler may return: a decision, or an amendment decision naming its own prefix. */
export const ApprovalResponseSchema = z.union([
  ReviewDecisionSchema,
  z.strictObject({
    decision: z.literal("approved_with_amendment"),
    amendment: z.array(z.string().min(1, "an amendment token must not be empty")).min(1, "an amendment needs at least one token"),
  }),
]);
export type ApprovalResponse = z.infer<typeof ApprovalResponseSchema>;

/** What the integrator is asked to decide. */
export interface ApprovalRequest {
  callId: string;
  tool: string;
  argv: readonly string[];
  cwd: string;
  /** Why approval is needed, when a rule (or a retry after a sandbox denial) says why. */
  reason?: string;
  /** The prefix an `approved_with_amendment` answer would add to the user's rules. */
  proposedAmendment?: string[];
  /** The rules that matched the command, for display. */
  matchedRules: PolicyRuleMatch[];
  /** True when the command already ran in the sandbox, was probably denied, and would now run unsandboxed. */
  retryAfterDenial: boolean;
  /**
   * What the call asked for. `require_escalated`: approving lets the first attempt run OUTSIDE the
   * sandbox (unless denied-read paths keep it on); `use_default`: it runs in the sandbox either way.
   */
  sandboxPermissions: SandboxPermissions;
  /** The model's own reason for the request (e.g. for asking to run outside the sandbox). */
  justification?: string;
}

/** The integrator's callback; `signal` aborts when the call is cancelled. */
export type ApprovalHandler = (
  request: ApprovalRequest,
  context: { signal?: AbortSignal },
) => Promise<ReviewDecision | { decision: "approved_with_amendment"; amendment: string[] }>;
