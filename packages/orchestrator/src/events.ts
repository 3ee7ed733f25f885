import type { SandboxWrittenKind } from "./admission/sandbox-written-code.js";
import type { NetworkRequestEvent } from "@shellgate/network-proxy";
import type { RunRepository, SandboxDenial, SandboxType } from "@shellgate/sandbox";

/** What the decision trace records for one tool call. It never holds the command, cwd, env or output. */
export interface DecisionTrace {
  callId: string;
  tool: string;
  /** The approval requirement admission produced. */
  approvalRequirement: "skip" | "needs_approval" | "forbidden";
  /** Whether a person (or the session cache) was asked / answered. */
  reviewed: boolean;
  reviewDecision?: "approved" | "approved_for_session" | "approved_with_amendment" | "denied" | "abort" | "cached";
  /**
   * Whether the sandbox was bypassed on the first attempt, and why; `rule_sandbox` when the command's
   * own rule kept it in the sandbox the rule names (`prefix_rule(..., sandbox=...)`).
   */
  sandboxOverride: "none" | "bypass_by_rule" | "escalation_approved" | "rule_sandbox";
  /**
   * Set when allow rules would have lifted the sandbox but did not, because the run would have
   * executed what a sandboxed command could have written: the kinds of finding (the paths are in the
   * tool result's `sandboxKept`, never here).
   */
  sandboxKept?: SandboxWrittenKind[];
  /** The first attempt's sandbox: the backend's `sandboxType` (an open string), `"none"` when it ran unsandboxed. */
  initialSandbox: SandboxType;
  /** 1 for a first attempt only, 2 when an unsandboxed retry ran (0 when nothing ran). */
  attempts: number;
  /**
   * How the call ended: the last attempt's verdict (`success`, `nonzero_exit`, `timeout`,
   * `sandbox_denied`), `running` for a session still alive after its first yield, a refusal
   * (`rejected`, `forbidden`, `aborted`), `spawn_failed`, `cancelled`, or `error` for any other failure
   * (bad configuration, a failing approval handler).
   */
  outcome: TraceOutcome;
}

/** Every outcome a decision trace can record. */
export const TRACE_OUTCOMES = [
  "success",
  "nonzero_exit",
  "timeout",
  "sandbox_denied",
  "rejected",
  "forbidden",
  "aborted",
  "spawn_failed",
  "cancelled",
  "running",
  "error",
] as const;

/** One of `TRACE_OUTCOMES`. */
export type TraceOutcome = (typeof TRACE_OUTCOMES)[number];

/** Lifecycle events an integrator can subscribe to. */
export type OrchestratorEvent =
  | { type: "exec.begin"; callId: string; tool: string; argv: readonly string[]; cwd: string; sessionId?: number }
  | { type: "exec.output_delta"; callId: string; stream: "stdout" | "stderr" | "pty"; chunk: Uint8Array }
  /**
   * Sent once when a call reached `MAX_OUTPUT_DELTAS_PER_CALL`: no further deltas follow for it, so an
   * event consumer must not present what it got as the whole output. (A caller that needs every byte
   * of a one-shot command passes `onOutput` to `handleToolCall` instead; that sink has no cap.)
   */
  | { type: "exec.output_capped"; callId: string; deltas: number }
  /** `sandboxDenial`: what the sandbox refused, when a one-shot command's final attempt shows it (see `explainSandboxDenial`). */
  | { type: "exec.end"; callId: string; exitCode: number | null; durationMs: number; timedOut: boolean; sandboxDenial?: SandboxDenial }
  /**
   * After a sandboxed run that could write, once its sandbox is released: git repositories that
   * appeared in its writable roots during the run (`change: "created"`), or older ones whose hooks,
   * config or `.git` file it changed (`"changed"`). Each is hostile: its hooks and config (an
   * fsmonitor, a filter, a pager) run on the person's next git command in that directory. Sent only
   * when there is one, or when the search stopped at its budget (`complete: false`: there may be more).
   */
  | { type: "exec.repositories"; callId: string; repositories: RunRepository[]; complete: boolean; directories: number; listed: number }
  | { type: "approval.requested"; callId: string; argv: readonly string[]; cwd: string; reason?: string; proposedAmendment?: readonly string[] }
  | { type: "approval.decided"; callId: string; decision: string }
  /**
   * One request a command made through the session's network proxy, with the outcome: `cause` says
   * why (`rule`, `grant`, `default`, `private-address`, `resolve-failed`, …), `rule` where a
   * `network_rule` decided. Never carries the request's path, headers or body.
   */
  | ({ type: "network.request"; callId: string } & NetworkRequestEvent)
  | { type: "trace"; trace: DecisionTrace };

/** Receives lifecycle events; must not throw (errors are swallowed so a bad listener cannot break a call). */
export type EventListener = (event: OrchestratorEvent) => void;

/**
 * Maximum output deltas emitted per call; capture continues past it, only events stop (announced by
 * one `exec.output_capped` event). Events have no backpressure, so the cap keeps a slow listener from
 * queueing unbounded output; `handleToolCall`'s `onOutput` sink is not subject to it.
 */
export const MAX_OUTPUT_DELTAS_PER_CALL = 10_000;

/** Fans events out to listeners, isolating each listener's failures. */
export class EventBus {
  readonly #listeners = new Set<EventListener>();

  /** Subscribe; returns the unsubscribe function. */
  on(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Deliver an event to every listener. */
  emit(event: OrchestratorEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not turn into a failed tool call.
      }
    }
  }
}
