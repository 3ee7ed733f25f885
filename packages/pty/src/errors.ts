/** Stable machine-readable codes for every error this package throws. */
export type PtyErrorCode =
  | "PTY_INVALID_SPEC"
  | "PTY_SPAWN_FAILED"
  | "PTY_PROCESS_EXITED"
  | "PTY_STDIN_UNAVAILABLE"
  | "PTY_STDIN_CLOSED"
  | "PTY_UNSUPPORTED_PLATFORM"
  | "PTY_LAUNCHER_UNAVAILABLE";

/** Base class of every error thrown by @shellgate/pty; switch on `code`, not on the class name. */
export class PtyError extends Error {
  readonly code: PtyErrorCode;
  constructor(code: PtyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A `ProcessSpec`/`PtySpec` did not validate; `field` is the dotted path of the offending value (e.g. `argv.0`). */
export class InvalidProcessSpecError extends PtyError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("PTY_INVALID_SPEC", `${field}: ${message}`, options);
    this.field = field;
  }
}

/** The OS refused to start the process (missing executable or cwd, permission, resource limits). */
export class SpawnError extends PtyError {
  /** The program that could not be started (`argv[0]`). */
  readonly program: string;
  /** The errno name when the OS reported one (`ENOENT`, `EACCES`...). */
  readonly errno: string | undefined;
  constructor(program: string, message: string, errno?: string, options?: { cause?: unknown }) {
    super("PTY_SPAWN_FAILED", `cannot start ${JSON.stringify(program)}: ${message}`, options);
    this.program = program;
    this.errno = errno;
  }
}

/** A write or stdin close reached a handle whose process has already exited. Reading its output still works. */
export class ProcessExitedError extends PtyError {
  readonly pid: number;
  constructor(pid: number, what: string) {
    super("PTY_PROCESS_EXITED", `cannot ${what}: process ${pid} has exited`);
    this.pid = pid;
  }
}

/** A write reached a pipe-mode process started without `stdin: "pipe"` (its stdin is /dev/null). */
export class StdinUnavailableError extends PtyError {
  readonly pid: number;
  constructor(pid: number) {
    super("PTY_STDIN_UNAVAILABLE", `process ${pid} was started with stdin "ignore" (/dev/null); pass stdin: "pipe" to write to it`);
    this.pid = pid;
  }
}

/** A write came after `closeStdin()` on the same handle. */
export class StdinClosedError extends PtyError {
  readonly pid: number;
  constructor(pid: number) {
    super("PTY_STDIN_CLOSED", `stdin of process ${pid} was already closed`);
    this.pid = pid;
  }
}

/** The platform has no process groups/sessions (Windows), so the lifetime guarantees cannot be kept. */
export class UnsupportedPlatformError extends PtyError {
  constructor(platform: string) {
    super("PTY_UNSUPPORTED_PLATFORM", `@shellgate/pty needs POSIX process groups; ${platform} is not supported`);
  }
}

/** A pipe launcher (`createPipeLauncher`) is closed, could not be started, or exited while a `prepare` waited on it. */
export class LauncherError extends PtyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("PTY_LAUNCHER_UNAVAILABLE", `pipe launcher: ${message}`, options);
  }
}
