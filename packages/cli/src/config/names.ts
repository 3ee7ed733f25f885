// The names a flag or a configuration file may give the approval policy and the sandbox mode: apart
// from the file's schema (schema.ts), which a run without configuration files never builds.
import { z } from "zod";

/** When a person is asked before a command runs (same values as the orchestrator's `ApprovalPolicy`). */
export const ApprovalPolicyNameSchema = z.enum(["untrusted", "on-failure", "on-request", "never"]);
export type ApprovalPolicyName = z.infer<typeof ApprovalPolicyNameSchema>;

/** The sandbox modes a configuration may name. */
export const SandboxModeNameSchema = z.enum(["read-only", "workspace-write", "danger-full-access", "external-sandbox"]);
export type SandboxModeName = z.infer<typeof SandboxModeNameSchema>;

/** The range a process limit may take (the Linux backend's own bounds). */
export const PROCESS_LIMIT_MIN = 8;
export const PROCESS_LIMIT_MAX = 4_194_304;
/** The Linux backend's default process limit (`DEFAULT_PROCESS_LIMIT` of @shellgate/sandbox-linux; a test keeps them equal). */
export const DEFAULT_PROCESS_LIMIT = 4096;
/** A process limit as configured: a cap, or none. */
export type ProcessLimitSetting = number | "off";
