/**
 * One error hierarchy for the whole package. Every error has a stable `code` that callers can
 * branch on; the message is for humans and may change.
 */

/** Stable codes of every error this package raises. */
export type PolicyErrorCode =
  // lexing and parsing
  | "SYNTAX_ERROR"
  | "UNTERMINATED_STRING"
  | "INVALID_ESCAPE"
  | "INVALID_NUMBER"
  | "INDENTATION_ERROR"
  | "NESTING_TOO_DEEP"
  | "UNSUPPORTED_CONSTRUCT"
  | "FILE_TOO_LARGE"
  // evaluation
  | "UNDEFINED_NAME"
  | "TYPE_ERROR"
  | "VALUE_ERROR"
  | "ARGUMENT_ERROR"
  | "INDEX_ERROR"
  | "KEY_ERROR"
  | "ZERO_DIVISION"
  | "INT_OVERFLOW"
  | "RECURSION"
  | "FROZEN_VALUE"
  | "STEP_BUDGET_EXCEEDED"
  | "SIZE_LIMIT_EXCEEDED"
  | "LOAD_UNSUPPORTED"
  | "FAIL"
  // policy builtins
  | "INVALID_DECISION"
  | "INVALID_RULE"
  | "INVALID_PATTERN"
  | "INVALID_EXAMPLE"
  | "EXAMPLE_NOT_MATCHED"
  | "EXAMPLE_UNEXPECTEDLY_MATCHED"
  | "INVALID_HOST_EXECUTABLE"
  | "INVALID_NETWORK_RULE"
  // I/O and API
  | "POLICY_READ_FAILED"
  | "NOT_REGULAR_FILE"
  | "INVALID_ARGUMENT"
  | "AMEND_FAILED"
  | "AMEND_LOCK_TIMEOUT"
  // heuristics (src/heuristics)
  | "HEURISTICS_INVALID_ARGV";

/** Marks our errors with their class chain, so `instanceof` works across duplicate module instances. */
const KINDS = Symbol.for("@shellgate/execpolicy:error-kinds");

/** Base class of every error thrown by `@shellgate/execpolicy`. */
export class PolicyError extends Error {
  /** Stable machine-readable code. */
  readonly code: PolicyErrorCode;
  constructor(code: PolicyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    const kinds: string[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) kinds.push((c as { name: string }).name);
    Object.defineProperty(this, KINDS, { value: kinds });
  }

  /**
   * The parser is loaded on demand (see `policy/compile-loader.ts`); where a test runner or bundler
   * ends up with two copies of this module, errors from one copy still satisfy `instanceof` the other.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    const kinds = (value as Record<symbol, unknown> | null | undefined)?.[KINDS];
    return Array.isArray(kinds) && kinds.includes(this.name);
  }
}

/** Where in a policy file something is: 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * An error tied to a place in a policy file (syntax, evaluation, builtin validation, example check).
 * `render()` shows the message, the location, the source line and a caret under the column.
 */
export class PolicyDiagnosticError extends PolicyError {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The text of the offending line (without its line terminator), when known. */
  readonly sourceLine: string | undefined;
  /** How many characters the caret underline spans (at least 1). */
  readonly span: number;
  constructor(
    code: PolicyErrorCode,
    message: string,
    at: SourceLocation & { sourceLine?: string; span?: number },
  ) {
    super(code, `${at.file}:${at.line}:${at.column}: ${message}`);
    this.file = at.file;
    this.line = at.line;
    this.column = at.column;
    this.sourceLine = at.sourceLine;
    this.span = Math.max(1, at.span ?? 1);
    this.detail = message;
  }
  /** The message without the `file:line:col:` prefix. */
  readonly detail: string;

  /** Multi-line human rendering: `error[CODE]: msg`, ` --> file:line:col`, the source line and a caret. */
  render(): string {
    const lines = [`error[${this.code}]: ${this.detail}`, ` --> ${this.file}:${this.line}:${this.column}`];
    if (this.sourceLine !== undefined) {
      const num = String(this.line);
      const pad = " ".repeat(num.length);
      let shown = visible(this.sourceLine);
      let caretAt = visible(this.sourceLine.slice(0, Math.max(0, this.column - 1))).length;
      // Very long lines (minified or generated files) are shown as a window around the column.
      if (shown.length > MAX_SHOWN) {
        const start = Math.max(0, caretAt - 40);
        const end = Math.min(shown.length, start + MAX_SHOWN - 2);
        shown = `${start > 0 ? "…" : ""}${shown.slice(start, end)}${end < shown.length ? "…" : ""}`;
        caretAt = caretAt - start + (start > 0 ? 1 : 0);
      }
      const width = Math.max(1, Math.min(this.span, Math.max(1, shown.length - caretAt)));
      lines.push(`${pad} |`, `${num} | ${shown}`, `${pad} | ${" ".repeat(caretAt)}${"^".repeat(width)}`);
    }
    return lines.join("\n");
  }
}

const MAX_SHOWN = 120;

/** Control characters in a rendered source line would corrupt the terminal; show them escaped-ish. */
function visible(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "?").replace(/\t/g, " ");
}

/**
 * A file that must be a regular file is something else (a FIFO, whose open or read would block, a
 * socket, a device, a directory); `found` says which. Nothing was read from it.
 */
export class NotRegularFileError extends PolicyError {
  readonly file: string;
  /** What is there instead: `FIFO`, `socket`, `character device`, `block device`, `directory`, `symbolic link`. */
  readonly found: string;
  constructor(file: string, found: string) {
    super("NOT_REGULAR_FILE", `${file}: found a ${found} where a regular file was expected; refusing to read it`);
    this.file = file;
    this.found = found;
  }
}

/** A policy file could not be read (missing, unreadable, a directory, a FIFO). */
export class PolicyReadError extends PolicyError {
  readonly file: string;
  constructor(file: string, cause: unknown) {
    const reason = cause instanceof NotRegularFileError ? `it is a ${cause.found}, not a regular file; refusing to read it` : cause instanceof Error ? cause.message : String(cause);
    super("POLICY_READ_FAILED", `failed to read policy at ${file}: ${reason}`, { cause });
    this.file = file;
  }
}

/** A library function was called with an argument it cannot accept; `field` names the argument. */
export class InvalidArgumentError extends PolicyError {
  readonly field: string;
  constructor(field: string, message: string) {
    super("INVALID_ARGUMENT", `${field}: ${message}`);
    this.field = field;
  }
}

/**
 * A network host given through the API (not read from a rules file) is not one `network_rule`
 * would accept: same code (`INVALID_NETWORK_RULE`) and message as the file diagnostic, but no
 * file location, because the host came from a caller (a user, a proxy request), not from a file.
 */
export class InvalidNetworkHostError extends PolicyError {
  /** The host as given. */
  readonly host: string;
  constructor(host: string, message: string) {
    super("INVALID_NETWORK_RULE", message);
    this.host = host;
  }
}

/** Appending a rule to a policy file failed; `step` says which I/O step. */
export class AmendError extends PolicyError {
  readonly file: string;
  readonly step: "validate" | "mkdir" | "lock" | "open" | "read" | "write";
  constructor(file: string, step: AmendError["step"], message: string, cause?: unknown) {
    super(step === "lock" ? "AMEND_LOCK_TIMEOUT" : "AMEND_FAILED", `${message} (${file})`, { cause });
    this.file = file;
    this.step = step;
  }
}
