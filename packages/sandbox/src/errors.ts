/** Stable machine-readable codes for every error this package throws. */
export type SandboxErrorCode =
  | "SANDBOX_INVALID_POLICY"
  | "SANDBOX_INVALID_PATH"
  | "SANDBOX_INVALID_COMMAND"
  | "SANDBOX_UNAVAILABLE"
  | "SANDBOX_BACKEND_CONFLICT"
  | "SANDBOX_BACKEND_NOT_FOUND"
  | "SANDBOX_INVALID_BACKEND"
  | "SANDBOX_TRANSFORM_FAILED"
  | "SANDBOX_UNPINNABLE_PATH"
  | "SANDBOX_GIT_CONFIG_UNREADABLE"
  | "SANDBOX_COMMAND_NOT_FOUND"
  | "SANDBOX_INVALID_EVIDENCE"
  | "SANDBOX_PROXY_UNSUPPORTED"
  | "SANDBOX_NOT_REGULAR_FILE";

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

/**
 * A protected path (git metadata, agent configuration, a rules file, a policy cache) is reached
 * through a symlink that sits in a writable directory. A sandboxed command could replace the link
 * and point the path at files it wrote, and no sandbox can hold a symlink itself in place, so the
 * run is refused rather than started with the path unprotected.
 */
export class UnpinnableProtectedPathError extends SandboxError {
  /** The protected path, as it was named (e.g. `/home/me/project/.git`). */
  readonly path: string;
  /** The symlink on the way to it that could be replaced. */
  readonly link: string;
  /** The writable directory that holds the link. */
  readonly directory: string;
  /** Set when git configuration named the path: the key and the config file (`file:line`) that did. */
  readonly gitConfig: GitConfigOrigin | undefined;
  constructor(protectedPath: string, link: string, directory: string, gitConfig?: GitConfigOrigin) {
    const via = link === protectedPath ? "is a symlink" : `is reached through the symlink ${JSON.stringify(link)}`;
    const named = gitConfig ? ` (named by \`${gitConfig.key}\` in ${gitConfig.file}:${gitConfig.line}, which git would run or read as configuration)` : "";
    super(
      "SANDBOX_UNPINNABLE_PATH",
      `the protected path ${JSON.stringify(protectedPath)}${named} ${via}, which lies in the writable directory ${JSON.stringify(directory)}: ` +
        "a sandboxed command could replace the link and redirect the path, and a symlink cannot be held in place, so the command was not run. " +
        "Replace the symlink with the directory or file it points to, or keep the directory that holds it out of the writable roots.",
    );
    this.path = protectedPath;
    this.link = link;
    this.directory = directory;
    this.gitConfig = gitConfig;
  }
}

/** Where a git setting was found: the key as git spells it and the config file and line that set it. */
export interface GitConfigOrigin {
  /** The key, e.g. `core.hooksPath` or `includeIf.gitdir:~/work/.path` (section and name lower-cased). */
  key: string;
  /** The config file, as git would open it. */
  file: string;
  /** 1-based line of the key in `file`. */
  line: number;
}

/**
 * A git config file that shellgate must read to know what git would run cannot be read safely: it
 * is a FIFO, a device, a socket or a directory (opening or reading it could hang or redirect the
 * host), it is too large, or git's own parser would reject it. The run is refused rather than
 * started without knowing what that file points git at.
 */
export class GitConfigUnreadableError extends SandboxError {
  /** The config file, as it was reached (an include names its own path). */
  readonly file: string;
  /** Line and column of a syntax error, when that is the reason. */
  readonly location: { line: number; column: number } | undefined;
  /** What is wrong with it. */
  readonly reason: string;
  constructor(file: string, reason: string, location?: { line: number; column: number }, options?: { cause?: unknown }) {
    const at = location ? `${file}:${location.line}:${location.column}` : file;
    super(
      "SANDBOX_GIT_CONFIG_UNREADABLE",
      `cannot read the git config file ${at}: ${reason}; shellgate reads every config file git would read for a repository in a ` +
        "writable root, to hold what it names read-only, so the command was not run. Replace or remove that file.",
      options,
    );
    this.file = file;
    this.location = location;
    this.reason = reason;
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

/**
 * The base of each backend's own error (`LinuxSandboxError`, `SeatbeltSandboxError`,
 * `WindowsSandboxError`): a transform failure that also says which kind it was, as a stable `failure`
 * from the backend's own list, for callers to branch on. A backend subclasses it only to fix its name
 * and its list, so every backend's error has the same shape.
 */
export abstract class SandboxBackendError<F extends string> extends SandboxTransformError {
  readonly failure: F;
  constructor(backend: string, failure: F, message: string, options?: { cause?: unknown }) {
    super(backend, message, options);
    this.failure = failure;
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

/**
 * The command's program does not exist where `execvp` would look (its `PATH`, or the path it names),
 * or is not an executable file. Raised before anything is spawned, so callers can say
 * "command not found" instead of reporting a sandbox failure.
 */
export class CommandNotFoundError extends SandboxError {
  /** The program as given (`argv[0]`). */
  readonly program: string;
  /** The search path used when the program has no slash; undefined for a path. */
  readonly searchPath: string | undefined;
  /** Why a program named by path cannot run (e.g. "not an executable file"); undefined when it is simply missing. */
  readonly detail: string | undefined;
  constructor(program: string, options: { searchPath?: string; detail?: string; cause?: unknown } = {}) {
    super("SANDBOX_COMMAND_NOT_FOUND", `command not found: ${program}${options.detail ? ` (${options.detail})` : ""}`, "cause" in options ? { cause: options.cause } : undefined);
    this.program = program;
    this.searchPath = options.searchPath;
    this.detail = options.detail;
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

/**
 * A run was to be proxy-routed (`TransformOptions.networkProxy`) but the backend, or the layer it
 * would use here, cannot confine the command to the proxy. Nothing runs: with more network the
 * domain policy would be bypassed, with less the command would fail without saying why.
 */
export class SandboxProxyUnsupportedError extends SandboxError {
  readonly backend: string;
  constructor(backend: string, reason: string) {
    super("SANDBOX_PROXY_UNSUPPORTED", `sandbox backend ${JSON.stringify(backend)} cannot route this run's network through the session proxy: ${reason}`);
    this.backend = backend;
  }
}

/** A backend was asked for by name and none of that name is registered. */
export class SandboxBackendNotFoundError extends SandboxError {
  readonly backend: string;
  /** The names that are registered, in preference order. */
  readonly registered: readonly string[];
  constructor(backend: string, registered: readonly string[]) {
    const known = registered.length > 0 ? `registered: ${registered.join(", ")}` : "no backend is registered";
    super("SANDBOX_BACKEND_NOT_FOUND", `no sandbox backend named ${JSON.stringify(backend)} (${known})`);
    this.backend = backend;
    this.registered = registered;
  }
}

/** An object handed to `SandboxManager.register` does not have the `SandboxBackend` shape; `field` names what is wrong. */
export class InvalidSandboxBackendError extends SandboxError {
  readonly field: string;
  constructor(field: string, message: string) {
    super("SANDBOX_INVALID_BACKEND", `sandbox backend: ${field}: ${message}`);
    this.field = field;
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

/** The evidence handed to `explainSandboxDenial` did not validate; `field` is its dotted path (e.g. `writableRoots.0.root`). */
export class InvalidDenialEvidenceError extends SandboxError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("SANDBOX_INVALID_EVIDENCE", `${field}: ${message}`, options);
    this.field = field;
  }
}

/**
 * A file read on the host that must be a regular file is something else (a FIFO, whose read would
 * block, a socket, a device, a directory, a link where none may be); `found` says which. Nothing
 * was read from it.
 */
export class SandboxNotRegularFileError extends SandboxError {
  readonly file: string;
  readonly found: string;
  constructor(file: string, found: string) {
    super("SANDBOX_NOT_REGULAR_FILE", `${file}: found a ${found} where a regular file was expected; refusing to read it`);
    this.file = file;
    this.found = found;
  }
}
