import { escapeForDisplay } from "./output/escape.js";

/** Stable machine-readable codes for every error the orchestrator raises. */
export type OrchestratorErrorCode =
  | "ORCH_INVALID_ARGUMENTS"
  | "ORCH_UNKNOWN_TOOL"
  | "ORCH_REJECTED"
  | "ORCH_APPROVAL_UNAVAILABLE"
  | "ORCH_FORBIDDEN"
  | "ORCH_ABORTED"
  | "ORCH_TIMEOUT"
  | "ORCH_SANDBOX_DENIED"
  | "ORCH_SPAWN_FAILED"
  | "ORCH_SANDBOX_PREPARE_FAILED"
  | "ORCH_CANCELLED"
  | "ORCH_UNKNOWN_SESSION"
  | "ORCH_SESSION_NOT_TTY"
  | "ORCH_CONFIG"
  | "ORCH_WORKSPACE_CHANGED";

/** The message of anything thrown, for wrapping it in one of our errors or showing it to the model. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Base class of every error the orchestrator raises; `code` is stable across releases. */
export class OrchestratorError extends Error {
  readonly code: OrchestratorErrorCode;
  constructor(code: OrchestratorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A tool call's arguments did not validate; `field` is the dotted path of the first bad field. */
export class InvalidToolArgumentsError extends OrchestratorError {
  readonly tool: string;
  readonly field: string;
  constructor(tool: string, field: string, message: string, options?: { cause?: unknown }) {
    super("ORCH_INVALID_ARGUMENTS", `${tool}: invalid argument \`${field}\`: ${message}`, options);
    this.tool = tool;
    this.field = field;
  }
}

/** No handler is registered under the tool name. */
export class UnknownToolError extends OrchestratorError {
  readonly tool: string;
  constructor(tool: string) {
    super("ORCH_UNKNOWN_TOOL", `unknown tool ${JSON.stringify(tool)}`);
    this.tool = tool;
  }
}

/** The person (or the approval policy) declined to run the command. */
export class RejectedError extends OrchestratorError {
  constructor(message = "rejected by user", code: "ORCH_REJECTED" | "ORCH_APPROVAL_UNAVAILABLE" = "ORCH_REJECTED") {
    super(code, message);
  }
}

/**
 * The command needs a person's approval and nobody can be asked (no approval handler is configured,
 * e.g. a non-interactive run). A rejection with its own code, so integrators can tell "nobody asked"
 * from "the person said no" without reading the message.
 */
export class ApprovalUnavailableError extends RejectedError {
  /** The command as shown to people (shell-quoted). */
  readonly command: string;
  /** Why approval was needed, when admission said. */
  readonly reason: string | undefined;
  constructor(command: string, reason?: string) {
    super(
      `\`${command}\` needs approval${reason ? ` (${reason})` : ""}, and no one can approve it here (no approval handler is configured); it was not run`,
      "ORCH_APPROVAL_UNAVAILABLE",
    );
    this.command = command;
    this.reason = reason;
  }
}

/** A rule or the approval policy forbids the command; it is never run. */
export class ForbiddenError extends OrchestratorError {
  readonly reason: string;
  constructor(reason: string) {
    super("ORCH_FORBIDDEN", reason);
    this.reason = reason;
  }
}

/** The person chose to abort the whole turn, not just this command. */
export class AbortedError extends OrchestratorError {
  constructor(message = "aborted by user") {
    super("ORCH_ABORTED", message);
  }
}

/** The command ran past its timeout and was killed (exit code 124). */
export class CommandTimeoutError extends OrchestratorError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super("ORCH_TIMEOUT", `command timed out after ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The sandbox most likely blocked the command and no unsandboxed retry was allowed. */
export class SandboxDeniedError extends OrchestratorError {
  constructor(message: string) {
    super("ORCH_SANDBOX_DENIED", message);
  }
}

/** The process could not be started (missing program, bad cwd, sandbox helper failure). */
export class SpawnFailedError extends OrchestratorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("ORCH_SPAWN_FAILED", message, options);
  }
}

/**
 * The sandbox for the call could not be built: no usable backend, or the backend refused (a protected
 * path it cannot pin, a binary it will not trust). Nothing was started; the cause is the backend's error.
 */
export class SandboxPrepareFailedError extends OrchestratorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("ORCH_SANDBOX_PREPARE_FAILED", message, options);
  }
}

/** The caller cancelled the call (AbortSignal). */
export class CancelledError extends OrchestratorError {
  constructor(message = "cancelled") {
    super("ORCH_CANCELLED", message);
  }
}

/** `write_stdin` named a session id that does not exist (or has already been reported as exited). */
export class UnknownSessionError extends OrchestratorError {
  readonly sessionId: number;
  constructor(sessionId: number) {
    super("ORCH_UNKNOWN_SESSION", `unknown session id ${sessionId}`);
    this.sessionId = sessionId;
  }
}

/** Input was sent to a session that was started without a terminal. */
export class SessionNotTtyError extends OrchestratorError {
  readonly sessionId: number;
  constructor(sessionId: number) {
    super("ORCH_SESSION_NOT_TTY", `session ${sessionId} was started without tty; it takes no input (start it with tty: true)`);
    this.sessionId = sessionId;
  }
}

/** The orchestrator's own configuration is invalid (names the field). */
export class OrchestratorConfigError extends OrchestratorError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("ORCH_CONFIG", `${field}: ${message}`, options);
    this.field = field;
  }
}

/**
 * The session's workspace no longer is the directory it was when the session started (renamed away,
 * replaced by a symlink or another directory, or removed). Nothing runs: the sandbox would take
 * whatever now sits under the old name as its writable root.
 */
export class WorkspaceChangedError extends OrchestratorError {
  /** The workspace path the session was configured with. */
  readonly path: string;
  /** What it was when the session started. */
  readonly expected: { realPath: string; dev: number; ino: number };
  /** What it is now; undefined when it no longer resolves. */
  readonly actual: { realPath: string; dev: number; ino: number } | undefined;
  constructor(
    expected: { path: string; realPath: string; dev: number; ino: number },
    actual: { realPath: string; dev: number; ino: number } | undefined,
  ) {
    const was = `${escapeForDisplay(expected.realPath)} (dev:ino ${expected.dev}:${expected.ino})`;
    const now = actual ? `${escapeForDisplay(actual.realPath)} (dev:ino ${actual.dev}:${actual.ino})` : "nothing (it no longer resolves)";
    super(
      "ORCH_WORKSPACE_CHANGED",
      `the workspace ${escapeForDisplay(expected.path)} changed identity since the session started: it was ${was}, it is now ${now}; refusing to run anything in this session`,
    );
    this.path = expected.path;
    this.expected = { realPath: expected.realPath, dev: expected.dev, ino: expected.ino };
    this.actual = actual;
  }
}
