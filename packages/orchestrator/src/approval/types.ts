import type { SandboxPermissions } from "@shellgate/sandbox";
import { z } from "zod";
import type { PolicyRuleMatch } from "../admission/policy-types.js";
import type { ApprovalReason } from "./reason.js";

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

/**
 * What an approval handler may return: a decision, or an amendment decision naming its own prefix.
 * Built on first use: a run that asks no one never needs it.
 */
export const ApprovalResponseSchema = z.lazy(() =>
  z.union([
    ReviewDecisionSchema,
    z.strictObject({
      decision: z.literal("approved_with_amendment"),
      amendment: z.array(z.string().min(1, "an amendment token must not be empty")).min(1, "an amendment needs at least one token"),
      /**
       * Where `amendmentSandbox` was offered: `true` (the default) writes the rule with that sandbox,
       * `false` writes a plain allow rule, whose commands run outside the sandbox.
       */
      sandboxed: z.boolean().optional(),
    }),
  ]),
);
export type ApprovalResponse = z.infer<typeof ApprovalResponseSchema>;

/** What the integrator is asked to decide. */
export interface ApprovalRequest {
  callId: string;
  tool: string;
  argv: readonly string[];
  cwd: string;
  /** Why approval is needed, as one line (`why.text`). Raw: escape it (`escapeForDisplay`) before showing it. */
  reason: string;
  /** Why approval is needed, structured: the rule with file:line, the heuristic, the policy, or the sandbox retry. */
  why: ApprovalReason;
  /**
   * What the person may answer; anything else is refused with `DecisionNotOfferedError`. "Run for this
   * session" only where a session outlives the call (`sessionApprovals`) and never for a retry outside
   * the sandbox; "always allow" only for a plain command the heuristics do not rate dangerous.
   */
  offeredDecisions: ReviewDecision[];
  /** The prefix an `approved_with_amendment` answer would add to the user's rules; present only when that is offered. */
  proposedAmendment?: string[];
  /**
   * The prefixes the person may choose for "always allow" instead, shortest first, `proposedAmendment`
   * among them (the program and its subcommand by default, see `amendmentCandidates`); present only
   * when that is offered. Each is judged again when it comes back as the answer's `amendment`.
   */
  amendmentChoices?: string[][];
  /** Where "always allow" writes its rule; present only when that is offered. */
  amendmentRulesFile?: string;
  /**
   * True when commands a plain allow rule allows would run OUTSIDE the sandbox from then on (an allow
   * rule lifts the sandbox unless denied-read paths keep it on); say so to the person. With
   * `amendmentSandbox`, that is the alternative the person must pick explicitly (`sandboxed: false`).
   */
  amendmentBypassesSandbox?: boolean;
  /**
   * The sandbox "always allow" keeps matching commands in, by default: the rule is written as
   * `prefix_rule(..., decision="allow", sandbox="<mode>")` (a shellgate extension), so they run
   * without asking but still sandboxed. Present when the session confines commands.
   */
  amendmentSandbox?: "read-only" | "workspace-write";
  /** Why "always allow" is not offered, when admission had a candidate or the command cannot have one. */
  amendmentWithheld?: string;
  /** The rules that matched the command, for display. */
  matchedRules: PolicyRuleMatch[];
  /** True when the command already ran in the sandbox, was probably denied, and would now run unsandboxed. */
  retryAfterDenial: boolean;
  /**
   * What the call asked for. `require_escalated`: approving lets the first attempt run OUTSIDE the
   * sandbox (unless denied-read paths keep it on); `use_default`: it runs in the sandbox either way.
   */
  sandboxPermissions: SandboxPermissions;
  /**
   * True when approving starts an interactive session: the command gets a terminal and stays
   * running, and the agent can type into it later (`write_stdin`) as often as it likes. That input is
   * not judged again: the answer covers the session and everything later sent to it, with the same
   * sandbox as the command (outside it for `require_escalated` or a retry). Say so to the person.
   */
  interactiveSession?: boolean;
  /** The model's own reason for the request (e.g. for asking to run outside the sandbox). */
  justification?: string;
  /**
   * Present when the question is whether the running command may reach a host (a `network_rule`
   * with `decision="prompt"` names it), not whether the command may run: approving lets this host
   * through the session proxy, for this command (`approved`) or the session (`approved_for_session`).
   */
  network?: {
    host: string;
    port: number;
    protocol: string;
    rule?: { file: string; line: number; column: number; justification?: string };
  };
}

/** The integrator's callback; `signal` aborts when the call is cancelled. */
export type ApprovalHandler = (
  request: ApprovalRequest,
  context: { signal?: AbortSignal },
) => Promise<ReviewDecision | { decision: "approved_with_amendment"; amendment: string[]; sandboxed?: boolean }>;
