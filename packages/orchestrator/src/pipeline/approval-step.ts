import { isRefusedAmendmentPrefix } from "../admission/amendments.js";
import type { Admission } from "../admission/assess.js";
import { renderCommand } from "../admission/quote.js";
import { ApprovalResponseSchema, type ApprovalRequest, type ReviewDecision } from "../approval/types.js";
import { AbortedError, ApprovalUnavailableError, CancelledError, errorMessage, OrchestratorConfigError, RejectedError } from "../errors.js";
import type { ExecRequest, PipelineContext } from "./types.js";

/** An approving answer. */
export type Granted = { decision: Extract<ReviewDecision, "approved" | "approved_for_session" | "approved_with_amendment"> };

/**
 * Ask the integrator about one attempt: emits `approval.requested`/`approval.decided`, validates the
 * answer, applies an amendment. Returns only for an approval; throws RejectedError (denied),
 * AbortedError (abort), CancelledError (signal) or OrchestratorConfigError (invalid answer or amendment).
 */
export async function askApproval(
  ctx: PipelineContext,
  request: ExecRequest,
  admission: Admission,
  extra: Pick<ApprovalRequest, "reason" | "proposedAmendment" | "retryAfterDenial">,
): Promise<Granted> {
  const handler = ctx.approvalHandler;
  if (!handler) throw new ApprovalUnavailableError(renderCommand(request.argv), extra.reason);
  checkCancelled(request.signal);
  const approvalRequest: ApprovalRequest = {
    callId: request.callId,
    tool: request.tool,
    argv: [...request.argv],
    cwd: request.cwd,
    matchedRules: admission.matchedRules,
    sandboxPermissions: extra.retryAfterDenial ? "require_escalated" : request.permissions,
    ...extra,
    ...(request.justification ? { justification: request.justification } : {}),
  };
  ctx.events.emit({
    type: "approval.requested",
    callId: request.callId,
    argv: approvalRequest.argv,
    cwd: request.cwd,
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.proposedAmendment ? { proposedAmendment: extra.proposedAmendment } : {}),
  });
  const raw = await untilAborted(handler(approvalRequest, request.signal ? { signal: request.signal } : {}), request.signal);
  checkCancelled(request.signal);
  const parsed = ApprovalResponseSchema.safeParse(raw);
  if (!parsed.success) {
    throw new OrchestratorConfigError("approvalHandler", `returned an invalid decision: ${JSON.stringify(raw) ?? String(raw)}`);
  }
  const response = parsed.data;
  const decision = typeof response === "string" ? response : response.decision;
  ctx.events.emit({ type: "approval.decided", callId: request.callId, decision });
  if (decision === "denied") throw new RejectedError();
  if (decision === "abort") throw new AbortedError();
  if (decision === "approved_with_amendment") {
    const amendment = typeof response === "string" ? extra.proposedAmendment : response.amendment;
    await applyAmendment(ctx, amendment);
  }
  return { decision };
}

/** Append an approved prefix to the user's rules and reload; refuses what would allow any command. */
async function applyAmendment(ctx: PipelineContext, amendment: readonly string[] | undefined): Promise<void> {
  if (!amendment || amendment.length === 0) {
    throw new OrchestratorConfigError("approvalHandler", "answered approved_with_amendment, but no amendment was proposed or given");
  }
  if (isRefusedAmendmentPrefix(amendment)) {
    throw new OrchestratorConfigError(
      "approvalHandler",
      `refusing to always allow \`${renderCommand(amendment)}\`: it would allow any command`,
    );
  }
  if (!ctx.userRulesFile) {
    throw new OrchestratorConfigError("userRulesFile", "an approval with amendment needs a user rules file to write the rule to");
  }
  try {
    await ctx.policies.amendAndReload(ctx.userRulesFile, amendment);
  } catch (error) {
    throw new OrchestratorConfigError("userRulesFile", `cannot add the approved rule: ${errorMessage(error)}`, { cause: error });
  }
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
