/** Stable machine-readable codes for every error the CLI itself raises. */
export type CliErrorCode =
  | "CLI_USAGE"
  | "CLI_INVALID_DURATION"
  | "CLI_CONFIG"
  | "CLI_PROJECT_NOT_TRUSTED"
  | "CLI_BROAD_WORKSPACE"
  | "CLI_NO_TERMINAL"
  | "CLI_SANDBOX_BACKEND_PACKAGE"
  | "CLI_BUNDLE_FORMAT"
  | "CLI_MCP_UNKNOWN_TOOL";

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
  constructor(message: string, options?: { cause?: unknown; code?: "CLI_USAGE" | "CLI_INVALID_DURATION" }) {
    super(options?.code ?? "CLI_USAGE", message, options);
  }
}

/**
 * A duration (`--timeout`, the `timeout` config key) that is not one: the message names where it
 * came from and the value. A usage error, so commands exit as for any bad flag; in a config file
 * the same words become a `ConfigError` at the key's line.
 */
export class InvalidDurationError extends UsageError {
  /** The flag (`--timeout`) or config key (`timeout`) that gave the value. */
  readonly source: string;
  readonly value: string | number;
  /** What is wrong, without the source and value. */
  readonly reason: string;
  constructor(source: string, value: string | number, reason: string) {
    super(`${source}: ${reason}, got ${JSON.stringify(value)}`, { code: "CLI_INVALID_DURATION" });
    this.source = source;
    this.value = value;
    this.reason = reason;
  }
}

/**
 * A configuration file is unreadable or invalid; the message starts with `file:line:column` when the
 * problem has a place in the file (a syntax error, an invalid or unknown key), else with the file.
 */
export class ConfigError extends CliError {
  readonly file: string;
  /** 1-based line of the problem, when it has one. */
  readonly line: number | undefined;
  /** 1-based column of the problem, when it has one. */
  readonly column: number | undefined;
  constructor(
    file: string,
    message: string,
    options?: { cause?: unknown; code?: "CLI_CONFIG" | "CLI_PROJECT_NOT_TRUSTED"; line?: number; column?: number },
  ) {
    const where = options?.line !== undefined ? `${file}:${options.line}:${options.column ?? 1}` : file;
    super(options?.code ?? "CLI_CONFIG", `${where}: ${message}`, options);
    this.file = file;
    this.line = options?.line;
    this.column = options?.line !== undefined ? (options.column ?? 1) : undefined;
  }
}

/**
 * A configuration file is not a regular file: a FIFO (whose open or read would block), a socket, a
 * device, a directory. `found` says which; nothing was read from it.
 */
export class NotRegularFileError extends ConfigError {
  /** What is there instead: `FIFO`, `socket`, `character device`, `block device`, `directory`, `symbolic link`. */
  readonly found: string;
  constructor(file: string, found: string) {
    super(file, `found a ${found} where a regular file was expected; refusing to read it`);
    this.found = found;
  }
}

/** One project setting that would loosen what the user's own configuration gives. */
export interface ProjectWeakening {
  /** The key as written in the file, e.g. `sandbox_mode` or `sandbox_workspace_write.writable_roots`. */
  key: string;
  /** What the project file tried, e.g. `sandbox_mode = "danger-full-access"`. */
  tried: string;
  /** What the user's configuration (or the default) gives instead. */
  baseline: string;
  /** Where the key is written in the project file (1-based), when it could be located. */
  line?: number;
  column?: number;
}

/**
 * A project file (`<workspace>/.shellgate/config.toml`) of a project the user has not trusted tries to
 * loosen the sandbox or approval policy. The message names the file, each key, what it tried, and the
 * lines that would trust the project in the user's own configuration.
 */
export class UntrustedProjectConfigError extends ConfigError {
  /** The first offending key. */
  readonly key: string;
  readonly weakenings: readonly ProjectWeakening[];
  /** The user configuration file the trust lines belong in. */
  readonly userConfigFile: string;
  /** The TOML lines that mark the project trusted. */
  readonly trustSnippet: string;
  constructor(file: string, weakenings: readonly ProjectWeakening[], userConfigFile: string, trustSnippet: string) {
    const list = weakenings
      .map((w) => `  - ${w.line !== undefined ? `${file}:${w.line}:${w.column ?? 1}: ` : ""}${w.tried} (your configuration gives ${w.baseline})`)
      .join("\n");
    super(
      file,
      `this project is not trusted, and its configuration may only make the policy stricter; refused:\n${list}\n` +
        `Remove these settings, or trust the project by adding to ${userConfigFile}:\n${trustSnippet.trimEnd()}`,
      { code: "CLI_PROJECT_NOT_TRUSTED" },
    );
    this.key = weakenings[0]?.key ?? "";
    this.weakenings = weakenings;
    this.userConfigFile = userConfigFile;
    this.trustSnippet = trustSnippet;
  }
}

/** Why a writable directory counts as too broad. */
export type BroadRootReason = "filesystem-root" | "home" | "home-ancestor";

/** A writable directory under workspace-write that would expose `/` or the user's home. */
export interface BroadRoot {
  /** The directory as configured (`cwd` or a writable root). */
  path: string;
  /** Its real path. */
  real: string;
  /** Where it came from: `cwd` or the writable-roots setting. */
  source: "cwd" | "writable-root";
  reason: BroadRootReason;
}

/**
 * The workspace or a writable root is `/`, the user's home or an ancestor of it, under workspace-write,
 * and the user did not ask for that with `--allow-broad-workspace` or `allow_broad_workspace = true`.
 */
export class BroadWorkspaceError extends CliError {
  readonly roots: readonly BroadRoot[];
  constructor(roots: readonly BroadRoot[]) {
    const what = roots
      .map((r) => `${r.source === "cwd" ? "the workspace (--cwd)" : "writable root"} ${r.path}${r.real !== r.path ? ` (${r.real})` : ""} is ${BROAD_TEXT[r.reason]}`)
      .join("; ");
    super(
      "CLI_BROAD_WORKSPACE",
      `refusing to make it writable: ${what}. Under workspace-write every command could change anything there. ` +
        "Run from a project directory (--cwd DIR), or pass --allow-broad-workspace (or set allow_broad_workspace = true in your user config) if you mean it.",
    );
    this.roots = roots;
  }
}

const BROAD_TEXT: Record<BroadRootReason, string> = {
  "filesystem-root": "the filesystem root",
  home: "your home directory",
  "home-ancestor": "a directory that contains your home",
};

/** A person must decide but there is no terminal to ask on. */
export class NoTerminalError extends CliError {
  constructor(message: string) {
    super("CLI_NO_TERMINAL", message);
  }
}

/**
 * An MCP `tools/call` named a tool this server does not list. The MCP server answers it as the
 * JSON-RPC error -32602 (invalid params) with this message, and `code` and the tool names in its data.
 */
export class UnknownMcpToolError extends CliError {
  readonly tool: string;
  /** The tools this server lists (as `--tools` chose them). */
  readonly knownTools: readonly string[];
  constructor(tool: string, knownTools: readonly string[]) {
    super("CLI_MCP_UNKNOWN_TOOL", `unknown tool ${JSON.stringify(tool)}; this server's tools are ${knownTools.join(", ")}`);
    this.tool = tool;
    this.knownTools = [...knownTools];
  }
}

/** Why a sandbox backend's package gave no backend. */
export type BackendPackageProblem = "not-installed" | "no-backend";

/**
 * A sandbox backend is needed (named with `--backend`, or this platform's) and its package is not
 * installed, or is installed but provides no backend yet; the message names the package.
 * `shellgate sandbox` exits 125 with it.
 */
export class SandboxBackendPackageError extends CliError {
  /** The backend's name (`seatbelt`). */
  readonly backend: string;
  /** The package that provides it (`@shellgate/sandbox-seatbelt`). */
  readonly packageName: string;
  readonly problem: BackendPackageProblem;
  constructor(source: { name: string; package: string; factory: string }, problem: BackendPackageProblem, options?: { cause?: unknown }) {
    super(
      "CLI_SANDBOX_BACKEND_PACKAGE",
      problem === "not-installed"
        ? `the ${JSON.stringify(source.name)} sandbox backend needs the package ${source.package}, which is not installed (npm install ${source.package})`
        : `the ${JSON.stringify(source.name)} sandbox backend is not available in this version: ${source.package} does not provide ${source.factory} yet`,
      options,
    );
    this.backend = source.name;
    this.packageName = source.package;
    this.problem = problem;
  }
}

/**
 * dist/bundle/shellgate.cjs is not in the form the launcher runs (it starts with `BUNDLE_HEADER`):
 * a file left from another build, or edited. `npm run build` makes it again.
 */
export class BundleFormatError extends CliError {
  /** The bundle's path. */
  readonly file: string;
  constructor(file: string) {
    super("CLI_BUNDLE_FORMAT", `${file} does not start with the launcher's wrapper; rebuild it (npm run build -w @shellgate/cli)`);
    this.file = file;
  }
}
