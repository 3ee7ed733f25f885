import type { Admission } from "../admission/assess.js";
import { DEFAULT_ADMISSION_DEPS, dialectOptions } from "../admission/assess.js";
import { renderCommand } from "../admission/requirement.js";
import type { SandboxWrittenCode } from "../admission/sandbox-written-code.js";
import { amendmentRefusal, approvalOffer } from "../approval/offers.js";
import { approvalReasonFor, retryReasonFor, type FirstAttemptEvidence } from "../approval/reason.js";
import { ApprovalResponseSchema, type ApprovalRequest, type ReviewDecision } from "../approval/types.js";
import {
  AbortedError,
  ApprovalUnavailableError,
  CancelledError,
  DecisionNotOfferedError,
  errorMessage,
  OrchestratorConfigError,
  RejectedError,
} from "../errors.js";
import type { ExecRequest, PipelineContext } from "./types.js";

/** An approving answer. */
export type Granted = { decision: Extract<ReviewDecision, "approved" | "approved_for_session" | "approved_with_amendment"> };

/** What the pipeline tells the approval step about one question. */
export interface ApprovalAsk {
  /** Admission's reason text; kept for callers, the person sees the structured reason built here. */
  reason?: string;
  /** Admission's candidate for "always allow"; offered only when the offer rules allow it. */
  proposedAmendment?: string[];
  /** True when the sandboxed attempt already failed and the question is whether to run it without the sandbox. */
  retryAfterDenial: boolean;
  /** Retry only: the first attempt's exit code. */
  exitCode?: number;
  /** Retry only: the explanation of the sandbox denial, when the pipeline has one. */
  denial?: FirstAttemptEvidence["denial"];
  /** Retry only: what the run outside the sandbox would execute that a sandboxed command could have written. */
  sandboxWritten?: SandboxWrittenCode[];
}

/**
 * Ask the integrator about one attempt: builds the request (why it asks, what is offered), emits
 * `approval.requested`/`approval.decided`, validates the answer against the offer, applies an
 * amendment. Returns only for an approval; throws ApprovalUnavailableError (no handler), RejectedError
 * (denied), AbortedError (abort), CancelledError (signal), DecisionNotOfferedError (an answer that was
 * not offered) or OrchestratorConfigError (invalid answer or amendment).
 */
export async function askApproval(ctx: PipelineContext, request: ExecRequest, admission: Admission, extra: ApprovalAsk): Promise<Granted> {
  const why = extra.retryAfterDenial
    ? retryReasonFor({
        exitCode: extra.exitCode ?? 1,
        ...(extra.denial ? { denial: extra.denial } : {}),
        ...(extra.sandboxWritten ? { sandboxWritten: extra.sandboxWritten } : {}),
      })
    : approvalReasonFor(admission, { approvalPolicy: ctx.approvalPolicy, permissions: request.permissions });
  const handler = ctx.approvalHandler;
  if (!handler) throw new ApprovalUnavailableError(renderCommand(request.argv), why.text);
  checkCancelled(request.signal);
  const judge = ctx.admissionDeps?.isDangerousArgv ?? DEFAULT_ADMISSION_DEPS.isDangerousArgv;
  // The offered prefix is a segment of the admitted script: judged in that script's language.
  const isDangerousArgv = (argv: readonly string[]) => judge(argv, dialectOptions(admission.dialect));
  const offer = approvalOffer({
    admission,
    candidate: extra.proposedAmendment,
    ...(request.prefixRule && extra.proposedAmendment && sameWords(request.prefixRule, extra.proposedAmendment) ? { candidateRequested: true } : {}),
    retryAfterDenial: extra.retryAfterDenial,
    sessionApprovals: ctx.sessionApprovals ?? true,
    userRulesFile: ctx.userRulesFile,
    sandboxPolicy: ctx.sandboxPolicy,
    isDangerousArgv,
  });
  const approvalRequest: ApprovalRequest = {
    callId: request.callId,
    tool: request.tool,
    argv: [...request.argv],
    cwd: request.cwd,
    reason: why.text,
    why,
    offeredDecisions: offer.offeredDecisions,
    matchedRules: admission.matchedRules,
    retryAfterDenial: extra.retryAfterDenial,
    sandboxPermissions: extra.retryAfterDenial ? "require_escalated" : request.permissions,
    ...(offer.proposedAmendment
      ? {
          proposedAmendment: offer.proposedAmendment,
          ...(offer.amendmentChoices ? { amendmentChoices: offer.amendmentChoices } : {}),
          ...(ctx.userRulesFile ? { amendmentRulesFile: ctx.userRulesFile } : {}),
          amendmentBypassesSandbox: offer.amendmentBypassesSandbox ?? false,
          ...(offer.amendmentSandbox ? { amendmentSandbox: offer.amendmentSandbox } : {}),
        }
      : {}),
    ...(offer.amendmentWithheld && extra.proposedAmendment ? { amendmentWithheld: offer.amendmentWithheld } : {}),
    // A session with a terminal takes input after this answer, which nothing asks about again.
    ...(request.dedicatedTerminal ? { interactiveSession: true } : {}),
    ...(request.justification ? { justification: request.justification } : {}),
  };
  ctx.events.emit({
    type: "approval.requested",
    callId: request.callId,
    argv: approvalRequest.argv,
    cwd: request.cwd,
    reason: why.text,
    ...(offer.proposedAmendment ? { proposedAmendment: offer.proposedAmendment } : {}),
  });
  const raw = await untilAborted(handler(approvalRequest, request.signal ? { signal: request.signal } : {}), request.signal);
  checkCancelled(request.signal);
  const parsed = ApprovalResponseSchema.safeParse(raw);
  if (!parsed.success) {
    throw new OrchestratorConfigError("approvalHandler", `returned an invalid decision: ${JSON.stringify(raw) ?? String(raw)}`);
  }
  const response = parsed.data;
  const decision = typeof response === "string" ? response : response.decision;
  if (!offer.offeredDecisions.includes(decision)) {
    const whyNot = decision === "approved_with_amendment" ? offer.amendmentWithheld : offer.sessionWithheld;
    throw new DecisionNotOfferedError(decision, offer.offeredDecisions, whyNot ?? "not offered for this request");
  }
  ctx.events.emit({ type: "approval.decided", callId: request.callId, decision });
  if (decision === "denied") throw new RejectedError();
  if (decision === "abort") throw new AbortedError();
  if (decision === "approved_with_amendment") {
    const amendment = typeof response === "string" ? offer.proposedAmendment : response.amendment;
    // "Always allow" keeps the command in the session's sandbox unless the person chose otherwise.
    const sandboxed = typeof response === "string" || response.sandboxed !== false;
    await applyAmendment(ctx, amendment, isDangerousArgv, sandboxed ? offer.amendmentSandbox : undefined);
  }
  return { decision };
}

/** Append an approved prefix to the user's rules and reload; refuses what would allow any command, a script, or a dangerous command. */
async function applyAmendment(
  ctx: PipelineContext,
  amendment: readonly string[] | undefined,
  isDangerousArgv: (argv: readonly string[]) => boolean,
  sandbox: "read-only" | "workspace-write" | undefined,
): Promise<void> {
  if (!amendment || amendment.length === 0) {
    throw new OrchestratorConfigError("approvalHandler", "answered approved_with_amendment, but no amendment was proposed or given");
  }
  const refusal = amendmentRefusal(amendment, isDangerousArgv);
  if (refusal) {
    throw new OrchestratorConfigError("approvalHandler", `refusing to always allow \`${renderCommand(amendment)}\`: ${refusal}`);
  }
  if (!ctx.userRulesFile) {
    throw new OrchestratorConfigError("userRulesFile", "an approval with amendment needs a user rules file to write the rule to");
  }
  try {
    await ctx.policies.amendAndReload(ctx.userRulesFile, amendment, sandbox ? { sandbox } : undefined);
  } catch (error) {
    throw new OrchestratorConfigError("userRulesFile", `cannot add the approved rule: ${errorMessage(error)}`, { cause: error });
  }
}

/** The most specific forbidding rule of an admission, with its location (for the refusal message). */
export function forbiddingRule(admission: Pick<Admission, "matchedRules">): { file: string; line: number; column: number; prefix: string[] } | undefined {
  let best: Admission["matchedRules"][number] | undefined;
  for (const m of admission.matchedRules) {
    if (m.decision === "forbidden" && (!best || m.matchedPrefix.length > best.matchedPrefix.length)) best = m;
  }
  return best ? { file: best.source.file, line: best.source.line, column: best.source.column, prefix: [...best.matchedPrefix] } : undefined;
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** `promise`, unless `signal` aborts first (a handler that ignores its signal must not hang the call). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Throw CancelledError once the call's signal has fired. */
export function checkCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}
