// Planning a Windows run: pure (reads through a `WinFsView`, writes nothing), the same on every
// host, and the same data the transform carries out, so the dry run on Linux shows what a run on
// Windows would do.
import {
  networkModeOf,
  policyRequiresPlatformSandbox,
  type CommandSpec,
  type NetworkMode,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { windowsCommandLine } from "./command-line.js";
import { WindowsSandboxError } from "./errors.js";
import { mapNullDevice, networkEnvBlock, proxyEnvBlock, type NetworkEnvBlock } from "./network-block.js";
import { windowsProxy, type WindowsProxy } from "./proxy-route.js";
import { computeWindowsWritableRoots, type DroppedRoot, type WinWritableRoot } from "./roots.js";
import { aclSteps, JOB_LIMITS, PROCESS_FLAGS, TOKEN_FLAGS, type Capability, type WinStep } from "./steps.js";
import type { WinFsView } from "./win-fs.js";
import { parseWinPath } from "./win-path.js";

/** The backend's own settings a plan is made with. */
export interface WindowsPlanSettings {
  fs: WinFsView;
  /** What the fs view is, for the plan's `assumed` (`"real"`, `"unknown"` off Windows, `"injected"`). */
  fsDescription: "real" | "unknown" | "injected";
  /** The host the plan is made on: off Windows, rooted paths without a drive (POSIX paths) are accepted and noted. */
  hostPlatform: NodeJS.Platform;
  /** The elevated mode (a sandbox user account and firewall rules): planned, not carried out by this version. */
  elevated: boolean;
  /** Keep the ACEs on the roots after the run (for the workspace) instead of revoking them. */
  keepAcls: boolean;
  nodePath: string;
  runnerPath: string;
  denybinDir: string;
  sidStorePath: string;
  /** The backend's own files and directories, read-only inside every root that holds them. */
  extraProtected: readonly string[];
}

/** What the runner process is told (JSON on its command line). */
export interface RunnerRequest {
  readonly v: 1;
  readonly commandLine: string;
  readonly cwd: string;
  /** The restricting SIDs, in token order, by role and by value. */
  readonly capabilities: ReadonlyArray<{ readonly role: Capability; readonly sid: string }>;
  readonly tokenFlags: readonly string[];
  readonly jobLimits: readonly string[];
  readonly processFlags: readonly string[];
}

/** A plan with the parts the transform needs. */
export interface WindowsRunPlan {
  readonly sandboxPlan: SandboxPlan;
  readonly sandboxed: boolean;
  readonly roots: readonly WinWritableRoot[];
  readonly dropped: readonly DroppedRoot[];
  readonly capabilities: readonly Capability[];
  readonly steps: readonly WinStep[];
  /** The network-off block (unelevated, network off, no proxy). */
  readonly network: NetworkEnvBlock | undefined;
  readonly networkMode: NetworkMode;
  /** The session proxy, in proxy mode. */
  readonly proxy: WindowsProxy | undefined;
  readonly env: Readonly<Record<string, string>>;
  readonly unsetEnv: readonly string[];
  /** The runner request with SIDs as `<capability:ROLE>` placeholders; the transform fills them in. */
  readonly request: RunnerRequest;
}

/** The stand-in a plan shows for a SID only a run knows (it comes from the per-workspace store). */
export function sidPlaceholder(role: Capability): string {
  return `<capability:${role}>`;
}

/** The argv a run spawns: the host's node.exe running the runner with its request. */
export function runnerArgv(settings: Pick<WindowsPlanSettings, "nodePath" | "runnerPath">, request: RunnerRequest): string[] {
  return [settings.nodePath, settings.runnerPath, "--request", JSON.stringify(request)];
}

/**
 * What a run with this policy enforces, in words (`ExecEnv.isolation`). `network`: the run's
 * network mode (`true`/`false` are `"full"`/`"off"`). Without elevation nothing confines sockets,
 * so "off" and "proxy" both say advisory.
 */
export function isolationOf(mode: "read-only" | "workspace-write", network: boolean | NetworkMode, elevated: boolean): string {
  const base = elevated ? "sandbox-user+acl" : "restricted-token+acl";
  const net = network === true ? "full" : network === false ? "off" : network;
  const words =
    net === "full" ? "network: allowed"
    : net === "proxy" ? (elevated ? "network: proxy (firewall)" : "network: proxy, advisory (env)")
    : elevated ? "network: firewall" : "network: advisory (env)";
  return `${base}${mode === "read-only" ? " (read-only)" : ""}; ${words}`;
}

/**
 * What a Windows run of `spec` under `policy` would do. Nothing is created, probed or changed.
 * @throws WindowsSandboxError `not-enforceable` for denied-read paths without the elevated mode.
 * @throws InvalidSandboxPathError / UnpinnableProtectedPathError as `computeWindowsWritableRoots`.
 */
export async function planWindowsRun(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions, settings: WindowsPlanSettings): Promise<WindowsRunPlan> {
  const offWindows = settings.hostPlatform !== "win32";
  const commandLine = windowsCommandLine(spec.argv);
  if (!policyRequiresPlatformSandbox(policy) || (policy.mode !== "read-only" && policy.mode !== "workspace-write")) {
    const request: RunnerRequest = { v: 1, commandLine, cwd: spec.cwd, capabilities: [], tokenFlags: [], jobLimits: [], processFlags: [] };
    return {
      sandboxPlan: {
        backend: "windows", sandboxType: "none", isolation: "none", argv: [...spec.argv], cwd: spec.cwd, env: {}, unsetEnv: [],
        plan: { sandboxed: false, reason: `policy "${policy.mode}" needs no platform sandbox` },
      },
      sandboxed: false, roots: [], dropped: [], capabilities: [], steps: [], network: undefined, networkMode: networkModeOf(policy, opts.networkProxy), proxy: undefined,
      env: {}, unsetEnv: [], request,
    };
  }
  const mode = policy.mode;
  const networkMode = networkModeOf(policy, opts.networkProxy);
  // The route is checked first: a bad one is the caller's error whatever the paths.
  const proxy = networkMode === "proxy" && opts.networkProxy ? windowsProxy(opts.networkProxy) : undefined;
  const parse = (p: string, field: string) => parseWinPath(p, field, { allowRootedNoDrive: offWindows });
  const cwd = parse(spec.cwd, "cwd").path;
  if (policy.deniedReadPaths.length > 0 && !settings.elevated) {
    throw new WindowsSandboxError(
      "not-enforceable",
      `denied-read paths (${policy.deniedReadPaths.join(", ")}) cannot be enforced by the unelevated restricted token: its read access checks ignore the capability SIDs, so a deny-read ACE would not bind; refusing to run with them readable. ` +
        "Remove them from the policy, or use the elevated mode (a sandbox user account set up once by an administrator; the elevatedSetup option)",
    );
  }
  const deniedReads = policy.deniedReadPaths.map((p, i) => parse(p, `deniedReadPaths.${i}`).path);
  const { roots, dropped } = await computeWindowsWritableRoots(policy, {
    cwd: opts.sandboxPolicyCwd,
    env: spec.env,
    protectedPaths: [...(opts.protectedPaths ?? []), ...settings.extraProtected],
    fs: settings.fs,
    allowRootedNoDrive: offWindows,
  });
  const network = networkMode === "full";
  const capabilities: Capability[] = mode === "read-only" ? ["readonly"] : roots.some((r) => r.capability === "cwd") ? ["workspace", "cwd"] : ["workspace"];

  // Proxy mode replaces the network-off block (see proxyEnvBlock), elevated or not: the firewall
  // leaves the proxy open, the variables tell tools it is there.
  const block = network || proxy || settings.elevated ? undefined : networkEnvBlock(spec.env, settings.denybinDir);
  const proxyEnv = proxy ? proxyEnvBlock(spec.env, proxy) : undefined;
  const env: Record<string, string> = { ...mapNullDevice(spec.env), ...(block?.set ?? {}), ...(proxyEnv?.set ?? {}) };
  const unsetEnv = block ? [...block.unset] : proxyEnv ? [...proxyEnv.unset] : [];

  const steps: WinStep[] = [
    { step: "capability-sids", phase: "host-before", capabilities, store: settings.sidStorePath },
    ...aclSteps(roots, capabilities),
  ];
  if (settings.elevated) {
    for (const p of deniedReads) {
      steps.push({ step: "deny-ace", phase: "host-before", path: p, capabilities: ["sandbox-user"], rights: ["GENERIC_READ", "GENERIC_EXECUTE"], inheritance: "this-and-children", why: "denied-read path (for the sandbox user account)" });
    }
    if (proxy) {
      const except = [...new Set([proxy.httpPort, proxy.socksPort])].map((remotePort) => ({ protocol: "TCP" as const, remoteAddress: "127.0.0.1" as const, remotePort }));
      steps.push({
        step: "firewall-block", phase: "host-before", direction: "outbound", identity: "sandbox-user", except,
        rule: `shellgate-sandbox: block outbound for the sandbox user except TCP to the session proxy on ${except.map((e) => `127.0.0.1:${e.remotePort}`).join(" and ")}`,
      });
    } else if (!network) {
      steps.push({ step: "firewall-block", phase: "host-before", rule: "shellgate-sandbox: block outbound for the sandbox user", direction: "outbound", identity: "sandbox-user" });
    }
  } else if (block) {
    steps.push({ step: "write-denybin", phase: "host-before", dir: block.denybin.dir, files: block.denybin.files });
  }
  steps.push(
    { step: "create-restricted-token", phase: "runner", api: "CreateRestrictedToken", flags: TOKEN_FLAGS, restrictingSids: capabilities },
    { step: "create-job-object", phase: "runner", limits: JOB_LIMITS },
    { step: "create-process", phase: "runner", api: "CreateProcessAsUserW", flags: PROCESS_FLAGS, commandLine, cwd, stdio: "inherited" },
    { step: "assign-to-job", phase: "runner" },
    { step: "resume-thread", phase: "runner" },
    { step: "wait-for-exit", phase: "runner", exitCode: "the command's" },
  );
  const aceCount = steps.filter((s) => s.step === "grant-ace" || s.step === "deny-ace").length;
  steps.push({ step: "revoke-aces", phase: "host-after", count: aceCount, kept: settings.keepAcls });
  const placeholders = steps.flatMap((s) => (s.step === "create-placeholder" ? [s.path] : []));
  if (placeholders.length > 0) steps.push({ step: "remove-placeholders", phase: "host-after", paths: placeholders });

  const request: RunnerRequest = {
    v: 1, commandLine, cwd,
    capabilities: capabilities.map((role) => ({ role, sid: sidPlaceholder(role) })),
    tokenFlags: TOKEN_FLAGS, jobLimits: JOB_LIMITS, processFlags: PROCESS_FLAGS,
  };
  const isolation = isolationOf(mode, networkMode, settings.elevated);
  const notes: string[] = [];
  if (offWindows) notes.push(`planned on ${settings.hostPlatform}: paths without a drive letter (POSIX paths) are shown as Windows would read them, on the current drive; nothing on disk was read, so which carve-outs exist is "unknown" and each missing one gets a placeholder at run time`);
  if (networkMode === "off" && !settings.elevated) notes.push("the network block is advisory: proxy variables, offline flags and ssh/scp stubs stop tools that honour them; a program that opens sockets itself still reaches the network");
  if (proxy && !settings.elevated) {
    notes.push(
      "the proxy routing is advisory: the proxy variables send tools that honour them through the session proxy, which decides per host; " +
        "the restricted token cannot confine sockets without elevation, so a program that opens sockets itself reaches the network directly",
    );
  }
  if (proxy && settings.elevated) {
    notes.push(
      "the firewall must leave only TCP to the two proxy ports on 127.0.0.1 open for the sandbox user: Windows Firewall block rules win over allow rules " +
        "and loopback traffic is not filtered by them, so the elevated mode needs WFP filters (a permit for the two ports above a block of everything else, loopback included)",
    );
  }
  if (settings.elevated) notes.push("the elevated mode (sandbox user account, firewall rule, deny-read ACEs) is planned only: this version's transform refuses it");
  for (const r of roots) if (r.via) notes.push(`the writable root ${r.via} is a junction or link: its ACEs go on the target ${r.path}`);

  const sandboxPlan: SandboxPlan = {
    backend: "windows",
    sandboxType: "windows",
    isolation,
    argv: runnerArgv(settings, request),
    cwd: spec.cwd,
    env,
    unsetEnv,
    plan: {
      mode,
      identity: settings.elevated ? "sandbox-user" : "restricted-token",
      writable: roots.map((r) => ({ path: r.path, capability: r.capability, source: r.source, form: r.form, exists: r.exists, ...(r.via ? { via: r.via } : {}) })),
      readOnly: roots.flatMap((r) => r.readOnly.map((c) => ({ path: c.path, root: r.path, reason: c.reason, exists: c.exists, ...(c.placeholder ? { placeholder: c.placeholder } : {}) }))),
      pinned: roots.flatMap((r) => [...r.pinned]),
      droppedRoots: dropped.map((d) => ({ ...d })),
      network: network ? "allowed" : proxy ? "proxy" : "blocked",
      networkMode,
      networkEnforcement: network ? "none" : settings.elevated ? "firewall" : "advisory-env",
      ...(proxy ? { proxy: { transport: "loopback-tcp", httpPort: proxy.httpPort, socksPort: proxy.socksPort, http: proxy.http, socks: proxy.socks } } : {}),
      deniedReadPaths: deniedReads,
      token: { api: "CreateRestrictedToken", flags: [...TOKEN_FLAGS], restrictingSids: [...capabilities] },
      job: { limits: [...JOB_LIMITS] },
      process: { api: "CreateProcessAsUserW", commandLine, cwd, flags: [...PROCESS_FLAGS] },
      steps: steps.map((s) => ({ ...s })),
      acl: { afterRun: settings.keepAcls ? "kept for the workspace" : "revoked" },
      ...(block ? { denybin: { dir: block.denybin.dir, files: [...block.denybin.files] } } : {}),
      assumed: {
        hostPlatform: settings.hostPlatform,
        fsView: settings.fsDescription,
        nodePath: settings.nodePath,
        runnerPath: settings.runnerPath,
        sidStore: settings.sidStorePath,
        note: "a real run loads the Win32 layer (koffi), reads or creates the capability SIDs, adds the ACEs, writes the deny-bin stubs, then starts the runner, which makes the token, the job and the process",
      },
      notes,
    },
  };
  return { sandboxPlan, sandboxed: true, roots, dropped, capabilities, steps, network: block, networkMode, proxy, env, unsetEnv, request };
}
