import { z } from "zod";

/**
 * When a person is asked before a command runs:
 * - `untrusted`: ask for everything except known-safe read-only commands;
 * - `on-failure`: run in the sandbox without asking, ask only to retry outside it after a likely denial;
 * - `on-request`: run in the sandbox without asking; ask when the command requests escalation;
 * - `never`: never ask; what would need approval is forbidden instead.
 */
export const ApprovalPolicySchema = z.enum(["untrusted", "on-failure", "on-request", "never"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** Every approval policy, in the order the CLI lists them. */
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ApprovalPolicySchema.options;
