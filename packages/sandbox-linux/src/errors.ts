import { SandboxBackendError } from "@shellgate/sandbox";

/** Why the Linux backend refused to build a sandboxed command. */
export type LinuxSandboxFailure =
  /** The policy needs something the chosen layer cannot enforce (e.g. denied reads under Landlock). */
  | "not-enforceable"
  /** The native helper is missing or the probe found no usable layer. */
  | "unavailable"
  /** The machine's state changed between probe and run (a path vanished...). */
  | "setup-failed"
  /**
   * A binary the host side would run (bubblewrap, the helper) failed the ownership/permission
   * check or lies inside a writable root; the message names the path and the check.
   */
  | "untrusted-binary"
  /** A backend option is malformed (e.g. `processLimit` not a positive integer or `"off"`). */
  | "invalid-options"
  /**
   * With plan reuse set to `check` (tests), a reused view of a run differed from the one computed
   * afresh: a file-system read escaped the recording. A bug in shellgate; the message shows both.
   */
  | "reuse-check-failed";

/**
 * The Linux backend could not sandbox a command. Extends the shared `SandboxBackendError`
 * (code `SANDBOX_TRANSFORM_FAILED`); `failure` says which kind of problem it was.
 */
export class LinuxSandboxError extends SandboxBackendError<LinuxSandboxFailure> {
  constructor(failure: LinuxSandboxFailure, message: string, options?: { cause?: unknown }) {
    super("linux", failure, message, options);
  }
}
