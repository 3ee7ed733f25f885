import { errorCode } from "../../error-text.js";

/**
 * Exit codes of `shellgate exec` when the command itself did not decide them (the command's own exit code
 * is passed through otherwise). They follow `timeout(1)` and the shell's conventions.
 */
export const EXEC_EXIT = {
  /** The command ran past `--timeout` and was killed. */
  TIMEOUT: 124,
  /**
   * shellgate could not run the command: bad arguments or configuration, a rules file that does not parse,
   * no sandbox or one that refused to be built (ORCH_SANDBOX_PREPARE_FAILED), a workspace that changed identity.
   */
  SHELLGATE_ERROR: 125,
  /** The command was not allowed: forbidden by a rule, denied, or it needed approval and nobody could be asked. */
  REFUSED: 126,
  /** The program could not be started (not found, bad working directory). */
  SPAWN_FAILED: 127,
  /** The person chose "abort", or shellgate was interrupted (Ctrl-C). */
  ABORTED: 130,
  /** Whoever read shellgate's output went away (a closed pipe), so the command was stopped. */
  PIPE_CLOSED: 141,
} as const;

/** The exit code for an error thrown while running one command. */
export function exitCodeForError(error: unknown): number {
  switch (errorCode(error)) {
    case "ORCH_FORBIDDEN":
    case "ORCH_REJECTED":
    case "ORCH_APPROVAL_UNAVAILABLE":
    case "ORCH_SANDBOX_DENIED":
    case "CLI_NO_TERMINAL":
      return EXEC_EXIT.REFUSED;
    case "ORCH_ABORTED":
    case "ORCH_CANCELLED":
      return EXEC_EXIT.ABORTED;
    case "ORCH_TIMEOUT":
      return EXEC_EXIT.TIMEOUT;
    case "ORCH_SPAWN_FAILED":
      return EXEC_EXIT.SPAWN_FAILED;
    default:
      return EXEC_EXIT.SHELLGATE_ERROR;
  }
}

/** The shell's exit code for a process killed by a signal (128 + signal number). */
export function exitCodeForSignal(signal: string | null | undefined): number {
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };
  return 128 + (signal ? (numbers[signal] ?? 0) : 0);
}
