import { win32 } from "node:path";
import { z } from "zod";
import { InvalidShellArgumentError, ShellNotFoundError } from "./errors.js";
import { envGet, resolveHost, type Host } from "./host.js";
import { shellTypeFromPath, unsupportedShellName } from "./shell-type.js";
import type { DetectOptions, Shell, ShellType } from "./types.js";

/** Names to look up on PATH for each type, in preference order. */
const BINARIES: Readonly<Record<ShellType, readonly string[]>> = {
  zsh: ["zsh"],
  bash: ["bash"],
  sh: ["sh"],
  powershell: ["pwsh", "powershell"],
  cmd: ["cmd"],
};

function hasSeparator(p: string): boolean {
  return p.includes("/") || p.includes("\\");
}

function withFallback(shell: Omit<Shell, "fallback">, tried: readonly string[]): Shell {
  return tried.length > 0 ? { ...shell, fallback: `${tried.join("; ")}; using ${shell.path}` } : shell;
}

function refusal(path: string, source: string): string {
  const unsupported = unsupportedShellName(path);
  return unsupported
    ? `${source} shell ${path} is ${unsupported}, which shellgate does not support`
    : `${source} shell ${path} is not a recognised shell`;
}

/** The usual install locations per type on the host platform, used after the PATH lookup. */
function installPaths(type: ShellType, host: Host): string[] {
  if (host.platform !== "win32") {
    const unix: Record<ShellType, string[]> = {
      zsh: ["/bin/zsh"], bash: ["/bin/bash"], sh: ["/bin/sh"], powershell: ["/usr/local/bin/pwsh"], cmd: [],
    };
    return unix[type];
  }
  const env = (n: string) => envGet(host.env, host.platform, n);
  const root = env("SystemRoot") ?? "C:\\Windows";
  const programFiles = [env("ProgramFiles"), env("ProgramW6432"), "C:\\Program Files"].filter((p): p is string => !!p);
  switch (type) {
    case "powershell":
      return [
        ...programFiles.map((p) => win32.join(p, "PowerShell", "7", "pwsh.exe")),
        win32.join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"),
      ];
    case "cmd":
      return [env("ComSpec"), win32.join(root, "System32", "cmd.exe")].filter((p): p is string => !!p && shellTypeFromPath(p) === "cmd");
    case "bash":
      return gitBashPaths(host);
    default:
      return [];
  }
}

function gitBashPaths(host: Host): string[] {
  const env = (n: string) => envGet(host.env, host.platform, n);
  const bases = [env("ProgramFiles"), env("ProgramW6432"), env("ProgramFiles(x86)"), "C:\\Program Files"]
    .filter((p): p is string => !!p)
    .map((p) => win32.join(p, "Git"));
  const local = env("LOCALAPPDATA");
  if (local) bases.push(win32.join(local, "Programs", "Git"));
  return [...new Set(bases.map((b) => win32.join(b, "bin", "bash.exe")))];
}

function isWslLauncher(path: string, host: Host): boolean {
  const root = (envGet(host.env, host.platform, "SystemRoot") ?? "C:\\Windows").toLowerCase();
  const p = path.toLowerCase();
  return p === win32.join(root, "System32", "bash.exe").toLowerCase() || p.includes("\\windowsapps\\");
}

/** The platform's shell of last resort: `/bin/sh` on Unix, `%ComSpec%`/`cmd.exe` on Windows. */
function lastResort(host: Host, tried: string[]): Shell {
  const candidates = host.platform === "win32" ? installPaths("cmd", host) : ["/bin/sh"];
  for (const path of candidates) {
    if (host.isExecutable(path)) {
      return withFallback({ type: host.platform === "win32" ? "cmd" : "sh", path, source: "last-resort" }, tried);
    }
    tried.push(`${path} does not exist or is not executable`);
  }
  const names: ShellType[] = host.platform === "win32" ? ["cmd"] : ["sh", "bash", "zsh"];
  for (const type of names) {
    const found = host.which(type);
    if (found) return withFallback({ type, path: found, source: "PATH" }, tried);
    tried.push(`${type} not found on PATH`);
  }
  throw new ShellNotFoundError("no usable shell on this machine", tried);
}

/** Try one candidate path (a configured shell): accepted only if its type is known and it is executable. */
function tryConfigured(path: string | null | undefined, source: string, host: Host, tried: string[]): Shell | undefined {
  if (!path) return undefined;
  const type = shellTypeFromPath(path);
  if (!type) {
    tried.push(refusal(path, source));
    return undefined;
  }
  const resolved = hasSeparator(path) ? path : host.which(path);
  if (resolved && host.isExecutable(resolved)) return withFallback({ type, path: resolved, source }, tried);
  tried.push(`${source} shell ${path} does not exist or is not executable`);
  return undefined;
}

function splitPowerShellPaths(paths: readonly string[]): [string[], string[]] {
  const isPwsh = (p: string) => p.toLowerCase().endsWith("pwsh.exe");
  return [paths.filter(isPwsh), paths.filter((p) => !isPwsh(p))];
}

function detectWindows(host: Host, tried: string[]): Shell {
  // Git Bash is used only when configured: $SHELL names a bash (Git Bash's own terminals set it).
  const shellVar = envGet(host.env, host.platform, "SHELL");
  if (shellVar && shellTypeFromPath(shellVar) === "bash") {
    const candidates = /^[a-zA-Z]:|\\/.test(shellVar) ? [shellVar, ...gitBashPaths(host)] : gitBashPaths(host);
    const found = candidates.find((p) => host.isExecutable(p));
    if (found) return withFallback({ type: "bash", path: found, source: "git-bash" }, tried);
    tried.push(`env:SHELL names ${shellVar} but no Git Bash installation was found`);
  }
  // pwsh (PATH, then its install paths) before Windows PowerShell, as PowerShell 7 is what users install.
  const [pwshPaths, winPsPaths] = splitPowerShellPaths(installPaths("powershell", host));
  for (const [name, paths] of [["pwsh", pwshPaths], ["powershell", winPsPaths]] as const) {
    const found = host.which(name) ?? paths.find((p) => host.isExecutable(p));
    if (found) {
      const source = host.which(name) === found ? "PATH" : "install-path";
      return withFallback({ type: "powershell", path: found, source }, tried);
    }
    tried.push(`${name} not found on PATH or in ${paths.join(", ") || "its install paths"}`);
  }
  const comspec = envGet(host.env, host.platform, "ComSpec");
  if (comspec && shellTypeFromPath(comspec) !== "cmd") {
    tried.push(`env:ComSpec ${comspec} is not cmd.exe`);
  } else if (comspec && host.isExecutable(comspec)) {
    return withFallback({ type: "cmd", path: comspec, source: "env:ComSpec" }, tried);
  }
  return lastResort(host, tried);
}

/**
 * The user's default shell. Unix: the user database's login shell, then `$SHELL`, then `/bin/sh`.
 * Windows: Git Bash when `$SHELL` names bash and Git is installed, else `pwsh`, else Windows
 * PowerShell, else `%ComSpec%` / `cmd.exe`. A configured shell we cannot drive (fish, nushell...) or
 * cannot find is skipped and named in `fallback`; it is never run as if it were bash.
 * @throws ShellNotFoundError when not even the last resort exists.
 */
export function detectUserShell(opts?: DetectOptions): Shell {
  const host = resolveHost(opts);
  const tried: string[] = [];
  if (host.platform === "win32") return detectWindows(host, tried);
  const seen = new Set<string>();
  for (const [path, source] of [[host.userShell, "passwd"], [envGet(host.env, host.platform, "SHELL"), "env:SHELL"]] as const) {
    if (!path || seen.has(path)) continue;
    seen.add(path);
    const shell = tryConfigured(path, source, host, tried);
    if (shell) return shell;
  }
  return lastResort(host, tried);
}

const RequestedSchema = z.string().optional();

/**
 * The shell to run a command in. `requested` absent (or blank) means the user's default shell —
 * never a hard-coded `/bin/bash`. Otherwise its type comes from the name, and the binary is, in
 * order: the given path if it exists, the user's login shell if of that type, a PATH lookup, the
 * usual install paths; failing all that (or for an unknown type) the platform's last resort,
 * reported in `fallback`.
 * @throws InvalidShellArgumentError when `requested` is not a string.
 * @throws ShellNotFoundError when not even the last resort exists.
 */
export function resolveShell(requested?: string, opts?: DetectOptions): Shell {
  const parsed = RequestedSchema.safeParse(requested);
  if (!parsed.success) throw new InvalidShellArgumentError("requested", "must be a string naming a shell or a path to one");
  const name = parsed.data?.trim();
  if (!name) return detectUserShell(opts);
  const host = resolveHost(opts);
  const tried: string[] = [];
  const type = shellTypeFromPath(name);
  if (!type) {
    tried.push(refusal(name, "requested"));
    return lastResort(host, tried);
  }
  if (hasSeparator(name)) {
    if (host.isExecutable(name)) return { type, path: name, source: "requested" };
    tried.push(`requested shell ${name} does not exist or is not executable`);
  }
  if (host.userShell && shellTypeFromPath(host.userShell) === type && host.isExecutable(host.userShell)) {
    return withFallback({ type, path: host.userShell, source: "passwd" }, tried);
  }
  if (host.platform === "win32" && type === "bash") {
    // On Windows a plain `bash` on PATH is usually WSL's launcher, which runs the command in a Linux VM
    // outside the Windows sandbox; Git Bash is what a Windows user means.
    const git = gitBashPaths(host).find((p) => host.isExecutable(p));
    if (git) return withFallback({ type, path: git, source: "git-bash" }, tried);
  }
  const names = hasSeparator(name) ? BINARIES[type] : [...new Set([name, ...BINARIES[type]])];
  for (const bin of names) {
    const found = host.which(bin);
    if (found && host.platform === "win32" && type === "bash" && isWslLauncher(found, host)) {
      tried.push(`${found} is the WSL launcher, not a Windows bash`);
      continue;
    }
    if (found) return withFallback({ type, path: found, source: "PATH" }, tried);
  }
  tried.push(`${names.join("/")} not found on PATH`);
  for (const path of installPaths(type, host)) {
    if (host.isExecutable(path)) return withFallback({ type, path, source: "install-path" }, tried);
  }
  return lastResort(host, tried);
}
