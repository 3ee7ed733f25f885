import path from "node:path";
import type { SandboxPermissions } from "@shellgate/sandbox";

/** What identifies "the same call" for a session approval. */
export interface ApprovalKeyInput {
  argv: readonly string[];
  cwd: string;
  permissions: SandboxPermissions;
  /** Anything else that changes what the approval covers (e.g. whether a terminal is attached). */
  extra?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Session approvals (`approved_for_session`). Only exact repeats are covered: the argv token for
 * token, the resolved cwd, and the sandbox request; approving a command in the sandbox never
 * approves it outside. Lives as long as the orchestrator session; never persisted.
 */
export class ApprovalCache {
  readonly #approved = new Set<string>();

  /** The canonical key of a call: stable JSON of argv, normalised cwd, sandbox request and extras. */
  static keyFor(input: ApprovalKeyInput): string {
    const extra = input.extra ? Object.entries(input.extra).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
    return JSON.stringify({ argv: [...input.argv], cwd: path.resolve(input.cwd), permissions: input.permissions, extra });
  }

  /** Whether this exact call was approved for the session. */
  isApproved(input: ApprovalKeyInput): boolean {
    return this.#approved.has(ApprovalCache.keyFor(input));
  }

  /** Remember an `approved_for_session` answer for this exact call. */
  approveForSession(input: ApprovalKeyInput): void {
    this.#approved.add(ApprovalCache.keyFor(input));
  }

  /** Number of remembered approvals. */
  get size(): number {
    return this.#approved.size;
  }

  /** Forget every session approval. */
  clear(): void {
    this.#approved.clear();
  }
}
