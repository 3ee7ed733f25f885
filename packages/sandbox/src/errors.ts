/** Stable machine-readable codes for every error this package throws. */
export type SandboxErrorCode =
  | "SANDBOX_INVALID_POLICY"
  | "SANDBOX_INVALID_PATH"
  | "SANDBOX_INVALID_COMMAND"
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

/** A command spec handed to the manager did not validate; `field` is its dotted path (e.g. `argv`, `env.PATH`). */
export class InvalidCommandSpecError extends SandboxError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("SANDBOX_INVALID_COMMAND", `${field}: ${message}`, options);
    this.field = field;
  }
}

/** Two backends were registered under the same name with one `SandboxManager`. */
export class SandboxBackendConflictError extends SandboxError {
  readonly backend: string;
  constructor(backend: string) {
    super("SANDBOX_BACKEND_CONFLICT", `a sandbox backend named ${JSON.stringify(backend)} is already registered`);
    this.backend = backend;
  }
}

/** Why one backend could not serve a policy; part of `SandboxUnavailableError`. */
export interface BackendUnavailableReason {
  backend: string;
  platform: string;
  reason: string;
}

/**
 * The policy needs a platform sandbox and no registered backend can provide one here.
 * The command must not run: shellgate never falls back to an unsandboxed run on its own.
 */
export class SandboxUnavailableError extends SandboxError {
  /** The policy mode that asked for a sandbox. */
  readonly mode: string;
  /** The platform the manager selected for. */
  readonly platform: string;
  /** One entry per registered backend, in registration order (empty when none was registered). */
  readonly reasons: readonly BackendUnavailableReason[];
  constructor(mode: string, platform: string, reasons: readonly BackendUnavailableReason[]) {
    const parts = reasons.map((r) => `${r.backend} (${r.platform}): ${r.reason}`);
    if (!reasons.some((r) => r.platform === platform)) {
      parts.push(`no sandbox backend is registered for platform ${JSON.stringify(platform)}`);
    }
    super(
      "SANDBOX_UNAVAILABLE",
      `sandbox policy ${JSON.stringify(mode)} needs a platform sandbox, but none is available on ${platform}: ${parts.join("; ")}`,
    );
    this.mode = mode;
    this.platform = platform;
    this.reasons = reasons;
  }
}
