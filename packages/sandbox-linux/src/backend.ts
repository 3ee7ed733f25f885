import path from "node:path";
import { z } from "zod";
import {
  InvalidSandboxPathError,
  networkModeOf,
  policyRequiresPlatformSandbox,
  sandboxEnvMarkers,
  SandboxProxyUnsupportedError,
  SandboxUnavailableError,
  UNSANDBOXED,
  type BackendAvailability,
  type CommandSpec,
  type DeferredStandIn,
  observationsHold,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
  type WritableRoot,
  isPathWithin,
} from "@shellgate/sandbox";
import { checkCommand } from "./command.js";
import { LinuxSandboxError } from "./errors.js";
import { splitLoaderEnv } from "./loader-env.js";
import { DEFAULT_PRIVATE_TMP_SIZE_BYTES } from "./bwrap-args.js";
import { bwrapLaunchArgvs, landlockLaunchArgv, LINUX_DENIAL_SIGNALS } from "./launch-argv.js";
import { COMMAND_FD, encodeCommand } from "./deferred-launch.js";
import { reuseKey } from "./reuse-key.js";
import { bwrapView, runRoots } from "./run-view.js";
import { planLinuxRun } from "./plan.js";
import { LANDLOCK_PROXY_REASON, networkEnv, runNetwork } from "./proxy-route.js";
import { defaultPlaceholderLockDir, preparePlaceholderLockDir, releasePlaceholders, SessionPlaceholders } from "./placeholders.js";
import { probeLinuxSandbox, type LinuxCapabilityReport } from "./probe.js";
import {
  createRunCgroup,
  DEFAULT_PROCESS_LIMIT,
  describeProcessLimit,
  findPidsCgroupParent,
  planProcessLimit,
  type ProcessLimitEnforcement,
  type RunCgroup,
} from "./process-limit.js";
import { checkHostBinary, currentUid } from "./trusted-path.js";
import { planSpecialFiles, specialFileArgs, SPECIAL_FILES_REFUSED_NOTE, type SpecialFilePlan } from "./special-files.js";
import { PlanMemo, PLAN_REUSE_ENV, planReuseFrom, recorded, type PlanReuse } from "./plan-reuse.js";
import type { MountPlan } from "./mount-plan.js";

/** What a bubblewrap run's launch is built from, beyond its command: all of it read from the file system. */
interface BwrapRunView {
  roots: WritableRoot[];
  plan: MountPlan;
  special: SpecialFilePlan;
  network: Awaited<ReturnType<typeof runNetwork>>;
}

/** A policy this backend enforces itself. */
type EnforcedPolicy = Extract<SandboxPolicy, { mode: "read-only" | "workspace-write" }>;

/** What a bubblewrap run knows before it looks at the file system. */
interface BwrapRunContext {
  report: LinuxCapabilityReport;
  helper: string;
  helperDir: string;
  lockDir: string;
  bwrapPath: string;
  backendProtected: readonly string[];
}

/**
 * Everything but the file system that a bubblewrap run's view is computed from, as one string:
 * the run's cwd and environment (not its argv: the view is the same for any command), the policy
 * and options, the backend's own paths, and this process's environment, cwd and identity (tool
 * homes and git's config are found through the host's environment; mode bits are judged for this
 * user).
 */
function viewInputs(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions, backend: readonly unknown[]): string {
  return JSON.stringify([
    spec.cwd, spec.env, policy, opts, backend,
    process.env, process.cwd(), process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getgroups?.(),
  ]);
}

/** Options of `createLinuxSandboxBackend`. */
export interface LinuxSandboxBackendOptions {
  /**
   * bubblewrap binary, absolute. Default: the first of `/usr/bin/bwrap`, `/bin/bwrap`,
   * `/usr/local/bin/bwrap` that is root-owned with root-owned, non-group/other-writable
   * directories above it (never a `PATH` lookup). A configured path must pass the same check but
   * may also be owned by the current user; otherwise the backend is unavailable and says why (it
   * does not fall back to Landlock for it). It must also lie outside every writable root.
   */
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
  /**
   * Most processes (threads included: the kernel counts tasks) one sandboxed run may have at once,
   * or `"off"`. Default `DEFAULT_PROCESS_LIMIT` (4096), applied where it can be enforced and
   * reported by `isAvailable()` notes either way. A number given explicitly must be enforceable
   * here, or the backend refuses to run. Enforced by a fresh pids cgroup per run when this user can
   * create one (needed for root), else by `RLIMIT_NPROC` inside bubblewrap's user namespace.
   */
  processLimit?: number | "off";
  /**
   * Size cap in bytes of the private `/tmp` a run gets when `/tmp` is not a writable root. It is a
   * tmpfs, so it lives in host memory; writes past the cap fail with ENOSPC. Default
   * `DEFAULT_PRIVATE_TMP_SIZE_BYTES` (1 GiB); at least 1 MiB.
   */
  privateTmpSizeBytes?: number;
  /**
   * Directory of the lock files that keep one run's cleanup from removing a placeholder directory
   * another run (of any process) has mounted or is about to mount; absolute. Default
   * `defaultPlaceholderLockDir()` (`~/.cache/shellgate/locks`), or `/tmp/shellgate-UID/locks` when
   * that cannot be made (no writable home). Made owner-only when missing; kept read-only and hidden
   * inside every sandbox this backend builds. Runs of every process that share a workspace should
   * use the same directory.
   */
  placeholderLockDir?: string;
  /**
   * `"per-run"` (default): each run makes the placeholders of the protected paths that do not exist
   * and removes them when it ends. `"per-session"`: they are made at the first run that needs them
   * and kept, empty and read-only inside every sandbox, until this process ends, so that later runs
   * skip a directory creation and removal per placeholder; for a long-lived caller such as an MCP
   * server. The locks that keep a mounted placeholder from being removed work the same either way.
   */
  placeholders?: "per-run" | "per-session";
  /**
   * Whether a run reuses the previous run's view (writable roots, mounts, network route) when its
   * inputs are the same and every file-system read that view was computed from answers the same
   * again: `"on"`, `"off"`, or `"check"` (reuse and also compute afresh, failing the run with
   * `reuse-check-failed` when they differ; for tests). Default: the `SHELLGATE_PLAN_REUSE`
   * environment variable, else `"on"`. Only bubblewrap runs reuse a view.
   */
  planReuse?: PlanReuse;
}

const OptionsSchema = z.object({
  bwrapPath: z.string().refine((p) => path.isAbsolute(p), "must be an absolute path").optional(),
  allowWeakerIsolation: z.boolean().optional(),
  probeCacheFile: z.string().refine((p) => path.isAbsolute(p), "must be an absolute path").optional(),
  processLimit: z.union([z.number().int().min(8).max(4_194_304), z.literal("off")]).optional(),
  privateTmpSizeBytes: z.number().int().min(1024 * 1024).max(Number.MAX_SAFE_INTEGER).optional(),
  placeholderLockDir: z.string().refine((p) => path.isAbsolute(p), "must be an absolute path").optional(),
  placeholders: z.enum(["per-run", "per-session"]).optional(),
  planReuse: z.enum(["on", "off", "check"]).optional(),
}).strict();

function validateOptions(options: LinuxSandboxBackendOptions): void {
  const parsed = OptionsSchema.safeParse(options);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const key = String(issue?.path[0] ?? "options");
  const value = (options as Record<string, unknown>)[key];
  if ((key === "bwrapPath" || key === "probeCacheFile" || key === "placeholderLockDir") && typeof value === "string") {
    throw new InvalidSandboxPathError(key, value, issue?.message ?? "is invalid");
  }
  throw new LinuxSandboxError("invalid-options", `${key}: ${issue?.message ?? "is invalid"} (got ${JSON.stringify(value)})`);
}

/**
 * `CODEX_SANDBOX=linux`: Codex sets nothing on Linux; shellgate says so, letting a command tell it is
 * confined (tools that compare against Codex's `seatbelt` are unaffected).
 */
const ENV_MARKERS = Object.freeze({ CODEX_SANDBOX: "linux" });

/** Isolation string for Landlock runs, so callers can never mistake it for the full sandbox. */
const WEAKER = "landlock+seccomp (weaker: no namespaces; read-only carve-outs inside writable roots not enforced)";

/** The isolation string of a bubblewrap run: the probe's, plus what a kernel without Landlock ABI 2 changes. */
function bwrapIsolation(base: string, special: SpecialFilePlan): string {
  return special.mode === "refuse" ? `${base} (${SPECIAL_FILES_REFUSED_NOTE})` : base;
}

function unavailableReason(report: LinuxCapabilityReport, allowWeaker: boolean): string {
  if (report.level === "weaker" && !allowWeaker) {
    return `${report.reasons.join("; ")}; the Landlock+seccomp fallback (weaker isolation) is available but not permitted: allow it with --allow-weaker-isolation or allow_weaker_isolation = true in your shellgate config (library: the allowWeakerIsolation option)`;
  }
  return report.reasons.join("; ") || "no sandbox layer works here";
}

/**
 * The Linux sandbox backend: bubblewrap (new namespaces, read-only root, writable roots,
 * carve-outs, masked reads) plus a seccomp filter installed by the native helper; Landlock +
 * seccomp instead when user namespaces are unavailable and `allowWeakerIsolation` is set.
 */
export function createLinuxSandboxBackend(options: LinuxSandboxBackendOptions = {}): SandboxBackend {
  validateOptions(options);
  const allowWeaker = options.allowWeakerIsolation ?? false;
  const limit = options.processLimit === "off" ? undefined : (options.processLimit ?? DEFAULT_PROCESS_LIMIT);
  const limitRequired = typeof options.processLimit === "number";
  const probeOptions = {
    ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
    ...(options.probeCacheFile ? { cacheFile: options.probeCacheFile } : {}),
  };
  const probe = () => probeLinuxSandbox(probeOptions);
  const configuredLockDir = options.placeholderLockDir ? path.resolve(options.placeholderLockDir) : undefined;
  const extraProtected = options.probeCacheFile ? [path.dirname(options.probeCacheFile)] : [];
  const tmpSize = options.privateTmpSizeBytes ?? DEFAULT_PRIVATE_TMP_SIZE_BYTES;

  // Where run cgroups can go is this process's own pids cgroup (or the ancestor that delegates pids),
  // read from /proc once per backend once found: `isAvailable` and every `transform` ask. A cgroup
  // made there later binds what joins it wherever this process has moved since; a miss is asked again.
  let cgroupParent: ReturnType<typeof findPidsCgroupParent> | undefined;
  const reuse = planReuseFrom(options.planReuse, process.env);
  let memoReport: LinuxCapabilityReport | undefined;
  let memo = new PlanMemo<BwrapRunView>(reuse);
  // One per helper and lock directory (both are fixed for a backend in practice).
  const sessions = new Map<string, SessionPlaceholders>();
  const sessionPlaceholders = (helper: string, lockDir: string): SessionPlaceholders => {
    const key = `${helper}\0${lockDir}`;
    let found = sessions.get(key);
    if (!found) {
      found = new SessionPlaceholders(helper, lockDir);
      sessions.set(key, found);
    }
    return found;
  };
  const findCgroupParent = () => {
    if (cgroupParent) return cgroupParent;
    const found = findPidsCgroupParent();
    if ("parent" in found) cgroupParent = found;
    return found;
  };

  /** How this run's process limit is enforced, or undefined when there is none to enforce. */
  function limitPlan(layer: "bwrap" | "landlock"): ProcessLimitEnforcement | undefined {
    return limit === undefined ? undefined : planProcessLimit(layer, currentUid(), findCgroupParent);
  }

  /** Notes on the process limit, or the reason to refuse when a configured limit cannot hold. */
  function limitNotes(layer: "bwrap" | "landlock"): { notes: string[] } | { refuse: string } {
    const plan = limitPlan(layer);
    if (!plan || limit === undefined) return { notes: ["process limit: off"] };
    if (plan.how === "none" && limitRequired) return { refuse: `processLimit ${limit} cannot be enforced here: ${plan.reason}` };
    return { notes: [describeProcessLimit(limit, plan)] };
  }

  async function isAvailable(): Promise<BackendAvailability> {
    const report = await probe();
    if (report.bwrap.refused) return { available: false, reason: `bwrap: ${report.bwrap.detail}` };
    if (report.level === "full") {
      const limits = limitNotes("bwrap");
      if ("refuse" in limits) return { available: false, reason: limits.refuse };
      const notes = report.bwrap.procMount ? [] : ["bwrap cannot mount /proc here; commands run without a fresh /proc"];
      const special = planSpecialFiles({ roots: [], env: {}, privateTmp: true, layer: "bwrap", landlockAbi: report.landlock.abi });
      notes.push(special.mode === "landlock"
        ? `FIFOs, unix sockets and device nodes: only in the sandbox's temporary directories (Landlock ABI ${report.landlock.abi})`
        : `FIFOs, unix sockets and device nodes: ${SPECIAL_FILES_REFUSED_NOTE}`);
      return { available: true, isolation: bwrapIsolation(report.isolation, special), notes: [...notes, ...limits.notes] };
    }
    if (report.level === "weaker" && allowWeaker) {
      const limits = limitNotes("landlock");
      if ("refuse" in limits) return { available: false, reason: limits.refuse };
      const notes = [...report.reasons];
      if (report.landlock.abi < 6) notes.push(`Landlock ABI ${report.landlock.abi} < 6: commands can signal the user's other processes`);
      if (report.landlock.abi < 4) notes.push(`Landlock ABI ${report.landlock.abi} < 4: TCP is refused by seccomp alone`);
      return { available: true, isolation: WEAKER, notes: [...notes, ...limits.notes] };
    }
    return { available: false, reason: unavailableReason(report, allowWeaker) };
  }

  /**
   * The binaries this run will start on the host, checked again now (the probe may be older than
   * the last run): trusted owners and modes, and outside every writable root of this run.
   */
  function checkBinaries(binaries: Array<[string, string]>, roots: readonly { root: string }[]): void {
    for (const [what, file] of binaries) {
      const verdict = checkHostBinary(file, { alsoOwnedBy: [currentUid()] });
      if (!verdict.trusted) throw new LinuxSandboxError("untrusted-binary", `refusing to run the ${what} ${file} on the host: ${verdict.reason}`);
      const exposed = roots.find((r) => isPathWithin(file, r.root) || isPathWithin(verdict.realPath, r.root));
      if (exposed && what === "bubblewrap binary") {
        throw new LinuxSandboxError("untrusted-binary", `refusing to run the ${what} ${file} on the host: it lies inside the writable root ${exposed.root}, where a sandboxed command could replace it`);
      }
    }
  }

  /** Set up the process limit for one run: cgroup (made now), rlimit, or nothing. */
  async function prepareLimit(layer: "bwrap" | "landlock"): Promise<{ helperArgs: string[]; cgroup?: RunCgroup }> {
    const plan = limitPlan(layer);
    if (!plan || limit === undefined) return { helperArgs: [] };
    // RLIMIT_NPROC inside bubblewrap's user namespace is cheap and binds every non-root user, also
    // as a second lock next to a cgroup.
    const rlimit = layer === "bwrap" && currentUid() !== 0 ? ["--nproc", String(limit)] : [];
    if (plan.how === "cgroup") {
      try {
        return { helperArgs: rlimit, cgroup: await createRunCgroup(plan.parent, limit) };
      } catch (error) {
        const why = `cannot create a pids cgroup in ${plan.parent.dir}: ${(error as Error).message}`;
        if (rlimit.length > 0) return { helperArgs: rlimit };
        if (limitRequired) throw new LinuxSandboxError("not-enforceable", `processLimit ${limit}: ${why}`, { cause: error });
        return { helperArgs: [] };
      }
    }
    if (plan.how === "none" && limitRequired) {
      throw new LinuxSandboxError("not-enforceable", `processLimit ${limit} cannot be enforced here: ${plan.reason}`);
    }
    return { helperArgs: rlimit };
  }

  async function transform(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<ExecEnv> {
    await checkCommand(spec);
    if (!policyRequiresPlatformSandbox(policy) || (policy.mode !== "read-only" && policy.mode !== "workspace-write")) {
      // full access or an outer sandbox: nothing to enforce here
      return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env, ...sandboxEnvMarkers(policy, UNSANDBOXED) }, sandboxType: UNSANDBOXED, isolation: "none" };
    }
    const report = await probe();
    const layer = report.level === "full" ? "bwrap" : report.level === "weaker" && allowWeaker ? "landlock" : undefined;
    const helper = report.helper.path;
    // The helper binary (and the probe cache) must never be writable from inside: a command that
    // replaced the helper would run its own code as the next sandbox's enforcement step.
    const helperDir = helper ? path.dirname(helper) : undefined;
    // Made before the roots are computed, so that they hold it (read-only, pinned) as the existing
    // directory it is; only the bubblewrap layer has placeholders.
    const lockDir = layer === "bwrap" ? await preparePlaceholderLockDir(configuredLockDir) : undefined;
    const backendProtected = [...extraProtected, ...(lockDir ? [lockDir] : []), ...(helperDir ? [helperDir] : [])];
    const bwrapPath = report.bwrap.path;
    if (layer === "bwrap" && helper && helperDir && lockDir && bwrapPath && !report.bwrap.refused) {
      return transformBwrap(spec, policy, opts, { report, helper, helperDir, lockDir, bwrapPath, backendProtected });
    }
    // Roots are computed (and so validated) before availability is judged: bad input is reported
    // as such on every machine, not hidden behind "no sandbox here".
    const roots = await runRoots(spec, policy, opts, backendProtected);
    // A configured bubblewrap that fails the trust check is refused outright, never replaced by Landlock.
    if (report.bwrap.refused) throw new LinuxSandboxError("untrusted-binary", report.bwrap.detail);
    if (layer !== "landlock" || !helper) {
      if (layer === "bwrap" && helper && !bwrapPath) throw new LinuxSandboxError("unavailable", "the probe found bubblewrap usable but named no path");
      throw new SandboxUnavailableError(policy.mode, "linux", [{ backend: "linux", platform: "linux", reason: unavailableReason(report, allowWeaker) }]);
    }
    // Refused before anything else is checked or made: less network than asked would fail without
    // saying why, more would bypass the proxy's decisions.
    if (networkModeOf(policy, opts.networkProxy) === "proxy") throw new SandboxProxyUnsupportedError("linux", LANDLOCK_PROXY_REASON);
    checkBinaries([["sandbox helper", helper]], roots);
    const { mode: networkMode, proxy } = await runNetwork(policy, opts, roots, { checkSockets: true });
    const env = runEnv(spec, policy, networkMode, proxy);
    if (policy.deniedReadPaths.length > 0) {
      throw new LinuxSandboxError("not-enforceable", "denied-read paths cannot be enforced by the Landlock fallback; refusing to run with them readable");
    }
    const exposed = roots.find((r) => isPathWithin(helper, r.root));
    if (exposed) {
      throw new LinuxSandboxError("not-enforceable", `the sandbox helper ${helper} lies inside the writable root ${exposed.root}, which Landlock cannot keep read-only; refusing to run`);
    }
    const limits = await prepareLimit("landlock");
    const cgroup = limits.cgroup;
    const special = planSpecialFiles({ roots, env: spec.env, privateTmp: false, layer: "landlock", landlockAbi: report.landlock.abi });
    const argv = landlockLaunchArgv({
      ...helperInput(helper, networkMode, proxy, opts, env.deferred), specialFileArgs: specialFileArgs(special, "landlock"), limitArgs: limits.helperArgs,
      writableRoots: roots.map((r) => r.root), argv: spec.argv,
      ...(cgroup ? { cgroupDir: cgroup.dir } : {}),
    });
    return {
      argv, cwd: spec.cwd, env: env.safe, sandboxType: "linux", isolation: WEAKER, denialSignals: LINUX_DENIAL_SIGNALS.landlock, networkMode,
      ...(cgroup ? { cleanup: () => cgroup.remove() } : {}),
    };
  }

  /** The command's environment: the proxy's variables and the markers, loader variables kept apart for the helper to set. */
  function runEnv(spec: CommandSpec, policy: SandboxPolicy, networkMode: BwrapRunView["network"]["mode"], proxy: BwrapRunView["network"]["proxy"]) {
    return splitLoaderEnv({ ...networkEnv(spec.env, proxy, networkMode), ...sandboxEnvMarkers(policy, "linux", ENV_MARKERS) });
  }

  function helperInput(helper: string, networkMode: BwrapRunView["network"]["mode"], proxy: BwrapRunView["network"]["proxy"], opts: TransformOptions, deferredEnv: readonly string[]) {
    // On a PTY made for this run, the command becomes the terminal's foreground process group, so
    // that Ctrl-C reaches it and its jobs rather than bubblewrap or the reaper.
    return { helperPath: helper, networkMode, ...(proxy ? { proxy } : {}), dedicatedTerminal: opts.dedicatedTerminal === true, deferredEnv };
  }

  /** The reads a bubblewrap run is built from (see `BwrapRunView`); the same order of checks as a run without reuse. */
  async function computeBwrapView(spec: CommandSpec, policy: EnforcedPolicy, opts: TransformOptions, run: BwrapRunContext): Promise<BwrapRunView> {
    const roots = await runRoots(spec, policy, opts, run.backendProtected);
    checkBinaries([["sandbox helper", run.helper], ["bubblewrap binary", run.bwrapPath]], roots);
    const network = await runNetwork(policy, opts, roots, { checkSockets: true });
    const plan = await bwrapView(roots, spec, policy.deniedReadPaths, opts, run.helperDir);
    const special = planSpecialFiles({ roots, env: spec.env, privateTmp: plan.privateTmp, layer: "bwrap", landlockAbi: run.report.landlock.abi });
    return { roots, plan, special, network };
  }

  async function transformBwrap(spec: CommandSpec, policy: EnforcedPolicy, opts: TransformOptions, run: BwrapRunContext): Promise<ExecEnv> {
    // The probe is compared by identity: a new probe is a new machine state.
    if (memoReport !== run.report) {
      memoReport = run.report;
      memo = new PlanMemo(reuse);
    }
    const backendInputs = [run.helper, run.bwrapPath, run.lockDir, run.backendProtected, tmpSize];
    const inputs = viewInputs(spec, policy, opts, backendInputs);
    const view = await memo.view(inputs, () => computeBwrapView(spec, policy, opts, run));
    const { plan, special, network } = view.value;
    const { mode: networkMode, proxy } = network;
    const env = runEnv(spec, policy, networkMode, proxy);
    const limits = await prepareLimit("bwrap");
    const cgroup = limits.cgroup;
    // The helper makes the placeholders when the run starts, under their locks: none exist before,
    // unless this session keeps them.
    const session = options.placeholders === "per-session" && plan.stubs.length > 0 ? sessionPlaceholders(run.helper, run.lockDir) : undefined;
    await session?.hold(plan.stubs);
    // The ones the session holds exist and stay; the run makes and removes only the rest.
    const own = session ? await session.notHeld(plan.stubs) : plan.stubs;
    const { argv, deferredArgv } = bwrapLaunchArgvs({
      ...helperInput(run.helper, networkMode, proxy, opts, env.deferred), specialFileArgs: specialFileArgs(special, "bwrap"), limitArgs: limits.helperArgs,
      bwrapPath: run.bwrapPath, mounts: plan, procMount: run.report.bwrap.procMount,
      cwd: spec.cwd, privateTmpSizeBytes: tmpSize, argv: spec.argv, commandFd: COMMAND_FD, placeholderLockDir: run.lockDir, ownStubs: own,
      ...(cgroup ? { cgroupDir: cgroup.dir } : {}),
    });
    const payload = encodeCommand(spec.argv);
    // The key's lookups are recorded too: a stand-in (below) checks them again instead of making the key anew.
    const { value: key, observations: keyObservations } = await recorded(() => reuseKey({
      argv: deferredArgv, cwd: spec.cwd, env: env.safe, placeholders: plan.stubs, executables: [run.helper, run.bwrapPath], ...(cgroup ? { cgroupDir: cgroup.dir } : {}),
    }));
    let released = false;
    const standIn = async (s: CommandSpec, p: SandboxPolicy, o: TransformOptions): Promise<DeferredStandIn | undefined> => {
      if (released || viewInputs(s, p, o, backendInputs) !== inputs || (await probe()) !== run.report) return undefined;
      const command = encodeCommand(s.argv);
      if (!command || deferredArgv.at(-2) !== "--command-fd") return undefined;
      try {
        await checkCommand(s);
      } catch {
        // A transform would fail on it: the caller transforms, and reports that.
        return undefined;
      }
      // Together: the key's lookups of paths the view also read are made once.
      if (!observationsHold(view.observations, keyObservations)) return undefined;
      const found = { argv: [...deferredArgv.slice(0, -2), "--", ...s.argv], payload: command };
      if (reuse === "check") {
        const fresh = await transform(s, p, o);
        await fresh.cleanup?.();
        if (fresh.deferred?.reuseKey !== key) {
          throw new LinuxSandboxError("reuse-check-failed", `a waiting sandbox stood in for a run whose transform now has another reuse key (${PLAN_REUSE_ENV}=check): waiting ${key}, now ${fresh.deferred?.reuseKey}`);
        }
      }
      return found;
    };
    const twoStep = payload && {
      argv: deferredArgv,
      payload,
      reuseKey: key,
      ...(reuse === "off" ? {} : { reuseFor: standIn }),
    };
    const cleanup = async () => {
      if (released) return;
      released = true;
      await Promise.all([releasePlaceholders(run.helper, run.lockDir, own), cgroup?.remove()]);
    };
    // bwrap runs with --die-with-parent and its own PID namespace: when the launching process dies,
    // the namespace's init is killed and the kernel kills everything in it.
    return {
      argv, cwd: spec.cwd, env: env.safe, sandboxType: "linux", isolation: bwrapIsolation(run.report.isolation, special), denialSignals: LINUX_DENIAL_SIGNALS.bwrap,
      cleanup, diesWithParent: true, networkMode, ...(twoStep ? { deferred: twoStep } : {}),
    };
  }

  function plan(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<SandboxPlan> {
    // Never made by a plan: the configured or default one (a real run may fall back, see placeholders.ts).
    const planLockDir = configuredLockDir ?? defaultPlaceholderLockDir();
    return planLinuxRun(spec, policy, opts, {
      ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
      ...(limit !== undefined ? { processLimit: limit } : {}),
      privateTmpSizeBytes: tmpSize,
      extraProtected: [...extraProtected, planLockDir],
      placeholderLockDir: planLockDir,
      allowWeakerIsolation: allowWeaker,
      probeOptions,
    });
  }

  return {
    name: "linux",
    platform: "linux",
    sandboxType: "linux",
    envMarkers: ENV_MARKERS,
    denialSignals: LINUX_DENIAL_SIGNALS.bwrap,
    proxyTransport: "unix-socket",
    isAvailable,
    plan,
    transform,
  };
}
