import fs from "node:fs";
import path from "node:path";
import type { ProcessHandle, ProcessSpec } from "@shellgate/pty";
import type { SandboxPermissions } from "@shellgate/sandbox";
import { deriveExecArgs } from "@shellgate/shell-detect";
import type { Shell } from "@shellgate/shell-detect";
import { InvalidToolArgumentsError } from "../../errors.js";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../schemas.js";
import type { EventBus } from "../../events.js";
import type { OutputSpill } from "../../output/spill.js";
import type { TruncationPolicy } from "../../output/truncate.js";
import type { ExecPipeline } from "../../pipeline/exec-pipeline.js";
import type { UnifiedExecManager } from "../../sessions/manager.js";
import type { SessionProcess } from "../../sessions/session.js";
import type { SparePool } from "./spare-pool.js";

/** What a session process is started from: the (sandbox-prepared) command and whether it gets a terminal. */
export interface SessionSpawnSpec {
  argv: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  /** Start on a PTY allocated for this session alone (the sandbox relies on it: the command may take it as its controlling terminal). */
  tty: boolean;
}

/** Starts the process behind an interactive session (default: `@shellgate/pty`). */
export type SessionProcessFactory = (spec: SessionSpawnSpec) => SessionProcess | Promise<SessionProcess>;

/** Starts a one-shot process (default: `@shellgate/pty`'s `spawnPipe`). */
export type PipeSpawner = (spec: ProcessSpec) => ProcessHandle;

/** The services the built-in tool handlers run on; the `Orchestrator` builds it. */
export interface ToolRuntime {
  /** The session's working directory; `workdir` arguments resolve against it. */
  readonly cwd: string;
  /** The user's default shell (for `shell_command`, and `exec_command` without `shell`). */
  userShell(): Shell;
  /** The shell a model named in `exec_command`'s `shell`. */
  resolveShell(requested: string): Shell;
  /** The environment for a command (already through the shell environment policy). */
  commandEnv(kind: "one-shot" | "session"): Record<string, string>;
  readonly pipeline: Pick<ExecPipeline, "run">;
  readonly events: EventBus;
  readonly spill: OutputSpill | undefined;
  /** Token/byte budget of one-shot outputs shown to the model. */
  readonly oneShotOutputPolicy: TruncationPolicy;
  /** Whether login shells are allowed (see `loginFor`). */
  readonly allowLoginShell: boolean;
  /** Wrapper-aware known-safe check, used to mark calls non-mutating. */
  isKnownSafe(argv: readonly string[]): Promise<boolean>;
  readonly spawnPipe: PipeSpawner;
  /** Pre-warmed sandboxes for one-shot runs; absent when the orchestrator keeps none. */
  readonly spares?: SparePool;
  readonly spawnSession: SessionProcessFactory;
  readonly sessions: UnifiedExecManager;
}

/** Per-call safety fields shared by the exec tools. */
export interface SafetyArgs {
  sandbox_permissions?: SandboxPermissions | undefined;
  justification?: string | undefined;
  prefix_rule?: string[] | undefined;
}

/** The pipeline's optional request fields from a tool's safety arguments. */
export function safetyFields(args: SafetyArgs): { permissions: SandboxPermissions; justification?: string; prefixRule?: string[] } {
  return {
    permissions: args.sandbox_permissions ?? "use_default",
    ...(args.justification !== undefined ? { justification: args.justification } : {}),
    ...(args.prefix_rule !== undefined ? { prefixRule: args.prefix_rule } : {}),
  };
}

/**
 * The absolute working directory of a call: `workdir` (empty = absent; relative to the session cwd).
 * @throws InvalidToolArgumentsError naming `workdir` when it is not an existing directory.
 */
export async function resolveWorkdir(tool: string, base: string, workdir: string | undefined): Promise<string> {
  if (workdir === undefined || workdir.trim() === "") return base;
  const resolved = path.resolve(base, workdir);
  // Synchronous: one lookup per call, cheaper than a thread-pool round trip (and node:fs/promises).
  let info: fs.Stats | undefined;
  try {
    info = fs.statSync(resolved, { throwIfNoEntry: false });
  } catch {
    // unreadable (EACCES, ENOTDIR, ELOOP): reported as not an existing directory, as a missing one is
  }
  if (!info?.isDirectory()) throw new InvalidToolArgumentsError(tool, "workdir", `${resolved} is not an existing directory`);
  return resolved;
}

/** The message the model gets for `login: true` when login shells are disabled. */
export const LOGIN_SHELL_DISABLED = "login shell is disabled by config; omit `login` or set it to false.";

/**
 * Whether to run a login shell: the model's `login`, else the configured default.
 * @throws InvalidToolArgumentsError naming `login` when it asks for a login shell that config disallows.
 */
export function loginFor(tool: string, runtime: Pick<ToolRuntime, "allowLoginShell">, login: boolean | undefined): boolean {
  if (login === true && !runtime.allowLoginShell) throw new InvalidToolArgumentsError(tool, "login", LOGIN_SHELL_DISABLED);
  return login ?? runtime.allowLoginShell;
}

/**
 * The argv that runs `script` in `shell`, as a login shell when `loginFor` says so.
 * @throws InvalidToolArgumentsError naming `login` when it asks for a login shell that config disallows.
 */
export function shellScriptArgv(
  tool: string,
  runtime: Pick<ToolRuntime, "allowLoginShell">,
  shell: Shell,
  script: string,
  login: boolean | undefined,
): string[] {
  return deriveExecArgs(shell, script, { login: loginFor(tool, runtime, login) });
}

/** A unified exec output budget: the model's `max_output_tokens` (default 10 000), capped by the session's budget. */
export function outputTokensFor(runtime: Pick<ToolRuntime, "oneShotOutputPolicy">, requested: number | undefined): number {
  return Math.min(requested ?? DEFAULT_MAX_OUTPUT_TOKENS, runtime.oneShotOutputPolicy.limit);
}
