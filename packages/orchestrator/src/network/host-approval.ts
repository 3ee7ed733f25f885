import type { ProxyRequest } from "@shellgate/network-proxy";
import type { ApprovalPolicy } from "../admission/approval-policy.js";
import { renderCommand } from "../admission/requirement.js";
import { ApprovalResponseSchema, type ApprovalHandler, type ApprovalRequest, type ReviewDecision } from "../approval/types.js";
import type { EventBus } from "../events.js";
import { describeVerdictSource, type HostVerdict } from "./host-policy.js";

/** The call whose command asks to reach a `prompt` host. */
export interface HostAskContext {
  callId: string;
  tool: string;
  argv: readonly string[];
  cwd: string;
  signal?: AbortSignal;
}

/**
 * Asks a person about hosts a `prompt` rule names, once per host: an answer for the session is
 * remembered for every later run, an answer for this command (or a refusal) for the rest of the run,
 * so a client retrying a connection does not ask again. Without a handler, or under the `never`
 * policy, nobody can be asked and the host is refused.
 */
export class HostApprovals {
  readonly #session = new Set<string>();
  readonly #handler: ApprovalHandler | undefined;
  readonly #policy: ApprovalPolicy;
  readonly #sessionApprovals: boolean;
  readonly #events: EventBus;

  constructor(opts: { approvalHandler?: ApprovalHandler; approvalPolicy: ApprovalPolicy; sessionApprovals: boolean; events: EventBus }) {
    this.#handler = opts.approvalHandler;
    this.#policy = opts.approvalPolicy;
    this.#sessionApprovals = opts.sessionApprovals;
    this.#events = opts.events;
  }

  /** Whether a person could be asked at all in this session. */
  get canAsk(): boolean {
    return this.#handler !== undefined && this.#policy !== "never";
  }

  /** An asker for one run: its answers last as long as the run (the map is the run's own). */
  forRun(context: HostAskContext): (request: ProxyRequest, verdict: HostVerdict) => Promise<boolean> {
    const asked = new Map<string, Promise<boolean>>();
    return (request, verdict) => {
      if (this.#session.has(request.host)) return Promise.resolve(true);
      let answer = asked.get(request.host);
      if (!answer) {
        answer = this.#ask(context, request, verdict).catch(() => false);
        asked.set(request.host, answer);
      }
      return answer;
    };
  }

  async #ask(context: HostAskContext, request: ProxyRequest, verdict: HostVerdict): Promise<boolean> {
    const handler = this.#handler;
    if (!handler || this.#policy === "never" || context.signal?.aborted) return false;
    const offered: ReviewDecision[] = ["approved", ...(this.#sessionApprovals ? (["approved_for_session"] as const) : []), "denied", "abort"];
    const text = `\`${renderCommand(context.argv)}\` wants to reach ${request.host}:${request.port} (${describeVerdictSource(verdict.source)})`;
    const rule = verdict.source.kind === "rule" ? verdict.source.rule : undefined;
    const approval: ApprovalRequest = {
      callId: context.callId,
      tool: context.tool,
      argv: [...context.argv],
      cwd: context.cwd,
      reason: text,
      why: { kind: "network", text, network: { host: request.host, port: request.port, protocol: request.protocol } },
      offeredDecisions: offered,
      matchedRules: [],
      retryAfterDenial: false,
      sandboxPermissions: "use_default",
      network: {
        host: request.host,
        port: request.port,
        protocol: request.protocol,
        ...(rule ? { rule: { ...rule.source, ...(rule.justification ? { justification: rule.justification } : {}) } } : {}),
      },
    };
    this.#events.emit({ type: "approval.requested", callId: context.callId, argv: approval.argv, cwd: context.cwd, reason: text });
    const raw = await handler(approval, context.signal ? { signal: context.signal } : {});
    const parsed = ApprovalResponseSchema.safeParse(raw);
    // An answer that is invalid or was not offered refuses the host: the network fails closed.
    const decision = parsed.success ? (typeof parsed.data === "string" ? parsed.data : parsed.data.decision) : "denied";
    const taken = offered.includes(decision) ? decision : "denied";
    this.#events.emit({ type: "approval.decided", callId: context.callId, decision: taken });
    if (taken === "approved_for_session") this.#session.add(request.host);
    return taken === "approved" || taken === "approved_for_session";
  }
}
