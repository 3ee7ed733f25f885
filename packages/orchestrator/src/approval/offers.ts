import path from "node:path";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { amendmentPrefixRefusal } from "../admission/amendments.js";
import type { Admission } from "../admission/assess.js";
import { fileSystemKind, hasDeniedReads } from "../admission/requirement.js";
import type { ReviewDecision } from "./types.js";

/** Programs that run a script given inline; an allow rule for `<shell> -c SCRIPT` would approve a whole script. */
const SCRIPT_RUNNERS = new Set([
  "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe",
  "python", "python3", "python2", "pypy", "pypy3", "node", "perl", "ruby", "php", "lua", "osascript",
]);

/** Flags by which a script runner takes its program as an argument (`-c`, `-lc`, `-e`, `-Command`…). */
const INLINE_CODE_FLAG = /^(-[a-zA-Z]*[ce]|-r|-Command|-EncodedCommand|\/c|\/C|-)$/;

/**
 * Why `prefix` must never become an allow rule, or `undefined` when it may. Refused: a bare
 * interpreter or shell (it would allow any command), an inline script (`bash -lc '…'`, `python3 -c …`:
 * a rule for a whole script, which the rules language cannot check), and a command the heuristics
 * rate dangerous (a forced `rm`).
 */
export function amendmentRefusal(prefix: readonly string[], isDangerousArgv: (argv: readonly string[]) => boolean): string | undefined {
  if (prefix.length === 0) return "it is empty";
  const open = amendmentPrefixRefusal(prefix);
  if (open) return open;
  const program = path.basename(prefix[0] ?? "");
  if (SCRIPT_RUNNERS.has(program) && prefix.slice(1).some((t) => INLINE_CODE_FLAG.test(t))) {
    return "it is a whole script, not a plain command";
  }
  if (isDangerousArgv(prefix)) return "the heuristics rate it dangerous";
  return undefined;
}

/** What a person is offered for one approval request, and why "always allow" is not offered when it is not. */
export interface ApprovalOffer {
  offeredDecisions: ReviewDecision[];
  /** The prefix "always allow" would add; present only when `approved_with_amendment` is offered. */
  proposedAmendment?: string[];
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
  admission: Pick<Admission, "split" | "dangerousSegments" | "hiddenDangerous">;
  /** Admission's candidate prefix for "always allow". */
  candidate: readonly string[] | undefined;
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
  const withheld = amendmentWithheld(input);
  if (withheld) {
    offer.amendmentWithheld = withheld;
  } else if (input.candidate) {
    offer.offeredDecisions.push("approved_with_amendment");
    offer.proposedAmendment = [...input.candidate];
    offer.amendmentBypassesSandbox = fileSystemKind(input.sandboxPolicy) === "restricted" && !hasDeniedReads(input.sandboxPolicy);
    const mode = input.sandboxPolicy.mode;
    if (mode === "read-only" || mode === "workspace-write") offer.amendmentSandbox = mode;
  }
  offer.offeredDecisions.push("denied", "abort");
  return offer;
}

function amendmentWithheld(input: OfferInput): string | undefined {
  const { admission, candidate } = input;
  if (admission.split === "not-plain" || admission.split === "heredoc") {
    return "the command is a script that cannot be split into plain commands; a rule cannot allow a whole script";
  }
  if ((admission.hiddenDangerous?.length ?? 0) > 0 || (admission.dangerousSegments?.length ?? 0) > 0) {
    return "the heuristics rate the command dangerous";
  }
  if (!candidate || candidate.length === 0) return "there is no plain command prefix to allow";
  const refusal = amendmentRefusal(candidate, input.isDangerousArgv);
  if (refusal) return `a rule for \`${candidate.join(" ")}\` is refused: ${refusal}`;
  if (!input.userRulesFile) return "no userRulesFile is configured to write the rule to";
  return undefined;
}
