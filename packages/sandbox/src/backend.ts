import type { NetworkMode, NetworkProxyRoute, ProxyTransport } from "./network-route.js";
import type { SandboxPolicy } from "./policy.js";

/**
 * Which sandbox enforced a command: the backend's own `sandboxType` (shellgate's are `linux`,
 * `seatbelt` and `windows`; an integrator's backend picks its own, such as `container`), or
 * {@link UNSANDBOXED} when it ran without one. An open string: the shared package does not need to
 * know every backend.
 */
export type SandboxType = string;

/** The `sandboxType` of a command that ran without a sandbox. No backend may use it. */
export const UNSANDBOXED = "none";

/** A file-system errno a backend answers a refused write with. */
export type RefusalErrno = "EROFS" | "EACCES" | "EPERM" | "EBUSY";

/**
 * How this backend's refusals show in a finished command. The likely-denial heuristic and the
 * denial explanation read them from the run's `ExecEnv`; a backend that gives none gets
 * {@link DEFAULT_DENIAL_SIGNALS} (output keywords only).
 */
export interface DenialSignals {
  /** Exit codes that by themselves mean the sandbox stopped the command (Linux: 159, a seccomp SIGSYS seen through a shell). */
  readonly exitCodes?: readonly number[];
  /** Signals the sandbox kills a command with (Linux: `SIGSYS`). */
  readonly signals?: readonly string[];
  /**
   * Errnos of a refused write under this run's isolation: an errno outside the list is the host's
   * own answer (bubblewrap's read-only mounts answer EROFS, so an EACCES there is the file's own mode).
   */
  readonly refusalErrnos?: readonly RefusalErrno[];
  /**
   * Output fragments (matched case-insensitively) that mean this sandbox refused something, on top
   * of the shared `SANDBOX_DENIAL_KEYWORDS` (Windows: `access is denied`).
   */
  readonly keywords?: readonly string[];
}

/** What is assumed of a backend that names no signals: no exit code or signal is the sandbox's by itself. */
export const DEFAULT_DENIAL_SIGNALS: Readonly<Required<DenialSignals>> = Object.freeze({
  exitCodes: Object.freeze([]) as readonly number[],
  signals: Object.freeze([]) as readonly string[],
  refusalErrnos: Object.freeze(["EROFS", "EACCES", "EPERM"]) as readonly RefusalErrno[],
  keywords: Object.freeze([]) as readonly string[],
});

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
  /**
   * The session's network proxy. Where the policy keeps the network off (read-only,
   * workspace-write without `networkAccess`), the run gets proxy-routed network: the proxy is the
   * only thing it can reach, and the proxy decides per host. The route's `transport` must be the
   * backend's `proxyTransport`; a backend that cannot route a run this way throws rather than run it
   * with more or less network than asked. Ignored when the policy grants full network.
   */
  networkProxy?: NetworkProxyRoute;
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
  /** How a refusal of this run shows (set by the backend for the layer it used; `SandboxManager` fills in the backend's default). */
  denialSignals?: DenialSignals;
  /** Removes temporary files the transform created; safe to call more than once. */
  cleanup?: () => Promise<void>;
  /**
   * The sandbox itself guarantees that the command and every descendant die when the process that
   * spawned `argv` dies, SIGKILL included (bubblewrap's `--die-with-parent` with a PID namespace).
   * A launcher may then skip its own host-death watchdog. Absent means no such guarantee.
   */
  diesWithParent?: boolean;
  /** The run's network as the backend set it up (see `networkModeOf`); absent means what the policy says, without a proxy. */
  networkMode?: NetworkMode;
  /**
   * The same run in two steps, where the backend can build it so: spawn `deferred.argv` (with this
   * ExecEnv's `cwd` and `env`, stdin/stdout/stderr as for `argv`, and a pipe as file descriptor 3),
   * which sets the sandbox up and then waits; write `deferred.payload` to descriptor 3 and close it,
   * and only then does the command start. A caller may spawn the first step ahead of time (a
   * pre-warmed sandbox) and use it for a later run whose ExecEnv has the same `reuseKey`.
   */
  deferred?: DeferredLaunch;
}

/** The two-step form of a run (see `ExecEnv.deferred`). */
export interface DeferredLaunch {
  /** The sandbox without its command: it reads the command from file descriptor 3. */
  argv: readonly string[];
  /** What to write to descriptor 3 to start this run's command (then close it). */
  payload: Uint8Array;
  /**
   * Equal keys mean the same sandbox for every command: the whole launch except the command and the
   * per-run names that do not change what the command can do (a run's own cgroup), plus the
   * identity (device, inode and birth time: inode numbers are reused) of every host path the sandbox
   * mounts, so that a key computed later differs when one of those paths was replaced in between.
   * Empty placeholder directories the launch makes itself may be left out. Opaque; compare for
   * equality only.
   */
  reuseKey: string;
  /**
   * This sandbox, set up ahead of its command, standing in for a transform of `spec`, `policy` and
   * `options` made now: the one-step argv and the payload that run `spec.argv` in it, when that
   * transform would give the same sandbox (the same reuse key); undefined when it would not, or when
   * this cannot tell without transforming (the caller then transforms). Makes nothing; may read.
   * Optional: a backend that cannot tell leaves it out, and callers compare reuse keys instead.
   */
  reuseFor?(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<DeferredStandIn | undefined>;
}

/** What `DeferredLaunch.reuseFor` answers: another command's launch in the same sandbox. */
export interface DeferredStandIn {
  /** The one-step argv of the command in this sandbox (as `ExecEnv.argv` would be). */
  argv: readonly string[];
  /** What to write to descriptor 3 of the waiting sandbox to start the command. */
  payload: Uint8Array;
}

/** Whether a backend can run here, and why not. */
export type BackendAvailability =
  | { available: true; isolation: string; notes?: readonly string[] }
  | { available: false; reason: string };

/**
 * What a backend would run for a command and a policy, computed without the platform (any OS) and
 * without side effects: nothing is created, probed or started. `shellgate sandbox --dry-run --json`
 * prints `backend`, `argv`, `env` and `plan` of it. JSON-serialisable throughout.
 */
export interface SandboxPlan {
  /** The backend's `name`. */
  backend: string;
  sandboxType: SandboxType;
  /** The isolation a run would get (`"bwrap+seccomp"`, …), assuming the platform has what the backend needs. */
  isolation: string;
  /** The argv that would be spawned. */
  argv: readonly string[];
  cwd: string;
  /** The variables the sandbox sets or changes (its markers included), not the ones the command inherits unchanged. */
  env: Readonly<Record<string, string>>;
  /** Inherited variables the sandbox removes from the command's environment (or passes on another way). */
  unsetEnv: readonly string[];
  /** The backend's own description of the confinement (mounts, profile, placeholders, assumptions…). */
  plan: Readonly<Record<string, unknown>>;
}

/**
 * A sandbox backend. Backends are registered with a `SandboxManager` (or passed to the orchestrator);
 * nothing in the shared packages names one. `transform` must never return a command with less
 * isolation than the policy asks for: it throws instead.
 */
export interface SandboxBackend {
  /** Stable identifier, e.g. `"linux"`; what `shellgate sandbox --backend NAME` selects. */
  readonly name: string;
  /** The `process.platform` this backend runs on. */
  readonly platform: NodeJS.Platform;
  /** What `ExecEnv.sandboxType` says for its runs; never {@link UNSANDBOXED}. */
  readonly sandboxType: SandboxType;
  /**
   * The markers its commands see besides the network one, which follows the policy. Default:
   * `CODEX_SANDBOX=<sandboxType>` (see `sandboxEnvMarkers`).
   */
  readonly envMarkers?: Readonly<Record<string, string>>;
  /** How its refusals show, when a run's `ExecEnv` does not say; default {@link DEFAULT_DENIAL_SIGNALS}. */
  readonly denialSignals?: DenialSignals;
  /**
   * How its runs reach a session network proxy (`TransformOptions.networkProxy`). Absent: the
   * backend cannot route through a proxy, and a caller with one must not ask it to.
   */
  readonly proxyTransport?: ProxyTransport;
  /** Probe (once, cached by the backend) whether it can run on this machine. */
  isAvailable(): Promise<BackendAvailability>;
  /** What `transform` would produce, on any OS and without side effects (see {@link SandboxPlan}). */
  plan(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<SandboxPlan>;
  /** Wrap the command so it runs under `policy` on this machine. */
  transform(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv>;
}
