import { SandboxBackendError } from "@shellgate/sandbox";

/** Why the Windows backend refused to plan or build a sandboxed command (stable, for callers to branch on). */
export type WindowsSandboxFailure =
  /**
   * The policy asks for something an unelevated restricted token cannot enforce: denied-read paths
   * (a write-restricted token's read checks ignore its restricting SIDs, so a deny-read ACE for the
   * capability SID would not bind).
   */
  | "not-enforceable"
  /** The Win32 layer (koffi and its Windows prebuilt) cannot be loaded, or this is not Windows. */
  | "unavailable"
  /** A step through the Win32 API failed (an ACL could not be set, the token could not be made...). */
  | "setup-failed"
  /** A file the host side runs (node.exe, the runner script) lies inside a writable root. */
  | "untrusted-binary"
  /** Something this version plans but does not carry out (the elevated sandbox-user mode). */
  | "not-implemented"
  /** A backend option is malformed. */
  | "invalid-options"
  /** The session proxy's route has a port that is not an integer from 1 to 65535 (the message names the field). */
  | "invalid-proxy-route";

/**
 * The Windows backend could not sandbox a command. Extends the shared `SandboxBackendError`
 * (code `SANDBOX_TRANSFORM_FAILED`, backend `windows`); `failure` says which kind of problem it was.
 */
export class WindowsSandboxError extends SandboxBackendError<WindowsSandboxFailure> {
  constructor(failure: WindowsSandboxFailure, message: string, options?: { cause?: unknown }) {
    super("windows", failure, message, options);
  }
}
