import type { SandboxPolicy } from "@shellgate/sandbox";
import type { Admission } from "../admission/assess.js";
import { fileSystemKind, hasDeniedReads } from "../admission/requirement.js";
import { amendmentCandidates } from "./prefix-candidates.js";
import { amendmentRefusal } from "./refusal.js";
import type { ReviewDecision } from "./types.js";

export { amendmentRefusal };

/** The prefixes "always allow" lets the person choose from, and the one proposed. */
export interface AmendmentPrefixChoice {
  /** Shortest first; each may become an allow rule. */
  choices: string[][];
  /** Index of the proposed prefix in `choices`. */
  defaultIndex: number;
}

/**
 * The prefix choice for admission's candidate: the prefixes of it a rule may be written for (see
 * `amendmentCandidates`), with the prefix a person would write proposed — or, when the model asked
 * for this prefix itself (`prefix_rule`), that prefix. `{ withheld }` when none may be a rule.
 */
export function amendmentPrefixChoice(
  candidate: readonly string[],
  options: { requested?: boolean; isDangerousArgv: (argv: readonly string[]) => boolean },
): AmendmentPrefixChoice | { withheld: string } {
  const { prefixes, defaultIndex } = amendmentCandidates(candidate, options.isDangerousArgv);
  if (prefixes.length === 0) {
    const refusal = amendmentRefusal(candidate, options.isDangerousArgv) ?? "it holds an empty word";
    return { withheld: `a rule for \`${candidate.join(" ")}\` is refused: ${refusal}` };
  }
  const whole = prefixes.findIndex((p) => p.length === candidate.length);
  return { choices: prefixes, defaultIndex: options.requested && whole >= 0 ? whole : defaultIndex };
}

/** What a person is offered for one approval request, and why "always allow" is not offered when it is not. */
export interface ApprovalOffer {
  offeredDecisions: ReviewDecision[];
  /** The prefix "always allow" would add; present only when `approved_with_amendment` is offered. */
  proposedAmendment?: string[];
  /** The prefixes the person may choose instead (shortest first, `proposedAmendment` among them). */
  amendmentChoices?: string[][];
  /** Why "always allow" is not offered (when admission had a candidate or none could exist). */
  amendmentWithheld?: string;
  /** Why "run for this session" is not offered. */
  sessionWithheld?: string;
  /** Whether a command a plain allow rule allows would run outside the sandbox from then on. */
  amendmentBypassesSandbox?: boolean;
  /** The sandbox the default "always allow" rule keeps commands in (the session's mode, when it confines). */
  amendmentSandbox?: "read-only" | "workspace-write";
}

/** What decides the offer. */
export interface OfferInput {
  admission: Pick<Admission, "split" | "dangerousSegments" | "hiddenDangerous"> & Partial<Pick<Admission, "segments">>;
  /** Admission's candidate prefix for "always allow". */
  candidate: readonly string[] | undefined;
  /** The candidate is the prefix the model asked for (`prefix_rule`): proposed as it is. */
  candidateRequested?: boolean;
  retryAfterDenial: boolean;
  /** Whether approvals can outlive the call (an orchestrator that serves many calls). */
  sessionApprovals: boolean;
  userRulesFile: string | undefined;
  sandboxPolicy: SandboxPolicy;
  isDangerousArgv: (argv: readonly string[]) => boolean;
}

/**
 * Decide what the person may answer. "Run once", "deny" and "abort" always; "run for this session"
 * only where a session outlives the call and never for a retry outside the sandbox (that approval is
 * single-use); "always allow" only for a plain, non-dangerous command with a rules file to write to.
 */
export function approvalOffer(input: OfferInput): ApprovalOffer {
  const offer: ApprovalOffer = { offeredDecisions: ["approved"] };
  if (!input.sessionApprovals) {
    offer.sessionWithheld = "approvals do not outlive this call here (one command, one process)";
  } else if (input.retryAfterDenial) {
    offer.sessionWithheld = "a retry outside the sandbox is approved for this call only";
  } else {
    offer.offeredDecisions.push("approved_for_session");
  }
  const choice = amendmentOffer(input);
  if ("withheld" in choice) {
    offer.amendmentWithheld = choice.withheld;
  } else {
    offer.offeredDecisions.push("approved_with_amendment");
    offer.proposedAmendment = [...choice.choices[choice.defaultIndex]!];
    offer.amendmentChoices = choice.choices.map((c) => [...c]);
    offer.amendmentBypassesSandbox = fileSystemKind(input.sandboxPolicy) === "restricted" && !hasDeniedReads(input.sandboxPolicy);
    const mode = input.sandboxPolicy.mode;
    // A retry asks to run outside the sandbox because the sandbox refused the command: a rule that
    // keeps it in the sandbox would fail the same way next time, so "always allow" is the plain rule.
    if (!input.retryAfterDenial && (mode === "read-only" || mode === "workspace-write")) offer.amendmentSandbox = mode;
  }
  offer.offeredDecisions.push("denied", "abort");
  return offer;
}

/** What decides whether "always allow" is offered: the parts of {@link OfferInput} it reads. */
export type AmendmentOfferInput = Pick<OfferInput, "admission" | "candidate" | "candidateRequested" | "retryAfterDenial" | "userRulesFile" | "isDangerousArgv">;

/**
 * The "always allow" a person would be offered for this admission: the prefixes to choose from, or
 * `{ withheld }` saying why none. One judgement for the prompt and for anything that predicts it
 * (`shellgate check`), so a prediction can never offer a rule the prompt refuses: never for a script
 * that cannot be split, a command the heuristics rate dangerous (any segment, or one hidden in a
 * script), a retry of several commands, a prefix that may not become a rule, or without a rules file.
 */
export function amendmentOffer(input: AmendmentOfferInput): AmendmentPrefixChoice | { withheld: string } {
  const { admission, candidate } = input;
  if (admission.split === "not-plain" || admission.split === "heredoc") {
    return { withheld: "the command is a script that cannot be split into plain commands; a rule cannot allow a whole script" };
  }
  if ((admission.hiddenDangerous?.length ?? 0) > 0 || (admission.dangerousSegments?.length ?? 0) > 0) {
    return { withheld: "the heuristics rate the command dangerous" };
  }
  if (input.retryAfterDenial && (admission.segments?.length ?? 0) > 1) {
    return { withheld: `the retry runs a script of ${admission.segments?.length} commands; a rule for one of them would not cover the script` };
  }
  if (!candidate || candidate.length === 0) return { withheld: "there is no plain command prefix to allow" };
  const choice = amendmentPrefixChoice(candidate, {
    ...(input.candidateRequested ? { requested: true } : {}),
    isDangerousArgv: input.isDangerousArgv,
  });
  if ("withheld" in choice) return choice;
  if (!input.userRulesFile) return { withheld: "no userRulesFile is configured to write the rule to" };
  return choice;
}
