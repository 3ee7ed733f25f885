/** Stable machine-readable codes for every error the CLI itself raises. */
export type CliErrorCode = "CLI_USAGE" | "CLI_CONFIG" | "CLI_NO_TERMINAL";

/** Base class of the CLI's own errors; `code` is stable across releases. */
export class CliError extends Error {
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad command-line arguments; the message names the flag. Commands exit 2 (`exec`: 125). */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CLI_USAGE", message, options);
  }
}

/** A configuration file is unreadable or invalid; names the file, and the field or line:column. */
export class ConfigError extends CliError {
  readonly file: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super("CLI_CONFIG", `${file}: ${message}`, options);
    this.file = file;
  }
}

/** A person must decide but there is no terminal to ask on. */
export class NoTerminalError extends CliError {
  constructor(message: string) {
    super("CLI_NO_TERMINAL", message);
  }
}
