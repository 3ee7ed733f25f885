import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  policyAllowsNetwork,
  policyRequiresPlatformSandbox,
  type CommandSpec,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { bwrapLaunchArgv } from "./launch-argv.js";
import { HELPER_NAME, locateHelper } from "./helper-path.js";
import { splitLoaderEnv } from "./loader-env.js";
import { planProcessLimit } from "./process-limit.js";
import { bwrapView, runRoots } from "./run-view.js";
import { BWRAP_LOCATIONS, currentUid } from "./trusted-path.js";

/** What `planLinuxRun` needs besides the command and the policy: the backend's own settings. */
export interface LinuxPlanSettings {
  bwrapPath?: string;
  /** Process limit, or undefined for none. */
  processLimit?: number;
  privateTmpSizeBytes: number;
  /** Directories the backend keeps read-only besides the caller's (the probe cache's). */
  extraProtected: readonly string[];
}

/** Where the helper is, or where a build of this package puts it. */
function helperLocation(): { path: string; built: boolean } {
  const found = locateHelper();
  if (found) return { path: found, built: true };
  return { path: fileURLToPath(new URL(`./native/${HELPER_NAME}`, import.meta.url)), built: false };
}

/**
 * How a run would enforce the process limit. On Linux this reads the cgroup mounts (nothing is
 * created); elsewhere the machine cannot say, and the rlimit a non-root user gets is assumed.
 */
function limitPlan(limit: number | undefined): { args: string[]; enforcement: string } {
  if (limit === undefined) return { args: [], enforcement: "off" };
  const uid = currentUid();
  const how = process.platform === "linux" ? planProcessLimit("bwrap", uid).how : "rlimit";
  const args = uid !== 0 ? ["--nproc", String(limit)] : [];
  // A cgroup wraps the argv in `helper --cgroup DIR --exec-only --` at run time; the directory is
  // made per run, so a plan names the enforcement but shows no cgroup path.
  return { args, enforcement: how === "cgroup" ? "pids cgroup made per run (not shown in argv)" : how === "rlimit" ? "RLIMIT_NPROC" : "not enforceable here" };
}

/**
 * What the bubblewrap layer would run for `spec` under `policy`: computed from the same writable
 * roots, carve-outs and mount plan as a real run, with no probe, no placeholder made, no cgroup and
 * no trust check of the binaries. It assumes the full layer works (bubblewrap at its usual place,
 * a fresh `/proc`), and says so under `plan.assumed`; where it does not, a real run refuses, or
 * uses the Landlock layer when weaker isolation is allowed. Runs on any OS (paths are read, not
 * changed).
 */
export async function planLinuxRun(
  spec: CommandSpec,
  policy: SandboxPolicy,
  opts: TransformOptions,
  settings: LinuxPlanSettings,
): Promise<SandboxPlan> {
  if (!policyRequiresPlatformSandbox(policy) || (policy.mode !== "read-only" && policy.mode !== "workspace-write")) {
    return {
      backend: "linux", sandboxType: "none", isolation: "none", argv: [...spec.argv], cwd: spec.cwd, env: {}, unsetEnv: [],
      plan: { sandboxed: false, reason: `policy "${policy.mode}" needs no platform sandbox` },
    };
  }
  const helper = helperLocation();
  const bwrapPath = settings.bwrapPath ?? BWRAP_LOCATIONS.find((p) => existsSync(p)) ?? (BWRAP_LOCATIONS[0] as string);
  const helperDir = path.dirname(helper.path);
  const roots = await runRoots(spec, policy, opts, [...settings.extraProtected, helperDir]);
  const mounts = await bwrapView(roots, spec, policy.deniedReadPaths, opts, helperDir);
  const { safe, deferred } = splitLoaderEnv(spec.env);
  const network = policyAllowsNetwork(policy);
  const limit = limitPlan(settings.processLimit);
  const argv = bwrapLaunchArgv({
    bwrapPath, helperPath: helper.path, mounts, procMount: true, cwd: spec.cwd, network,
    privateTmpSizeBytes: settings.privateTmpSizeBytes,
    dedicatedTerminal: opts.dedicatedTerminal === true, deferredEnv: deferred, limitArgs: limit.args, argv: spec.argv,
  });
  const unsetEnv = Object.keys(spec.env).filter((name) => !(name in safe));
  return {
    backend: "linux",
    sandboxType: "linux",
    isolation: "bwrap+seccomp",
    argv,
    cwd: spec.cwd,
    env: {},
    unsetEnv,
    plan: {
      layer: "bwrap",
      network,
      writableRoots: roots.map((r) => ({ root: r.root, readOnlySubpaths: [...r.readOnlySubpaths] })),
      mounts: { ...mounts },
      placeholders: [...mounts.stubs],
      deniedReadPaths: [...policy.deniedReadPaths],
      privateTmpSizeBytes: mounts.privateTmp ? settings.privateTmpSizeBytes : null,
      processLimit: settings.processLimit ?? null,
      processLimitEnforcement: limit.enforcement,
      ...(unsetEnv.length > 0 ? { loaderVariables: "set by the helper inside the sandbox (--setenv), never seen by bubblewrap" } : {}),
      assumed: {
        bwrapPath,
        helperPath: helper.path,
        helperBuilt: helper.built,
        procMount: true,
        note: "a real run probes bubblewrap, user namespaces and seccomp first, checks that both binaries are root-owned and outside every writable root, and creates the placeholders for the run",
      },
    },
  };
}
