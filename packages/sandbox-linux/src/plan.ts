import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  networkModeOf,
  policyRequiresPlatformSandbox,
  SandboxProxyUnsupportedError,
  type CommandSpec,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { bwrapLaunchArgv } from "./launch-argv.js";
import { HELPER_NAME, locateHelper } from "./helper-path.js";
import { splitLoaderEnv } from "./loader-env.js";
import { planProcessLimit } from "./process-limit.js";
import { settledProbe } from "./probe.js";
import { LANDLOCK_PROXY_REASON, networkEnv, runNetwork } from "./proxy-route.js";
import { bwrapView, runRoots } from "./run-view.js";
import { BWRAP_LOCATIONS, currentUid } from "./trusted-path.js";
import { planSpecialFiles, specialFileArgs, SPECIAL_FILES_LANDLOCK_ABI, SPECIAL_FILES_REFUSED_NOTE } from "./special-files.js";

/** What `planLinuxRun` needs besides the command and the policy: the backend's own settings. */
export interface LinuxPlanSettings {
  bwrapPath?: string;
  /** Process limit, or undefined for none. */
  processLimit?: number;
  privateTmpSizeBytes: number;
  /** Directories the backend keeps read-only besides the caller's (the probe cache's, the placeholder locks'). */
  extraProtected: readonly string[];
  /** Where the placeholders' lock files are (see `placeholders.ts`). */
  placeholderLockDir: string;
  /** The backend accepts the Landlock layer where bubblewrap cannot run. */
  allowWeakerIsolation?: boolean;
  /** The backend's probe options, to find a probe this process already made (never a new one). */
  probeOptions?: { bwrapPath?: string; cacheFile?: string };
}

/**
 * Whether a run here would use the Landlock layer, as far as can be told without probing: only
 * when the backend accepts it, and either a probe this process already made says bubblewrap
 * cannot run, or (on Linux) the bubblewrap the plan names is not there.
 */
function wouldUseLandlock(settings: LinuxPlanSettings, bwrapPath: string): boolean {
  if (!settings.allowWeakerIsolation) return false;
  const report = settledProbe(settings.probeOptions);
  if (report) return report.level === "weaker";
  return process.platform === "linux" && !existsSync(bwrapPath);
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
  // A cgroup adds `--cgroup DIR` to the helper that starts bwrap at run time; the directory is made
  // per run, so a plan names the enforcement but shows no cgroup path.
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
  if (networkModeOf(policy, opts.networkProxy) === "proxy" && wouldUseLandlock(settings, bwrapPath)) {
    throw new SandboxProxyUnsupportedError("linux", LANDLOCK_PROXY_REASON);
  }
  const helperDir = path.dirname(helper.path);
  const roots = await runRoots(spec, policy, opts, [...settings.extraProtected, helperDir]);
  const mounts = await bwrapView(roots, spec, policy.deniedReadPaths, opts, helperDir);
  const { mode: networkMode, proxy } = await runNetwork(policy, opts, roots, { checkSockets: false });
  const commandEnv = networkEnv(spec.env, proxy, networkMode);
  const { safe, deferred } = splitLoaderEnv(commandEnv);
  const limit = limitPlan(settings.processLimit);
  // A probe already made says what the kernel offers; without one the plan assumes Landlock ABI 2.
  const landlockAbi = settledProbe(settings.probeOptions)?.landlock.abi ?? SPECIAL_FILES_LANDLOCK_ABI;
  const special = planSpecialFiles({ roots, env: spec.env, privateTmp: mounts.privateTmp, layer: "bwrap", landlockAbi });
  const argv = bwrapLaunchArgv({
    specialFileArgs: specialFileArgs(special, "bwrap"),
    bwrapPath, helperPath: helper.path, mounts, procMount: true, cwd: spec.cwd, networkMode, ...(proxy ? { proxy } : {}),
    privateTmpSizeBytes: settings.privateTmpSizeBytes,
    dedicatedTerminal: opts.dedicatedTerminal === true, deferredEnv: deferred, limitArgs: limit.args, argv: spec.argv,
    placeholderLockDir: settings.placeholderLockDir,
  });
  // Loader variables pass through the helper instead; proxy variables are dropped or replaced.
  const unsetEnv = Object.keys(spec.env).filter((name) => !(name in safe));
  return {
    backend: "linux",
    sandboxType: "linux",
    isolation: special.mode === "refuse" ? `bwrap+seccomp (${SPECIAL_FILES_REFUSED_NOTE})` : "bwrap+seccomp",
    argv,
    cwd: spec.cwd,
    env: proxy ? { ...proxy.env } : {},
    unsetEnv,
    plan: {
      layer: "bwrap",
      network: networkMode === "full",
      networkMode,
      proxy: proxy
        ? {
            mountDir: proxy.mountDir,
            relays: proxy.relays.map((r) => ({ ...r })),
            note: "each host socket is bound read-only at its path inside; the helper listens on 127.0.0.1:PORT in the run's own network namespace before the command starts and relays every connection to a fresh connect() of the socket; the command may create IP sockets only",
          }
        : null,
      writableRoots: roots.map((r) => ({ root: r.root, readOnlySubpaths: [...r.readOnlySubpaths] })),
      mounts: { ...mounts },
      placeholders: [...mounts.stubs],
      deniedReadPaths: [...policy.deniedReadPaths],
      privateTmpSizeBytes: mounts.privateTmp ? settings.privateTmpSizeBytes : null,
      processLimit: settings.processLimit ?? null,
      processLimitEnforcement: limit.enforcement,
      specialFiles: {
        mode: special.mode,
        allowedIn: [...special.allowedIn],
        withheld: special.withheld.map((w) => ({ ...w })),
        note: special.mode === "landlock"
          ? "FIFOs, unix sockets and device nodes may be made only beneath allowedIn (a Landlock domain the helper adds); elsewhere mknod and bind(2) fail with EACCES"
          : "the kernel has no Landlock ABI 2: seccomp refuses mknod of FIFOs, sockets and devices everywhere; a unix socket bound by path with the network granted is not refused",
      },
      ...(deferred.length > 0 ? { loaderVariables: "set by the helper inside the sandbox (--setenv), never seen by bubblewrap" } : {}),
      assumed: {
        bwrapPath,
        helperPath: helper.path,
        helperBuilt: helper.built,
        procMount: true,
        note: "a real run probes bubblewrap, user namespaces and seccomp first, checks that both binaries are root-owned and outside every writable root, and has the helper create the placeholders under their locks when the run starts (and remove them after the last run that holds them)",
      },
    },
  };
}
