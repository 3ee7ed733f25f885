import type { CommandNotFoundError } from "@shellgate/sandbox";
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
  | "ORCH_DECISION_NOT_OFFERED"
  | "ORCH_WORKSPACE_CHANGED"
  | "ORCH_WRITABLE_ROOT_CHANGED";

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
 * from "the person said no" without reading the message. The message is written for a model: it says
 * the command was not run and what to do instead.
 */
export class ApprovalUnavailableError extends RejectedError {
  /** The command as shown to people (shell-quoted). */
  readonly command: string;
  /** Why approval was needed, when admission said. */
  readonly reason: string | undefined;
  constructor(command: string, reason?: string) {
    super(
      `\`${command}\` needs approval${reason ? ` (${reason})` : ""}; no one can approve it here, so it was not run. ` +
        "Ask the user to run it or to allow it, or use a command the rules allow",
      "ORCH_APPROVAL_UNAVAILABLE",
    );
    this.command = command;
    this.reason = reason;
  }
}

/**
 * A rule or the approval policy forbids the command; it is never run. The message (for the model and
 * for people) names the rule with file:line when a rule forbade it, and says the command was not run.
 */
export class ForbiddenError extends OrchestratorError {
  readonly reason: string;
  /** The forbidding rule, when a rule (not the approval policy) decided. */
  readonly rule: { file: string; line: number; column: number; prefix: string[] } | undefined;
  constructor(reason: string, rule?: { file: string; line: number; column: number; prefix: readonly string[] }) {
    const where = rule ? ` (rule ${escapeForDisplay(rule.file)}:${rule.line})` : "";
    super("ORCH_FORBIDDEN", `${reason}${where}; it was not run. Do not retry it in another form`);
    this.reason = reason;
    this.rule = rule ? { file: rule.file, line: rule.line, column: rule.column, prefix: [...rule.prefix] } : undefined;
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

/**
 * The process could not be started (missing program, bad cwd, sandbox helper failure). A program that
 * does not exist, or is not executable, where it would be looked up, sandboxed or not, is said as
 * `command not found: NAME` and its `cause` is @shellgate/sandbox's `CommandNotFoundError` (which
 * names the program): one class for the fact, whichever layer found it.
 */
export class SpawnFailedError extends OrchestratorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("ORCH_SPAWN_FAILED", message, options);
  }
}

/** The `SpawnFailedError` for a program that is missing; the message escapes the name for display. */
export function commandNotFound(notFound: CommandNotFoundError): SpawnFailedError {
  const detail = notFound.detail ? ` (${notFound.detail})` : "";
  return new SpawnFailedError(`command not found: ${escapeForDisplay(notFound.program)}${detail}`, { cause: notFound });
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

/**
 * `write_stdin` named a session id that does not exist: never started, pruned, or already reported as
 * exited (an exit is reported once, then the id is forgotten). The message says so, for the model.
 */
export class UnknownSessionError extends OrchestratorError {
  readonly sessionId: number;
  /** Set when the session is known to have exited (its exit was already reported) with this code. */
  readonly exitCode: number | undefined;
  constructor(sessionId: number, exitCode?: number) {
    super(
      "ORCH_UNKNOWN_SESSION",
      exitCode !== undefined
        ? `session ${sessionId} has exited (exit code ${exitCode}); its exit and remaining output were already returned, ` +
            "so it takes no more input. Start the command again with exec_command if you need it"
        : `unknown session id ${sessionId}: no running session has this id. Sessions end when their process exits ` +
            "(the exit is reported once, with its exit code) or when old ones are pruned; start the command again with exec_command",
    );
    this.sessionId = sessionId;
    this.exitCode = exitCode;
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
 * The approval handler answered with a decision the request did not offer (`offeredDecisions`): an
 * "always allow" that was withheld (dangerous command, whole script, no rules file) or a session
 * approval where no session outlives the call. Nothing runs.
 */
export class DecisionNotOfferedError extends OrchestratorError {
  /** The decision the handler gave. */
  readonly decision: string;
  /** What was offered. */
  readonly offered: readonly string[];
  constructor(decision: string, offered: readonly string[], why: string) {
    super(
      "ORCH_DECISION_NOT_OFFERED",
      `approvalHandler answered ${decision}, which was not offered (offered: ${offered.join(", ")}): ${why}; nothing was run`,
    );
    this.decision = decision;
    this.offered = [...offered];
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

/**
 * A writable root of the session no longer is the directory it was when the session started: its name
 * now resolves elsewhere (a symlink re-pointed, a directory renamed away and replaced), it was removed,
 * or a root that did not exist then exists now. Nothing runs: the sandbox would make whatever now sits
 * under that name writable.
 */
export class WritableRootChangedError extends OrchestratorError {
  /** Where the root came from: `sandboxPolicy.writableRoots.N`, or `TMPDIR`. */
  readonly field: string;
  /** The root as configured. */
  readonly path: string;
  /** What it was when the session started; undefined when nothing was there. */
  readonly expected: { realPath: string; dev: number; ino: number } | undefined;
  /** What it is now; undefined when it no longer resolves to a directory. */
  readonly actual: { realPath: string; dev: number; ino: number } | undefined;
  constructor(
    root: { field: string; path: string; recorded: { realPath: string; dev: number; ino: number } | undefined },
    actual: { realPath: string; dev: number; ino: number } | undefined,
  ) {
    const show = (id: { realPath: string; dev: number; ino: number } | undefined, none: string) =>
      id ? `${escapeForDisplay(id.realPath)} (dev:ino ${id.dev}:${id.ino})` : none;
    super(
      "ORCH_WRITABLE_ROOT_CHANGED",
      `the writable root ${escapeForDisplay(root.path)} (${root.field}) changed identity since the session started: ` +
        `it was ${show(root.recorded, "nothing (it did not exist)")}, it is now ${show(actual, "nothing (it no longer resolves to a directory)")}; ` +
        "refusing to run anything in this session",
    );
    this.field = root.field;
    this.path = root.path;
    this.expected = root.recorded ? { ...root.recorded } : undefined;
    this.actual = actual ? { ...actual } : undefined;
  }
}

