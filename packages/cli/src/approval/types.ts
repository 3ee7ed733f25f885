/**
 * The parts of an orchestrator approval request the CLI shows. Structurally a subset of the orchestrator's
 * `ApprovalRequest`, so the CLI's prompts accept it as is.
 */
export interface PromptRequest {
  tool?: string;
  argv: readonly string[];
  cwd: string;
  reason?: string;
  justification?: string;
  proposedAmendment?: readonly string[];
  retryAfterDenial?: boolean;
  matchedRules?: ReadonlyArray<{
    matchedPrefix?: readonly string[];
    decision: string;
    justification?: string;
    source?: { file: string; line: number; column?: number };
  }>;
}

/** What a person can answer (the orchestrator's `ReviewDecision`, with the amendment spelled out). */
export type PromptDecision =
  | "approved"
  | "approved_for_session"
  | "denied"
  | "abort"
  | { decision: "approved_with_amendment"; amendment: string[] };
