import { spawn } from "node:child_process";
import os from "node:os";
import {
  applyToolCaches,
  parseSandboxPolicy,
  sandboxToolCacheDir,
  SandboxError,
  type CommandSpec,
  type SandboxManager,
  type SandboxPlan,
  type SandboxPolicy,
  type SandboxPolicyInput,
  type TransformOptions,
} from "@shellgate/sandbox";
import { existsSync } from "node:fs";
import path from "node:path";
import { buildCommandEnv } from "@shellgate/orchestrator/env";
import { CONFIG_FILE_NAME, PROJECT_DIR_NAME, userConfigDir } from "../../config/paths.js";
import { SANDBOX_BACKENDS, createSandboxManager } from "../../sandbox-backends.js";
import type { SandboxCommandRequest } from "./args.js";
import { sandboxProtectedPaths } from "./protected-paths.js";

/** Exit codes of `shellgate sandbox` when the command itself did not decide them. */
const SANDBOX_EXIT = {
  /** shellgate could not set up the requested sandbox (bad arguments, paths, or no sandbox here). */
  SHELLGATE_ERROR: 125,
  /** The command was not found. */
  NOT_FOUND: 127,
} as const;

/** A `shellgate sandbox -- CMD` request, run or `--dry-run`. */
export type RunRequest = Extract<SandboxCommandRequest, { kind: "run" }>;

function policyFor(request: RunRequest): SandboxPolicyInput {
  switch (request.mode) {
    case "danger-full-access":
      return { mode: "danger-full-access" };
    case "read-only":
      return { mode: "read-only", deniedReadPaths: request.deniedReadPaths };
    case "workspace-write":
      return {
        mode: "workspace-write",
        writableRoots: request.writableRoots,
        networkAccess: request.network,
        deniedReadPaths: request.deniedReadPaths,
      };
  }
}

/**
 * The command's environment: yours under the same `[shell_environment_policy]` that `exec` and `mcp`
 * apply (secret-looking variables dropped unless the configuration says otherwise), read from the
 * user's and the workspace's config files.
 * @throws ConfigError, UntrustedProjectConfigError (a project file that would loosen the policy).
 */
async function commandEnv(cwd: string): Promise<Record<string, string>> {
  return buildCommandEnv((await configuredEnvPolicy(cwd)) ?? {}, process.env);
}

async function configuredEnvPolicy(cwd: string) {
  // Most runs have no config file: the configuration code (and its schemas) loads only when one is
  // there, which is where `loadConfig` would read it too.
  const files = [path.join(userConfigDir(process.env), CONFIG_FILE_NAME), path.join(cwd, PROJECT_DIR_NAME, CONFIG_FILE_NAME)];
  if (!files.some((file) => existsSync(file))) return undefined;
  const { loadShellEnvironmentPolicy } = await import("../../config/load.js");
  return loadShellEnvironmentPolicy(cwd);
}

const PLATFORM_NAMES: Partial<Record<NodeJS.Platform, string>> = { linux: "Linux", darwin: "macOS", win32: "Windows" };

/** Map a sandbox error to the message and exit code people see. */
export function describeSandboxFailure(error: SandboxError): { message: string; exitCode: number } {
  const field = (error as { field?: unknown }).field;
  if (error.code === "SANDBOX_COMMAND_NOT_FOUND") return { message: error.message, exitCode: SANDBOX_EXIT.NOT_FOUND };
  if (error.code === "SANDBOX_BACKEND_NOT_FOUND") {
    // The sandbox package lists the registered backends; the CLI knows more than it registers.
    const known = SANDBOX_BACKENDS.map((b) => `${b.name} (${PLATFORM_NAMES[b.platform] ?? b.platform})`).join(", ");
    const name = (error as { backend?: unknown }).backend;
    return { message: `--backend: no sandbox backend named ${JSON.stringify(name)}; known backends: ${known}`, exitCode: SANDBOX_EXIT.SHELLGATE_ERROR };
  }
  const flag = typeof field === "string" ? field.replace(/^writableRoots\.\d+$/, "--writable-root").replace(/^deniedReadPaths\.\d+$/, "--deny-read") : undefined;
  const message = flag && flag !== field ? error.message.replace(/^[\w.]+: /, `${flag}: `) : error.message;
  return { message, exitCode: SANDBOX_EXIT.SHELLGATE_ERROR };
}

/** The command, policy and options both a run and a dry run hand to the manager. */
async function sandboxInputs(request: RunRequest): Promise<{ spec: CommandSpec; policy: SandboxPolicy; options: TransformOptions & { backend?: string } }> {
  const cwd = process.cwd();
  // Sandboxed tools get their own caches, as under `exec` (the host's stay read-only).
  const run = applyToolCaches({ policy: parseSandboxPolicy(policyFor(request)), env: await commandEnv(cwd), cwd, dir: sandboxToolCacheDir(process.env) });
  return {
    spec: { argv: request.argv, cwd, env: run.env },
    policy: run.policy,
    options: { sandboxPolicyCwd: cwd, protectedPaths: sandboxProtectedPaths(cwd), ...(request.backend !== undefined ? { backend: request.backend } : {}) },
  };
}

/** The manager for this request: the `--backend` one alone, or this platform's. */
function managerFor(request: RunRequest): Promise<SandboxManager> {
  return createSandboxManager({
    allowWeakerIsolation: request.allowWeakerIsolation,
    processLimit: request.processLimit,
    ...(request.backend !== undefined ? { backend: request.backend } : {}),
  });
}

/**
 * What `--dry-run` prints: the manager's plan of the command, created, probed and run nowhere, so it
 * works on any OS for any backend the CLI knows.
 * @throws SandboxError (bad paths, unknown backend), SandboxBackendPackageError.
 */
export async function planSandboxed(request: RunRequest, manager?: SandboxManager): Promise<SandboxPlan & { commandEnv: Record<string, string> }> {
  const { spec, policy, options } = await sandboxInputs(request);
  const plan = await (manager ?? (await managerFor(request))).plan(spec, policy, options);
  // What the command would start with: the environment after the policy, with the sandbox's own variables.
  const commandEnv = { ...spec.env, ...plan.env };
  for (const name of plan.unsetEnv) delete commandEnv[name];
  return { ...plan, commandEnv };
}

/**
 * Run the command under the sandbox with the current directory as the workspace; stdio is inherited
 * and the exit code passed through (128+n for a signal). It goes through `SandboxManager.prepare`,
 * which refuses a backend's unsandboxed result for a policy that needs a sandbox. Signals to
 * shellgate are forwarded; bubblewrap's --die-with-parent takes the sandbox down if shellgate dies.
 * `manager` is for tests; the CLI's comes from `sandbox-backends.ts`.
 */
export async function runSandboxed(request: RunRequest, manager?: SandboxManager): Promise<number> {
  const { spec, policy, options } = await sandboxInputs(request);
  const execEnv = await (manager ?? (await managerFor(request))).prepare(spec, policy, options);
  try {
    const [file, ...args] = execEnv.argv;
    if (!file) throw new Error("sandbox produced an empty command");
    const child = spawn(file, args, { cwd: execEnv.cwd, env: { ...execEnv.env }, stdio: "inherit" });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    for (const s of signals) process.on(s, forward);
    try {
      return await new Promise<number>((resolve, reject) => {
        child.on("error", reject);
        child.on("close", (code, signal) => {
          if (code !== null) resolve(code);
          else resolve(128 + (signal ? (os.constants.signals[signal] ?? 0) : 0));
        });
      });
    } finally {
      for (const s of signals) process.off(s, forward);
    }
  } finally {
    await execEnv.cleanup?.();
  }
}

export { SandboxError };
