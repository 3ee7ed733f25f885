import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  sandboxEnvMarkers,
  SandboxError,
  UNSANDBOXED,
  type BackendAvailability,
  type CommandSpec,
  type DenialSignals,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { WindowsSandboxError } from "./errors.js";
import { DENYBIN_STUB } from "./network-block.js";
import { isolationOf, planWindowsRun, runnerArgv, type RunnerRequest, type WindowsPlanSettings, type WindowsRunPlan } from "./plan.js";
import { defaultSidStorePath, fileSidStore, type SidStore } from "./sid-store.js";
import type { Capability } from "./steps.js";
import { nodeWinFs, UNKNOWN_FS, type WinFsView } from "./win-fs.js";
import { isWithinWin, parseWinPath, toApiPath, winKey } from "./win-path.js";
import { accessMask, type AceRecord, type Win32Api } from "./win32-api.js";

/** Options of `createWindowsSandboxBackend`. */
export interface WindowsSandboxBackendOptions {
  /** Accepted for the CLI's sake; the Windows backend has no weaker layer to fall back to, so it changes nothing. */
  allowWeakerIsolation?: boolean;
  /**
   * The elevated mode: a sandbox user account (set up once by an administrator), per-user firewall
   * rules as the real network block, deny-read ACEs. Planned only: `transform` refuses it in this
   * version (`not-implemented`). Needed to plan denied-read paths at all.
   */
  elevated?: boolean;
  /** Keep the ACEs on the writable roots after a run (for the workspace) instead of revoking them. Default false. */
  keepAcls?: boolean;
  /** Where capability SIDs persist; default a JSON file under `%LOCALAPPDATA%\shellgate\sandbox`. */
  sidStore?: SidStore;
  /** The Win32 layer, or how to load it; default koffi, loaded on first use on Windows only. */
  win32Api?: Win32Api | (() => Promise<Win32Api>);
  /** How planning reads the file system; default the real one on Windows, nothing elsewhere. */
  fs?: WinFsView;
  /** The host platform (tests plan and transform "as on Windows" with a fake layer). Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** node.exe that runs the runner; default `process.execPath` on Windows. */
  nodePath?: string;
  /** The runner script; default this package's `dist/runner.js`. */
  runnerPath?: string;
  /** Directory of the ssh/scp stubs; default `%LOCALAPPDATA%\shellgate\sandbox\denybin`. */
  denybinDir?: string;
}

const OptionsSchema = z.object({
  allowWeakerIsolation: z.boolean().optional(),
  elevated: z.boolean().optional(),
  keepAcls: z.boolean().optional(),
  sidStore: z.custom<SidStore>((v) => typeof (v as SidStore | undefined)?.sidsFor === "function", "must be a SidStore").optional(),
  win32Api: z.custom<Win32Api | (() => Promise<Win32Api>)>((v) => typeof v === "function" || (typeof v === "object" && v !== null && typeof (v as Win32Api).addAce === "function"), "must be a Win32Api or a loader").optional(),
  fs: z.custom<WinFsView>((v) => typeof (v as WinFsView | undefined)?.entry === "function", "must be a WinFsView").optional(),
  platform: z.string().optional(),
  nodePath: z.string().min(1).optional(),
  runnerPath: z.string().min(1).optional(),
  denybinDir: z.string().min(1).optional(),
}).strict();

/** `CODEX_SANDBOX=windows`: Codex sets nothing on Windows; shellgate says so, so a command can tell it is confined. */
const ENV_MARKERS = Object.freeze({ CODEX_SANDBOX: "windows" });

/**
 * How refusals show under a restricted token: ERROR_ACCESS_DENIED, which Node reports as EPERM or
 * EACCES ("Access is denied." in cmd/PowerShell). No exit code or signal is the sandbox's own.
 */
// "Access is denied." is how Windows tools report a refused write (cmd, PowerShell, most Win32 programs).
export const WINDOWS_DENIAL_SIGNALS: DenialSignals = Object.freeze({ exitCodes: [], signals: [], refusalErrnos: ["EACCES", "EPERM"] as const, keywords: ["access is denied"] });

function defaultRunnerPath(): string {
  try {
    return createRequire(import.meta.url).resolve("@shellgate/sandbox-windows/runner");
  } catch {
    return fileURLToPath(new URL("./runner.js", import.meta.url));
  }
}

/** `%LOCALAPPDATA%\shellgate\sandbox\NAME` from an environment, or that text itself when the variable is unset. */
function localAppData(env: Readonly<Record<string, string | undefined>>, ...names: string[]): string {
  const base = Object.entries(env).find(([k]) => k.toUpperCase() === "LOCALAPPDATA")?.[1];
  return path.win32.join(base ?? "%LOCALAPPDATA%", "shellgate", "sandbox", ...names);
}

/**
 * The Windows sandbox backend: a restricted token (max privileges dropped, LUA, write-restricted)
 * carrying capability SIDs, ACEs granting those SIDs the writable roots and denying them the
 * protected paths and their placeholders, the command started through a small runner inside a
 * kill-on-close job object. The network block without elevation is advisory (environment), and so
 * is proxy-routed network: the proxy variables point at the session proxy's loopback ports.
 */
export function createWindowsSandboxBackend(options: WindowsSandboxBackendOptions = {}): SandboxBackend {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WindowsSandboxError("invalid-options", `${String(issue?.path[0] ?? "options")}: ${issue?.message ?? "is invalid"}`);
  }
  const platform = options.platform ?? process.platform;
  const onWindows = platform === "win32";
  const fsView = options.fs ?? (process.platform === "win32" ? nodeWinFs() : UNKNOWN_FS);
  const fsDescription: WindowsPlanSettings["fsDescription"] = options.fs ? "injected" : process.platform === "win32" ? "real" : "unknown";
  const runnerPath = options.runnerPath ?? defaultRunnerPath();
  const nodePath = options.nodePath ?? (process.platform === "win32" ? process.execPath : "node.exe");
  let api: Promise<Win32Api> | undefined;
  const loadApi = (): Promise<Win32Api> => {
    api ??= typeof options.win32Api === "function"
      ? options.win32Api()
      : options.win32Api
        ? Promise.resolve(options.win32Api)
        : import("./win32-koffi.js").then((m) => m.loadKoffiWin32Api());
    return api;
  };
  let store: SidStore | undefined = options.sidStore;
  const sidStore = (): SidStore => (store ??= fileSidStore(defaultSidStorePath(process.env)));
  // ACEs and placeholders shared by concurrent runs of this backend: only the last run takes them off.
  const aceUsers = new Map<string, { ace: AceRecord; users: number }>();
  const placeholderUsers = new Map<string, { path: string; users: number }>();

  function settingsFor(spec: CommandSpec): WindowsPlanSettings {
    const denybinDir = options.denybinDir ?? localAppData(spec.env, "denybin");
    const sidStorePath = options.sidStore?.location ?? (onWindows ? defaultSidStorePath(process.env) : localAppData(spec.env, "capability-sids.json"));
    // The backend's own files must never be writable from inside: a replaced runner or stub would
    // run as the next sandbox's enforcement. Only absolute ones can be held (a plan off Windows may
    // show `%LOCALAPPDATA%`).
    const own = [path.win32.dirname(runnerPath.replaceAll("/", "\\")), denybinDir, path.win32.dirname(sidStorePath)];
    const extraProtected = own.filter((p) => {
      try {
        parseWinPath(p, "backend", { allowRootedNoDrive: !onWindows });
        return true;
      } catch {
        return false;
      }
    });
    return { fs: fsView, fsDescription, hostPlatform: platform, elevated: options.elevated === true, keepAcls: options.keepAcls === true, nodePath, runnerPath, denybinDir, sidStorePath, extraProtected };
  }

  async function isAvailable(): Promise<BackendAvailability> {
    if (!onWindows) return { available: false, reason: `the Windows restricted-token sandbox runs on Windows only (this is ${platform}); it can still plan (--dry-run)` };
    try {
      await loadApi();
    } catch (error) {
      return { available: false, reason: (error as Error).message };
    }
    const notes = [
      "network off is advisory (proxy variables, offline flags, ssh/scp stubs): a program that opens sockets itself is not stopped",
      "proxy-routed network is advisory (proxy variables): a program that opens sockets itself does not go through the proxy",
      "denied-read paths are refused (they need the elevated mode, not implemented)",
    ];
    return { available: true, isolation: isolationOf("workspace-write", false, false), notes };
  }

  async function plan(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions) {
    return (await planWindowsRun(spec, policy, opts, settingsFor(spec))).sandboxPlan;
  }

  function checkBinaries(run: WindowsRunPlan): void {
    for (const [what, file] of [["node.exe", nodePath], ["runner script", runnerPath]] as const) {
      let p: string;
      try {
        p = parseWinPath(file, what).path;
      } catch (error) {
        throw new WindowsSandboxError("untrusted-binary", `the ${what} ${file} is not an absolute Windows path`, { cause: error });
      }
      const root = run.roots.find((r) => isWithinWin(p, r.path));
      if (root) throw new WindowsSandboxError("untrusted-binary", `refusing to run the ${what} ${file}: it lies inside the writable root ${root.path}, where a sandboxed command could replace it`);
    }
  }

  async function transform(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<ExecEnv> {
    const run = await planWindowsRun(spec, policy, opts, settingsFor(spec));
    if (!run.sandboxed) {
      return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env, ...sandboxEnvMarkers(policy, UNSANDBOXED) }, sandboxType: UNSANDBOXED, isolation: "none" };
    }
    if (options.elevated) throw new WindowsSandboxError("not-implemented", "the elevated mode (sandbox user account, firewall rules, deny-read ACEs) is planned but not implemented in this version; refusing to run rather than run with less");
    if (!onWindows) throw new WindowsSandboxError("unavailable", `the Windows restricted-token sandbox runs on Windows only (this is ${platform})`);
    checkBinaries(run);
    const win32 = await loadApi().catch((error: unknown) => {
      throw error instanceof SandboxError ? error : new WindowsSandboxError("unavailable", `cannot load the Win32 layer: ${(error as Error).message}`, { cause: error });
    });
    const workspace = parseWinPath(opts.sandboxPolicyCwd, "sandboxPolicyCwd").path;
    const sids = await sidStore().sidsFor(workspace, parseWinPath(spec.cwd, "cwd").path).catch((error: unknown) => {
      throw new WindowsSandboxError("setup-failed", `capability SIDs: ${(error as Error).message}`, { cause: error });
    });
    const sidOf = (c: Capability): string => {
      if (c === "sandbox-user") throw new WindowsSandboxError("not-implemented", "sandbox-user ACEs need the elevated mode");
      return sids[c];
    };

    const added: AceRecord[] = [];
    const made: string[] = [];
    const release = async (): Promise<void> => {
      const errors: string[] = [];
      for (const ace of added.reverse()) {
        const key = aceKey(ace);
        const held = aceUsers.get(key);
        if (held && --held.users > 0) continue;
        aceUsers.delete(key);
        if (options.keepAcls && !made.some((m) => isWithinWin(ace.path, toApiPath(m)))) continue;
        await win32.removeAce(ace).catch((e: Error) => errors.push(`${ace.path}: ${e.message}`));
      }
      for (const p of made.reverse()) {
        const held = placeholderUsers.get(winKey(p));
        if (held && --held.users > 0) continue;
        placeholderUsers.delete(winKey(p));
        await win32.removeEmptyDirectory(toApiPath(p)).catch((e: Error) => errors.push(`${p}: ${e.message}`));
      }
      added.length = 0;
      made.length = 0;
      if (errors.length > 0) throw new WindowsSandboxError("setup-failed", `cleanup left ACEs or placeholders behind: ${errors.join("; ")}`);
    };

    try {
      for (const step of run.steps) {
        if (step.phase !== "host-before") continue;
        if (step.step === "create-placeholder") {
          const held = placeholderUsers.get(winKey(step.path));
          if (held) held.users++;
          else {
            await win32.createDirectory(toApiPath(step.path));
            placeholderUsers.set(winKey(step.path), { path: step.path, users: 1 });
          }
          made.push(step.path);
        } else if (step.step === "grant-ace" || step.step === "deny-ace") {
          for (const c of step.capabilities) {
            const ace: AceRecord = { path: step.path === "\\\\.\\NUL" ? step.path : toApiPath(step.path), sid: sidOf(c), mode: step.step === "grant-ace" ? "grant" : "deny", mask: accessMask(step.rights), inheritance: step.inheritance };
            const key = aceKey(ace);
            const held = aceUsers.get(key);
            if (held) held.users++;
            else {
              await win32.addAce(ace);
              aceUsers.set(key, { ace, users: 1 });
            }
            added.push(ace);
          }
        } else if (step.step === "write-denybin") {
          await win32.createDirectory(toApiPath(step.dir)).catch(() => undefined);
          for (const f of step.files) await win32.writeFile(toApiPath(f), DENYBIN_STUB);
        }
      }
    } catch (error) {
      await release().catch(() => undefined);
      if (error instanceof SandboxError) throw error;
      throw new WindowsSandboxError("setup-failed", `could not set up the sandbox, nothing was run: ${(error as Error).message}`, { cause: error });
    }

    const request: RunnerRequest = { ...run.request, capabilities: run.capabilities.map((role) => ({ role, sid: sidOf(role) })) };
    const env: Record<string, string> = {};
    const unset = new Set(run.unsetEnv);
    for (const [k, v] of Object.entries(spec.env)) if (!unset.has(k)) env[k] = v;
    Object.assign(env, run.env, sandboxEnvMarkers(policy, "windows", ENV_MARKERS));
    let cleaned: Promise<void> | undefined;
    return {
      argv: runnerArgv({ nodePath, runnerPath }, request),
      cwd: spec.cwd,
      env,
      sandboxType: "windows",
      isolation: run.sandboxPlan.isolation,
      denialSignals: WINDOWS_DENIAL_SIGNALS,
      networkMode: run.networkMode,
      cleanup: () => (cleaned ??= release()),
    };
  }

  return {
    name: "windows",
    platform: "win32",
    sandboxType: "windows",
    envMarkers: ENV_MARKERS,
    denialSignals: WINDOWS_DENIAL_SIGNALS,
    // Advisory without elevation: the run is told where the proxy is, nothing keeps it from going around it.
    proxyTransport: "loopback-tcp",
    isAvailable,
    plan,
    transform,
  };
}

function aceKey(ace: AceRecord): string {
  return `${winKey(ace.path)}|${ace.sid}|${ace.mode}|${ace.mask}|${ace.inheritance}`;
}

