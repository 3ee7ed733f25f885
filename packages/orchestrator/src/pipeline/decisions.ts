import { statSync } from "node:fs";
// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import os from "node:os";
import type { DenialEvidence, DenialSignals, ExecEnv, SandboxDenial, SandboxPolicy, TransformOptions } from "@shellgate/sandbox";
import { computeWritableRoots, explainSandboxDenial, isLikelySandboxDenied } from "@shellgate/sandbox";
import type { ApprovalPolicy } from "../admission/approval-policy.js";
import { hasDeniedReads } from "../admission/requirement.js";
import type { ExecProbe } from "./types.js";

/**
 * Whether a likely sandbox denial may lead to asking for an unsandboxed retry. `never` cannot ask and
 * `on-request` has the model ask up front instead; denied-read paths must stay enforced.
 */
export function retryAllowed(approvalPolicy: ApprovalPolicy, sandboxPolicy: SandboxPolicy): boolean {
  if (approvalPolicy !== "untrusted" && approvalPolicy !== "on-failure") return false;
  return !hasDeniedReads(sandboxPolicy);
}

/** What a finished attempt amounts to. A plain non-zero exit is a result, never a denial by itself. */
export type ProbeVerdict = "success" | "nonzero_exit" | "timeout" | "sandbox_denied";

/** Judge a finished attempt; `env` is the run's, whose backend said how its refusals show (`denialSignals`). */
export function judgeProbe(probe: ExecProbe, env: Pick<ExecEnv, "sandboxType" | "denialSignals">): ProbeVerdict {
  if (probe.timedOut) return "timeout";
  if (probe.exitCode === 0) return "success";
  return isLikelySandboxDenied(probe, env) ? "sandbox_denied" : "nonzero_exit";
}

/**
 * A verdict that also counts an explained denial: a refusal the explanation found (a resolver
 * error while the network is off) is a sandbox denial even without one of the heuristic's words.
 */
export function verdictWithDenial(verdict: ProbeVerdict, denial: SandboxDenial | undefined): ProbeVerdict {
  return verdict === "nonzero_exit" && denial !== undefined ? "sandbox_denied" : verdict;
}

/**
 * Explain a failed sandboxed attempt from its own evidence (see `explainSandboxDenial`), written for
 * the model. `undefined` for an unsandboxed, successful or timed-out attempt, and whenever the
 * evidence does not show the sandbox refused something. Never throws: an explanation that cannot be
 * built (the workspace went away) leaves the result as it is.
 */
export async function explainAttempt(
  policy: SandboxPolicy,
  request: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>> },
  env: Pick<ExecEnv, "sandboxType" | "isolation" | "denialSignals">,
  probe: ExecProbe,
  options: TransformOptions,
  approvalAvailable = true,
  hostAllowed?: (host: string) => boolean,
): Promise<SandboxDenial | undefined> {
  if (env.sandboxType === "none" || probe.exitCode === 0 || probe.timedOut) return undefined;
  try {
    // The same roots the backend computed for this run; messages print paths as the command saw them.
    const writableRoots = await computeWritableRoots(policy, {
      cwd: options.sandboxPolicyCwd,
      env: request.env,
      ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
    });
    return explainSandboxDenial(
      {
        exitCode: probe.exitCode,
        stdout: probe.stdout,
        stderr: probe.stderr,
        aggregated: probe.aggregated,
        sandboxType: env.sandboxType,
        isolation: env.isolation,
        ...(env.denialSignals ? { denialSignals: copySignals(env.denialSignals) } : {}),
        policy,
        writableRoots,
        cwd: await fs.promises.realpath(request.cwd),
        command: [...request.argv],
        homeDir: os.homedir(),
        // a directory every run holds read-only is never offered as a writable root
        ...(options.protectedPaths ? { protectedPaths: [...options.protectedPaths] } : {}),
      },
      {
        audience: "model",
        directoryExists,
        approvalAvailable,
        ...(options.networkProxy !== undefined ? { network: { proxied: true, ...(hostAllowed ? { allowed: hostAllowed } : {}) } } : {}),
      },
    );
  } catch {
    return undefined;
  }
}

/** Whether `dir` is an existing directory: a suggested writable root must be one. */
function directoryExists(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The reason shown when asking to retry outside the sandbox. */
export const RETRY_REASON = "command failed; retry without sandbox?";

/**
 * Remove an attempt's sandbox files once its process is gone. Best effort: a failed cleanup must not
 * turn a finished command into a failed call.
 */
export async function releaseSandbox(env: Pick<ExecEnv, "cleanup">): Promise<void> {
  await env.cleanup?.().catch(() => undefined);
}

/** The run's denial signals as the evidence schema takes them (plain mutable arrays). */
function copySignals(signals: DenialSignals): NonNullable<DenialEvidence["denialSignals"]> {
  return {
    ...(signals.exitCodes ? { exitCodes: [...signals.exitCodes] } : {}),
    ...(signals.signals ? { signals: [...signals.signals] } : {}),
    ...(signals.refusalErrnos ? { refusalErrnos: [...signals.refusalErrnos] } : {}),
    ...(signals.keywords ? { keywords: [...signals.keywords] } : {}),
  };
}
