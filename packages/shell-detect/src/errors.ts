/** Stable machine-readable codes for every error this package throws. */
export type ShellDetectErrorCode = "SHELL_INVALID_ARGUMENT" | "SHELL_NOT_FOUND" | "SHELL_GRAMMAR_LOAD_FAILED";

/** Base class of every error thrown by @shellgate/shell-detect. */
export class ShellDetectError extends Error {
  readonly code: ShellDetectErrorCode;
  constructor(code: ShellDetectErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An argument handed to a public function did not validate; `field` names it (e.g. `argv[2]`, `opts.login`). */
export class InvalidShellArgumentError extends ShellDetectError {
  readonly field: string;
  constructor(field: string, message: string) {
    super("SHELL_INVALID_ARGUMENT", `${field}: ${message}`);
    this.field = field;
  }
}

/**
 * Not even the platform's last-resort shell exists. `tried` lists every candidate with the reason it
 * was refused, so the caller can show the user what to fix.
 */
export class ShellNotFoundError extends ShellDetectError {
  readonly tried: readonly string[];
  constructor(message: string, tried: readonly string[]) {
    super("SHELL_NOT_FOUND", `${message} (tried: ${tried.join("; ") || "nothing"})`);
    this.tried = tried;
  }
}

/** The tree-sitter runtime or a grammar `.wasm` (bash, PowerShell) could not be loaded. */
export class GrammarLoadError extends ShellDetectError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("SHELL_GRAMMAR_LOAD_FAILED", message, options);
  }
}
