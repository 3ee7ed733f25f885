import { spawn } from "node:child_process";
import os from "node:os";
import { parseSandboxPolicy, SandboxError, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, defaultProbeCacheFile } from "@shellgate/sandbox-linux";
import type { SandboxCommandRequest } from "./args.js";

/** Exit codes of `shellgate sandbox` when the command itself did not decide them. */
export const SANDBOX_EXIT = {
  /** shellgate could not set up the requested sandbox (bad arguments, paths, or no sandbox here). */
  SHELLGATE_ERROR: 125,
  /** The command was not found. */
  NOT_FOUND: 127,
} as const;

type RunRequest = Extract<SandboxCommandRequest, { kind: "run" }>;

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

function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** Map a sandbox error to the message and exit code people see. */
export function describeSandboxFailure(error: SandboxError): { message: string; exitCode: number } {
  const field = (error as { field?: unknown }).field;
  if (error.code === "SANDBOX_COMMAND_NOT_FOUND") return { message: error.message, exitCode: SANDBOX_EXIT.NOT_FOUND };
  const flag = typeof field === "string" ? field.replace(/^writableRoots\.\d+$/, "--writable-root").replace(/^deniedReadPaths\.\d+$/, "--deny-read") : undefined;
  const message = flag && flag !== field ? error.message.replace(/^[\w.]+: /, `${flag}: `) : error.message;
  return { message, exitCode: SANDBOX_EXIT.SHELLGATE_ERROR };
}

/**
 * Run the command under the Linux sandbox with the current directory as the workspace; stdio is
 * inherited and the exit code passed through (128+n for a signal). Signals to shellgate are
 * forwarded; bubblewrap's --die-with-parent takes the sandbox down if shellgate itself dies.
 */
export async function runSandboxed(request: RunRequest): Promise<number> {
  const cwd = process.cwd();
  const policy = parseSandboxPolicy(policyFor(request));
  // a CLI process lives for one command: keep the capability probe on disk between runs
  const backend = createLinuxSandboxBackend({
    allowWeakerIsolation: request.allowWeakerIsolation,
    probeCacheFile: defaultProbeCacheFile(),
  });
  const execEnv = await backend.transform({ argv: request.argv, cwd, env: hostEnv() }, policy, { sandboxPolicyCwd: cwd });
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
