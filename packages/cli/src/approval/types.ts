/**
 * The parts of an orchestrator approval request the CLI shows. Structurally a subset of the orchestrator's
 * `ApprovalRequest`, so the CLI's prompts accept it as is.
 */
export interface PromptRequest {
  tool?: string;
  argv: readonly string[];
  cwd: string;
  reason?: string;
  /** Why it asks (the orchestrator's structured reason); preferred over `reason` when present. */
  why?: { kind: string; text: string; rule?: { file: string; line: number; column?: number; justification?: string } };
  /** What may be answered; only these choices are shown. Absent: every choice (older callers). */
  offeredDecisions?: readonly string[];
  justification?: string;
  /** Present only when "always allow" is offered. */
  proposedAmendment?: readonly string[];
  /** The prefixes "always allow" may write instead, shortest first, `proposedAmendment` among them. */
  amendmentChoices?: ReadonlyArray<readonly string[]>;
  /** Where "always allow" writes its rule. */
  amendmentRulesFile?: string;
  /** Whether commands a plain allow rule allows then run outside the sandbox. */
  amendmentBypassesSandbox?: boolean;
  /** The sandbox "always allow" keeps commands in by default (its rule carries `sandbox="…"`). */
  amendmentSandbox?: string;
  /** Why "always allow" is not offered. */
  amendmentWithheld?: string;
  retryAfterDenial?: boolean;
  /** What the call asked for; `require_escalated` means it runs outside the sandbox once approved. */
  sandboxPermissions?: string;
  /** Approving starts a session with a terminal whose later input is not asked about again. */
  interactiveSession?: boolean;
  /** Present when a running command asks to reach a host a `prompt` network rule names (not whether to run it). */
  network?: { host: string; port: number; protocol: string; rule?: { file: string; line: number; column?: number; justification?: string } };
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
  | { decision: "approved_with_amendment"; amendment: string[]; sandboxed?: boolean };
