/** Stable machine-readable codes for every error this package throws. */
export type SandboxErrorCode =
  | "SANDBOX_INVALID_POLICY"
  | "SANDBOX_INVALID_PATH"
  | "SANDBOX_UNAVAILABLE"
  | "SANDBOX_BACKEND_CONFLICT"
  | "SANDBOX_TRANSFORM_FAILED";

/** Base class of every error thrown by @shellgate/sandbox and its backends. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Outside input (a policy object, a permission request) did not validate; `field` is its dotted path. */
export class InvalidSandboxPolicyError extends SandboxError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("SANDBOX_INVALID_POLICY", `${field}: ${message}`, options);
    this.field = field;
  }
}

/** A path given as a writable root or denied-read path is relative, missing or otherwise unusable. */
export class InvalidSandboxPathError extends SandboxError {
  readonly field: string;
  readonly path: string;
  constructor(field: string, path: string, message: string) {
    super("SANDBOX_INVALID_PATH", `${field}: ${JSON.stringify(path)} ${message}`);
    this.field = field;
    this.path = path;
  }
}

/** A backend could not turn a command into a sandboxed one (the policy is not expressible, a helper is missing...). */
export class SandboxTransformError extends SandboxError {
  readonly backend: string;
  constructor(backend: string, message: string, options?: { cause?: unknown }) {
    super("SANDBOX_TRANSFORM_FAILED", `${backend}: ${message}`, options);
    this.backend = backend;
  }
}
