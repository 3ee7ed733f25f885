import { SandboxBackendError } from "@shellgate/sandbox";

/**
 * Why the Seatbelt backend refused to build a sandboxed command; stable, for callers to branch on. (A machine
 * without Seatbelt is the shared `SandboxUnavailableError`.)
 */
export type SeatbeltSandboxFailure =
  /** The policy asks for something a path-based Seatbelt profile cannot hold (the message says what). */
  | "not-expressible"
  /** A backend option is unknown or malformed. */
  | "invalid-options"
  /** The session proxy's route has a port that is not an integer from 1 to 65535 (the message names the field). */
  | "invalid-proxy-route";

/**
 * The Seatbelt backend could not sandbox a command. Extends the shared `SandboxBackendError`
 * (code `SANDBOX_TRANSFORM_FAILED`, `backend: "seatbelt"`); `failure` says which kind of problem it was.
 */
export class SeatbeltSandboxError extends SandboxBackendError<SeatbeltSandboxFailure> {
  constructor(failure: SeatbeltSandboxFailure, message: string, options?: { cause?: unknown }) {
    super("seatbelt", failure, message, options);
  }
}
