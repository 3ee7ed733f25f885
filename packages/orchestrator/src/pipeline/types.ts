import type { SandboxWrittenCode } from "../admission/sandbox-written-code.js";
import type {
  CommandSpec, ExecEnv, RunRepository, SandboxDenial, SandboxManager, SandboxPermissions, SandboxPolicy, SandboxType, TransformOptions,
} from "@shellgate/sandbox";
import type { Admission, AdmissionDeps } from "../admission/assess.js";
import type { PolicyEvaluator } from "../admission/policy-types.js";
import type { ApprovalPolicy } from "../admission/approval-policy.js";
import type { ApprovalCache } from "../approval/cache.js";
import type { PolicyStore } from "../rules/policy-store.js";
import type { ApprovalHandler } from "../approval/types.js";
import type { SandboxRetryStatus } from "../approval/retry-message.js";
import type { DecisionTrace, EventBus } from "../events.js";
import type { HostApprovals } from "../network/host-approval.js";
import type { NetworkHostPolicy } from "../network/host-policy.js";
import type { NetworkRefusal, RunNetworkDeps } from "../network/run-network.js";

/** The session's network: how hosts are judged, who is asked about `prompt` hosts, how a run's proxy starts. */
export interface SessionNetwork extends Omit<RunNetworkDeps, "askHost" | "events" | "hostPolicy"> {
  hostPolicy: NetworkHostPolicy;
  approvals: HostApprovals;
}

/** One command the pipeline is asked to admit and run. */
export interface ExecRequest {
  callId: string;
  tool: string;
  /** The argv to run (for shell tools, the derived `[shell, -lc, script]`). */
  argv: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment (already through the shell environment policy). */
  env: Record<string, string>;
  permissions: SandboxPermissions;
  /** The model's reason for the request, shown to the person. */
  justification?: string;
  /** The model's suggested "always allow" prefix. */
  prefixRule?: string[];
  /** Cancels approval waits (the handler receives it) and is checked between steps. */
  signal?: AbortSignal;
  /** Extra facts that distinguish session approvals (e.g. `{ tty: true }` for interactive sessions). */
  approvalKeyExtra?: Record<string, string | number | boolean>;
  /**
   * The launcher runs the command on a PTY it allocates for this run alone, so the sandbox may give
   * the command that terminal as its controlling terminal (job control, Ctrl-C). See
   * `TransformOptions.dedicatedTerminal`.
   */
  dedicatedTerminal?: boolean;
}

/** The finished result of an attempt, which the pipeline judges. */
export interface ExecProbe {
  exitCode: number;
  stdout: string;
  stderr: string;
  aggregated: string;
  timedOut: boolean;
}

/**
 * What a launch returns: the caller's own value and, when the process has finished, the probe the
 * pipeline judges. No probe means the process is still running (an interactive session); it cannot be
 * judged, is never retried, and the launcher then owns `env.cleanup`.
 */
export interface LaunchResult<T> {
  value: T;
  probe?: ExecProbe;
}

/** What the pipeline offers a launcher besides the attempt's ExecEnv. */
export interface LaunchAttempt {
  /**
   * Prepares the same attempt again (the same command, policy and transform options) into a fresh
   * ExecEnv, for a sandbox started ahead of a later call. Absent where an attempt cannot be prepared
   * again on its own: a proxy-routed run, whose proxy belongs to that attempt. The caller owns the
   * fresh ExecEnv's cleanup.
   */
  prepareAgain?: () => Promise<ExecEnv>;
}

/** What a launcher may offer the pipeline besides launching. */
export interface LaunchHooks {
  /**
   * An ExecEnv for a sandboxed attempt without preparing one: a sandbox set up ahead of time whose
   * backend says that preparing `spec` with `policy` and `options` now would give that very sandbox
   * (`SparePool.claim`); undefined, and the pipeline prepares as usual. Not asked for proxy-routed
   * attempts. The launcher must recognise the ExecEnv it handed out when it gets it back.
   */
  claimSandbox?(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv | undefined>;
}

/** Spawns the command as prepared by the sandbox manager. Throw typed errors (SpawnFailedError, CancelledError). */
export type Launcher<T> = (env: ExecEnv, attempt: LaunchAttempt) => Promise<LaunchResult<T>>;

/** What the pipeline returns after a run that was allowed to happen. */
export interface PipelineOutcome<T> {
  /** The value of the last attempt. */
  value: T;
  /** The sandbox the last attempt ran under. */
  sandboxType: SandboxType;
  /** Whether an unsandboxed retry ran after a likely sandbox denial. */
  retried: boolean;
  /** True when the last attempt was most likely blocked by the sandbox and no retry was allowed. */
  sandboxDenied: boolean;
  /**
   * What the sandbox refused, with the way out for the model, when the last attempt ran sandboxed,
   * failed, and its own output (or exit status) shows the refusal (see `explainSandboxDenial`).
   * Absent after an unsandboxed retry.
   */
  sandboxDenial?: SandboxDenial;
  /**
   * Set when the policy would ask to retry outside the sandbox but the retry did not run: no one
   * could be asked (`no_approver`) or the person denied it (`declined`). See `sandboxRetryMessage`.
   */
  sandboxRetry?: SandboxRetryStatus;
  /**
   * Repositories the last attempt created (or whose hooks or config it changed) inside its writable
   * roots, when it ran sandboxed with write access and any were found, or the search was cut short.
   */
  runRepositories?: RunRepositoriesReport;
  admission: Admission;
  trace: DecisionTrace;
  /**
   * Set when allow rules would have let the command run outside the sandbox but it ran in it (or was
   * put to a person) because it would have run what a sandboxed command could have written: why,
   * and each resolved path.
   */
  sandboxKept?: SandboxKept;
  /**
   * The network of the last attempt when it went through the session proxy (or should have and could
   * not): read it once the command has finished, or at each response of a session, since hosts are
   * refused while it runs.
   */
  network?: NetworkReport;
}

/**
 * Git repositories a sandboxed run left in its writable roots: each is a hostile repository, whose
 * hooks and config the person's next git command there would run.
 */
export interface RunRepositoriesReport {
  repositories: RunRepository[];
  /** False when the search stopped at its directory budget (or could not run): there may be more. */
  complete: boolean;
  /** Directories searched. */
  directories: number;
  /** Of those, the ones read (the others were unchanged since an earlier run of the session). */
  listed: number;
}

/** Why an allow rule's run outside the sandbox was withheld (see `PipelineOutcome.sandboxKept`). */
export interface SandboxKept {
  /** One sentence naming the command and every path (raw: escape it before display). */
  reason: string;
  found: SandboxWrittenCode[];
}

/** What a run's network amounted to, as the model is told: refused hosts, and why it had none. */
export interface NetworkReport {
  /** Hosts the proxy refused so far. */
  refusals(): NetworkRefusal[];
  /** Set when the run had less network than its grants say: the proxy could not start, or stopped. */
  note(): string | undefined;
}

/** The long-lived parts of the pipeline, shared by every call of an orchestrator session. */
export interface PipelineContext {
  policies: PolicyStore<PolicyEvaluator>;
  approvalPolicy: ApprovalPolicy;
  sandboxPolicy: SandboxPolicy;
  /** `select` tells which backend (and so which proxy transport) a run gets; without it runs are never proxy-routed. */
  sandboxManager: Pick<SandboxManager, "prepare"> & Partial<Pick<SandboxManager, "select">>;
  /** Domain grants and the proxy that enforces them; absent means no proxy-routed network at all. */
  network?: SessionNetwork;
  /** Without a handler every call that needs approval is rejected. */
  approvalHandler?: ApprovalHandler;
  /**
   * Whether "run for this session" is offered: true (the default) where the context serves many calls,
   * false where each context runs one call (a CLI), since the approval would die with it.
   */
  sessionApprovals?: boolean;
  approvalCache: ApprovalCache;
  events: EventBus;
  /** Paths the sandbox keeps read-only inside writable roots; loaded rules files are always added. */
  protectedPaths?: string[];
  /** Where `approved_with_amendment` writes its rule (e.g. `~/.codex/rules/default.rules`). */
  userRulesFile?: string;
  /** The workspace the sandbox policy refers to; defaults to each call's cwd. */
  sandboxPolicyCwd?: string;
  /**
   * The sandboxed runs' own tool-cache directory (`applyToolCaches` of @shellgate/sandbox): every
   * `workspace-write` attempt gets it as a writable root, with the tools' variables pointing into it.
   * Unsandboxed attempts never see it. Absent: no tool caches.
   */
  toolCacheDir?: string;
  /**
   * Throws when the session's workspace is no longer the directory it started as (the orchestrator
   * checks device + inode of its real path); called right before every sandbox is prepared.
   */
  verifyWorkspace?: () => Promise<void>;
  /** Substitute classifiers (tests); defaults to shell-detect + execpolicy heuristics. */
  admissionDeps?: AdmissionDeps;
}
