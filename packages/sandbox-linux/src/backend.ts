import fs from "node:fs/promises";
import path from "node:path";
import {
  computeWritableRoots,
  InvalidSandboxPathError,
  policyAllowsNetwork,
  policyRequiresPlatformSandbox,
  sandboxEnvMarkers,
  SandboxUnavailableError,
  type BackendAvailability,
  type CommandSpec,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { checkCommand } from "./command.js";
import { LinuxSandboxError } from "./errors.js";
import { splitLoaderEnv } from "./loader-env.js";
import { bwrapArgs, planMounts } from "./mount-plan.js";
import { acquirePlaceholders, releasePlaceholders } from "./placeholders.js";
import { probeLinuxSandbox, type LinuxCapabilityReport } from "./probe.js";

/** Options of `createLinuxSandboxBackend`. */
export interface LinuxSandboxBackendOptions {
  /** bubblewrap binary; default: `bwrap` from PATH. */
  bwrapPath?: string;
  /**
   * Accept the Landlock+seccomp fallback when bubblewrap cannot run (no user namespaces). It has
   * no private `/tmp`, `/proc` or network namespace, and does not enforce read-only carve-outs
   * inside writable roots; the `isolation` string of every run says so. Default false: refuse.
   */
  allowWeakerIsolation?: boolean;
  /**
   * Cache the capability probe in this file across processes (`defaultProbeCacheFile()` is the
   * usual place); worth it for short-lived callers such as a CLI. Its directory is kept read-only
   * inside every sandbox this backend builds.
   */
  probeCacheFile?: string;
}

/** Isolation string for Landlock runs, so callers can never mistake it for the full sandbox. */
const WEAKER = "landlock+seccomp (weaker: no namespaces; read-only carve-outs inside writable roots not enforced)";

function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function unavailableReason(report: LinuxCapabilityReport, allowWeaker: boolean): string {
  if (report.level === "weaker" && !allowWeaker) {
    return `${report.reasons.join("; ")}; the Landlock+seccomp fallback (weaker isolation) is available but not permitted (allowWeakerIsolation is off)`;
  }
  return report.reasons.join("; ") || "no sandbox layer works here";
}

/**
 * The Linux sandbox backend: bubblewrap (new namespaces, read-only root, writable roots,
 * carve-outs, masked reads) plus a seccomp filter installed by the native helper; Landlock +
 * seccomp instead when user namespaces are unavailable and `allowWeakerIsolation` is set.
 */
export function createLinuxSandboxBackend(options: LinuxSandboxBackendOptions = {}): SandboxBackend {
  const allowWeaker = options.allowWeakerIsolation ?? false;
  const probeOptions = {
    ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
    ...(options.probeCacheFile ? { cacheFile: options.probeCacheFile } : {}),
  };
  const probe = () => probeLinuxSandbox(probeOptions);
  const extraProtected = options.probeCacheFile ? [path.dirname(options.probeCacheFile)] : [];

  async function isAvailable(): Promise<BackendAvailability> {
    const report = await probe();
    if (report.level === "full") {
      const notes = report.bwrap.procMount ? [] : ["bwrap cannot mount /proc here; commands run without a fresh /proc"];
      return { available: true, isolation: report.isolation, notes };
    }
    if (report.level === "weaker" && allowWeaker) {
      const notes = [...report.reasons];
      if (report.landlock.abi < 6) notes.push(`Landlock ABI ${report.landlock.abi} < 6: commands can signal the user's other processes`);
      if (report.landlock.abi < 4) notes.push(`Landlock ABI ${report.landlock.abi} < 4: TCP is refused by seccomp alone`);
      return { available: true, isolation: WEAKER, notes };
    }
    return { available: false, reason: unavailableReason(report, allowWeaker) };
  }

  async function transform(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<ExecEnv> {
    await checkCommand(spec);
    if (!policyRequiresPlatformSandbox(policy) || (policy.mode !== "read-only" && policy.mode !== "workspace-write")) {
      // full access or an outer sandbox: nothing to enforce here
      return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env, ...sandboxEnvMarkers(policy, "none") }, sandboxType: "none", isolation: "none" };
    }
    const report = await probe();
    const layer = report.level === "full" ? "bwrap" : report.level === "weaker" && allowWeaker ? "landlock" : undefined;
    const helper = report.helper.path;
    // The helper binary (and the probe cache) must never be writable from inside: a command that
    // replaced the helper would run its own code as the next sandbox's enforcement step.
    const helperDir = helper ? path.dirname(helper) : undefined;
    // Roots are computed (and so validated) before availability is judged: bad input is reported
    // as such on every machine, not hidden behind "no sandbox here".
    const roots = await computeWritableRoots(policy, {
      cwd: opts.sandboxPolicyCwd,
      env: spec.env,
      protectedPaths: [...(opts.protectedPaths ?? []), ...extraProtected, ...(helperDir ? [helperDir] : [])],
    });
    if (!layer || !helper || !helperDir) {
      throw new SandboxUnavailableError(policy.mode, "linux", [{ backend: "linux", platform: "linux", reason: unavailableReason(report, allowWeaker) }]);
    }
    const network = policyAllowsNetwork(policy);
    const { safe, deferred } = splitLoaderEnv({ ...spec.env, ...sandboxEnvMarkers(policy, "linux") });
    const env = safe;
    const helperArgs = [helper, "--net", network ? "on" : "off", ...deferred];

    if (layer === "landlock") {
      if (policy.deniedReadPaths.length > 0) {
        throw new LinuxSandboxError("not-enforceable", "denied-read paths cannot be enforced by the Landlock fallback; refusing to run with them readable");
      }
      const exposed = roots.find((r) => isWithin(helper, r.root));
      if (exposed) {
        throw new LinuxSandboxError("not-enforceable", `the sandbox helper ${helper} lies inside the writable root ${exposed.root}, which Landlock cannot keep read-only; refusing to run`);
      }
      const rw = roots.flatMap((r) => ["--rw", r.root]);
      return { argv: [...helperArgs, "--landlock", ...rw, "--reap", "--", ...spec.argv], cwd: spec.cwd, env, sandboxType: "linux", isolation: WEAKER };
    }

    const plan = await planMounts(roots, policy.deniedReadPaths, [spec.cwd, opts.sandboxPolicyCwd, helperDir]);
    const realCwd = await fs.realpath(spec.cwd);
    const hiding = plan.maskedDirs.find((d) => isWithin(realCwd, d));
    if (hiding) throw new InvalidSandboxPathError("cwd", spec.cwd, `lies inside the denied-read path ${hiding}`);
    const bwrap = report.bwrap.path ?? "bwrap";
    const argv = [bwrap, ...bwrapArgs(plan, { network, procMount: report.bwrap.procMount, cwd: spec.cwd }), "--", ...helperArgs, "--", ...spec.argv];
    acquirePlaceholders(plan.stubs);
    let released = false;
    const cleanup = async () => {
      if (released) return;
      released = true;
      releasePlaceholders(plan.stubs);
    };
    return { argv, cwd: spec.cwd, env, sandboxType: "linux", isolation: report.isolation, cleanup };
  }

  return { name: "linux", platform: "linux", sandboxType: "linux", isAvailable, transform };
}
