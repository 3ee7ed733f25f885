import type { SandboxPolicy } from "./policy.js";

/** Which platform sandbox enforced a command; `none` when it ran unsandboxed. Drives the denial heuristic. */
export type SandboxType = "none" | "linux" | "seatbelt" | "windows";

/** The command as the caller wants it run, before any sandbox wraps it. */
export interface CommandSpec {
  /** Program and arguments; `argv[0]` is resolved through PATH by the spawner. */
  argv: readonly string[];
  /** Absolute working directory of the command. */
  cwd: string;
  /** The complete environment of the command (not merged with the host's). */
  env: Readonly<Record<string, string>>;
}

/** What a backend needs besides the command and the policy. */
export interface TransformOptions {
  /** The directory the policy's relative notions (the workspace) refer to; usually the session cwd. */
  sandboxPolicyCwd: string;
  /** Extra paths that must stay read-only even inside writable roots, e.g. directories holding loaded policy files. */
  protectedPaths?: readonly string[];
  /**
   * The command will run on a pseudo-terminal the caller allocated for this run alone (as a PTY
   * session does), so a backend may let the command use it as its controlling terminal: job
   * control, Ctrl-C and Ctrl-Z then work inside the sandbox. Never set it for a terminal the caller
   * inherited (a user's own terminal): a sandboxed command must not share that terminal's session.
   */
  dedicatedTerminal?: boolean;
}

/** The command as it must actually be spawned to run inside the sandbox. */
export interface ExecEnv {
  /** The argv to spawn (e.g. `["bwrap", ..., "--", ...original argv]`). */
  argv: readonly string[];
  cwd: string;
  /** The full environment for the spawned process, markers such as `CODEX_SANDBOX_NETWORK_DISABLED` included. */
  env: Readonly<Record<string, string>>;
  sandboxType: SandboxType;
  /** Human-readable isolation achieved, e.g. `"bwrap+seccomp"`, `"landlock+seccomp"`, `"none"`. */
  isolation: string;
  /** Removes temporary files the transform created; safe to call more than once. */
  cleanup?: () => Promise<void>;
  /**
   * The sandbox itself guarantees that the command and every descendant die when the process that
   * spawned `argv` dies, SIGKILL included (bubblewrap's `--die-with-parent` with a PID namespace).
   * A launcher may then skip its own host-death watchdog. Absent means no such guarantee.
   */
  diesWithParent?: boolean;
}

/** Whether a backend can run here, and why not. */
export type BackendAvailability =
  | { available: true; isolation: string; notes?: readonly string[] }
  | { available: false; reason: string };

/**
 * A platform sandbox. Backends are registered with a `SandboxManager`; callers never name one directly.
 * `transform` must never return a command with less isolation than the policy asks for: it throws instead.
 */
export interface SandboxBackend {
  /** Stable identifier, e.g. `"linux-bwrap"`. */
  readonly name: string;
  /** The `process.platform` this backend runs on. */
  readonly platform: NodeJS.Platform;
  readonly sandboxType: SandboxType;
  /** Probe (once, cached by the backend) whether it can run on this machine. */
  isAvailable(): Promise<BackendAvailability>;
  /** Wrap the command so it runs under `policy`. */
  transform(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv>;
}
