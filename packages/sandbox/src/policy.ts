import path from "node:path";
import { z } from "zod";
import { InvalidSandboxPolicyError } from "./errors.js";
import { firstZodIssue } from "./zod-issues.js";

const absolutePath = z
  .string()
  .min(1, "must not be empty")
  .refine((p) => path.isAbsolute(p), { message: "must be an absolute path" });

/** Paths that must stay unreadable inside the sandbox; they keep the sandbox on even for approved commands. */
const deniedReadPaths = z.array(absolutePath).default([]);

/** Full-disk read, no writes (except `/dev/null`), no network. */
export const ReadOnlyPolicySchema = z.strictObject({
  mode: z.literal("read-only"),
  deniedReadPaths,
});

/** Reads everywhere; writes only under the writable roots (cwd, configured roots, temp dirs); network off by default. */
export const WorkspaceWritePolicySchema = z.strictObject({
  mode: z.literal("workspace-write"),
  writableRoots: z.array(absolutePath).default([]),
  networkAccess: z.boolean().default(false),
  excludeTmpdirEnvVar: z.boolean().default(false),
  excludeSlashTmp: z.boolean().default(false),
  deniedReadPaths,
});

/** No sandbox at all. */
export const DangerFullAccessPolicySchema = z.strictObject({
  mode: z.literal("danger-full-access"),
});

/** The caller runs inside a sandbox of its own; no platform sandbox, the network flag only drives env markers and approval. */
export const ExternalSandboxPolicySchema = z.strictObject({
  mode: z.literal("external-sandbox"),
  networkAccess: z.boolean().default(false),
});

/** What a command may touch: one of the four sandbox modes. */
export const SandboxPolicySchema = z.discriminatedUnion("mode", [
  ReadOnlyPolicySchema,
  WorkspaceWritePolicySchema,
  DangerFullAccessPolicySchema,
  ExternalSandboxPolicySchema,
]);

export type ReadOnlyPolicy = z.infer<typeof ReadOnlyPolicySchema>;
export type WorkspaceWritePolicy = z.infer<typeof WorkspaceWritePolicySchema>;
export type DangerFullAccessPolicy = z.infer<typeof DangerFullAccessPolicySchema>;
export type ExternalSandboxPolicy = z.infer<typeof ExternalSandboxPolicySchema>;
export type SandboxPolicy = z.infer<typeof SandboxPolicySchema>;
/** The policy as a caller may write it, before defaults are applied. */
export type SandboxPolicyInput = z.input<typeof SandboxPolicySchema>;
export type SandboxMode = SandboxPolicy["mode"];

/**
 * A per-call request about the sandbox. `require_escalated` asks to run outside the
 * sandbox; it is a request that needs approval, never an approval in itself.
 */
export const SandboxPermissionsSchema = z.enum(["use_default", "require_escalated"]);
export type SandboxPermissions = z.infer<typeof SandboxPermissionsSchema>;

/** A permission request together with the model's justification for it. */
export const SandboxPermissionRequestSchema = z.strictObject({
  permissions: SandboxPermissionsSchema.default("use_default"),
  justification: z.string().min(1).optional(),
});
export type SandboxPermissionRequest = z.infer<typeof SandboxPermissionRequestSchema>;

function firstIssue(error: z.ZodError): { field: string; message: string } {
  return firstZodIssue(error, "(policy)");
}

/**
 * Validate an outside sandbox policy object and apply defaults.
 * @throws InvalidSandboxPolicyError naming the offending field (e.g. `writableRoots.0`).
 */
export function parseSandboxPolicy(input: unknown): SandboxPolicy {
  const result = SandboxPolicySchema.safeParse(input);
  if (!result.success) {
    const { field, message } = firstIssue(result.error);
    throw new InvalidSandboxPolicyError(field, message, { cause: result.error });
  }
  return result.data;
}

/**
 * Validate a per-call permission request.
 * @throws InvalidSandboxPolicyError naming the offending field.
 */
export function parseSandboxPermissionRequest(input: unknown): SandboxPermissionRequest {
  const result = SandboxPermissionRequestSchema.safeParse(input);
  if (!result.success) {
    const { field, message } = firstIssue(result.error);
    throw new InvalidSandboxPolicyError(field, message, { cause: result.error });
  }
  return result.data;
}

/** Whether the policy lets commands reach the network. */
export function policyAllowsNetwork(policy: SandboxPolicy): boolean {
  switch (policy.mode) {
    case "danger-full-access":
      return true;
    case "read-only":
      return false;
    case "workspace-write":
    case "external-sandbox":
      return policy.networkAccess;
  }
}

/** Whether a platform sandbox is needed to enforce the policy (anything but full access or an outer sandbox). */
export function policyRequiresPlatformSandbox(policy: SandboxPolicy): boolean {
  return policy.mode === "read-only" || policy.mode === "workspace-write";
}
